# tests/fault-nproc.sh: RLIMIT_NPROC refuses a level up front, and a fork failing mid-ramp fails only its level.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault-lib.sh"
nobody_setup

printf '1 getppid\n' >"$fault_tmp/wf"
chmod 644 "$fault_tmp/wf"

# Processes uid 65534 has already (RLIMIT_NPROC counts them all).
others=$(ps -u 65534 -o pid= | wc -l)
limit=$((others + 10))

# run_limited ARGS...: `aimsweep run ARGS` as uid 65534 with
# RLIMIT_NPROC = $limit.
run_limited() {
	env AIMSWEEP_TEST_TAG="$tag" prlimit --nproc="$limit:$limit" $nobody \
		"$naimsweep" run --no-plot "$@" >"$test_dir/stdout" \
		2>"$test_dir/stderr"
}

# A level the limit cannot hold at all is refused before anything runs.
run_limited \
	--levels 2,$((limit + 5)) -t 0.5 -w 0 -d "$nscratch" -o "$nout" \
	"$fault_tmp/wf"
got=$?
[ "$got" = 2 ] || fail "level above RLIMIT_NPROC: exit status $got, want 2"
expect_stderr "a level of $((limit + 5)) users is more than this machine allows: RLIMIT_NPROC (ulimit -u) is $limit processes"
[ -z "$(ls -A "$nout")" ] || fail "something was written for a refused run"
[ -z "$(ls -A "$nscratch")" ] || fail "scratch used for a refused run"

# Five sleepers of the same uid take five of the $limit processes, so a
# level of $limit - 2 users passes the check (users, driver and the
# process that forks the users) but cannot be forked: the driver, that
# process, the sleepers and 3 users fill the limit.
for i in 1 2 3 4 5; do
	$nobody sleep 120 &
	fault_pids="$fault_pids $!"
done
big=$((limit - 2))
start=$(date +%s)
run_limited \
	--levels 2,$big,2 -t 0.5 -w 0 --grace 20 -d "$nscratch" -o "$nout" \
	"$fault_tmp/wf"
got=$?
elapsed=$(($(date +%s) - start))
[ "$got" = 1 ] || {
	cat "$test_dir/stderr" >&2
	fail "fork failure: exit status $got, want 1"
}
grep -q "FAILED: cannot fork user [0-9]* of $big: Resource temporarily unavailable (RLIMIT_NPROC is $limit)" \
	"$test_dir/stdout" || {
	cat "$test_dir/stdout" >&2
	fail "the table does not show the fork failure with RLIMIT_NPROC"
}
expect_stderr "stopping the ramp"
json=$(ls "$nout"/*/result.json)
check_valid_result "$json"
jq_check "$json" '.status == "failed"' "run status"
# The level before is kept; the ramp stops at the one that failed.
jq_check "$json" "[.levels[] | [.users, .status]] == [[2, \"ok\"], [$big, \"failed\"]]" "levels kept"
jq_check "$json" ".levels[1].reason | test(\"^cannot fork user [0-9]+ of $big: .*RLIMIT_NPROC is $limit\")" "reason"
# The users that were forked did nothing wrong: they are not failures,
# and the driver need not wait out --grace for users it never started.
jq_check "$json" '.levels[1].reason | test("more users? failed") | not' "healthy users blamed"
[ "$elapsed" -lt 10 ] || fail "a fork failure took $elapsed s to report (--grace 20)"
[ -z "$(ls -A "$nscratch")" ] || fail "scratch not empty: $(ls -A "$nscratch")"
for p in $fault_pids; do
	kill "$p" 2>/dev/null
done
check_no_processes
pass
