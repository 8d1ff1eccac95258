# tests/sweep-creat-contention.sh: a 2-level sweep of creat-contention (one shared directory), checked field by field.
. "$(dirname "$0")/lib.sh"

# The field-by-field check that the sweep tests share.
. "$(dirname "$0")/check-result.sh"

start=$(date +%s%N)
expect_status 0 run_aimsweep run --levels 1,2 -t 1 -w 0.5 -d "$scratch" \
	-o "$out" --seed 42 creat-contention
wall_ms=$((($(date +%s%N) - start) / 1000000))
json=$(latest_result)
[ -f "$json" ] || fail "no result.json in $out"
check_ok_result "$json" creat-contention "1,2" shared \
	"creat unlink" "$wall_ms"

# The table: a header naming the workfile and one row per level.
grep -q 'workfile creat-contention' "$test_dir/stdout" || fail "no header"
rows=$(grep -cE '^ +[0-9]+ +[0-9.]+ ' "$test_dir/stdout")
[ "$rows" = 2 ] || fail "$rows table rows, want 2"

check_no_processes
check_scratch_empty
pass
