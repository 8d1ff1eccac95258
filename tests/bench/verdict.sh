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

# scale_needs USERS MODE PID_MAX THREADS_MAX MAX_MAP_COUNT TASKS NPROC:
# what this machine must raise before a level of USERS users in MODE
# (process or thread) can run, TASKS tasks existing, by aimsweep's own
# check (driver/limits.c, whose numbers these follow): USERS + TASKS + 64
# within kernel.pid_max and within kernel.threads-max; in thread mode, 4
# mappings a user + 1024 within vm.max_map_count; USERS + 1 within
# RLIMIT_NPROC (NPROC; "unlimited" for root, which it does not bind).
# Prints "needs KEY >= V: COMMAND" for each, joined by "; ", and nothing
# when the limits allow the level. A limit that is not a positive number
# (unreadable) is not checked, as aimsweep does not check it.
scale_needs() {
	awk -v n="$1" -v mode="$2" -v pid_max="$3" -v threads_max="$4" \
	    -v max_map="$5" -v tasks="$6" -v nproc="$7" '
	function need(key, have, want, cmd) {
		if (have !~ /^[0-9]+$/ || have + 0 <= 0 || want <= have + 0)
			return
		out = out sep sprintf("needs %s >= %d: %s%d", key, want, cmd, want)
		sep = "; "
	}
	BEGIN {
		t = n + tasks + 64
		need("kernel.pid_max", pid_max, t, "sysctl -w kernel.pid_max=")
		need("kernel.threads-max", threads_max, t,
		     "sysctl -w kernel.threads-max=")
		if (mode == "thread")
			need("vm.max_map_count", max_map, 4 * n + 1024,
			     "sysctl -w vm.max_map_count=")
		need("RLIMIT_NPROC", nproc, n + 1, "ulimit -u ")
		print out }'
}
