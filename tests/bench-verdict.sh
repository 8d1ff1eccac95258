# tests/bench-verdict.sh: the bench says "met" only for a figure it measured, and formats no missing figure as a number.
. "$(dirname "$0")/lib.sh"
. "$AIMSWEEP_SRCDIR/tests/bench/verdict.sh"

# expect_verdict MEASURED OP LIMIT WANT
expect_verdict() {
	got=$(verdict "$1" "$2" "$3")
	[ "$got" = "$4" ] || fail "verdict '$1' $2 $3: '$got', want '$4'"
}
expect_verdict 0.116 "<" 0.5 met
expect_verdict 0.5 "<" 0.5 "not met"
expect_verdict 0.5 "<=" 0.5 met
expect_verdict 1.005 ">=" 0.98 met
expect_verdict 0.97 ">=" 0.98 "not met"
expect_verdict -60 "<" 512 met
expect_verdict 1e-3 "<" 0.5 met
# What a lost figure looks like: each would read as 0 and meet "<".
for lost in "" "-" nan -nan NaN inf null "stopped after 120 s"; do
	expect_verdict "$lost" "<" 0.5 "no figure"
	expect_verdict "$lost" ">=" 0.98 "no figure"
done
expect_verdict 0.1 "==" 0.1 "no figure"

# The median of no runs is nan, and formatting keeps it so: the 1000-user
# row of a bench that lost its runs must not read "0.000 < 0.5: met".
[ "$(fmt3 0.1164)" = 0.116 ] || fail "fmt3 0.1164: $(fmt3 0.1164)"
for lost in "" "-" nan; do
	[ "$(fmt3 "$lost")" = "$lost" ] || fail "fmt3 '$lost': '$(fmt3 "$lost")'"
	expect_verdict "$(fmt3 "$lost")" "<" 0.5 "no figure"
done
pass
