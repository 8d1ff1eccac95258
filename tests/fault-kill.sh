# tests/fault-kill.sh: a driver killed with SIGKILL takes its users with it, the next run clears its scratch, and a killed user leaves no SysV object.
. "$(dirname "$0")/lib.sh"
need pgrep

printf '1 getppid\n1 creat\n' >"$test_dir/wf"

# The users are the driver's children. (tagged_pids would find them too,
# but it reads every process's environment with one grep each, which can
# take seconds while the users keep both CPUs busy.)
users_of() {
	pgrep -P "$1"
}

# wait_users DRIVER N: waits (10 s at most) until DRIVER has N users; sets
# $users to them.
wait_users() {
	for _ in $(seq 1 100); do
		users=$(users_of "$1")
		[ "$(echo "$users" | wc -w)" -ge "$2" ] && return 0
		sleep 0.1
	done
	fail "expected at least $2 users running within 10 s, saw: $users"
}

env AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" run --no-plot --levels 1,2,4 -t 4 \
	-w 0.5 -d "$scratch" -o "$out" "$test_dir/wf" \
	>"$test_dir/stdout" 2>"$test_dir/stderr" &
driver=$!
wait_for_levels 2
# Into the 4-user level: all four users are running. Waited for rather
# than slept into, so that a slow start cannot make it a 2-user moment.
wait_users "$driver" 4
kill -KILL "$driver"
# (The braces keep the shell's "Killed" notice out of the log.)
{ wait "$driver"; } 2>/dev/null
got=$?
[ "$got" = 137 ] || fail "driver exit status $got, want 137 (SIGKILL)"
# PR_SET_PDEATHSIG: the users die with the driver, at once. A zombie
# waiting for init to reap it counts as gone.
alive() {
	local p
	for p in $users; do
		[ -r "/proc/$p/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$p/stat" \
			2>/dev/null && echo "$p"
	done
}
for i in $(seq 1 10); do
	left=$(alive)
	[ -z "$left" ] && break
	sleep 0.1
done
[ -z "$left" ] || fail "users still running 1 s after the driver was killed: $left"
check_no_processes

# What a killed driver cannot clean: its scratch directory, with the
# owner file naming it. The results it had written stay valid.
stale=$(ls -A "$scratch")
[ "$(echo "$stale" | wc -l)" = 1 ] && case $stale in aimsweep.??????) ;; *) false ;; esac ||
	fail "expected one stale aimsweep.XXXXXX directory, got: $stale"
read -r owner_pid owner_start <"$scratch/$stale/.aimsweep-owner"
[ "$owner_pid" = "$driver" ] && [ "$owner_start" -gt 0 ] ||
	fail "owner file does not name the killed driver $driver and its start: $(cat "$scratch/$stale/.aimsweep-owner")"
jq_check "$json" '.status == "running"' "status of a killed run"
jq_check "$json" '[.levels[].users] == [1, 2]' "the levels finished before the kill"
jq_check "$json" '[.levels[].status] == ["ok", "ok"]' "finished levels ok"
jq_check "$json" '[.levels[].jobs_per_min > 0] | all' "finished levels have numbers"

# Beside it, directories the next run must leave alone: one with no
# owner file (a run that is just starting), one whose owner file is not
# a pid; and one whose owner pid is alive but not aimsweep (a reused pid),
# which is stale too.
mkdir -m 700 "$scratch/aimsweep.noownr" "$scratch/aimsweep.badown" \
	"$scratch/aimsweep.reused"
echo "not a pid" >"$scratch/aimsweep.badown/.aimsweep-owner"
sleep 30 &
sleeper=$!
echo "$sleeper" >"$scratch/aimsweep.reused/.aimsweep-owner"
touch "$scratch/aimsweep.reused/file"

