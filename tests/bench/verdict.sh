# tests/bench/verdict.sh: the bench's verdicts on its targets (sourced by bench.sh; tests/bench-verdict.sh tests them).

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
