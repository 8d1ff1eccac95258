# tests/reference-workfiles.sh: every reaim workfile runs 2 users for 1.5 s with no failed job.
. "$(dirname "$0")/lib.sh"

dir=${AIMSWEEP_REFERENCE:-}/aim7-workfiles
[ -d "$dir" ] || skip "no reference workfiles at $dir"
# The shipped mixes are reaim's, test for test, weight for weight and
# size for size (shipped-mixes.sh holds them to that): running them again
# here would run the same jobs twice.
for wf in "$dir"/workfile.*; do
	name=$(basename "$wf")
	expect_status 0 run_aimsweep run --levels 2 -t 1.5 -w 0.5 -d "$scratch" \
		-o "$out" "$wf"
	json=$(latest_result)
	jq_check "$json" '.status == "complete" and .levels[0].status == "ok"' "$name: level ok"
	jq_check "$json" '.mix.jobs | length > 0' "$name: jobs"
	# A job of AIM7's size can take seconds (aim9's 5 MiB O_SYNC file),
	# so a short window need not reach every job of a 58-job mix: each
	# job that ran, ran cleanly; jobs-run.sh runs every job on its own.
	jq_check "$json" '.levels[0].ops > 0' "$name: jobs ran"
	jq_check "$json" '[.levels[0].jobs[] | .errors == 0 and (.skipped | not) or
		(.skipped and (.name | startswith("disk_dio_")) and
		 (.skip_reason | length > 0))] | all' "$name: no job failed"
	check_scratch_empty
done
check_no_processes
pass
