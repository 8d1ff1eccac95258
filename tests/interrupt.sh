# tests/interrupt.sh: SIGINT and SIGTERM mid-run keep finished levels and leave nothing behind.
. "$(dirname "$0")/lib.sh"

printf '1 getppid\n1 creat\n' >"$test_dir/wf"

# interrupt SIGNAL STATUS: signal the driver during the third level.
interrupt() {
	sig=$1 want=$2
	rm -rf "$out"/*
	# Not through a shell function: $! must be the driver itself (env
	# execs it), and a background subshell would ignore SIGINT.
	env AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" run --levels 1,2,3,4,5 -t 2 \
		-w 1 -d "$scratch" -o "$out" "$test_dir/wf" \
		>"$test_dir/stdout" 2>"$test_dir/stderr" &
	pid=$!
	# Two finished levels are on disk before the third starts; then wait
	# into its window.
	wait_for_levels 2
	sleep 1.5
	start=$(date +%s%N)
	kill -"$sig" "$pid"
	wait "$pid"
	got=$?
	elapsed_ms=$((($(date +%s%N) - start) / 1000000))
	[ "$got" = "$want" ] || fail "$sig: exit status $got, want $want"
	[ "$elapsed_ms" -lt "$exit_limit_ms" ] ||
		fail "$sig: took $elapsed_ms ms to exit, want under $exit_limit_ms"
	echo "SIG$sig: exit after $elapsed_ms ms"
	jq_check "$json" '.status == "interrupted"' "$sig: status"
	check_documented "$json"
	jq_check "$json" ".interrupted_by == \"SIG$sig\"" "$sig: interrupted_by"
	jq_check "$json" '[.levels[].users] == [1, 2]' "$sig: exactly the finished levels"
	jq_check "$json" '[.levels[].status] == ["ok", "ok"]' "$sig: finished levels ok"
	grep -q "interrupted by SIG$sig" "$test_dir/stderr" || fail "$sig: no message"
	check_no_processes
	check_scratch_empty
}

interrupt INT 130
interrupt TERM 143
interrupt HUP 129

# Interleaved repeats: a run stopped in its second round keeps every
# level, each with the repeats it finished, and the table shows them.
rm -rf "$out"/*
env AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" run --levels 1,2 -r 3 \
	-t 1 -w 0.3 -d "$scratch" -o "$out" "$test_dir/wf" \
	>"$test_dir/stdout" 2>"$test_dir/stderr" &
pid=$!
wait_for_levels 2
for i in $(seq 1 100); do
	[ "$(jq '.levels[0].repeats.n' "$json")" = 2 ] && break
	sleep 0.1
done
kill -INT "$pid"
wait "$pid"
got=$?
[ "$got" = 130 ] || fail "interleaved: exit status $got, want 130"
jq_check "$json" '.status == "interrupted" and .params.repeat_order == "interleaved"' "interleaved: status"
check_documented "$json"
jq_check "$json" '[.levels[].repeats.n] == [2, 1] and ([.levels[].status] | all(. == "ok"))' "interleaved: the repeats each level finished"
[ "$(awk '$1 ~ /^[0-9]+$/ { print $1 }' "$test_dir/stdout" | paste -sd' ')" = "1 2" ] ||
	fail "interleaved: table rows: $(cat "$test_dir/stdout")"
check_no_processes
check_scratch_empty
pass
