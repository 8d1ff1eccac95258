# tests/bench-verdict.sh: the bench says "met" only for a figure it measured, formats no missing figure as a number, and runs no scale row aimsweep says this machine's limits refuse.
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

# Which scale rows this machine allows is aimsweep's own answer, from
# its --check-limits; the cases follow this machine's limits. One case a
# line, fields split at "|": users, mode, and a pattern (as `case` has
# them) that what scale_needs prints must match, or, after a "!", must
# not; an empty pattern: it must print nothing.
printf '1 getppid\n' >"$test_dir/wf"
pid_max=$(cat /proc/sys/kernel/pid_max)
threads_max=$(cat /proc/sys/kernel/threads-max)
max_map=$(cat /proc/sys/vm/max_map_count)
past_pid=$((pid_max + 1))
past_pid_want="a level of $past_pid users is more than this machine allows: kernel.pid_max is $pid_max and *(sysctl -w kernel.pid_max=[0-9]*)"
# A kernel.pid_max above the most users a level may have is not met.
[ "$past_pid" -le 1000000 ] ||
	past_pid_want="*'$past_pid' is not a number of users from 1 to 1000000*"
# The fewest thread-mode users whose mappings vm.max_map_count cannot
# hold (4 a user and 1024). Where a level cannot have so many users, that
# is the refusal; where kernel.pid_max or kernel.threads-max cannot hold
# their tasks (with a margin for the tasks that exist), they are refused
# first for that, or, near the margin, still for their mappings: a
# refusal of this level that names the value to set all the same.
past_maps=$(((max_map - 1024) / 4 + 1))
past_maps_want="a level of $past_maps users is more than this machine allows in thread mode: vm.max_map_count is $max_map *(sysctl -w vm.max_map_count=[0-9]*)"
tasks=$(awk '{ split($4, t, "/"); print t[2] }' /proc/loadavg)
if [ "$past_maps" -gt 1000000 ]; then
	past_maps_want="*'$past_maps' is not a number of users from 1 to 1000000*"
elif [ $((past_maps + tasks + 1000)) -gt "$pid_max" ] ||
    [ $((past_maps + tasks + 1000)) -gt "$threads_max" ]; then
	past_maps_want="a level of $past_maps users is more than this machine allows*(sysctl -w [a-z.-]*=[0-9]*)"
fi
while IFS='|' read -r users mode want; do
	case $users in '#'*) continue ;; esac
	got=$(scale_needs "$users" "$mode" "$test_dir/wf")
	case $want in
	!*) case $got in ${want#!}) ok=false ;; *) ok=true ;; esac ;;
	'') [ -z "$got" ] && ok=true || ok=false ;;
	*) case $got in $want) ok=true ;; *) ok=false ;; esac ;;
	esac
	$ok || fail "scale_needs $users $mode: '$got', want '$want'"
done <<CASES
# A few users fit anywhere, in each mode.
1|process|
2|thread|
# A level past kernel.pid_max is refused with the value to set it to.
$past_pid|process|$past_pid_want
$past_pid|thread|$past_pid_want
# Threads take four mappings each, which processes do not.
$past_maps|thread|$past_maps_want
$past_maps|process|!*vm.max_map_count*
CASES

# A check that fails otherwise still names the row's reason.
got=$(scale_needs 1 process "$test_dir/no-such-wf")
case $got in
"$test_dir/no-such-wf: cannot open workfile"*) ;;
*) fail "scale_needs with a missing workfile: '$got'" ;;
esac
got=$(AIMSWEEP=false scale_needs 1 process "$test_dir/wf")
[ "$got" = "aimsweep run --check-limits exited with 1" ] ||
	fail "scale_needs of a check that exits 1: '$got'"
pass