rm -rf "$out"/*
expect_status 0 run_aimsweep run --levels 1 -t 0.5 -w 0 -d "$scratch" \
	-o "$out" "$test_dir/wf"
kill "$sleeper"
wait "$sleeper" 2>/dev/null
expect_stderr "removed stale scratch directory $scratch/$stale (its run was killed)"
expect_stderr "removed stale scratch directory $scratch/aimsweep.reused"
[ ! -e "$scratch/$stale" ] || fail "stale $stale not removed"
[ ! -e "$scratch/aimsweep.reused" ] || fail "aimsweep.reused (owner pid not aimsweep) not removed"
[ -d "$scratch/aimsweep.noownr" ] || fail "aimsweep.noownr (no owner file) was removed"
[ -f "$scratch/aimsweep.badown/.aimsweep-owner" ] ||
	fail "aimsweep.badown (unreadable owner) was removed"
grep -q "noownr\|badown" "$test_dir/stderr" &&
	fail "a directory that is not stale was reported: $(cat "$test_dir/stderr")"
jq_check "$(latest_result)" '.status == "complete"' "the next run completes"
rm -rf "$scratch/aimsweep.noownr" "$scratch/aimsweep.badown"
check_scratch_empty

# Two runs sharing -d: neither takes the other's live directory for a
# stale one, not even when the first runs under another name (as through
# a link, or under valgrind), which its start time tells.
rm -rf "$out"/*
ln -s "$AIMSWEEP" "$test_dir/sweeper"
env AIMSWEEP_TEST_TAG="$tag" "$test_dir/sweeper" run --no-plot --levels 2,2 -t 1 \
	-w 0.2 -d "$scratch" -o "$out/a" "$test_dir/wf" \
	>/dev/null 2>"$test_dir/a.err" &
a=$!
# b starts once a's directory is there, with its owner file.
for i in $(seq 1 100); do
	ls "$scratch"/aimsweep.??????/.aimsweep-owner >/dev/null 2>&1 && break
	sleep 0.05
done
env AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" run --no-plot --levels 2,2 -t 1 \
	-w 0.2 -d "$scratch" -o "$out/b" "$test_dir/wf" \
	>/dev/null 2>"$test_dir/b.err" &
b=$!
wait "$a" || fail "first of two concurrent runs failed: $(cat "$test_dir/a.err")"
wait "$b" || fail "second of two concurrent runs failed: $(cat "$test_dir/b.err")"
grep -q stale "$test_dir/a.err" "$test_dir/b.err" &&
	fail "a concurrent run's directory was taken for stale"
for run in a b; do
	jq_check "$(ls "$out/$run"/*/result.json)" '.status == "complete" and ([.levels[].status] == ["ok", "ok"])' "concurrent run $run"
done
check_no_processes
check_scratch_empty
# A user killed in the middle of its op takes no SysV object with it: the
# driver removes what the user's jobs registered. As root the test runs in
# an IPC namespace of its own (tests/test_guard.c), where all objects are
# its own. The window is long so that the kill lands in it however late a
# busy machine runs this shell; it is not waited out, as the driver ends
# the level at the first sample after the user dies.
printf '1 shared_memory\n' >"$test_dir/shm"
rm -rf "$out"/*
env AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" run --no-plot --levels 2 -t 30 \
	-w 0.5 -d "$scratch" -o "$out" "$test_dir/shm" \
	>/dev/null 2>"$test_dir/shm.err" &
driver=$!
wait_users "$driver" 2
sleep 1
kill -KILL $(echo "$users" | head -n 1)
wait "$driver"
got=$?
[ "$got" = 1 ] || fail "shared_memory, a user killed: exit status $got, want 1"
jq_check "$(latest_result)" '.levels[0].status == "failed"' \
	"shared_memory, a user killed: the level failed"
if [ "$(id -u)" = 0 ]; then
	left=$(ipcs -m -s | grep -c '^0x')
	[ "$left" = 0 ] || fail "a killed user's $left SysV objects were left"
else
	echo "note: SysV objects of a killed user (the test's own IPC namespace needs root) not checked"
fi
check_no_processes
check_scratch_empty
pass
