# tests/fault-input.sh: hostile numbers, options and workfiles are refused with exit 2 before anything runs.
#
# Extends cli-errors.sh (which has the basic cases of each kind) with
# values at and past every limit, and files that are not workfiles.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault-lib.sh"
need timeout

# run_aimsweep, bounded in time: reading a FIFO or /dev/zero must not hang.
run_aimsweep_timed() {
	if [ "$1" = run ]; then
		shift
		set -- run --no-plot "$@"
	fi
	env AIMSWEEP_TEST_TAG="$tag" timeout -s KILL 30 "$AIMSWEEP" "$@"
}

# refused "MESSAGE" ARGS...: exit 2, MESSAGE on stderr, nothing written.
refused() {
	local message=$1
	shift
	expect_status 2 run_aimsweep_timed "$@"
	expect_stderr "$message"
	[ -z "$(ls -A "$out")" ] || fail "something was written for: $*"
	check_scratch_empty
}

wf=$test_dir/wf
printf '1 getppid\n' >"$wf"
r="run -d $scratch -o $out -t 1 -w 0"

# Numbers: negative, past the type, past the limit, not decimal.
refused "'-0.5' is not a time in seconds" $r -t -0.5 "$wf"
refused "'1e308' is not a time in seconds from 0.1 to 86400" $r -t 1e308 "$wf"
refused "'nan' is not a time in seconds" $r -t nan "$wf"
refused "'inf' is not a time in seconds" $r -t inf "$wf"
refused "'' is not a time in seconds" $r --runtime= "$wf"
refused "'1e400' is not a time in seconds" $r -w 1e400 "$wf"
refused "'nan' is not a time in seconds" $r -w nan "$wf"
refused "'-1' is not a time in seconds" $r --grace -1 "$wf"
refused "'0' is not a time in seconds from 0.1" $r --grace 0 "$wf"
refused "'1e9' is not a time in seconds" $r --grace 1e9 "$wf"
refused "'18446744073709551616' is not a whole number" $r --seed 18446744073709551616 "$wf"
refused "'0x10' is not a whole number" $r --seed 0x10 "$wf"
refused "'-1' is not a number of users" $r -i -1 "$wf"
refused "'99999999999999999999' is not a number of users" $r -i 99999999999999999999 "$wf"
refused "'1000001' is not a number of users from 1 to 1000000" $r -e 1000001 "$wf"
refused "'4294967297' is not a number of users" $r --levels 4294967297 "$wf"
refused "'-2' is not a number of users" $r --levels 1,-2 "$wf"
refused "'0x10' is not a number of users" $r -s 0x10 "$wf"
refused "'+5' is not a number of users" $r -s +5 "$wf"
refused "'5k' is not a number of users" $r -s 5k "$wf"
refused "'1e3' is not a number of users" $r -e 1e3 "$wf"
refused "' 5' is not a number of users" $r -s ' 5' "$wf"
refused "bad list ',1'" $r --levels ,1 "$wf"
refused "bad list '1,,2'" $r --levels 1,,2 "$wf"
refused "empty list" $r --levels= "$wf"
refused "more than 10000 levels" $r --levels "$(seq -s, 1 10001)" "$wf"
refused "levels from 1 to 1000000 by 1: at most 10000" $r -s 1 -e 1000000 -i 1 "$wf"
# A million users: more than this machine's kernel limits allow, so it is
# refused, never attempted. (A machine with a huge pid_max and
# threads-max would try to fork them: there the run sees a pid_max of
# 32768, see fake_pid_max.)
pid_max=$(cat /proc/sys/kernel/pid_max)
threads_max=$(cat /proc/sys/kernel/threads-max)
if [ "$pid_max" -lt 1000000 ] || [ "$threads_max" -lt 1000000 ]; then
	refused "a level of 1000000 users is more than this machine allows" \
		$r --levels 1000000 "$wf"
	expect_stderr "raise it to at least"
elif can_fake_pid_max; then
	expect_status 2 fake_pid_max 32768 env AIMSWEEP_TEST_TAG="$tag" \
		"$AIMSWEEP" $r --levels 1000000 "$wf"
	expect_stderr "a level of 1000000 users is more than this machine allows: kernel.pid_max is 32768 "
else
	not_checked "pid_max ($pid_max) and threads-max ($threads_max) allow a million users, and only root can show the run another pid_max: their refusal"
fi
# In thread mode a user takes four mappings of the one process: a level
# that pid_max allows but vm.max_map_count does not is refused, and the
# message gives the value it needs.
max_map=$(cat /proc/sys/vm/max_map_count)
users=$(((max_map - 1024) / 4 + 1))
if [ "$users" -lt $((pid_max - 1000)) ] && [ "$users" -lt $((threads_max - 1000)) ]; then
	refused "vm.max_map_count is $max_map mappings and the level needs $((users * 4 + 1024)); raise it to at least $((users * 4 + 1024)) (sysctl -w vm.max_map_count=$((users * 4 + 1024)))" \
		$r --mode thread --levels "$users" "$wf"
