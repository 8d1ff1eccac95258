# tests/lock-bpf.sh: the in-kernel lock collector counts each level's whole window: the shared directory's lock rises with the users, the span is the window, lost events are counted and said, and a user without the privilege is refused before any level.
. "$(dirname "$0")/lib.sh"

wf=$AIMSWEEP_WORKFILES/creat-contention

"$AIMSWEEP" version | grep -q '^lock profile: in-kernel collector' ||
	skip "built without the in-kernel collector: $("$AIMSWEEP" version | tail -n 1)"
[ "$(id -u)" = 0 ] || skip "loading the collector needs root"
[ -r /sys/kernel/btf/vmlinux ] ||
	skip "no kernel BTF (/sys/kernel/btf/vmlinux): the collector cannot attach"

# Without the privilege: one line before any level, exit 2, nothing
# written.
run_unprivileged "$wf" --lock-profile --levels 1,2 -t 1
[ "$got" = 2 ] || {
	cat "$test_dir/stderr" >&2
	fail "--lock-profile as uid 65534: exit status $got, want 2"
}
expect_stderr '^aimsweep: --lock-profile needs root, or CAP_BPF and CAP_PERFMON'
[ "$(grep -vc '^aimsweep: warning: ' "$test_dir/stderr")" = 1 ] ||
	fail "the refusal is not one line: $(cat "$test_dir/stderr")"
! grep -q '^ *[0-9]' "$test_dir/stdout" ||
	fail "a level ran: $(cat "$test_dir/stdout")"
[ -z "$left" ] || fail "a refused run left $left"

# A ramp: the collector is the method, said once; every level's span is
# its window; the directory's rw_semaphore, taken for writing by creat
# (path_openat) and unlink (do_unlinkat), is waited on more as users are
# added.
expect_status 0 run_aimsweep run --lock-profile --levels 1,2,4,8 -t 2 \
	-w 0.5 -d "$scratch" -o "$out" "$wf"
[ "$(grep -c 'lock profile: ' "$test_dir/stderr")" = 1 ] ||
	fail "the method is not said once: $(cat "$test_dir/stderr")"
expect_stderr '^aimsweep: lock profile: in-kernel collector, the whole window of each level'
json=$(latest_result)
[ -f "$json" ] || fail "no result.json in $out"
check_documented "$json"
jq_check "$json" '[.levels[].status] == ["ok", "ok", "ok", "ok"]' "levels ok"
jq_check "$json" '[.levels[].lock_profile | .method == "bpf" and
	(.why | test("in-kernel")) and .offset_s == 0] | all' \
	"every level's method is the collector, from t0"
jq_check "$json" '[.levels[] | (.lock_profile.covered_s - .window_s) |
	fabs < 0.01 * 2] | all' "each level covers its window, within 1%"
# Nothing is lost for want of room. An end the program cannot pair is
# counted (no_begin): its begin ran while another BPF program held that
# CPU, or before the collector attached, which a busy machine makes
# happen now and then; a pairing that failed would lose most ends.
jq_check "$json" '[.levels[] | .lock_profile as $p |
	([.lock_contention[].contended] | add // 0) as $seen |
	$p.lost.callers_full == 0 and $p.lost.tasks_full == 0 and
	$p.lost_events == $p.lost.no_begin and
	$p.lost.no_begin <= 2 + $seen / 100] | all' \
	"no wait lost for want of room, and almost every end paired"
jq_check "$json" '[.levels[].lock_contention | length <= 10] | all' \
	"at most --lock-profile-top (10) entries"
# Every row has its stack, but those of the waits whose stack could not
# be taken (the stack map's bucket held another: more likely the more
# the rest of the machine waits), which are summed under "[unknown]"
# and counted as stacks_unknown.
jq_check "$json" '[.levels[] | .lock_profile.stacks_unknown as $unknown |
	.lock_contention[] |
	(.caller | length) > 0 and .total_wait_ns >= .max_wait_ns and
	.contended == ([.rows[].contended] | add) and
	.total_wait_ns == ([.rows[].total_wait_ns] | add) and
	(([.rows[].callstack | length >= 1] | all) or
	 (.caller == "[unknown]" and $unknown > 0))] | all' \
	"entries are whole, and the sums of their rows"
jq_check "$json" '[.levels[].lock_contention | [.[].total_wait_ns] |
	. == (sort | reverse)] | all' "entries sorted by total wait"
# The directory lock's wait per level, in ns.
dir_wait='[.levels[] | [.lock_contention[] | select(.type == "rwsem:W" and
	(.caller | test("^(path_openat|do_unlinkat|open_last_lookups|filename_create|do_filp_open)\\+")))
	| .total_wait_ns] | add // 0]'
# The collector counts the whole machine's waits, so a test that creates
# files beside this one (make -j check) adds to any level it overlaps:
# when the growth is not seen, the ramp runs once more before it counts
# as missing.
grows="$dir_wait"' | .[3] > 0 and .[3] > .[0] and .[3] > .[1] and .[2] > .[0]'
if ! jq -e "$grows" "$json" >/dev/null; then
	echo "# directory wait $(jq -c "$dir_wait" "$json") did not grow;" \
		"the machine may be busy: the ramp runs again"
	expect_status 0 run_aimsweep run --lock-profile --levels 1,2,4,8 \
		-t 2 -w 0.5 -d "$scratch" -o "$out" "$wf"
	json=$(latest_result)
fi
jq_check "$json" "$grows" \
	"the directory's rwsem:W wait grows from 1 to 8 users (got $(jq -c "$dir_wait" "$json"))"
check_no_processes
check_scratch_empty

# A slice: --lock-profile-seconds covers the first second of the window,
# from t0 even beside the CPU profile's slice (the collector takes no
# turn: it costs too little to need one).
expect_status 0 run_aimsweep run --lock-profile --lock-profile-seconds 1 \
	--cpu-profile --levels 4 -t 2 -w 0.5 -d "$scratch" -o "$out" "$wf"
expect_stderr 'in-kernel collector, the first 1 s of each window'
json=$(latest_result)
jq_check "$json" '.levels[0].status == "ok" and
	.levels[0].lock_profile.offset_s == 0 and
	.levels[0].lock_profile.covered_s == 1 and
	.params.lock_profile.seconds == 1' "1 s covered of the 2 s window"

# Room for one caller only: the waits of every other one are lost,
# counted in the level, and said on standard error.
export AIMSWEEP_TEST_LOCK_BPF=keys:1
expect_status 0 run_aimsweep run --lock-profile --levels 8 -t 1 -w 0.5 \
	-d "$scratch" -o "$out" "$wf"
unset AIMSWEEP_TEST_LOCK_BPF
json=$(latest_result)
jq_check "$json" '.levels[0].lock_profile | .lost.callers_full > 0 and
	.lost_events == .lost.no_begin + .lost.callers_full' \
	"a full map's waits are counted as lost"
jq_check "$json" '[.levels[0].lock_contention[] | select(.contended > 0)] |
	length == 1' "the one caller there was room for is kept (waits still
	going on at t1 add their time, uncounted, to others)"
expect_stderr '8 users: the lock profile lost [0-9]* waits'
check_no_processes
check_scratch_empty
pass
