# tests/cli-errors.sh: nonsense options and bad input are refused with exit 2 before anything runs.
. "$(dirname "$0")/lib.sh"

# refused "MESSAGE" ARGS...: exit status 2, MESSAGE on stderr, nothing run.
refused() {
	local message=$1
	shift
	expect_status 2 run_aimsweep "$@"
	expect_stderr "$message"
	[ -z "$(ls -A "$out")" ] || fail "something was written for: $*"
	check_scratch_empty
}

wf=$test_dir/wf
printf '1 getppid\n' >"$wf"
r="run -d $scratch -o $out -t 1 -w 0"

refused "0 users" $r -s 0 "$wf"
refused "0 users" $r --levels 1,0 "$wf"
refused "end 100 is below start 200" $r -s 200 -e 100 "$wf"
refused "increment: 0 would never" $r -i 0 "$wf"
refused "not a number of users" $r -s -5 "$wf"
refused "not a number of users" $r -e 99999999999999999999 "$wf"
refused "not a number of users" $r --levels 1,x "$wf"
refused "trailing comma" $r --levels 1,2, "$wf"
refused "do not mix" $r --levels 1,2 -s 1 "$wf"
refused "not a time in seconds" run -t 0 "$wf"
refused "not a time in seconds" run -t abc "$wf"
refused "not a time in seconds" run -w -1 "$wf"
refused "unknown option --frobnicate" $r --frobnicate "$wf"
refused "--repeat-order needs -r 2 or more" $r --repeat-order consecutive "$wf"
refused "--repeat-order needs -r 2 or more" $r -r 1 --repeat-order interleaved "$wf"
refused "not interleaved or consecutive" $r -r 2 --repeat-order random "$wf"
refused "use --repeat-order consecutive with it" $r -r 2 --repeat-order interleaved --stop-at-crossover 100 "$wf"
refused "unknown option -Q" $r -Q "$wf"
refused "needs a value" $r "$wf" -t
refused "one workfile at most" $r "$wf" "$wf"
refused "not shared or per-user" $r --layout both "$wf"
refused "not a whole number" $r --seed -1 "$wf"
refused "unknown command 'frob'" frob
# The other subcommands parse from their option tables too: a bad value
# names the option, a bad option points at the command's --help.
refused "report: -f/--format: unknown format 'xml'" report -f xml "$wf"
refused "compare: --noise: 'x' is not a percentage from 0 to 100" compare --noise x "$wf" "$wf"
refused "compare: --fail-above: '100.5' is not a percentage from 0 to 100" \
	compare --fail-above 100.5 "$wf" "$wf"
refused "plot: unknown option -z (aimsweep plot --help)" plot -z "$wf"
refused "list: unknown option --verbose=1" list --verbose=1
refused "Usage: aimsweep" 

# Levels the machine cannot hold are refused with the limit's numbers.
refused "kernel.pid_max is" $r --levels 1,999999 "$wf"

# Workfiles: missing, not found by name, bad content.
refused "cannot open workfile" $r "$test_dir/missing"
refused "no workfile 'no-such-mix'" $r no-such-mix
printf '10 getppd\n' >"$wf"
refused "wf:1: unknown job 'getppd'; did you mean 'getppid'?" $r "$wf"
printf '# nothing\n\n' >"$wf"
refused "no jobs" $r "$wf"
printf '1 getppid\n0 brk\n' >"$wf"
refused "wf:2: weight of 'brk' is 0" $r "$wf"
printf '\0\1\2' >"$wf"
refused "NUL bytes" $r "$wf"
printf '1 getppid\n' >"$wf"

# Directories: an output path under a file, a missing or read-only
# scratch. (Missing parents of the output directory are made, as
# mkdir -p does.)
refused "cannot create output directory $wf/sub: Not a directory" \
	run -d "$scratch" -o "$wf/sub" "$wf"
expect_status 0 run_aimsweep run -d "$scratch" -o "$test_dir/no/such" \
	--levels 1 -t 0.2 -w 0 "$wf"
