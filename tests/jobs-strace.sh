# tests/jobs-strace.sh: one op of every job makes the syscalls it declares, and an AIM7 job those of reaim's job of its name.
. "$(dirname "$0")/lib.sh"

# Where an AIM7 job's syscalls differ from reaim's on purpose, one
# "job syscall reason" a line: that syscall of that job is not compared
# with reaim's row, either way; syscall * means none of the job's is
# (it is held to its declarations only). Each needs its reason in
# aimsweep.1's deviations section, in a paragraph that names the job and
# the syscall.
deviations="
disk_dio_wrt write reaim's block count is overwritten by its aligned allocation's 0: no write; ours writes the whole file
disk_dio_cp read reaim's block count is overwritten by its aligned allocation's 0: no read; ours reads the whole file
disk_dio_cp write reaim's block count is overwritten by its aligned allocation's 0: no write; ours writes the whole file
exec_test write reaim's exec fails (no program where it looks) and each child writes the failure; ours loads a program
exec_test prctl ours binds each child to its user before the exec
exec_test getppid ours binds each child to its user before the exec
shell_rtns_1 * reaim's shell finds no script; ours runs one, from a vfork()ed shell
shell_rtns_2 * reaim's shell finds no script; ours runs one, from a vfork()ed shell
shell_rtns_3 * reaim's shell finds no script; ours runs one, from a vfork()ed shell
"

# Ops per strace run: one op's syscalls are (count at 6 - count at 2) / 4,
# free of the runner's start, the job's set-up and its tear-down. (A
# syscall more or less in each op is 1 per op, past compare's 0.5; one
# or two stray calls in a run are 0.25 or 0.5 per op, within it.)
long_ops=6
short_ops=2

: "${JOB_RUNNER:?run through make check, which sets JOB_RUNNER}"
: "${AIMSWEEP_LIBEXEC:?run through make check, which sets AIMSWEEP_LIBEXEC}"
need strace
strace -f -c -o "$test_dir/probe" true 2>/dev/null ||
	skip "strace cannot trace here (ptrace not permitted?)"

man=$AIMSWEEP_SRCDIR/aimsweep.1
reference=${AIMSWEEP_REFERENCE:-}/aim7-job-syscalls.md
if [ ! -f "$reference" ]; then
	echo "note: no $reference: AIM7 jobs against reaim's syscalls are not checked, only against their declarations"
	reference=
fi
case $(readlink -f /bin/sh) in
*/dash) sh_is_dash=1 ;;
*)
	sh_is_dash=0
	echo "note: /bin/sh is $(readlink -f /bin/sh), not dash: shell_rtns_1, shell_rtns_2 and shell_rtns_3 are not checked (their syscalls are the shell's)"
	;;
esac

# Every deviation is documented: some paragraph (.TP, .PP, .IP) of the
# man page's deviations section names both the job and the syscall.
echo "$deviations" | while read -r job sc reason; do
	[ -n "$job" ] || continue
	awk -v job="$job" -v sc="$sc" '
	/^\.S[HS]/ { insec = (tolower($0) ~ /deviation/); para = ""; next }
	!insec { next }
	/^\.(TP|PP|IP|LP|P)([ \t]|$)/ { para = ""; next }
	{ para = para " " $0
	  if (index(para, job) && (sc == "*" ||
	      para ~ ("(^|[^a-z_0-9])" sc "([^a-z_0-9]|$)")))
		found = 1 }
	END { exit !found }' "$man" ||
		{ echo "FAIL: deviation '$job $sc' ($reason) is not in $man's deviations section"; exit 1; }
done || fail "undocumented deviations"

# And every job that says it deviates from reaim (list -v) is in that
# section too, under its name.
"$AIMSWEEP" list jobs -v | awk '
	/^  [a-z]/ { job = $1 }
	/deviation from reaim:/ { print job }' >"$test_dir/deviating"
[ -s "$test_dir/deviating" ] || fail "list jobs -v shows no deviation from reaim"
while read -r job; do
	awk -v job="$job" '
	/^\.S[HS]/ { insec = (tolower($0) ~ /deviation/); next }
	insec && index($0, job) { found = 1 }
	END { exit !found }' "$man" ||
		fail "$job deviates from reaim (list -v) but $man's deviations section does not name it"
done <"$test_dir/deviating"

# counts FILE: "name calls" from strace -c's table (calls is its fourth
# column whether or not the errors column is filled).
counts() {
	awk '$NF ~ /^[a-z_0-9]+$/ && $4 ~ /^[0-9]+$/ && $NF != "total" {
		print $NF, $4 }' "$1"
}

# strace_job JOB OPS: runs OPS ops of JOB under strace -f -c into
# $test_dir/JOB.OPS; returns the runner's status.
strace_job() {
	local dir=$scratch/$1.$2 rc
	mkdir "$dir" || fail "cannot make $dir"
	env AIMSWEEP_TEST_TAG="$tag" timeout -k 5 600 \
		strace -f -c -o "$test_dir/$1.$2.strace" \
		"$JOB_RUNNER" "$1" "$2" "$dir" "$AIMSWEEP_LIBEXEC" \
		</dev/null >"$test_dir/$1.out" 2>&1
	rc=$?
	rm -rf "$dir"
	return $rc
}

