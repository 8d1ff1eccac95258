# tests/progress.sh: on a terminal each level shows one live progress line on standard error, rewritten in place and erased before the level's row; with output to a file or pipe, nothing extra.
. "$(dirname "$0")/lib.sh"

need script
printf '1 getppid\n' >"$test_dir/g.wf"
esc=$(printf '\033')
cr=$(printf '\r')

# On a terminal: script(1) gives the run one, and keeps what it printed.
TERM=xterm script -qec "env AIMSWEEP_TEST_TAG='$tag' '$AIMSWEEP' run --no-plot \
	--levels 1,2 -t 2 -w 0.3 -d '$scratch' -o '$out' '$test_dir/g.wf'" \
	"$test_dir/tty.log" >/dev/null </dev/null ||
	fail "the run on a terminal failed: $(tail -3 "$test_dir/tty.log")"
for want in '1 user: starting' '1 user: warm-up' '1 user: 1.0 of 2 s, ' \
    '2 users: 1.0 of 2 s, ' 'jobs/min so far' '2 users: stopping'; do
	grep -qF "$want" "$test_dir/tty.log" ||
		fail "no '$want' on the terminal: $(cat -A "$test_dir/tty.log" | head -20)"
done
# Each row starts on a line the progress line was erased from.
for users in 1 2; do
	grep -q "$cr$esc\[K *$users  *[0-9.]* .* ok" "$test_dir/tty.log" ||
		fail "the $users-user row does not follow an erased progress line: $(cat -A "$test_dir/tty.log")"
done
# The rate so far, after the window's first second, is the jobs since t0
# over the time since t0: the first interval's rate in result.json, which
# the same sample measured (to the line's one decimal). A rate from the
# gate, or over the last interval alone, would differ on a busy machine.
first=$(jq '.levels[0].intervals[0] | select(.start_s == 0) | .jobs_per_min' \
	"$(latest_result)")
[ -n "$first" ] || fail "no first interval in $(latest_result)"
awk -v cr="$cr" -v first="$first" '{ n = split($0, part, cr)
		for (i = 1; i <= n; i++)
		if (part[i] ~ /1 user: 1\.0 of 2 s, /) {
			sub(/.*1\.0 of 2 s, /, "", part[i]); so_far = part[i] + 0 } }
	END { if (!so_far || so_far - first > 0.051 || first - so_far > 0.051) {
		printf "so far %s, first interval %s\n", so_far, first; exit 1 } }' \
	"$test_dir/tty.log" ||
	fail "the progress rate is not the first interval's"
# None after t1: the window is over.
grep -qF ' 2.0 of 2 s' "$test_dir/tty.log" && fail "a progress sample at t1"
check_no_processes

# Standard error on the terminal but the table through a pipe: the rows
# would reach the screen after the progress line, so there is none.
TERM=xterm script -qec "env AIMSWEEP_TEST_TAG='$tag' '$AIMSWEEP' run --no-plot \
	--levels 1 -t 1 -w 0.2 -d '$scratch' -o '$out' '$test_dir/g.wf' | cat" \
	"$test_dir/pipe.log" >/dev/null </dev/null ||
	fail "the run into a pipe failed: $(tail -3 "$test_dir/pipe.log")"
grep -q "so far\|starting" "$test_dir/pipe.log" &&
	fail "progress shown while the table went through a pipe: $(cat -A "$test_dir/pipe.log")"
grep -q ' ok' "$test_dir/pipe.log" || fail "no row through the pipe: $(cat "$test_dir/pipe.log")"

# Not a terminal: no escape sequence and no carriage return anywhere.
expect_status 0 run_aimsweep run --levels 1 -t 1 -w 0.2 -d "$scratch" \
	-o "$out" "$test_dir/g.wf"
if grep -q "$esc\|$cr\|so far" "$test_dir/stdout" "$test_dir/stderr"; then
	fail "progress written although output is not a terminal: $(cat -A "$test_dir/stderr")"
fi
check_no_processes
pass
