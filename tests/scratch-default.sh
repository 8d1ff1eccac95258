# tests/scratch-default.sh: with no -d, DISKDIR or TMPDIR the users' files go to the tmpfs at /dev/shm (else /tmp, with a warning), and the header and result.json name the filesystem; TMPDIR and -d still choose; O_DIRECT jobs on a tmpfs say what they cannot measure.
. "$(dirname "$0")/lib.sh"

shm=/dev/shm
printf '10 creat_clo\n' >"$test_dir/files"

# check_header DIR TYPE: the table's header names where the files went.
check_header() {
	grep -qxF "# users' files in $1 ($2)" "$test_dir/stdout" ||
		fail "header does not say '# users' files in $1 ($2)': $(grep '^#' "$test_dir/stdout")"
}

# Nothing names a place: /dev/shm, when it is a tmpfs one can write in.
# With a mount namespace of our own the run gets a /dev/shm of its own,
# a new tmpfs, so that what it leaves there is told from what other
# programs keep in the machine's.
if [ "$(stat -f -c %T "$shm" 2>/dev/null)" = tmpfs ] && [ -w "$shm" ]; then
	if unshare -m true 2>/dev/null; then
		own_shm="unshare -m sh -c"
		own_shm_script='mount -t tmpfs aimsweep-test /dev/shm || exit 99
		    "$@"; rc=$?; ls -A /dev/shm >"$0"; exit $rc'
	else
		echo "note: no mount namespace here (not root?): other programs' files in $shm may be taken for the run's"
		own_shm="sh -c"
		own_shm_script='"$@"; rc=$?; ls -d /dev/shm/aimsweep.* >"$0" 2>/dev/null; exit $rc'
		ls -d "$shm"/aimsweep.* >"$test_dir/shm-before" 2>/dev/null
	fi
	expect_status 0 env -u TMPDIR AIMSWEEP_TEST_TAG="$tag" $own_shm \
		"$own_shm_script" "$test_dir/shm-after" \
		"$AIMSWEEP" run --no-plot --levels 2 -t 0.5 -w 0.2 -o "$out" \
		"$test_dir/files"
	json=$(latest_result)
	jq_check "$json" '.params.scratch_dirs == ["/dev/shm"] and
		.params.scratch_fs == [{"type": "tmpfs"}]' \
		"the default scratch is /dev/shm, a tmpfs"
	jq_check "$json" '.levels[0].status == "ok" and .levels[0].errors == 0' \
		"the level ran on /dev/shm"
	check_header /dev/shm tmpfs
	! grep -q 'journal\|not a tmpfs' "$test_dir/stderr" ||
		fail "a warning for a tmpfs: $(cat "$test_dir/stderr")"
	touch "$test_dir/shm-before"
	left=$(sort "$test_dir/shm-after" | comm -13 \
		"$(sort "$test_dir/shm-before" >"$test_dir/shm-b" &&
		   echo "$test_dir/shm-b")" -)
	[ -z "$left" ] || fail "left in $shm: $left"
else
	echo "note: $shm is not a writable tmpfs here: its default is not checked"
fi

# No tmpfs at /dev/shm: /tmp, and a warning that says what is measured.
# Needs a mount namespace of our own, in which /dev/shm is not a tmpfs.
if unshare -m true 2>/dev/null; then
	mkdir -p "$test_dir/plain"
	expect_status 0 env -u TMPDIR AIMSWEEP_TEST_TAG="$tag" unshare -m \
		sh -c 'mount --bind "$1" /dev/shm &&
		    shift && exec "$@"' sh "$test_dir/plain" \
		"$AIMSWEEP" run --no-plot --levels 1 -t 0.3 -w 0.1 -o "$out" \
		"$test_dir/files"
	json=$(latest_result)
	jq_check "$json" '.params.scratch_dirs == ["/tmp"]' \
		"no tmpfs at /dev/shm: the scratch is /tmp"
	expect_stderr "no -d, DISKDIR or TMPDIR, and /dev/shm is not a tmpfs one can write in: the users' files go to /tmp"
else
	echo "note: no mount namespace here (not root?): the fallback to /tmp is not checked"
fi

# TMPDIR (make check's test_guard sets one for each test) still chooses.
expect_status 0 run_aimsweep run --levels 1 -t 0.3 -w 0.1 -o "$out" \
	"$test_dir/files"
json=$(latest_result)
jq_check "$json" '.params.scratch_dirs == [env.TMPDIR]' "TMPDIR is the scratch"
# And -d measures any filesystem, named as it is.
expect_status 0 run_aimsweep run --levels 1 -t 0.3 -w 0.1 -d "$scratch" \
	-o "$out" "$test_dir/files"
json=$(latest_result)
type=$(stat -f -c %T "$scratch")
jq_check "$json" ".params.scratch_dirs == [\"$scratch\"]" "-d is the scratch"
[ "$(jq -r '.params.scratch_fs[0].type' "$json")" != unknown ] ||
	fail "-d $scratch: its filesystem is unknown (stat -f says $type)"
grep -q "^# users' files in $scratch (" "$test_dir/stdout" ||
	fail "no header line for -d: $(grep '^#' "$test_dir/stdout")"
check_scratch_empty

# A job that cannot measure on a tmpfs what it is for says so, in the
# run's warnings and in list -v.
expect_status 0 run_aimsweep list jobs -v
grep -q "on a tmpfs: tmpfs has no device, so O_DIRECT" "$test_dir/stdout" ||
	fail "list -v does not say what O_DIRECT jobs cannot do on a tmpfs"
mkdir -p "$test_dir/tmpfs"
if [ "$(stat -f -c %T "$shm" 2>/dev/null)" = tmpfs ] && [ -w "$shm" ]; then
	printf 'FILESIZE: 8K\nPOOLSIZE: 0K\n10 disk_dio_rr\n10 disk_rr\n' \
		>"$test_dir/dio"
	expect_status 0 run_aimsweep run --levels 1 -t 0.3 -w 0.1 -d "$shm" \
		-o "$out" "$test_dir/dio"
	expect_stderr "/dev/shm is a tmpfs: disk_dio_rr: tmpfs has no device"
	json=$(latest_result)
	# Refused (before Linux 6.6) or run: either way, never an error.
	jq_check "$json" '.levels[0].status == "ok" and
		([.levels[0].jobs[] | select(.name == "disk_dio_rr") |
		  .errors == 0 and (.skipped | not) or
		  (.skip_reason | test("tmpfs, which takes O_DIRECT from Linux 6.6"))] | all)' \
		"disk_dio_rr on a tmpfs runs or says why not"
fi
check_no_processes
pass
