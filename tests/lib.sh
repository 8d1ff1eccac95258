# tests/lib.sh: shared setup and checks for the shell tests (sourced).
#
# Each test gets its own directory, scratch and output directories, and a
# tag that aimsweep (run through run_aimsweep) passes on to everything it
# starts, so that any process it leaves behind can be found even when tests
# run in parallel.

set -u

: "${AIMSWEEP:?run through make check, which sets AIMSWEEP}"
test_name=$(basename "$0" .sh)
test_dir=$(pwd)/tests/$test_name.tmp
scratch=$test_dir/scratch
out=$test_dir/out
tag="$test_name-$$"

rm -rf "$test_dir"
mkdir -p "$scratch" "$out"

cleanup() {
	# Never leave a process of this test behind, even when it failed.
	for pid in $(tagged_pids); do
		kill -9 "$pid" 2>/dev/null
	done
	if [ "${failed:-0}" = 0 ]; then
		rm -rf "$test_dir"
	fi
}
trap cleanup EXIT

fail() {
	failed=1
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*" >&2
	exit 77
}

pass() {
	echo "PASS: $test_name"
	exit 0
}

# not_checked WHAT: says that a sub-case of the test did not run here, in
# the form .ci/run reports (and refuses as root, where nothing may drop).
not_checked() {
	echo "note: $*: not checked"
}

# can_fake_pid_max: whether fake_pid_max works here (root, and mount
# namespaces).
can_fake_pid_max() {
	[ "$(id -u)" = 0 ] &&
		unshare -m --propagation private true 2>/dev/null
}

# fake_pid_max VALUE CMD...: runs CMD where /proc/sys/kernel/pid_max
# reads VALUE: a file bind-mounted over it in a mount namespace of CMD's
# own, so that a limit's arithmetic is tested whatever the machine's
# pid_max (systemd sets 4194304, more users than a level may have), and
# the machine's is never touched. Exits 99 when the mount fails.
fake_pid_max() {
	echo "$1" >"$test_dir/fake-pid_max"
	shift
	unshare -m --propagation private sh -c \
		'mount --bind "$1" /proc/sys/kernel/pid_max || exit 99
		shift
		exec "$@"' sh "$test_dir/fake-pid_max" "$@"
}

need() {
	command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed"
}

# aimsweep with this test's tag in its environment; only it and what it
# starts carry the tag, never the test's own shells. `run` gets --no-plot:
# drawing takes a second or two per run and most tests look at the JSON;
# a test that wants the plot calls run_aimsweep_plot.
run_aimsweep() {
	# What test_guard names if the test outlives its time limit.
	echo "aimsweep $*" >"$test_dir/last-step"
	if [ "${1:-}" = run ]; then
		shift
		env AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" run --no-plot "$@"
	else
		env AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" "$@"
	fi
}

run_aimsweep_plot() {
	echo "aimsweep $*" >"$test_dir/last-step"
	env AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" "$@"
}

# Processes that carry this test's tag: the driver, its users and theirs.
tagged_pids() {
	# One grep over every environment: fast even with a thousand users.
	grep -lsxz "AIMSWEEP_TEST_TAG=$tag" /proc/[0-9]*/environ |
		sed 's|^/proc/\([0-9]*\)/environ$|\1|'
}

check_no_processes() {
	left=$(tagged_pids)
	[ -z "$left" ] || fail "processes left behind: $left"
}

check_scratch_empty() {
	left=$(ls -A "$scratch")
	[ -z "$left" ] || fail "scratch directory not empty: $left"
}

