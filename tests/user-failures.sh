# tests/user-failures.sh: a user that crashes, is killed, exits non-zero or hangs fails its level.
. "$(dirname "$0")/lib.sh"

printf '1 getppid\n' >"$test_dir/wf"

# check_failed_level KIND WANT_REASON [options...]: user 1 misbehaves, so
# the 2-user level fails and the 1-user level around it does not.
check_failed_level() {
	local kind=$1 want=$2
	shift 2
	rm -rf "$out"/*
	# (Short levels: the ok ones need only end ok, and the failed one
	# ends when user 1 misbehaves, whatever its window.)
	AIMSWEEP_TEST_FAULT="$kind:1:0.1" expect_status 1 run_aimsweep run \
		--levels 1,2,1 -t 0.5 -w 0.2 -d "$scratch" -o "$out" "$@" \
		"$test_dir/wf"
	json=$(latest_result)
	check_documented "$json"
	jq_check "$json" '.status == "failed"' "$kind: run status failed"
	jq_check "$json" '[.levels[].status] == ["ok", "failed", "ok"]' "$kind: level statuses"
	jq_check "$json" ".levels[1].reason | test(\"$want\")" "$kind: reason names $want"
	# A failed level carries no numbers that could pass for a result.
	jq_check "$json" '.levels[1] | has("jobs_per_min") or has("jobs") | not' "$kind: no throughput in a failed level"
	jq_check "$json" '.summary.levels_failed == 1 and .summary.levels_ok == 2' "$kind: summary"
	grep -q 'FAILED' "$test_dir/stdout" || fail "$kind: table does not say FAILED"
	check_no_processes
	check_scratch_empty
}

check_failed_level crash 'user 1 .*signal 11 \\(SIGSEGV\\)'
check_failed_level kill 'user 1 .*signal 9 \\(SIGKILL\\)'
check_failed_level exit 'user 1 .*exited with status 6'
# The grace is the time a healthy user gets to park: beside a 1000-user
# fserver level (a sibling test under -j2) user 0 of this run took up to
# 1 s, and a grace of 0.5 s failed it as stuck too.
check_failed_level hang 'user 1 .*stuck.*after the window' --grace 3
# Started with SIGCHLD ignored, as some parents leave it: the driver
# still sees the crash for what it is, not a user stuck after the window.
# (env(1) of coreutils 8.31 or later ignores it.)
if env --ignore-signal=CHLD true 2>/dev/null; then
	real=$AIMSWEEP
	printf '#!/bin/sh\nexec env --ignore-signal=CHLD "%s" "$@"\n' "$real" >"$test_dir/ignchld"
	chmod +x "$test_dir/ignchld"
	AIMSWEEP=$test_dir/ignchld check_failed_level crash 'user 1 .*signal 11 \\(SIGSEGV\\)'
	AIMSWEEP=$real
else
	not_checked "env has no --ignore-signal (coreutils 8.31): a crash under an ignored SIGCHLD"
fi
# Right after a failed level the scratch tree is empty again: user 1
# crashes once its job (disk_brd) has made its source file in its own
# directory, and a hook lists the tree at each level. The next level
# finds nothing of user 1; the first level's list shows the hook looked
# in the right place.
printf '1 disk_brd\n' >"$test_dir/wf-files"
rm -rf "$out"/*
AIMSWEEP_TEST_FAULT=crash:1:0.2 expect_status 1 run_aimsweep run \
	--hook "find '$scratch' -mindepth 1 >\"\$AIMSWEEP_LEVEL_DIR/tree\"" \
	--levels 1,2,1 -t 0.5 -w 0.5 -d "$scratch" -o "$out" "$test_dir/wf-files"
run_dir=$(dirname "$(latest_result)")
jq_check "$run_dir/result.json" '[.levels[].status] == ["ok", "failed", "ok"]' \
	"files left: level statuses"
grep -q '/u0/' "$run_dir/level-1/tree" ||
	fail "the hook saw no file of user 0 at the first level: $(cat "$run_dir/level-1/tree")"
if grep -q '/u1' "$run_dir/level-1.2/tree"; then
	fail "user 1's files outlived its failed level: $(cat "$run_dir/level-1.2/tree")"
fi
check_no_processes
check_scratch_empty
# A user that crashes inside a long window ends the level at the next
# interval sample, not at the window's end.
rm -rf "$out"/*
start=$(date +%s)
AIMSWEEP_TEST_FAULT=crash:1:0.7 expect_status 1 run_aimsweep run \
	--levels 2 -t 60 -w 0.2 -d "$scratch" -o "$out" "$test_dir/wf"
took=$(($(date +%s) - start))
[ "$took" -lt 20 ] || fail "in-window crash: the run took $took s of a 60 s window"
json=$(latest_result)
jq_check "$json" '.levels[0].status == "failed" and (.levels[0].reason | test("user 1 .*signal 11"))' "in-window crash: reason"
check_no_processes
check_scratch_empty
# A user that has no part in the 1-user level, woken for it but kept
# off its CPU until the driver has called the next level, joins that one
# once, under its own generation: the 2-user levels stay ok. (The
# 1-user level takes 0.5 s and its end, well under the lag.)
rm -rf "$out"/*
AIMSWEEP_TEST_FAULT=lag:1:2.5 expect_status 0 run_aimsweep run \
	--levels 2,1,2 -t 0.3 -w 0.2 -d "$scratch" -o "$out" "$test_dir/wf"
json=$(latest_result)
jq_check "$json" '[.levels[].status] == ["ok", "ok", "ok"]' "lag: level statuses"
check_no_processes
check_scratch_empty
# Interleaved repeats: the failed level is not run again, the others go
# on with their rounds, and the table keeps the ramp's order.
check_failed_level crash 'user 1 .*signal 11 \\(SIGSEGV\\)' -r 2
jq_check "$json" '[.levels[].repeats.n] == [2, null, 2]' "interleaved: repeats of the ok levels"
[ "$(awk '$1 ~ /^[0-9]+$/ { print $1 }' "$test_dir/stdout" | paste -sd' ')" = "1 2 1" ] ||
	fail "interleaved: table rows out of order: $(cat "$test_dir/stdout")"
pass
