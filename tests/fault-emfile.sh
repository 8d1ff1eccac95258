# tests/fault-emfile.sh: running out of file descriptors shows up as EMFILE in the result, never as a hang.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault-lib.sh"
need prlimit
need timeout

# Each op opens descriptors and closes them again: tcp_test three at
# once, fifo_test and stream_pipe two. A user holds only the standard
# three of its own (the spawner, aimsweep-users, is handed the arena's
# file alone, and each user closes that), so with the limit near what
# the driver and the spawner need to start, some limits leave room for
# two but not three: tcp_test fails every time while the others run. A
# mix of tcp_test alone then fails every op, and so its level. The exact
# numbers depend on the descriptors this shell inherited, so scan. At
# the low end the driver has one descriptor to spare when it removes its
# scratch tree (fifo_test makes per-user directories in it), which it
# must manage with that one (it did not, once). A job that fails every
# time ends the level after 1000 in a row; one tcp_test in 101 ops, the
# others slow ones (99 messages each), keeps it to a few dozen in the
# window on any machine, so such a level stays ok with its errors
# counted.
printf '1 tcp_test\n50 fifo_test\n50 stream_pipe\n' >"$test_dir/wf"
printf '1 tcp_test\n' >"$test_dir/wf-tcp"
seen_counted=0
seen_failed=0
# nofile_run N RUNTIME: the mix with at most N descriptors; $got is its
# exit status.
nofile_run() {
	rm -rf "$out"/*
	env AIMSWEEP_TEST_TAG="$tag" timeout -s KILL 60 prlimit --nofile="$1:$1" \
		"$AIMSWEEP" run --no-plot --levels 1 -t "$2" -w 0.1 \
		-d "$scratch" -o "$out" "$mix" \
		>"$test_dir/stdout" 2>"$test_dir/stderr"
	got=$?
	[ "$got" != 137 ] || fail "nofile $1: still running after 60 s"
	check_scratch_empty
}
for mix in "$test_dir/wf" "$test_dir/wf-tcp"; do
	for n in 4 5 6 7 8 9 10 12 16; do
		nofile_run "$n" 0.5
		# Where every op of every job fails, the streak ends the level; a
		# busy machine can keep the user from its 1000th failure in 0.5 s
		# (it did, beside stress-ng). A level with no op done runs again
		# with a window the streak ends long before it is over: the driver
		# looks at the users at each sample.
		if [ "$got" = 0 ] && jq -e '[.levels[0].jobs[].ops == 0] | all' \
		    "$(latest_result)" >/dev/null 2>&1; then
			echo "note: nofile $n: no op done in 0.5 s; again for 20 s"
			nofile_run "$n" 20
		fi
		# Too few for the dynamic loader to open the libraries: aimsweep
		# never ran (inherited descriptors, such as make's jobserver pipe,
		# take some of the lowest limits).
		if [ "$got" = 127 ] && grep -q "error while loading shared libraries" "$test_dir/stderr"; then
			[ -z "$(ls -A "$out")" ] || fail "nofile $n: a run that never started wrote results"
			continue
		fi
		if [ "$got" = 2 ]; then
			# Too few for the driver or the spawner to start: refused
			# with the errno text.
			expect_stderr "Too many open files"
			[ -z "$(ls -A "$out")" ] || fail "nofile $n: refused run wrote results"
			continue
		fi
		json=$(latest_result)
		check_valid_result "$json"
		# Exit status 1 exactly when a level failed.
		if jq -e '[.levels[].status == "ok"] | all' "$json" >/dev/null; then
			[ "$got" = 0 ] || fail "nofile $n: exit status $got with every level ok"
		else
			[ "$got" = 1 ] || fail "nofile $n: exit status $got with a failed level"
		fi
		# Every failure names its cause.
		jq_check "$json" '[.levels[] | select(.status == "failed") | .reason | test("Too many open files|EMFILE")] | all' "nofile $n: failed levels name EMFILE"
		jq_check "$json" '[.levels[] | select(.status == "ok") | .jobs[] | select(.errors > 0) | .last_errno == "EMFILE"] | all' "nofile $n: errors are EMFILE"
		if jq -e '[.levels[] | select(.status == "ok") | .jobs[] | select(.errors > 0)] | length > 0' "$json" >/dev/null; then
			seen_counted=1
		fi
		if jq -e '[.levels[] | select(.status == "failed")] | length > 0' "$json" >/dev/null &&
			[ "$seen_failed" = 0 ]; then
			seen_failed=1
			# The driver looks at the users during the warm-up: a user
			# that failed in it ends the level then, not 30 s later. (The
			# failure is a streak of 1000 failed ops, which a busy
			# machine can spread over seconds: 20 s at most.)
			t0=$(date +%s)
			env AIMSWEEP_TEST_TAG="$tag" timeout -s KILL 60 prlimit --nofile="$n:$n" \
				"$AIMSWEEP" run --no-plot --levels 1 -t 0.5 -w 30 \
				-d "$scratch" -o "$out" "$mix" >/dev/null 2>&1
			got=$?
			took=$(($(date +%s) - t0))
			[ "$got" = 1 ] || fail "nofile $n, 30 s warm-up: exit status $got, want 1"
			[ "$took" -lt 20 ] || fail "nofile $n: a failure in a 30 s warm-up took $took s to end the level"
			check_scratch_empty
		fi
	done
done
# A process left by any of the runs would still be here.
check_no_processes
[ "$seen_failed" = 1 ] || fail "no limit made a level fail with EMFILE"
[ "$seen_counted" = 1 ] || fail "no limit made ops fail with EMFILE (counted as errors)"
pass