# The result.json of the newest run in $out.
latest_result() {
	ls -td "$out"/*/ 2>/dev/null | head -n 1 | sed 's|/$|/result.json|'
}

# wait_for_levels N: waits (30 s at most) until the newest result.json in
# $out holds N levels; sets $json to it.
wait_for_levels() {
	local i
	for i in $(seq 1 300); do
		json=$(latest_result)
		if [ -n "$json" ] && [ -f "$json" ] &&
		    [ "$(jq '.levels | length' "$json" 2>/dev/null)" = "$1" ]; then
			return 0
		fi
		sleep 0.1
	done
	fail "never saw $1 finished levels in $out"
}

# How long a signalled run may take to exit, in ms: the half second the
# driver gives its users plus its own ending. A sanitized build is slower
# throughout, runs LeakSanitizer as it exits, and check-sanitized runs two
# tests at a time: 2027 ms was seen there once, against 200-450 ms alone.
exit_limit_ms=2000
if ldd "$AIMSWEEP" 2>/dev/null | grep -q 'libasan'; then
	exit_limit_ms=4000
fi

# check_documented FILE: every key of the result.json FILE is documented
# in results/SCHEMA.md (which gives each its unit), in the section of the
# object that holds it, not merely somewhere on the page, where a generic
# word such as `min` always is: a top-level key, or a key of host,
# params, mix, levels[] or summary, as a row of its section's table
# ("| `key`"); a key nested deeper (or under a top-level object with no
# section of its own, as tool), in backquotes within that section.
check_documented() {
	local paths missing
	paths=$(jq -r '[paths | map(select(type == "string"))] | unique[] |
		join(".")' "$1") || fail "cannot read the keys of $1"
	[ -n "$paths" ] || fail "no keys in $1"
	# One awk for every key, not a grep each: a result has a hundred and
	# more, and a test that checks several results spent seconds on
	# them. The text of each "## " section, its "### " subsections
	# included, under the heading's letters: Toplevel, host, levels, ...
	missing=$(printf '%s\n' "$paths" | awk -v schema="$AIMSWEEP_SRCDIR/results/SCHEMA.md" '
		BEGIN {
			while ((got = getline line < schema) > 0) {
				if (line ~ /^## /) {
					name = substr(line, 4)
					gsub(/[^A-Za-z0-9_]/, "", name)
				}
				if (name != "")
					sec[name] = sec[name] line "\n"
			}
			if (got < 0)
				exit 2
		}
		{
			for (i = 1; i <= NF; i++) {
				n = split($i, part, ".")
				key = part[n]
				top = part[1]
				if (n == 1) {
					s = "Toplevel"; want = "| `" key "`"
				} else if (!(top in sec)) {
					s = "Toplevel"; want = "`" key "`"
				} else if (n == 2) {
					s = top; want = "| `" key "`"
				} else {
					s = top; want = "`" key "`"
				}
				if (!(s in sec) || !index(sec[s], want))
					printf " %s", $i
			}
		}') || fail "cannot read results/SCHEMA.md"
	[ -z "$missing" ] ||
		fail "keys of $1 not in their section of results/SCHEMA.md:$missing"
}

# run_unprivileged WORKFILE ARGS...: `aimsweep run --no-plot ARGS` on
# WORKFILE as uid 65534 (as this user when not root), from a copy of the
# program and the workfile in a directory of their own that uid 65534 can
# reach, with its own scratch and output directories; stdout and stderr
# go to the test's files. Sets $got to its exit status and $left to what
# it left in those directories. For runs refused before any level: the
# users' program is not copied.
run_unprivileged() {
	local wf=$1 dir as=
	shift
	if [ "$(id -u)" = 0 ]; then
		as="setpriv --reuid=65534 --regid=65534 --clear-groups"
		$as true 2>/dev/null || fail "setpriv cannot switch to uid 65534"
	fi
	dir=$(mktemp -d /tmp/aimsweep-unprivileged.XXXXXX) ||
		fail "mktemp failed"
	chmod 755 "$dir"
	cp "$AIMSWEEP" "$wf" "$dir/" && mkdir "$dir/out" "$dir/scratch" &&
		chmod 777 "$dir/out" "$dir/scratch" || fail "cannot set up $dir"
	(cd "$dir" && env AIMSWEEP_TEST_TAG="$tag" TMPDIR="$dir/scratch" $as \
		"$dir/aimsweep" run --no-plot "$@" -d "$dir/scratch" \
		-o "$dir/out" "$dir/$(basename "$wf")") \
		>"$test_dir/stdout" 2>"$test_dir/stderr"
	got=$?
	left=$(ls -A "$dir/out" "$dir/scratch" | grep -v ':$' | grep .)
	rm -rf "$dir"
}

# jq_check FILE FILTER MESSAGE: FILTER must output true.
jq_check() {
	v=$(jq -e "$2" "$1" 2>&1) || fail "$3 (jq: $2 gave: $v)"
}

# expect_status WANT CMD...: runs CMD, checks its exit status.
expect_status() {
	local want_status=$1 got_status
	shift
	"$@" >"$test_dir/stdout" 2>"$test_dir/stderr"
	got_status=$?
	[ "$got_status" = "$want_status" ] || {
		cat "$test_dir/stderr" >&2
		fail "exit status $got_status, want $want_status: $*"
	}
}

expect_stderr() {
	grep -q -- "$1" "$test_dir/stderr" || {
		cat "$test_dir/stderr" >&2
		fail "stderr lacks '$1'"
	}
}

need jq
