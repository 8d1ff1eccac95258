# tests/fault-lib.sh: helpers the fault tests share (sourced after lib.sh).
#
# Runs as an unprivileged user need a copy of the program where that user
# can reach it (the build tree may be under a private home), and scratch
# and output directories it can write: both live in a mktemp directory
# under /tmp that is removed at the end. Mounts and background processes
# a test registers are undone at the end too, whatever happened.

fault_mounts=
fault_pids=
fault_tmp=

fault_cleanup() {
	local m p
	for p in $fault_pids; do
		# (The braces keep the shell's "Killed" notice out of the log.)
		{ kill -9 "$p" && wait "$p"; } 2>/dev/null
	done
	for m in $fault_mounts; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	[ -n "$fault_tmp" ] && rm -rf "$fault_tmp"
	cleanup
}
trap fault_cleanup EXIT

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root: $*"
}

# tmpfs_at DIR OPTIONS: mounts a tmpfs on DIR (made if missing), unmounted
# at the end; skips when this machine does not let us mount.
tmpfs_at() {
	mkdir -p "$1"
	mount -t tmpfs -o "$2" aimsweep-test "$1" 2>"$test_dir/mount.err" ||
		skip "cannot mount a tmpfs: $(cat "$test_dir/mount.err")"
	fault_mounts="$1 $fault_mounts"
}

# nobody_setup: makes $fault_tmp with a copy of the program in bin/ and
# scratch and output directories owned by uid 65534 ($nscratch, $nout).
# Then `as_nobody CMD...` runs CMD as that user with this test's tag.
nobody_setup() {
	need_root "runs aimsweep as an unprivileged user"
	need setpriv
	need prlimit
	fault_tmp=$(mktemp -d /tmp/aimsweep-fault.XXXXXX) || fail "mktemp failed"
	chmod 755 "$fault_tmp"
	mkdir "$fault_tmp/bin" "$fault_tmp/scratch" "$fault_tmp/out"
	cp "$AIMSWEEP" "$fault_tmp/bin/aimsweep" || fail "cannot copy $AIMSWEEP"
	# exec_test's helper and the users' program are looked for next to
	# the program.
	cp "$(dirname "$AIMSWEEP")/aimsweep-exec-child" \
		"$(dirname "$AIMSWEEP")/aimsweep-users" "$fault_tmp/bin/" ||
		fail "cannot copy the helper programs"
	chmod 755 "$fault_tmp/bin"/*
	chown 65534:65534 "$fault_tmp/scratch" "$fault_tmp/out"
	nscratch=$fault_tmp/scratch
	nout=$fault_tmp/out
	naimsweep=$fault_tmp/bin/aimsweep
	$nobody true 2>/dev/null ||
		skip "setpriv cannot switch to uid 65534 here"
}

# The command prefix that becomes uid 65534, for use after prlimit.
nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"

as_nobody() {
	env AIMSWEEP_TEST_TAG="$tag" $nobody "$@"
}

# check_valid_result JSON: the file is complete, valid JSON of our schema.
check_valid_result() {
	jq -e '.schema_version == 3 and (.levels | type == "array")' "$1" \
		>/dev/null 2>&1 || fail "$1 is not a valid result.json"
	# A failed level says why; an ok one has numbers.
	jq_check "$1" '[.levels[] | if .status == "failed" then (.reason | type == "string" and length > 0) else .status == "ok" and .jobs_per_min >= 0 end] | all' "every level ok with numbers or failed with a reason"
}
