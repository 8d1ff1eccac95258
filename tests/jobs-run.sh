# tests/jobs-run.sh: every job in the table runs for 1 s at 1 user with ops and no errors.
. "$(dirname "$0")/lib.sh"

jobs=$(run_aimsweep list jobs | awk '/^  [a-z]/ { print $1 }')
[ "$(echo "$jobs" | wc -l)" -ge 6 ] || fail "aimsweep list jobs shows too few jobs"
for job in $jobs; do
	printf '1 %s\n' "$job" >"$test_dir/$job"
	expect_status 0 run_aimsweep run --levels 1 -t 1 -w 0.2 -d "$scratch" \
		-o "$out" "$test_dir/$job"
	json=$(latest_result)
	# O_DIRECT jobs may be skipped where the filesystem refuses it, and
	# only with a reason; everything else must run without an error.
	jq_check "$json" ".levels[0].jobs[0] | .name == \"$job\" and .errors == 0 and (.ops > 0 or (.skipped and (\"$job\" | startswith(\"disk_dio_\")) and (.skip_reason | length > 0)))" "$job: ops > 0 and no errors"
	check_scratch_empty
done
check_no_processes
pass
