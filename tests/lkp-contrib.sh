# tests/lkp-contrib.sh: contrib/lkp's run runs one level of a test and of a workfile; its parse gives LKP's five aim7 numbers of that level, as result.json has them; its job files name tests aimsweep runs.
. "$(dirname "$0")/lib.sh"

lkp=$AIMSWEEP_SRCDIR/contrib/lkp
run=$lkp/programs/aimsweep/run
parse=$lkp/programs/aimsweep/parse
need awk
[ -x "$run" ] && [ -x "$parse" ] || fail "contrib/lkp's run and parse are not executable"

# check_level NAME: the run's stdout (AIM7's table) parsed against the
# newest result.json: every key, each the level's number at the table's
# precision.
check_level() {
	"$parse" <"$test_dir/stdout" >"$test_dir/stats" ||
		fail "$1: parse failed"
	json=$(latest_result)
	[ "$(wc -l <"$test_dir/stats")" = 5 ] ||
		fail "$1: parse gave $(cat "$test_dir/stats"), want five keys"
	while read -r key places filter; do
		got=$(sed -n "s/^$key: //p" "$test_dir/stats")
		[ -n "$got" ] || fail "$1: no $key in $(cat "$test_dir/stats")"
		jq_check "$json" "($got - (.levels[0] | $filter) | fabs) <=
			(0.5 / pow(10; $places) + 1e-9)" \
			"$1: $key $got is not the level's $filter"
	done <<-'KEYS'
	jobs-per-min 2 .jobs_per_min
	jti 0 .jti
	jobs-per-min-per-task 4 .jobs_per_min_per_user
	real 2 .window_s
	cpu 2 .rusage.utime_s + .rusage.stime_s
	KEYS
	jq_check "$json" '.levels | length == 1 and .[0].users == 2 and
		.[0].status == "ok"' "$1: one level of 2 users"
}

# lkp_run VAR=VALUE...: the program as LKP would start it, its parameters
# in the environment, the file system LKP made for the job in
# mount_points, results in RESULT_ROOT.
lkp_run() {
	echo "run $*" >"$test_dir/last-step"
	env AIMSWEEP_TEST_TAG="$tag" AIMSWEEP="$AIMSWEEP" \
		mount_points="$scratch" RESULT_ROOT="$out" runtime=1s \
		warmup=0.2 "$@" "$run" >"$test_dir/stdout" 2>"$test_dir/stderr" ||
		{ cat "$test_dir/stderr" >&2; fail "run $* failed"; }
}

# One AIM7 1.1 test, in the workfile LKP's aim7 writes for it.
lkp_run test=creat-clo load=2
check_level creat-clo
jq_check "$json" '.mix.name == "creat-clo" and .mix.file_size_bytes == 1048576' \
	"creat-clo: LKP's one-test workfile (FILESIZE 1M)"
check_scratch_empty
# A shipped workfile, the fserver case, with nr_task in place of load.
lkp_run test=fserver nr_task=2
check_level fserver
jq_check "$json" '.mix.name == "fserver"' "fserver: the shipped workfile"
check_scratch_empty

# A failed level has no row: no stats, which LKP reads as no result.
printf '%s\n' 'Tasks    jobs/min  jti  jobs/min/task      real       cpu' \
	'# level 2 users failed: user 1 was killed by signal 9' |
	"$parse" >"$test_dir/stats" || fail "parse failed on a failed level"
[ ! -s "$test_dir/stats" ] ||
	fail "parse gave stats for a failed level: $(cat "$test_dir/stats")"

# Every test the job files name is a workfile or a job aimsweep knows.
tests=$(awk '/^  test:/ { if ($2 != "") print $2; list = ($2 == ""); next }
	list && /^    - / { print $2; next } { list = 0 }' "$lkp"/jobs/*.yaml)
[ "$(echo "$tests" | wc -l)" -ge 8 ] || fail "job files name too few tests: $tests"
for t in $tests; do
	if ! "$AIMSWEEP" list workfiles | awk -v t="$t" '$1 == t { f = 1 }
	    END { exit !f }'; then
		printf '10 %s\n' "$t" >"$test_dir/$t"
		expect_status 0 run_aimsweep run --check-limits --levels 1 \
			"$test_dir/$t"
	fi
done
check_no_processes
pass
