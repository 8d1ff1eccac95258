# tests/bench-verdict.sh: the bench says "met" only for a figure it measured, formats no missing figure as a number, and runs no scale row this machine's limits refuse.
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

# A refused run's message meets its target only by giving the value.
expect_names() {
	got=$(verdict_names "$1" "$2")
	[ "$got" = "$3" ] || fail "verdict_names '$1' $2: '$got', want '$3'"
}
refusal="aimsweep: a level of 32769 users is more than this machine allows: kernel.pid_max is 32768 and 90 tasks exist, leaving 32614; raise it to at least 32923 (sysctl -w kernel.pid_max=32923)"
expect_names "$refusal" kernel.pid_max met
expect_names "$refusal" kernel.threads-max "not met"
expect_names "aimsweep: raise kernel.pid_max" kernel.pid_max "not met"
expect_names "aimsweep: (sysctl -w kernel.pid_max=)" kernel.pid_max "not met"
expect_names "aimsweep: sysctl -w kernel.pid_maxx=5" kernel.pid_max "not met"
expect_names "" kernel.pid_max "no figure"
expect_names "-" kernel.pid_max "no figure"

# One case a line, fields split at "|": users, mode, kernel.pid_max,
# kernel.threads-max, vm.max_map_count, tasks, RLIMIT_NPROC, and what
# scale_needs must print (an empty field: a limit that could not be read).
while IFS='|' read -r users mode pid tmax maps tasks nproc want; do
	case $users in '#'*) continue ;; esac
	got=$(scale_needs "$users" "$mode" "$pid" "$tmax" "$maps" "$tasks" "$nproc")
	[ "$got" = "$want" ] ||
		fail "scale_needs $users $mode $pid $tmax $maps $tasks $nproc: '$got', want '$want'"
done <<'CASES'
# Room for the level, the tasks that exist and aimsweep's margin of 64.
1000|process|32768|192726|65530|90|unlimited|
32614|process|32768|192726|65530|90|unlimited|
32615|process|32768|192726|65530|90|unlimited|needs kernel.pid_max >= 32769: sysctl -w kernel.pid_max=32769
50000|process|32768|192726|65530|90|unlimited|needs kernel.pid_max >= 50154: sysctl -w kernel.pid_max=50154
50000|process|4194304|40000|65530|90|unlimited|needs kernel.threads-max >= 50154: sysctl -w kernel.threads-max=50154
# Threads take pids too, and four mappings each, which processes do not.
20000|process|4194304|192726|65530|90|unlimited|
16126|thread|4194304|192726|65530|90|unlimited|
16127|thread|4194304|192726|65530|90|unlimited|needs vm.max_map_count >= 65532: sysctl -w vm.max_map_count=65532
50000|thread|32768|192726|65530|90|unlimited|needs kernel.pid_max >= 50154: sysctl -w kernel.pid_max=50154; needs vm.max_map_count >= 201024: sysctl -w vm.max_map_count=201024
# RLIMIT_NPROC binds only where it is a number (not for root).
500|process|32768|192726|65530|90|500|needs RLIMIT_NPROC >= 501: ulimit -u 501
499|process|32768|192726|65530|90|500|
# A limit that could not be read is not checked, as aimsweep does.
50000|thread||0||90|unlimited|
CASES
pass
