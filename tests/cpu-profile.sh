# tests/cpu-profile.sh: --cpu-profile puts each level's top CPU symbols (perf record -e cpu-clock) in result.json, the plot and compare.
. "$(dirname "$0")/lib.sh"

# Usage errors need neither root nor perf.
expect_status 2 run_aimsweep run --cpu-profile-seconds 1 --levels 1 -t 1 \
	-o "$out" creat-contention
expect_stderr '--cpu-profile-seconds needs --cpu-profile'
expect_status 2 run_aimsweep run --cpu-profile --cpu-profile-top 0 \
	--levels 1 -t 1 -o "$out" creat-contention
expect_stderr '--cpu-profile-top'
expect_status 2 run_aimsweep run --cpu-profile --cpu-profile-seconds 0.01 \
	--levels 1 -t 1 -o "$out" creat-contention
expect_stderr '--cpu-profile-seconds'
expect_status 2 run_aimsweep run --keep-profiles --levels 1 -t 1 \
	-o "$out" creat-contention
expect_stderr '--keep-profiles needs --lock-profile or --cpu-profile'

# The plot panel and compare's lines, from a result given CPU profiles
# by hand: a kernel symbol is one line across levels, and a level that
# did not keep it breaks the line.
expect_status 0 run_aimsweep run --levels 1,2,4 -t 0.3 -w 0 -d "$scratch" \
	-o "$out" creat-contention
plain=$(latest_result)
jq '.params.cpu_profile = { seconds: 1, top: 2 } |
    .levels[0].cpu_profile = { samples: 1000, symbols: [
	{ symbol: "osq_lock", kind: "kernel", samples: 10, share: 0.01 },
	{ symbol: "main", kind: "user", samples: 5, share: 0.005 } ] } |
    .levels[1].cpu_profile = { samples: 1000, symbols: [
	{ symbol: "main", kind: "user", samples: 300, share: 0.3 },
	{ symbol: "other", kind: "kernel", samples: 100, share: 0.1 } ] } |
    .levels[2].cpu_profile = { samples: 2000, symbols: [
	{ symbol: "osq_lock", kind: "kernel", samples: 500, share: 0.25 },
	{ symbol: "main", kind: "user", samples: 200, share: 0.1 } ] }' \
	"$plain" >"$test_dir/a.json" || fail "jq cannot edit $plain"
mkdir -p "$test_dir/empty" "$test_dir/plot"
env PATH="$test_dir/empty" "$AIMSWEEP" plot "$test_dir/a.json" \
	-o "$test_dir/plot/p.svg" 2>/dev/null || fail "plot of a.json"
grep -q "^set title 'top kernel symbols: share of all CPU samples" \
	"$test_dir/plot/p.gp" || fail "no CPU symbols panel"
grep -q "title .*'\[k\] osq_lock'" "$test_dir/plot/p.gp" ||
	fail "no line for [k] osq_lock"
# The panel is the kernel's: user space is every process's.
! grep -q "main'" "$test_dir/plot/p.gp" || fail "a line for [.] main"
# osq_lock's block: 1 user at 1%, a break at 2, 4 users at 25%.
awk '/^# index .*symbol/ { b = 1; next } b && /^$/ { print "gap"; next }
     b && /^[0-9]/ { print $1, $2 } /^# index/ { b = 0 }' \
	"$test_dir/plot/p.dat" | tr '\n' ' ' >"$test_dir/rows"
grep -Eq '(^| )1 1 gap 4 25 ' "$test_dir/rows" ||
	fail "osq_lock's rows are not '1 1 gap 4 25': $(cat "$test_dir/rows")"
# Without CPU profiles there is no such panel.
env PATH="$test_dir/empty" "$AIMSWEEP" plot "$plain" \
	-o "$test_dir/plot/q.svg" 2>/dev/null || fail "plot of $plain"
! grep -q "top kernel symbols" "$test_dir/plot/q.gp" ||
	fail "a CPU symbols panel without CPU profiles"
# compare: at 4 users osq_lock rose from below A's floor (main, 10%) to
# 25%: at least 15 points.
jq '.levels[2].cpu_profile.symbols = [
	{ symbol: "main", kind: "user", samples: 400, share: 0.2 },
	{ symbol: "osq_lock", kind: "kernel", samples: 200, share: 0.1 } ] |
    .levels[2].cpu_profile.samples = 2000' "$test_dir/a.json" \
	>"$test_dir/b.json"
expect_status 0 run_aimsweep compare "$test_dir/b.json" "$test_dir/a.json"
grep -q '^ *cpu \[k\] osq_lock .*10.00% .*25.00% .*+15.00pt  beyond sampling noise' \
	"$test_dir/stdout" || fail "compare lacks osq_lock's move: $(cat "$test_dir/stdout")"
grep -q 'cpu \[.\] main .*20.00% .*10.00% .*-10.00pt' "$test_dir/stdout" ||
	fail "compare lacks main's move"

