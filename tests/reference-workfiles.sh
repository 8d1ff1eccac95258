# tests/reference-workfiles.sh: every reaim workfile runs 2 users for 0.5 s with no failed job.
. "$(dirname "$0")/lib.sh"

dir=${AIMSWEEP_REFERENCE:-}/aim7-workfiles
[ -d "$dir" ] || skip "no reference workfiles at $dir"
# The shipped mixes are reaim's, test for test, weight for weight and
# size for size (shipped-mixes.sh holds them to that): running them again
# here would run the same jobs twice.
# Each runs 0.5 s; one whose window saw no op (a busy machine can keep
# both users off the CPU that long) runs again for 2 s.
for wf in "$dir"/workfile.*; do
	name=$(basename "$wf")
	for runtime in 0.5 2; do
		expect_status 0 run_aimsweep run --levels 2 -t "$runtime" -w 0.1 \
			-d "$scratch" -o "$out" "$wf"
		json=$(latest_result)
		check_scratch_empty
		jq -e '.levels[0].ops > 0' "$json" >/dev/null && break
		echo "note: $name made no op in a $runtime s window"
	done
	jq_check "$json" '.status == "complete" and .levels[0].status == "ok"' "$name: level ok"
	jq_check "$json" '.mix.jobs | length > 0' "$name: jobs"
	# A job of AIM7's size can take seconds (aim9's 5 MiB O_SYNC file),
	# so a short window need not reach every job of a 58-job mix: each
	# job that ran, ran cleanly; jobs-run.sh runs every job on its own.
	jq_check "$json" '.levels[0].ops > 0' "$name: jobs ran"
	jq_check "$json" '[.levels[0].jobs[] | .errors == 0 and (.skipped | not) or
		(.skipped and (.name | startswith("disk_dio_")) and
		 (.skip_reason | length > 0))] | all' "$name: no job failed"
done
check_no_processes
pass
