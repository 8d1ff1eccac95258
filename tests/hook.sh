# tests/hook.sh: --hook runs a command in each level's window, with the level in its environment, and ends it with the level.
. "$(dirname "$0")/lib.sh"

expect_status 2 run_aimsweep run --hook '' --levels 1 -t 1 -o "$out" \
	creat-contention
expect_stderr '--hook: the command is empty'

# A hook that outlives its level is ended with SIGTERM.
hook='env | grep ^AIMSWEEP_ > "$AIMSWEEP_LEVEL_DIR/env.txt"; sleep 30'
start=$(date +%s)
expect_status 0 run_aimsweep run --hook "$hook" --levels 1,2 -t 1 -w 0.5 \
	-d "$scratch" -o "$out" creat-contention
elapsed=$(($(date +%s) - start))
[ "$elapsed" -lt 20 ] || fail "the run took $elapsed s: the hook was waited for"
json=$(latest_result)
[ -f "$json" ] || fail "no result.json in $out"
check_documented "$json"
run_dir=$(cd "$(dirname "$json")" && pwd -P)
i=0
for users in 1 2; do
	i=$((i + 1))
	d=$run_dir/level-$users
	env_file=$d/env.txt
	[ -f "$env_file" ] || fail "no $env_file: the hook did not run"
	for want in "AIMSWEEP_USERS=$users" "AIMSWEEP_LEVEL=$i" \
	    "AIMSWEEP_RUNTIME=1" "AIMSWEEP_LEVEL_DIR=$d"; do
		grep -qx "$want" "$env_file" ||
			fail "level $i: env.txt lacks $want: $(cat "$env_file")"
	done
	jq_check "$json" ".levels[$((i - 1))].status == \"ok\"" "level $i ok"
	jq_check "$json" ".levels[$((i - 1))].hook.signal == \"SIGTERM\"" \
		"level $i: hook ended by SIGTERM"
	jq_check "$json" ".levels[$((i - 1))].hook | has(\"exit_status\") | not" \
		"level $i: a signalled hook has no exit_status"
	jq_check "$json" ".levels[$((i - 1))].hook.output_dir == \"$d\"" \
		"level $i: hook output_dir"
done
for cmd in "$(jq -r '.levels[0].hook.command' "$json")" \
    "$(jq -r '.levels[1].hook.command' "$json")"; do
	[ "$cmd" = "$hook" ] || fail "hook command recorded as '$cmd'"
done
# The hook's sleep carries the test's tag: none may be left.
check_no_processes
check_scratch_empty

# A hook that ends by itself keeps its exit status, and its output.
expect_status 0 run_aimsweep run \
	--hook 'echo "to stdout"; echo "to stderr" >&2; exit 3' \
	--levels 1 -t 1 -w 0 -d "$scratch" -o "$out" creat-contention
json=$(latest_result)
run_dir=$(dirname "$json")
jq_check "$json" '.levels[0].hook.exit_status == 3' "exit status 3 recorded"
jq_check "$json" '.levels[0].hook | has("signal") | not' "no signal recorded"
grep -qx 'to stdout' "$run_dir/level-1/hook.out" || fail "hook.out lacks stdout"
grep -qx 'to stderr' "$run_dir/level-1/hook.out" || fail "hook.out lacks stderr"
expect_stderr "warning: the hook of the 1-user level exited with status 3; its output is in $(cd "$run_dir" && pwd -P)/level-1/hook.out"
# One ended by the level's SIGTERM is the rule, whatever status its shell
# then gives: no warning.
expect_status 0 run_aimsweep run --hook 'trap "exit 143" TERM; sleep 30 & wait' \
	--levels 1 -t 1 -w 0 -d "$scratch" -o "$out" creat-contention
grep -q 'the hook' "$test_dir/stderr" && fail "warned about a hook ended at the level's end: $(cat "$test_dir/stderr")"
jq_check "$(latest_result)" '.levels[0].hook.exit_status == 143' \
	"the status the hook gave its SIGTERM is recorded"

# A user count given twice gets a directory per level, not a shared one.
expect_status 0 run_aimsweep run --hook 'echo "$AIMSWEEP_LEVEL"' \
	--levels 1,2,1 -t 0.5 -w 0 -d "$scratch" -o "$out" creat-contention
json=$(latest_result)
run_dir=$(dirname "$json")
for d in level-1:1 level-2:2 level-1.2:3; do
	[ "$(cat "$run_dir/${d%:*}/hook.out")" = "${d#*:}" ] ||
		fail "${d%:*}/hook.out: '$(cat "$run_dir/${d%:*}/hook.out")', want ${d#*:}"
done
jq_check "$json" ".levels[2].hook.output_dir == \"$(cd "$run_dir" && pwd -P)/level-1.2\"" \
	"the second 1-user level's output_dir"

# A level that fails still says what its hook did.
export AIMSWEEP_TEST_FAULT=crash:0:0.3
expect_status 1 run_aimsweep run --hook 'sleep 30' --levels 1 -t 2 -w 0 \
	-d "$scratch" -o "$out" creat-contention
unset AIMSWEEP_TEST_FAULT
json=$(latest_result)
check_documented "$json"
jq_check "$json" '.levels[0].status == "failed"' "the crashed level failed"
jq_check "$json" '.levels[0].hook.signal == "SIGTERM"' \
	"the failed level records its hook"
jq_check "$json" '.levels[0] | has("jobs_per_min") | not' \
	"the failed level has no throughput"
check_no_processes

# A hook that ignores SIGTERM is killed.
expect_status 0 run_aimsweep run --hook 'trap "" TERM; sleep 30' \
	--levels 1 -t 1 -w 0 -d "$scratch" -o "$out" creat-contention
json=$(latest_result)
jq_check "$json" '.levels[0].hook.signal == "SIGKILL"' \
	"a hook deaf to SIGTERM is killed"
check_no_processes

# Interrupted mid-level: the hook goes with the driver. The wait below is
# for this run's hook.out, so no earlier run's may be there.
rm -rf "${out:?}"/*
env AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" run --hook 'sleep 30' \
	--levels 1,2 -t 5 -w 0 -d "$scratch" -o "$out" creat-contention \
	>"$test_dir/stdout" 2>"$test_dir/stderr" &
pid=$!
for _ in $(seq 1 100); do
	[ -n "$(ls "$out"/*/level-1/hook.out 2>/dev/null)" ] && break
	sleep 0.1
done
sleep 0.5
kill -INT "$pid"
wait "$pid"
got=$?
[ "$got" = 130 ] || fail "interrupted run: exit status $got, want 130"
check_no_processes
check_scratch_empty

# The driver killed outright: what the hook started goes too.
rm -rf "$out"/*
env AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" run --hook 'sleep 30; true' \
	--levels 1 -t 5 -w 0 -d "$scratch" -o "$out" creat-contention \
	>"$test_dir/stdout" 2>"$test_dir/stderr" &
pid=$!
for _ in $(seq 1 100); do
	[ -n "$(ls "$out"/*/level-1/hook.out 2>/dev/null)" ] && break
	sleep 0.1
done
sleep 0.5
kill -KILL "$pid"
wait "$pid"
for _ in $(seq 1 20); do
	[ -z "$(tagged_pids)" ] && break
	sleep 0.1
done
check_no_processes
pass
