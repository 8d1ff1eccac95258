# tests/lock-profile.sh: --lock-profile with perf lock record (asked for, or in place of an in-kernel collector that cannot load) puts each level's kernel lock contention in result.json.
. "$(dirname "$0")/lib.sh"

# Usage errors need neither root nor perf.
expect_status 2 run_aimsweep run --lock-profile-seconds 1 --levels 1 -t 1 \
	-o "$out" creat-contention
expect_stderr '--lock-profile-seconds needs --lock-profile'
expect_status 2 run_aimsweep run --lock-profile --lock-profile-top 0 \
	--levels 1 -t 1 -o "$out" creat-contention
expect_stderr '--lock-profile-top'
expect_status 2 run_aimsweep run --lock-profile --lock-profile-seconds 0 \
	--levels 1 -t 1 -o "$out" creat-contention
expect_stderr '--lock-profile-seconds'
expect_status 2 run_aimsweep run --lock-method perf --levels 1 -t 1 \
	-o "$out" creat-contention
expect_stderr '--lock-method needs --lock-profile'
expect_status 2 run_aimsweep run --lock-profile --lock-method kprobe \
	--levels 1 -t 1 -o "$out" creat-contention
expect_stderr "'kprobe' is not auto, bpf or perf"
# Asked for by name, an in-kernel collector that cannot load is not
# replaced by perf: the run is refused before any level.
export AIMSWEEP_TEST_LOCK_BPF=unavailable
expect_status 2 run_aimsweep run --lock-profile --lock-method bpf \
	--levels 1 -t 1 -o "$out" creat-contention
expect_stderr '^aimsweep: --lock-method bpf: cannot load the in-kernel lock collector'
[ -z "$(ls -A "$out")" ] || fail "a refused run wrote to $out"

[ "$(id -u)" = 0 ] || skip "recording lock events needs root"
need perf
# What aimsweep checks before its first level: perf records lock events.
perf lock record -a -o "$test_dir/check.data" -- sleep 0.1 \
	>/dev/null 2>&1 && [ -s "$test_dir/check.data" ] ||
	skip "perf lock record cannot record lock events here"
rm -f "$test_dir/check.data" "$test_dir/check.data.old"

# Two levels, profiles deleted after each. The in-kernel collector is
# made to fail as on a kernel without its tracepoints: auto falls back to
# perf lock record, says so once before the first level, and records why
# in each level.
expect_status 0 run_aimsweep run --lock-profile --levels 1,4 -t 2 -w 1 \
	-d "$scratch" -o "$out" creat-contention
unset AIMSWEEP_TEST_LOCK_BPF
[ "$(grep -c 'lock profile: ' "$test_dir/stderr")" = 1 ] ||
	fail "the method is not said once: $(cat "$test_dir/stderr")"
expect_stderr '^aimsweep: lock profile: perf lock record: cannot load the in-kernel lock collector'
json=$(latest_result)
[ -f "$json" ] || fail "no result.json in $out"
check_documented "$json"
run_dir=$(dirname "$json")
jq_check "$json" '[.levels[].status] == ["ok", "ok"]' "levels ok"
# How each level's profile was taken: perf here, over the first 1 s.
jq_check "$json" '.params.lock_profile.method == "auto"' "method asked: auto"
jq_check "$json" '[.levels[].lock_profile | .method == "perf" and
	(.why | test("^perf lock record: cannot load the in-kernel")) and
	.offset_s == 0 and .covered_s == 1 and
	(has("lost") or has("lost_events") or has("stacks_unknown") | not)] |
	all' "each level's lock_profile: perf and why, 1 s from t0, no lost counts"
jq_check "$json" '[.levels[].lock_contention | type] == ["array", "array"]' \
	"every level has a lock_contention list"
jq_check "$json" '[.levels[].lock_contention | length <= 10] | all' \
	"at most --lock-profile-top (10) entries"
jq_check "$json" '[.levels[].lock_contention[] |
	(.caller | type) == "string" and (.type | length) > 0 and
	.contended >= 1 and .total_wait_ns >= .max_wait_ns and
	.max_wait_ns >= .avg_wait_ns and .avg_wait_ns > 0] | all' \
	"entries are whole and consistent"
jq_check "$json" '[.levels[].lock_contention | [.[].total_wait_ns] |
	. == (sort | reverse)] | all' "entries sorted by total wait"
# One entry per caller and type, the sum of its rows, each row with its
# call stack; lines perf could not pair are counted, not kept.
jq_check "$json" '[.levels[].lock_contention | [.[] | [.caller, .type]] |
	length == (unique | length)] | all' "one entry per caller and type"
jq_check "$json" '[.levels[].lock_contention[] | (.rows | length) >= 1 and
	.contended == ([.rows[].contended] | add) and
	.total_wait_ns == ([.rows[].total_wait_ns] | add) and
	.max_wait_ns == ([.rows[].max_wait_ns] | max) and
	([.rows[].callstack | type == "array"] | all)] | all' \
	"entries are the merge of their rows"
jq_check "$json" '[.levels[].lock_rows_dropped | type == "number" and . >= 0] |
	all' "every level counts its dropped lines"
jq_check "$json" '[.levels[].lock_contention[] |
	.max_wait_ns < 0.95 * 1e9] | all' "no wait as long as the 1 s capture"
# perf 6.1 calls the directory's inode lock (i_rwsem, taken for write by
# creat and unlink) "rwsem:W"; four users in one directory contend on it.
jq_check "$json" '[.levels[1].lock_contention[] | select(.type == "rwsem:W"
	and (.caller | test("unlink|open|creat|lookup")))] | length > 0' \
	"the shared directory's rwsem:W is contended at 4 users"
for users in 1 4; do
	d=$run_dir/level-$users
	[ -s "$d/lock-contention.txt" ] || fail "no $d/lock-contention.txt"
	[ ! -e "$d/perf.data" ] || fail "$d/perf.data kept without --keep-profiles"
done
grep -q 'rwsem:W' "$run_dir/level-4/lock-contention.txt" ||
	fail "perf's report lacks rwsem:W"
check_no_processes
check_scratch_empty

# --keep-profiles keeps perf.data; --lock-profile-top limits the list.
# The capture is as long as the first run's: a shorter one, on a machine
# busy with the other tests, has found no contention it could pair.
expect_status 0 run_aimsweep run --lock-profile --lock-method perf --keep-profiles \
	--lock-profile-top 1 --lock-profile-seconds 1 --levels 4 -t 2 \
	-w 0.5 -d "$scratch" -o "$out" creat-contention
json=$(latest_result)
run_dir=$(dirname "$json")
jq_check "$json" '.levels[0].status == "ok"' "level ok"
jq_check "$json" '.params.lock_profile.method == "perf" and
	(.levels[0].lock_profile.why | test("--lock-method perf"))' \
	"--lock-method perf recorded, and said as why"
jq -e '.levels[0].lock_contention | length == 1' "$json" >/dev/null || {
	jq -c '.levels[0] | {lock_contention, lock_rows_dropped}' "$json" >&2
	cat "$run_dir/level-4/lock-contention.txt" >&2
	fail "--lock-profile-top 1 keeps one entry"
}
[ -s "$run_dir/level-4/perf.data" ] || fail "--keep-profiles: no perf.data"
perf lock contention -i "$run_dir/level-4/perf.data" 2>&1 |
	grep -q 'contended' || fail "the kept perf.data does not read back"
check_no_processes
check_scratch_empty
pass
