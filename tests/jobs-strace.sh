# tests/jobs-strace.sh: each job's declared syscalls match what strace counts in a single-job run.
. "$(dirname "$0")/lib.sh"
need strace

# Syscalls the driver and the user's own machinery make whatever the job:
# they may be missing from a declaration, however often they appear.
harness="futex clock_nanosleep wait4 nanosleep mmap munmap brk getrusage
	read write openat close newfstatat fstat lseek mkdir rmdir unlink
	getdents64 rt_sigaction rt_sigprocmask prctl getppid getpid clone
	clone3 exit_group set_robust_list rseq prlimit64 mprotect madvise
	kill ioctl fcntl rename fsync fchmod getrandom readlink sysinfo
	uname access execve arch_prctl set_tid_address pread64 statfs"

jobs=$(run_aimsweep list jobs | awk '/^  [a-z]/ { print $1 }')
for job in $jobs; do
	printf '1 %s\n' "$job" >"$test_dir/$job"
	strace -f -c -o "$test_dir/$job.strace" env AIMSWEEP_TEST_TAG="$tag" \
		"$AIMSWEEP" run --no-plot --levels 1 -t 0.5 -w 0 -d "$scratch" -o "$out" \
		"$test_dir/$job" >/dev/null 2>"$test_dir/stderr" ||
		fail "$job: run under strace failed: $(cat "$test_dir/stderr")"
	json=$(latest_result)
	ops=$(jq '.levels[0].jobs[0].ops' "$json")
	if [ "$(jq '.levels[0].jobs[0].skipped // false' "$json")" = true ]; then
		continue
	fi
	[ "$ops" -gt 0 ] || fail "$job: no ops under strace"
	# Declared "name count" pairs, and strace's "name calls" pairs.
	# Per op: count, plus per_inner_op for each of the level's inner ops.
	inner=$(jq '.levels[0].jobs[0].inner_ops' "$json")
	jq -r --argjson inner "$inner" '.mix.jobs[0].syscalls_per_op[] |
		"\(.name) \(.count + (.per_inner_op // 0) * $inner)"' "$json" \
		>"$test_dir/declared"
	awk '$NF ~ /^[a-z_0-9]+$/ && $4 ~ /^[0-9]+$/ && $NF != "total" {
		print $NF, $4 }' "$test_dir/$job.strace" >"$test_dir/counted"
	# Every declared syscall: between 0.8 and 1.25 times count * ops,
	# plus slack for init, fini and the op cut short by the stop.
	while read -r name count; do
		# strace -c counts a syscall when it returns: exit never does.
		case $name in exit | exit_group) continue ;; esac
		calls=$(awk -v n="$name" '$1 == n { print $2 }' "$test_dir/counted")
		calls=${calls:-0}
		awk -v c="$calls" -v d="$count" -v o="$ops" 'BEGIN {
			exit !(c >= 0.8 * d * o && c <= 1.25 * d * o + 20 * d + 60) }' ||
			fail "$job: declares $name x$count per op; strace counted $calls calls for $ops ops"
	done <"$test_dir/declared"
	# Every frequent syscall that is neither declared nor the harness's.
	while read -r name calls; do
		grep -q "^$name " "$test_dir/declared" && continue
		echo " $harness " | tr -s ' \t\n' ' ' | grep -q " $name " && continue
		awk -v c="$calls" -v o="$ops" 'BEGIN { exit !(c > 0.5 * o && c > 100) }' &&
			fail "$job: makes $name ($calls calls for $ops ops) but does not declare it"
	done <"$test_dir/counted"
	check_scratch_empty
done
check_no_processes
pass
