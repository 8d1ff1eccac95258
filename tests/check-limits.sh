# tests/check-limits.sh: run --check-limits answers whether the levels fit this machine as a run would, and makes and starts nothing.
. "$(dirname "$0")/lib.sh"

wf=$test_dir/wf
printf '1 getppid\n' >"$wf"
# Short levels, so that a check that ran them would cost little.
r="run --check-limits -d $scratch -o $out/results -t 0.2 -w 0"

# made_nothing ARGS...: nothing on stdout, no output directory, nothing
# in the scratch directory, no process left.
made_nothing() {
	[ ! -s "$test_dir/stdout" ] ||
		fail "stdout of $*: $(cat "$test_dir/stdout")"
	[ ! -e "$out/results" ] || fail "an output directory was made by: $*"
	check_scratch_empty
	check_no_processes
}

# Levels that fit: exit 0, and nothing said.
for mode in process thread; do
	expect_status 0 run_aimsweep $r --levels 1,2 --mode "$mode" "$wf"
	[ ! -s "$test_dir/stderr" ] ||
		fail "stderr of an allowed $mode check: $(cat "$test_dir/stderr")"
	made_nothing --mode "$mode"
done

# What a run refuses before the limits is refused as before.
expect_status 2 run_aimsweep $r --levels 1 -s 1 "$wf"
expect_stderr "do not mix"
printf '1 getppd\n' >"$test_dir/bad"
expect_status 2 run_aimsweep $r --levels 1 "$test_dir/bad"
expect_stderr "bad:1: unknown job 'getppd'"
made_nothing a bad workfile

# One user past kernel.pid_max: refused with exit 2 and the one line a
# run prints, naming the sysctl and the value to give it. Where pid_max +
# 1 is more users than a level may have (systemd's 4194304), the run sees
# a pid_max of 32768 instead (fake_pid_max in tests/lib.sh).
pid_max=$(cat /proc/sys/kernel/pid_max)
fake=
if [ $((pid_max + 1)) -gt 1000000 ]; then
	can_fake_pid_max || {
		not_checked "kernel.pid_max + 1 ($((pid_max + 1))) is more users than a level may have, and only root can show the run another: the pid_max refusal"
		pass
	}
	pid_max=32768
	fake="fake_pid_max $pid_max"
fi
past=$((pid_max + 1))
expect_status 2 $fake env AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" $r \
	--levels 1,$past "$wf"
expect_stderr "^aimsweep: a level of $past users is more than this machine allows: kernel.pid_max is $pid_max and "
expect_stderr "(sysctl -w kernel.pid_max=[0-9]*)$"
[ "$(wc -l <"$test_dir/stderr")" = 1 ] ||
	fail "more than the one line of the refusal: $(cat "$test_dir/stderr")"
# The arithmetic: what is left is pid_max less the tasks that exist and
# a margin of 64 left free for the driver, the shell and the rest
# (TASK_MARGIN in driver/measure/limits.c), and the value to raise it to is the
# level, those tasks and the margin.
margin=64
set -- $(sed -E 's/.* and ([0-9]+) tasks exist, leaving (-?[0-9]+); raise it to at least ([0-9]+) .*/\1 \2 \3/' \
	"$test_dir/stderr")
[ $# = 3 ] || fail "no task count in the refusal: $(cat "$test_dir/stderr")"
[ "$2" = $((pid_max - $1 - margin)) ] ||
	fail "pid_max $pid_max with $1 tasks leaves $2, want $((pid_max - $1 - margin))"
[ "$3" = $((past + $1 + margin)) ] ||
	fail "a level of $past beside $1 tasks needs $3, want $((past + $1 + margin))"
made_nothing --levels 1,$past
pass