[ "$(id -u)" = 0 ] || skip "sampling every CPU with perf needs root here"
need perf
perf record -a -e cpu-clock -o "$test_dir/check.data" -- sleep 0.1 \
	>/dev/null 2>&1 && [ -s "$test_dir/check.data" ] ||
	skip "perf record -a -e cpu-clock cannot sample here"
rm -f "$test_dir/check.data" "$test_dir/check.data.old"

# Two levels, profiles deleted after each.
expect_status 0 run_aimsweep run --cpu-profile --levels 1,4 -t 2 -w 1 \
	-d "$scratch" -o "$out" creat-contention
json=$(latest_result)
[ -f "$json" ] || fail "no result.json in $out"
check_documented "$json"
run_dir=$(dirname "$json")
jq_check "$json" '[.levels[].status] == ["ok", "ok"]' "levels ok"
jq_check "$json" '.params.cpu_profile | .seconds == 1 and .top == 20 and
	.event == "cpu-clock" and .frequency_hz > 0 and
	.keep_profiles == false' "params.cpu_profile"
jq_check "$json" '[.levels[].cpu_profile | .samples > 0 and
	.offset_s == 0 and .seconds == 1 and .sampled_s > 0 and
	.lost_samples >= 0 and .rows_dropped >= 0 and
	(has("rejected") | not) and (.disturbed | type) == "boolean" and
	.profiler_cpu_s >= 0 and .profiler_cpu_pct >= 0 and
	(.symbols | length) >= 1 and (.symbols | length) <= 20] | all' \
	"every level has a whole CPU profile"
jq_check "$json" '[.levels[].cpu_profile | .samples as $n | .symbols[] |
	(.symbol | length) > 0 and (.kind == "kernel" or .kind == "user") and
	.samples >= 1 and .share > 0 and .share <= 1 and
	((.share - .samples / $n) | fabs) < 1e-9] | all' \
	"symbols are whole, shares in (0,1] of all samples"
jq_check "$json" '[.levels[].cpu_profile | [.symbols[].share] | add <= 1 + 1e-9] |
	all' "a level's shares add up to at most 1"
jq_check "$json" '[.levels[].cpu_profile.symbols | [.[].samples] |
	. == (sort | reverse)] | all' "symbols sorted by samples"
jq_check "$json" '[.levels[].cpu_profile.symbols | [.[] | [.symbol, .kind]] |
	length == (unique | length)] | all' "one entry per symbol and kind"
# creat and unlink users spend their time in the kernel.
jq_check "$json" '[.levels[1].cpu_profile.symbols[] | select(.kind == "kernel")] |
	length > 0' "kernel symbols at 4 users"
for users in 1 4; do
	d=$run_dir/level-$users
	[ -s "$d/cpu-profile.txt" ] || fail "no $d/cpu-profile.txt"
	grep -q '^# Overhead  *Samples  *Symbol' "$d/cpu-profile.txt" ||
		fail "$d/cpu-profile.txt is not perf report's"
	[ ! -e "$d/cpu-profile.data" ] ||
		fail "$d/cpu-profile.data kept without --keep-profiles"
done
check_no_processes
check_scratch_empty

# With perf lock record, the two profiles take turns: the window must
# hold both, or the run is refused before its first level.
mkdir "$test_dir/refused"
expect_status 2 run_aimsweep run --cpu-profile --lock-profile \
	--lock-method perf --levels 1 -t 1.5 -o "$test_dir/refused" \
	creat-contention
expect_stderr 'perf lock record take turns in each window'
[ -z "$(ls -A "$test_dir/refused")" ] ||
	fail "a refused run wrote to $test_dir/refused"

# With --lock-profile by perf lock record: both profiles, one after the
# other; kept profiles read back; --cpu-profile-top limits the list.
expect_status 0 run_aimsweep run --cpu-profile --lock-profile \
	--lock-method perf \
	--keep-profiles --cpu-profile-top 3 --cpu-profile-seconds 0.5 \
	--lock-profile-seconds 0.5 --levels 4 -t 1.5 -w 0.5 -d "$scratch" \
	-o "$out" creat-contention
json=$(latest_result)
run_dir=$(dirname "$json")
check_documented "$json"
jq_check "$json" '.levels[0].status == "ok"' "level ok"
jq_check "$json" '.levels[0].cpu_profile | .seconds == 0.5 and
	(.symbols | length) == 3' "--cpu-profile-top 3 keeps three symbols"
jq_check "$json" '.levels[0].lock_contention | type == "array"' \
	"the lock profile is there too"
jq_check "$json" '.params.cpu_profile.keep_profiles == true' \
	"keep_profiles recorded"
[ -s "$run_dir/level-4/cpu-profile.data" ] ||
	fail "--keep-profiles: no cpu-profile.data"
[ -s "$run_dir/level-4/perf.data" ] || fail "--keep-profiles: no perf.data"
perf report -i "$run_dir/level-4/cpu-profile.data" --stdio --sort sym 2>&1 |
	grep -q 'cpu-clock' || fail "the kept cpu-profile.data does not read back"
check_no_processes
check_scratch_empty
pass