# reaim_row JOB: reaim's syscalls of one job, "name count" a line, less
# reaim's own bookkeeping: its two times() around each job, the getrandom
# and the newfstatat per getrandom of its temporary names. Counts that
# end at or below 0 are dropped. Fails when the job has no row.
reaim_row() {
	awk -F'|' -v job="$1" '
	{ t = $2; gsub(/[ \t]/, "", t) }
	t != job { next }
	{	found = 1
		n = split($3, pair, ",")
		for (i = 1; i <= n; i++) {
			split(pair[i], w, " ")
			if (w[1] == "")
				continue
			if (!(w[1] in c))
				order[++m] = w[1]
			c[w[1]] += w[2]
		}
		c["times"] -= 2
		c["newfstatat"] -= int(c["getrandom"])
		delete c["getrandom"]
		for (i = 1; i <= m; i++)
			if (c[order[i]] > 0)
				print order[i], c[order[i]]
	}
	END { exit !found }' "$reference"
}

# compare WANT GOT WHOSE: prints a line per mismatch between WANT's and
# GOT's "name count" lines, in WANT's order, then GOT's extras. A count
# must be within 2% of WANT's, or 0.5 when that is more (counts below 10
# exactly, up to two stray calls in a difference divided by 4); a syscall
# that WANT lacks must stay below 0.5 per op.
compare() {
	awk -v whose="$3" '
	function tol(d) { return d * 0.02 > 0.5 ? d * 0.02 : 0.5 }
	FILENAME == ARGV[1] { if (!($1 in want)) order[++n] = $1
			      want[$1] += $2; next }
	{ got[$1] = $2 }
	END {
		for (i = 1; i <= n; i++) {
			s = order[i]; d = want[s]; g = got[s] + 0
			if (d > 0 && (g < d - tol(d) || g > d + tol(d)))
				printf "%s %s %g, counted %.3f per op\n",
					whose, s, d, g
		}
		for (s in got)
			if (!(s in want) && got[s] >= 0.5)
				printf "counted %s %.3f per op, %s none\n",
					s, got[s], whose
	}' "$1" "$2"
}

failed_jobs=
jobs=$("$JOB_RUNNER" --list) || fail "job_runner --list failed"
[ -n "$jobs" ] || fail "job_runner --list lists no job"
echo "$jobs" >"$test_dir/jobs"
while read -r job family; do
	case $job in
	shell_rtns_*)
		if [ "$sh_is_dash" = 0 ]; then
			echo "$job: not checked: /bin/sh is not dash"
			continue
		fi
		;;
	esac
	why=$test_dir/$job.mismatches
	: >"$why"
	for ops in $long_ops $short_ops; do
		strace_job "$job" "$ops"
		rc=$?
		[ "$rc" = 0 ] || break
	done
	if [ "$rc" = 77 ]; then
		echo "# $job: skipping: $(tail -n 1 "$test_dir/$job.out")"
		continue
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "$job: FAIL: $ops ops under strace did not end in 600 s"
		failed_jobs="$failed_jobs $job"
		continue
	elif [ "$rc" != 0 ]; then
		echo "$job: FAIL: $ops ops under strace exited $rc: $(tail -n 1 "$test_dir/$job.out")"
		failed_jobs="$failed_jobs $job"
		continue
	fi
	counts "$test_dir/$job.$long_ops.strace" >"$test_dir/$job.long"
	counts "$test_dir/$job.$short_ops.strace" >"$test_dir/$job.short"
	awk -v d=$((long_ops - short_ops)) '
	FILENAME == ARGV[1] { c[$1] += $2; next }
	{ c[$1] -= $2 }
	END { for (s in c) printf "%s %.3f\n", s, c[s] / d }' \
		"$test_dir/$job.long" "$test_dir/$job.short" |
		LC_ALL=C sort >"$test_dir/$job.per-op"

	# a. What the job declares. strace -c counts a syscall as it
	# returns, and exit_group and exit never do.
	"$JOB_RUNNER" --syscalls "$job" >"$test_dir/$job.declared" ||
		fail "job_runner --syscalls $job failed"
	awk '$1 != "exit_group" && $1 != "exit"' "$test_dir/$job.declared" \
		>"$test_dir/$job.declared.cmp"
	compare "$test_dir/$job.declared.cmp" "$test_dir/$job.per-op" \
		declares >>"$why"

	# b. An AIM7 job: reaim's row, but for the documented deviations.
	skip_sc=$(echo "$deviations" | awk -v job="$job" '$1 == job { print $2 }')
	if [ "$family" = aim7 ] && [ -n "$reference" ] &&
	    [ "$skip_sc" = "*" ]; then
		echo "$job: its syscalls differ from reaim's (a documented deviation): held to its declarations only"
	elif [ "$family" = aim7 ] && [ -n "$reference" ]; then
		if reaim_row "$job" >"$test_dir/$job.reaim"; then
			for f in reaim per-op; do
				awk -v skip=" $(echo $skip_sc) " \
					'index(skip, " " $1 " ") == 0' \
					"$test_dir/$job.$f" >"$test_dir/$job.$f.cmp"
			done
			compare "$test_dir/$job.reaim.cmp" \
				"$test_dir/$job.per-op.cmp" "reaim's" >>"$why"
		else
			echo "no row for $job in $reference" >>"$why"
		fi
	fi

	if [ -s "$why" ]; then
		more=$(($(wc -l <"$why") - 1))
		echo "$job: FAIL: $(head -n 1 "$why")$([ "$more" = 0 ] || echo " (and $more more)")"
		failed_jobs="$failed_jobs $job"
	else
		echo "$job: ok"
	fi
done <"$test_dir/jobs"
check_scratch_empty
check_no_processes
[ -z "$failed_jobs" ] ||
	fail "jobs whose syscalls are not as they should be (each one's list is in $test_dir/JOB.mismatches):$failed_jobs"
pass