else
	echo "note: vm.max_map_count ($max_map) above what pid_max allows: the thread-mode mapping limit not checked"
fi

# Options: unknown ones, with values, after the workfile, to other commands.
refused "unknown option --frobnicate=3" $r --frobnicate=3 "$wf"
refused "unknown option -x" $r "$wf" -x
refused "needs a value" $r "$wf" --levels
refused "list: unknown argument 'frob'" list frob
refused "list: unknown option -x (aimsweep list --help)" list jobs -x
refused "one workfile at most" $r -- -s "$wf"

# Workfiles that are not text, not files, or not small.
refused "$test_dir: not a regular file" $r "$test_dir"
refused "/dev/zero: not a regular file" $r /dev/zero
ln -s /dev/zero "$test_dir/zero-link"
refused "zero-link: not a regular file" $r "$test_dir/zero-link"
mkfifo "$test_dir/fifo"
refused "fifo: not a regular file" $r "$test_dir/fifo"
head -c 1100000 /dev/zero | tr '\0' '\n' >"$test_dir/big"
refused "big: is 1100000 bytes; a workfile is at most 1048576" $r "$test_dir/big"
head -c 5000 /dev/zero | tr '\0' 'a' >"$test_dir/longline"
refused "longline:1: line longer than" $r "$test_dir/longline"

# Workfile numbers: weights and sizes past their limits or negative.
printf '100001 getppid\n' >"$wf"
refused "wf:1: weight 100001 is above the limit of 100000" $r "$wf"
printf '1 getppid\n99999999999999999999999 brk\n' >"$wf"
refused "wf:2: weight 99999999999999999999999 is above the limit" $r "$wf"
printf -- '-1 getppid\n' >"$wf"
refused "wf:1: bad weight '-1'" $r "$wf"
printf '1.5 getppid\n' >"$wf"
refused "wf:1: bad weight '1.5'" $r "$wf"
for job in getppid brk creat close kill unlink mem_rtns_1 ram_copy sieve \
    fun_cal fun_cal1; do
	echo "100000 $job"
done >"$wf"
refused "wf:11: the weights add up to more than 1000000" $r "$wf"
printf 'FILESIZE: 99999999999999999999K\n1 getppid\n' >"$wf"
refused "wf:1: bad FILESIZE '99999999999999999999K'" $r "$wf"
printf 'FILESIZE: -5K\n1 getppid\n' >"$wf"
refused "wf:1: bad FILESIZE '-5K'" $r "$wf"
printf 'POOLSIZE: 2000G\n1 getppid\n' >"$wf"
refused "wf:1: bad POOLSIZE '2000G'" $r "$wf"
printf '1 getppid\nFILESIZE: 17179869184G\n' >"$wf"
refused "wf:2: bad FILESIZE" $r "$wf"

# A level above RLIMIT_NPROC for an unprivileged user (root is exempt
# from the limit, so this needs another uid).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
    command -v prlimit >/dev/null; then
	nobody_setup
	printf '1 getppid\n' >"$fault_tmp/wf"
	chmod 644 "$fault_tmp/wf"
	expect_status 2 env AIMSWEEP_TEST_TAG="$tag" prlimit --nproc=50:50 \
		$nobody "$naimsweep" run --no-plot --levels 10,60 -t 1 -w 0 \
		-d "$nscratch" -o "$nout" "$fault_tmp/wf"
	expect_stderr "a level of 60 users is more than this machine allows: RLIMIT_NPROC (ulimit -u) is 50 processes"
	[ -z "$(ls -A "$nout" "$nscratch" | grep -v ':$' | grep .)" ] ||
		fail "RLIMIT_NPROC refusal wrote something"
else
	not_checked "not root, or no setpriv or prlimit: the RLIMIT_NPROC refusal"
fi
# A program without its users' program beside it (a copy of the binary
# alone, not installed): a process-mode run stops before its first
# level, names what is missing, and leaves nothing behind. Thread mode
# does not need it.
printf '1 getppid\n' >"$wf"
mkdir "$test_dir/bin"
cp "$AIMSWEEP" "$(dirname "$AIMSWEEP")/aimsweep-exec-child" "$test_dir/bin/" ||
	fail "cannot copy the program"
expect_status 1 env AIMSWEEP_TEST_TAG="$tag" "$test_dir/bin/aimsweep" run \
	--no-plot --levels 1 -t 0.2 -w 0 -d "$scratch" -o "$out" "$wf"
expect_stderr "aimsweep: cannot start $test_dir/bin/aimsweep-users, the process that forks the users: No such file or directory"
[ -z "$(ls -A "$out")" ] || fail "a run without aimsweep-users wrote results"
check_scratch_empty
expect_status 0 env AIMSWEEP_TEST_TAG="$tag" "$test_dir/bin/aimsweep" run \
	--no-plot --mode thread --levels 1 -t 0.2 -w 0 -d "$scratch" \
	-o "$out" "$wf"
check_scratch_empty
check_no_processes
pass
