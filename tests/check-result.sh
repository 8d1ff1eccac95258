# tests/check-result.sh: field-by-field check of a result.json whose levels all passed (sourced).

# check_ok_result JSON WORKFILE LEVELS LAYOUT "JOB..." WALL_MS: WALL_MS is
# how long the run took, measured around it.
check_ok_result() {
	json=$1 wf=$2 levels=$3 layout=$4 jobs=$5 wall_ms=$6
	n_levels=$(echo "$levels" | tr ',' '\n' | wc -l)
	n_jobs=$(echo $jobs | wc -w)

	jq_check "$json" '.schema_version == 3' "schema_version"
	jq_check "$json" '.tool.name == "aimsweep" and (.tool.version | length > 0)' "tool"
	jq_check "$json" '.status == "complete"' "status complete"
	jq_check "$json" '.started_at | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T")' "started_at"
	jq_check "$json" '.host.kernel_release | length > 0' "host.kernel_release"
	jq_check "$json" '.host.cpus_online >= 1 and .host.memory_bytes > 0 and .host.kdamonds >= 0' "host size"
	jq_check "$json" ".params.levels == [$levels]" "params.levels"
	jq_check "$json" '.params.runtime_s == 1 and .params.warmup_s == 0.5' "params times"
	jq_check "$json" ".params.layout == \"$layout\"" "params.layout"
	jq_check "$json" '.params.seed | test("^[0-9]+$")' "params.seed"
	jq_check "$json" ".mix.name == \"$wf\"" "mix.name"
	jq_check "$json" ".mix.jobs | length == $n_jobs" "mix.jobs count"
	jq_check "$json" '.mix.file_size_bytes == 10240 and .mix.pool_size_bytes == 1048576' "mix sizes"
	jq_check "$json" '[.mix.jobs[] | .syscalls_per_op | length > 0] | all' "syscalls declared"
	jq_check "$json" ".levels | length == $n_levels" "level count"
	jq_check "$json" "[.levels[].users] == [$levels]" "level users"
	for job in $jobs; do
		jq_check "$json" "[.mix.jobs[].name] | index(\"$job\") != null" "mix has $job"
		jq_check "$json" "[.levels[] | .jobs[] | select(.name == \"$job\") | .ops > 0 and .errors == 0] | length == $n_levels and all" "$job ran without errors at every level"
	done
	# Each level's numbers must agree with each other.
	jq_check "$json" '[.levels[] | .status == "ok"] | all' "levels ok"
	jq_check "$json" '[.levels[] | .window_s > 0.9 and .window_s < 1.5] | all' "window_s near 1 s"
	jq_check "$json" '[.levels[] | .start_s >= 0] | all' "start_s"
	jq_check "$json" '[.levels[] | .release_s >= 0 and .stop_s > 0] | all' "release_s and stop_s"
	# The phases each level timed fit in the time the run took: calling
	# the users to the gate (start_s), the warm-up, which lasts warmup_s
	# and until half of it after the last user came through (release_s),
	# the window and the stop. A busy machine stretches all of them and
	# the run alike (release_s reached 0.38 s and stop_s 1.2 s with 160
	# tasks runnable on 2 CPUs); a time in the wrong unit, or from the
	# wrong start, does not fit.
	jq_check "$json" ".params.warmup_s as \$w | [.levels[] | .start_s +
		([\$w, .release_s + \$w / 2] | max) + .window_s + .stop_s] |
		add < $wall_ms / 1000" "the levels' phases fit in the run's $wall_ms ms"
	jq_check "$json" '[.levels[] | .driver | .cpu_pct >= 0 and .cpu_pct < 100 and .max_rss_kb > 0] | all' "driver cost"
	jq_check "$json" '[.levels[] | .jobs_per_min > 0] | all' "jobs_per_min > 0"
	jq_check "$json" '[.levels[] | (.ops * 60 / .window_s - .jobs_per_min) | fabs < 1] | all' "jobs_per_min = ops * 60 / window_s"
	jq_check "$json" '[.levels[] | ([.jobs[].ops] | add) == .ops] | all' "ops = sum of jobs"
	jq_check "$json" '[.levels[] | (.jobs_per_min / .users - .jobs_per_min_per_user) | fabs < 0.01] | all' "jobs_per_min_per_user"
	jq_check "$json" '[.levels[] | .window_s as $w | .jobs[] |
		((.ops_per_sec * $w - .ops) | fabs) < 1e-6 * (.ops + 1)] | all' \
		"ops_per_sec = ops / window_s"
	jq_check "$json" '[.levels[] | .per_user_jobs_per_min | .min <= .median and .median <= .max] | all' "per-user spread ordered"
	jq_check "$json" '[.levels[] | .per_user_jobs_per_min.max * .users >= .jobs_per_min - 1] | all' "per-user max consistent"
	jq_check "$json" '[.levels[] | .jti >= 0 and .jti <= 100] | all' "jti in range"
	jq_check "$json" '[.levels[] | .rusage | .utime_s >= 0 and .stime_s > 0 and .voluntary_ctxsw >= 0 and .involuntary_ctxsw >= 0 and .max_rss_kb > 0] | all' "rusage"
	jq_check "$json" '.summary.levels_ok == (.levels | length) and .summary.levels_failed == 0' "summary counts"
	jq_check "$json" '.summary.peak_jobs_per_min == ([.levels[].jobs_per_min] | max)' "summary peak"
	jq_check "$json" '.summary.peak_users == (.levels | max_by(.jobs_per_min) | .users)' "summary peak users"
}
