# tests/interrupt.sh: SIGINT and SIGTERM mid-run keep finished levels and leave nothing behind.
. "$(dirname "$0")/lib.sh"

printf '1 getppid\n1 creat\n' >"$test_dir/wf"

# interrupt SIGNAL STATUS: signal the driver during a level, the third
# when the machine keeps up.
interrupt() {
	sig=$1 want=$2
	rm -rf "$out"/*
	# Not through a shell function: $! must be the driver itself (env
	# execs it), and a background subshell would ignore SIGINT.
	env AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" run --levels 1,2,3,4,5 -t 3 \
		-w 0.3 -d "$scratch" -o "$out" "$test_dir/wf" \
		>"$test_dir/stdout" 2>"$test_dir/stderr" &
	pid=$!
	# Two finished levels are on disk before the third starts; then wait
	# into its window, 2.5 s before its end: a driver that finished the
	# level before it stopped would take longer to exit than lib.sh
	# allows an unsanitized build. A busy machine can run this shell so
	# late that the third level is over by then, so the driver is held
	# still (SIGSTOP) while the levels it has finished are counted, and
	# the signal is waiting for it when it goes on.
	wait_for_levels 2
	sleep 0.8
	kill -STOP "$pid" 2>/dev/null || fail "$sig: the run ended before the signal"
	finished=$(jq '.levels | length' "$json")
	kill -"$sig" "$pid"
	start=$(date +%s%N)
	kill -CONT "$pid"
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
	# Exactly the levels finished before the signal, none cut short by
	# it. One more than were counted only if it is whole: the driver
	# may have been stopped after its level's end and before writing it.
	jq_check "$json" "(.levels | length) as \$n |
		\$n == $finished or \$n == $finished + 1 and
		.levels[-1].window_s >= .params.runtime_s" \
		"$sig: exactly the $finished levels finished before the signal"
	jq_check "$json" '[.levels[].users] == [range(1; (.levels | length) + 1)] and
		(.levels | length) >= 2' "$sig: the levels in order"
	jq_check "$json" '[.levels[].status == "ok"] | all' "$sig: finished levels ok"
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
# Held still while the repeats it has finished are counted, as above: [2, 1]
# when this shell keeps up.
kill -STOP "$pid" 2>/dev/null || fail "interleaved: the run ended before the signal"
repeats=$(jq -c '[.levels[].repeats.n]' "$json")
kill -INT "$pid"
kill -CONT "$pid"
wait "$pid"
got=$?
[ "$got" = 130 ] || fail "interleaved: exit status $got, want 130"
jq_check "$json" '.status == "interrupted" and .params.repeat_order == "interleaved"' "interleaved: status"
check_documented "$json"
# The repeats counted, or one more if the driver was stopped between a
# repeat's end and its writing: a whole one, with ops (a repeat cut short
# by the signal has none). And the second round had begun.
jq_check "$json" "[.levels[].repeats.n] as \$r | $repeats as \$seen |
	(\$r | length) == 2 and \$seen[0] >= 2 and
	(\$r == \$seen or ([range(2) | \$r[.] - \$seen[.]] | sort) == [0, 1] and
	 ([.levels[].repeats.runs_jobs_per_min[] > 0] | all)) and
	([.levels[].status] | all(. == \"ok\"))" \
	"interleaved: the repeats each level finished ($repeats when stopped)"
[ "$(awk '$1 ~ /^[0-9]+$/ { print $1 }' "$test_dir/stdout" | paste -sd' ')" = "1 2" ] ||
	fail "interleaved: table rows: $(cat "$test_dir/stdout")"
check_no_processes
check_scratch_empty
pass