ls "$test_dir"/no/such/*/result.json >/dev/null 2>&1 ||
	fail "-o with missing parents wrote no result.json"
refused "scratch directory $test_dir/nodir" \
	run -d "$test_dir/nodir" -o "$out" "$wf"
if [ "$(id -u)" != 0 ]; then
	mkdir "$test_dir/ro" && chmod 555 "$test_dir/ro"
	refused "not writable" run -d "$test_dir/ro" -o "$out" "$wf"
else
	# Root writes anywhere: uid 65534 meets the refusal, running a copy
	# of the program where it can reach it.
	nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	$nobody true 2>/dev/null || fail "setpriv cannot switch to uid 65534"
	ro_tmp=$(mktemp -d /tmp/aimsweep-cli.XXXXXX) || fail "mktemp failed"
	chmod 755 "$ro_tmp"
	cp "$AIMSWEEP" "$wf" "$ro_tmp/" && mkdir -m 555 "$ro_tmp/ro" &&
		mkdir "$ro_tmp/out" && chown 65534 "$ro_tmp/out" ||
		fail "cannot set up $ro_tmp"
	env AIMSWEEP_TEST_TAG="$tag" $nobody "$ro_tmp/aimsweep" run --no-plot \
		-d "$ro_tmp/ro" -o "$ro_tmp/out" -t 1 -w 0 "$ro_tmp/wf" \
		>"$test_dir/stdout" 2>"$test_dir/stderr"
	got=$?
	left=$(ls -A "$ro_tmp/out"; ls -A "$ro_tmp/ro")
	rm -rf "$ro_tmp"
	[ "$got" = 2 ] || fail "an unwritable scratch directory as uid 65534: exit status $got, want 2"
	expect_stderr "not writable"
	[ -z "$left" ] || fail "something was written as uid 65534: $left"
fi

# Help and version work and exit 0.
expect_status 0 run_aimsweep run --help
grep -q -- '--levels LIST' "$test_dir/stdout" || fail "run --help lacks --levels"
expect_status 0 run_aimsweep --help
expect_status 0 run_aimsweep version
grep -q '^aimsweep [0-9]' "$test_dir/stdout" || fail "no version"
# Each subcommand's --help has its options' lines, made from its table.
for cmd in report compare plot list; do
	expect_status 0 run_aimsweep $cmd --help
	grep -q -- '^  -h, --help  *show this help$' "$test_dir/stdout" ||
		fail "$cmd --help lacks -h, --help"
done
grep -q -- '^  -v, --verbose  ' "$test_dir/stdout" ||
	fail "list --help lacks -v, --verbose"
expect_status 0 run_aimsweep list
grep -q 'getppid' "$test_dir/stdout" || fail "list lacks getppid"
grep -q 'syscall-mix .*(default)' "$test_dir/stdout" || fail "list lacks workfiles"
# list jobs: every job once, under a group header that counts it (micro
# jobs, then AIM7 jobs); -v lists the same jobs, each with its units.
expect_status 0 run_aimsweep list jobs
awk '/^  [a-z]/ { print $1 }' "$test_dir/stdout" | sort >"$test_dir/jobs"
[ "$(wc -l <"$test_dir/jobs")" -ge 6 ] || fail "list jobs shows too few jobs"
[ -z "$(uniq -d "$test_dir/jobs")" ] || fail "list jobs repeats $(uniq -d "$test_dir/jobs")"
awk '/^# [0-9]+ (micro|AIM7) jobs?, / { n += $2 } /^  [a-z]/ { jobs++ }
	END { exit n != jobs || !jobs }' "$test_dir/stdout" ||
	fail "list jobs: the group headers do not count the job lines"
expect_status 0 run_aimsweep list jobs -v
awk '/^  [a-z]/ { print $1 }' "$test_dir/stdout" | sort >"$test_dir/jobs-v"
cmp -s "$test_dir/jobs" "$test_dir/jobs-v" || fail "list jobs -v lists other jobs"
[ "$(grep -cE '^ +units: (AIM7|micro)$' "$test_dir/stdout")" = "$(wc -l <"$test_dir/jobs")" ] ||
	fail "list jobs -v: not one units line per job"
pass
