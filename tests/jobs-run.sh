# tests/jobs-run.sh: every job in the table runs at 1 user with ops and no errors.
. "$(dirname "$0")/lib.sh"

jobs=$(run_aimsweep list jobs | awk '/^  [a-z]/ { print $1 }')
[ "$(echo "$jobs" | wc -l)" -ge 6 ] || fail "aimsweep list jobs shows too few jobs"
# Each job runs alone for 0.2 s, with no warm-up: the window still waits
# until the user is set up and in its loop. One whose window saw neither
# an op nor an error runs again, for 2 s and then 4 s: a busy machine can
# keep the user off its CPU for the whole of a short window (at load 20
# to 180 on 2 CPUs, link_test, whose op is one of AIM7's, once made no
# progress in 1 s). An error fails at once, and so does a job that completes no op in
# three tries.
for job in $jobs; do
	printf '1 %s\n' "$job" >"$test_dir/$job"
	for runtime in 0.2 2 4; do
		expect_status 0 run_aimsweep run --levels 1 -t "$runtime" -w 0 \
			-d "$scratch" -o "$out" "$test_dir/$job"
		json=$(latest_result)
		# O_DIRECT jobs may be skipped where the filesystem refuses
		# it, and only with a reason; everything else must run
		# without an error.
		jq_check "$json" ".levels[0].jobs[0] | .name == \"$job\" and .errors == 0 and ((.skipped | not) or ((\"$job\" | startswith(\"disk_dio_\")) and (.skip_reason | length > 0)))" "$job: no errors (${runtime} s window)"
		check_scratch_empty
		jq -e '.levels[0].jobs[0] | .ops > 0 or .skipped' "$json" \
			>/dev/null && break
		echo "note: $job made no op in a $runtime s window"
	done
	jq_check "$json" '.levels[0].jobs[0] | .ops > 0 or .skipped' \
		"$job: ops > 0 in a window of 0.2, 2 or 4 s"
done
check_no_processes
pass
