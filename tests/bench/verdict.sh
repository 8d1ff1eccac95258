# tests/bench/verdict.sh: the bench's verdicts on its targets and on which rows this machine allows (sourced by bench.sh; tests/bench-verdict.sh tests them).

# fmt3 V: V with three decimals when it is a finite number, else V as it
# is ("nan", "-", ""), so that no missing figure is printed as 0.000.
fmt3() {
	awk -v v="$1" 'BEGIN {
		if (v ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/)
			printf "%.3f", v
		else
			printf "%s", v }'
}

# verdict MEASURED OP LIMIT: "met" or "not met" when MEASURED is a finite
# number and MEASURED OP LIMIT holds or not (OP one of >=, <, <=); "no
# figure" when it is anything else: missing, "-", nan, inf. awk reads
# such words as 0, which would meet every "<" target.
verdict() {
	awk -v m="$1" -v op="$2" -v l="$3" 'BEGIN {
		if (m !~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/)
			v = "no figure"
		else if (op == ">=") v = m + 0 >= l + 0 ? "met" : "not met"
		else if (op == "<") v = m + 0 < l + 0 ? "met" : "not met"
		else if (op == "<=") v = m + 0 <= l + 0 ? "met" : "not met"
		else v = "no figure"
		print v }'
}

# verdict_names MESSAGE KEY: "met" when MESSAGE gives the value to set the
# sysctl KEY to ("sysctl -w KEY=N"), "not met" when there is a message
# that does not, "no figure" when there is none (empty or "-").
verdict_names() {
	awk -v m="$1" -v k="$2" 'BEGIN {
		if (m == "" || m == "-") { print "no figure"; exit }
		s = "sysctl -w " k "="
		i = index(m, s)
		print i && substr(m, i + length(s)) ~ /^[0-9]/ ? "met" : "not met" }'
}

# scale_needs USERS MODE WORKFILE: what this machine must raise before a
# level of USERS users of WORKFILE in MODE (process or thread) can run,
# as $AIMSWEEP answers `run --check-limits`, the check each run makes
# before it forks: nothing when it allows the level, else the line it
# refused it with (exit status 2), without the "aimsweep: " before it.
# A check that fails otherwise gives its exit status too, so that the
# row is not measured and still says why.
scale_needs() {
	sn_err=$("$AIMSWEEP" run --check-limits --levels "$1" --mode "$2" \
		"$3" 2>&1 >/dev/null)
	sn_rc=$?
	[ "$sn_rc" -eq 0 ] && return
	sn_err=$(printf '%s\n' "$sn_err" | tail -n 1)
	sn_err=${sn_err#aimsweep: }
	[ "$sn_rc" -eq 2 ] && [ -n "$sn_err" ] ||
		sn_err="aimsweep run --check-limits exited with $sn_rc${sn_err:+: $sn_err}"
	printf '%s\n' "$sn_err"
}
