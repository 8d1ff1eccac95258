# tests/cpu-profile-refused.sh: --cpu-profile without perf, or without the right to sample every CPU, is refused before any level.
. "$(dirname "$0")/lib.sh"

wf=$AIMSWEEP_WORKFILES/creat-contention

# The refusal is one line; warnings about the scratch directory's file
# system may come before it.
one_line() {
	[ "$(grep -vc '^aimsweep: warning: ' "$test_dir/stderr")" = 1 ] ||
		fail "not one line: $(cat "$test_dir/stderr")"
}

# No perf in PATH: one line that says so, exit 2, nothing written.
mkdir -p "$test_dir/empty"
env PATH="$test_dir/empty" AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" run \
	--no-plot --cpu-profile --levels 1 -t 1 -d "$scratch" -o "$out" "$wf" \
	>"$test_dir/stdout" 2>"$test_dir/stderr"
got=$?
[ "$got" = 2 ] || fail "--cpu-profile without perf: exit status $got, want 2"
expect_stderr '^aimsweep: --cpu-profile: perf not found in PATH'
one_line
[ -z "$(ls -A "$out")" ] || fail "a refused run wrote to $out"

# Without root, perf may sample every CPU only with
# kernel.perf_event_paranoid at 0 or below.
need perf
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null) ||
	skip "no /proc/sys/kernel/perf_event_paranoid"
[ "$paranoid" -gt 0 ] ||
	skip "kernel.perf_event_paranoid is $paranoid: anyone may sample here"
# As uid 65534 when root.
run_unprivileged "$wf" --cpu-profile --levels 1,2 -t 1
[ "$got" = 2 ] || {
	cat "$test_dir/stderr" >&2
	fail "--cpu-profile unprivileged, paranoid $paranoid: exit status $got, want 2"
}
expect_stderr "^aimsweep: --cpu-profile: perf record -a -e cpu-clock failed"
expect_stderr "needs root, or kernel.perf_event_paranoid (now $paranoid) lowered to 0 or below"
one_line
# Refused before any level: no row, no result directory, no scratch.
! grep -q '^ *[0-9]' "$test_dir/stdout" ||
	fail "a level ran: $(cat "$test_dir/stdout")"
[ -z "$left" ] || fail "a refused run left $left"
check_no_processes
pass
