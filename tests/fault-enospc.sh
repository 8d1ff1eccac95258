# tests/fault-enospc.sh: a full scratch or output filesystem fails levels with ENOSPC, in bounded time, leaving nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault-lib.sh"
need_root "mounts small tmpfs filesystems"
need timeout

disk=$test_dir/disk
wf=$test_dir/wf

# full_run WHAT WANT_STATUS ARGS...: one run on the small filesystem; it
# must end by itself (no busy loop of failures) and leave nothing.
full_run() {
	local what=$1 want=$2
	shift 2
	rm -rf "$out"/*
	env AIMSWEEP_TEST_TAG="$tag" timeout -s KILL 60 "$AIMSWEEP" run \
		--no-plot -o "$out" "$@" >"$test_dir/stdout" 2>"$test_dir/stderr"
	got=$?
	[ "$got" != 137 ] || fail "$what: still running after 60 s"
	[ "$got" = "$want" ] || {
		cat "$test_dir/stderr" >&2
		fail "$what: exit status $got, want $want"
	}
	json=$(latest_result)
	check_valid_result "$json"
	check_no_processes
	[ -z "$(ls -A "$disk")" ] || fail "$what: left on the disk: $(ls -A "$disk")"
}

# 1. The job's file does not fit: its init fails, and so does every level.
tmpfs_at "$disk" size=512k
printf 'FILESIZE: 2M\nPOOLSIZE: 0\n1 disk_wrt\n' >"$wf"
full_run "file too big" 1 --levels 1,2 -t 1 -w 0.2 -d "$disk" "$wf"
jq_check "$json" '.status == "failed" and ([.levels[].status] == ["failed", "failed"])' "file too big: levels failed"
jq_check "$json" '[.levels[].reason | test("job disk_wrt: No space left on device")] | all' "file too big: reason"
grep -q 'FAILED: .*No space left on device' "$test_dir/stdout" ||
	fail "file too big: the table does not say why"

# 2. Out of inodes while running: every creat fails with ENOSPC; the user
# gives up after a streak of failures instead of spinning for the level.
# Five inodes: the root, the run directory, its owner file, the user's
# directory, and one file for creat. The window is long, as a busy
# machine can give a user too little CPU for its streak in 1 s, but it is
# not waited out: the driver ends the level at the first sample after the
# user gives up. A user that never did would leave the levels ok after
# 15 s each, inside full_run's 60 s.
umount "$disk" || fail "cannot unmount $disk"
tmpfs_at "$disk" size=512k,nr_inodes=5
printf '1 creat\n' >"$wf"
full_run "no inodes" 1 --levels 1,2 -t 15 -w 0.2 -d "$disk" "$wf"
jq_check "$json" '[.levels[].status] == ["failed", "failed"]' "no inodes: levels failed"
jq_check "$json" '.levels[0].reason | test("exited with status 7: job creat failed 1000 times in a row, the last with ENOSPC \\(No space left on device\\)")' "no inodes: reason"
# The same with a job that keeps succeeding in between: a streak is one
# job's, so getppid's successes do not break creat's, and the user still
# gives up. (The window is long for the reason given above.)
printf '1 creat\n1 getppid\n' >"$wf"
full_run "no inodes, mixed" 1 --levels 1 -t 15 -w 0.2 -d "$disk" "$wf"
jq_check "$json" '.levels[0].status == "failed"' "no inodes, mixed: level failed"
jq_check "$json" '.levels[0].reason | test("job creat failed 1000 times in a row, the last with ENOSPC")' "no inodes, mixed: reason"

# Users as threads: a user thread that gives up tears its jobs down
# (their System V segment and semaphores are its process's, which
# hosts the next level) and leaves no System V object behind. The run
# has an IPC namespace of its own, whose objects are counted after it:
# other tests running meanwhile make theirs elsewhere. The window is long
# for the reason given in case 2: here the streak also waits on each
# shared_memory op between two creats.
if command -v ipcs >/dev/null && unshare --ipc true 2>/dev/null; then
	printf '1 creat\n1 shared_memory\n' >"$wf"
	rm -rf "$out"/*
	env AIMSWEEP_TEST_TAG="$tag" unshare --ipc sh -c '
		timeout -s KILL 60 "$1" run --no-plot -o "$2" --mode thread \
			--levels 1,2 -t 15 -w 0.2 -d "$3" "$4" >"$5/stdout" 2>"$5/stderr"
		echo $? >"$5/status"
		ipcs -m -s | grep -c "^0x" >"$5/sysv"' sh \
		"$AIMSWEEP" "$out" "$disk" "$wf" "$test_dir"
	[ "$(cat "$test_dir/status")" = 1 ] || {
		cat "$test_dir/stderr" >&2
		fail "no inodes, threads: exit status $(cat "$test_dir/status"), want 1"
	}
	json=$(latest_result)
	check_valid_result "$json"
	jq_check "$json" '[.levels[].status] == ["failed", "failed"]' "no inodes, threads: levels failed"
	jq_check "$json" '.levels[0].reason | test("a thread of pid .* failed: job creat failed 1000 times in a row")' "no inodes, threads: reason"
	[ "$(cat "$test_dir/sysv")" = 0 ] ||
		fail "no inodes, threads: $(cat "$test_dir/sysv") System V objects left"
	check_no_processes
	[ -z "$(ls -A "$disk")" ] || fail "no inodes, threads: left on the disk: $(ls -A "$disk")"
else
	not_checked "no ipcs, or unshare --ipc refused: no inodes, threads, in an IPC namespace"
fi

# 3. The output filesystem fills up: the result that no longer fits is
# reported, the run stops with exit 1, and the last result.json written
# stays whole (it is replaced by rename, never truncated).
umount "$disk" || fail "cannot unmount $disk"
rm -rf "$out"
tmpfs_at "$out" size=12k
printf '1 getppid\n' >"$wf"
env AIMSWEEP_TEST_TAG="$tag" timeout -s KILL 60 "$AIMSWEEP" run --no-plot \
	--levels 1,2,3,4,5,6,7,8 -t 0.3 -w 0 -d "$scratch" -o "$out" "$wf" \
	>"$test_dir/stdout" 2>"$test_dir/stderr"
got=$?
[ "$got" = 1 ] || fail "full output: exit status $got, want 1"
expect_stderr "cannot write $out/.*/result.json: No space left on device"
json=$(latest_result)
check_valid_result "$json"
jq_check "$json" '.levels | length >= 1 and length < 8' "full output: the levels that fit"
[ "$(ls -A "$(dirname "$json")")" = result.json ] ||
	fail "full output: temporary files left: $(ls -A "$(dirname "$json")")"
check_no_processes
check_scratch_empty
pass
