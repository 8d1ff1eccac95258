# tests/fault-output.sh: unwritable output and scratch directories are refused before the first level.
#
# cli-errors.sh covers a missing output parent, a missing scratch
# directory and (when not root) a mode 555 one; here the cases that need
# another user or a read-only filesystem.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault-lib.sh"

printf '1 getppid\n' >"$test_dir/wf"

# refused_before_start WHAT MESSAGE OUTDIR SCRATCH CMD...: exit 2 with
# MESSAGE, no level run, nothing in OUTDIR or SCRATCH.
refused_before_start() {
	local what=$1 message=$2 outdir=$3 sdir=$4
	shift 4
	"$@" >"$test_dir/stdout" 2>"$test_dir/stderr"
	got=$?
	[ "$got" = 2 ] || {
		cat "$test_dir/stderr" >&2
		fail "$what: exit status $got, want 2"
	}
	grep -q -- "$message" "$test_dir/stderr" || {
		cat "$test_dir/stderr" >&2
		fail "$what: stderr lacks '$message'"
	}
	grep -q '^ *[0-9]' "$test_dir/stdout" && fail "$what: a level ran"
	[ -z "$(ls -A "$outdir" 2>/dev/null)" ] ||
		fail "$what: written: $(ls -A "$outdir")"
	[ -z "$(ls -A "$sdir")" ] || fail "$what: scratch left: $(ls -A "$sdir")"
}

# Needs no privilege: the output path is a file.
: >"$test_dir/file"
refused_before_start "output is a file" "cannot create $test_dir/file/.*: Not a directory" \
	"$out" "$scratch" run_aimsweep run --levels 1 -t 0.5 -w 0 -d "$scratch" \
	-o "$test_dir/file" "$test_dir/wf"
refused_before_start "scratch is a file" "scratch directory $test_dir/file: not a directory" \
	"$out" "$scratch" run_aimsweep run --levels 1 -t 0.5 -w 0 \
	-d "$test_dir/file" -o "$out" "$test_dir/wf"

need_root "read-only mounts and runs as another user"

# Read-only filesystems: root's permission bits do not help there.
ro=$test_dir/ro
tmpfs_at "$ro" size=64k
mount -o remount,ro "$ro" || skip "cannot remount a tmpfs read-only"
refused_before_start "read-only scratch" "scratch directory $ro: not writable: Read-only file system" \
	"$out" "$ro" run_aimsweep run --levels 1 -t 0.5 -w 0 -d "$ro" \
	-o "$out" "$test_dir/wf"
refused_before_start "read-only output" "cannot create $ro/.*: Read-only file system" \
	"$ro" "$scratch" run_aimsweep run --levels 1 -t 0.5 -w 0 -d "$scratch" \
	-o "$ro" "$test_dir/wf"
refused_before_start "output below read-only" "cannot create output directory $ro/results: Read-only file system" \
	"$ro" "$scratch" run_aimsweep run --levels 1 -t 0.5 -w 0 -d "$scratch" \
	-o "$ro/results" "$test_dir/wf"

# An unprivileged user and directories it may not write.
nobody_setup
cp "$test_dir/wf" "$fault_tmp/wf"
chmod 644 "$fault_tmp/wf"
mkdir -m 755 "$fault_tmp/rootonly"
refused_before_start "output below a dir of another user" \
	"cannot create output directory $fault_tmp/rootonly/results: Permission denied" \
	"$fault_tmp/rootonly" "$nscratch" as_nobody "$naimsweep" run --no-plot \
	--levels 1 -t 0.5 -w 0 -d "$nscratch" -o "$fault_tmp/rootonly/results" \
	"$fault_tmp/wf"
refused_before_start "output dir of another user" \
	"cannot create $fault_tmp/rootonly/.*: Permission denied" \
	"$fault_tmp/rootonly" "$nscratch" as_nobody "$naimsweep" run --no-plot \
	--levels 1 -t 0.5 -w 0 -d "$nscratch" -o "$fault_tmp/rootonly" \
	"$fault_tmp/wf"
refused_before_start "scratch dir of another user" \
	"scratch directory $fault_tmp/rootonly: not writable: Permission denied" \
	"$nout" "$fault_tmp/rootonly" as_nobody "$naimsweep" run --no-plot \
	--levels 1 -t 0.5 -w 0 -d "$fault_tmp/rootonly" -o "$nout" \
	"$fault_tmp/wf"
# And the same user with directories it owns: the run works.
as_nobody "$naimsweep" run --no-plot --levels 1 -t 0.5 -w 0 -d "$nscratch" \
	-o "$nout" "$fault_tmp/wf" >"$test_dir/stdout" 2>"$test_dir/stderr" ||
	fail "uid 65534 in its own directories: $(cat "$test_dir/stderr")"
jq_check "$(ls "$nout"/*/result.json)" '.status == "complete"' "uid 65534 run"
[ -z "$(ls -A "$nscratch")" ] || fail "uid 65534 run left scratch files"
check_no_processes
pass
