#!/bin/sh
# tests/bench/bench.sh: `make bench`, aimsweep measured against a bare C
# loop, its peers and the kernel's own cost of processes; prints a table.
#
# Everything is measured side by side in one run and summarised as the
# median of $REPS runs (5 unless said otherwise), so that the drift of a
# shared machine hits all columns alike. Needs jq; perf and stress-ng are
# used where installed. Run as root for the figures of 10000 users and
# more; a row that this machine's limits do not allow names the sysctl it
# needs instead.
set -u

AIMSWEEP=${AIMSWEEP:-./aimsweep}
BARE=${BARE:-./tests/bench/bare}
. "$(dirname "$0")/verdict.sh"
REPS=${REPS:-5}
OUT=${BENCH_OUT:-bench-results.md}

work=$(mktemp -d "${TMPDIR:-/tmp}/aimsweep-bench.XXXXXX") || exit 1
# creat runs in tmpfs where there is one: on ext4 without a journal,
# which steps over recently deleted inodes when it creates a file, a
# creat loop's rate swings from one second to the next by far more than
# the harness costs (docs/performance.md); on tmpfs it is steady.
# Elsewhere it runs in $work.
fsdir=$work
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	fsdir=$(mktemp -d /dev/shm/aimsweep-bench.XXXXXX) || fsdir=$work
fi
follower=
memwatch=
trap '[ -z "$follower" ] || { kill "$follower"; wait "$follower"; } 2>/dev/null
	[ -z "$memwatch" ] || { kill "$memwatch"; wait "$memwatch"; } 2>/dev/null
	rm -rf "$work"; [ "$fsdir" = "$work" ] || rm -rf "$fsdir"' EXIT
trap 'exit 130' INT TERM
started=$(date +%s)
# The bench keeps to about BUDGET seconds. The runs of 10000 users and
# more, the ones that can stall (see DAMON below), each get what is left
# of it once the time that comes after them is set aside: LATER for the
# parts after the scale part, and the estimates of the large runs still
# to come (row_cost, ramp_cost); a run that reaches its limit is stopped.
# Ending a stopped run's users takes its own time, so a bench whose large
# run was stopped can end some seconds past BUDGET (docs/performance.md).
# BUDGET is what the bench had before the rows of 20000 and 50000 users,
# their thread-mode rows and the large ramp (550 s), plus their estimates
# with the default SCALE_USERS and SCALE_RAMP (about 450 s).
BUDGET=${BUDGET:-1000}
LATER=230
# Scale rows of 10000 users and more are run LARGE_REPS times each, their
# figures the median: the start of tens of thousands of processes drifts
# with the machine (DAMON among it) by up to twice from one run to the
# next, the bare gate's as much as aimsweep's.
LARGE_REPS=${LARGE_REPS:-3}
# What a large run is expected to take, in seconds: a scale row (its bare
# and its aimsweep runs) 1 s a 1000 users a run; a ramp 2 s a 1000 users
# of its top level and 3 s a level. Estimates, not measurements, from the
# bench at docs/bench/ that docs/performance.md names, rounded up more
# than twice over.
row_cost() { echo $(($1 * LARGE_REPS / 1000)); }
ramp_cost() { echo $(($1 * 2 / 1000 + 3 * $2)); }
pending=0

# The scale part's rows: users a level, in each mode (SCALE_USERS), and
# the ramp's first level, last level and step (SCALE_RAMP), so that the
# part can be tried with small numbers.
SCALE_USERS=${SCALE_USERS:-100 1000 10000 20000 50000}
SCALE_RAMP=${SCALE_RAMP:-10000 50000 10000}
# is_users V: whether V is a number of users, decimal without a leading 0.
is_users() {
	case $1 in
	'' | *[!0-9]* | 0*) return 1 ;;
	esac
}
for n in $SCALE_USERS; do
	is_users "$n" || {
		echo "bench: SCALE_USERS: $n is not a number of users" >&2
		exit 2
	}
done
read -r ramp_first ramp_last ramp_step ramp_more <<EOF
$SCALE_RAMP
EOF
is_users "$ramp_first" && is_users "$ramp_last" && is_users "$ramp_step" &&
	[ -z "$ramp_more" ] && [ "$ramp_last" -ge "$ramp_first" ] || {
	echo "bench: SCALE_RAMP is not FIRST LAST STEP, numbers of users, LAST not below FIRST: $SCALE_RAMP" >&2
	exit 2
}
# aimsweep's -e is the most users a level may have: the ramp ends at the
# last level not above it.
ramp_levels=$(((ramp_last - ramp_first) / ramp_step + 1))
ramp_top=$((ramp_first + (ramp_levels - 1) * ramp_step))

say() { printf '%s\n' "$*" | tee -a "$OUT"; }
note() { printf '# %s\n' "$*" >&2; }

# The median of the numbers on stdin.
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Runs aimsweep on a one-line workfile; prints the result.json path.
# With LIMIT set, the run is interrupted (SIGINT, which ends its users and
# keeps what it has) after LIMIT seconds, and sweep fails with status 124.
# With PIN set, the driver (and its hook) may run only on those CPUs.
PIN=
sweep() {
	wf=$1
	shift
	rm -rf "$work/out"
	${LIMIT:+timeout -s INT "$LIMIT"} ${PIN:+taskset -c "$PIN"} "$AIMSWEEP" run --no-plot -o "$work/out" \
		"$@" "$wf" >"$work/run.log" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] ||
		{ note "aimsweep failed ($rc): $(tail -3 "$work/run.log")"; return "$rc"; }
	ls "$work"/out/*/result.json
}

# Seconds left of the budget for a run that can stall (at least 30).
left() {
	l=$((BUDGET - LATER - pending - ($(date +%s) - started)))
	echo $((l < 30 ? 30 : l))
}

# target_row WHAT MEASURED WANTED VERDICT: a row of the verdict table at
# the end.
target_row() {
	printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" >>"$work/targets"
}
# target WHAT MEASURED OP LIMIT [NEED]: records whether MEASURED OP LIMIT
# held (OP one of >=, <, <=); with NEED, that it was not measured because
# this machine's limits lacked NEED.
target() {
	if [ -n "${5:-}" ]; then
		target_row "$1" "$5" "$3 $4" "not measured"
		return
	fi
	t_verdict=$(verdict "$2" "$3" "$4")
	t_measured=$2
	[ "$t_verdict" = "no figure" ] && t_measured=-
	target_row "$1" "$t_measured" "$3 $4" "$t_verdict"
}
: >"$work/targets"

# Seconds each part of the bench took, printed at the end.
part_started=$started
part_done() {
	now=$(date +%s)
	parts="${parts:+$parts, }$1 $((now - part_started)) s"
	part_started=$now
}

: >"$OUT"
# The first line names what the figures came from, so that a bench
# output committed under docs/ names its commit and machine by itself:
# the source tree's commit (with -dirty for uncommitted changes), the
# CPU model, the kernel, the CPUs and the memory.
commit=$(git -C "${SRCDIR:-.}" describe --always --dirty 2>/dev/null) ||
	commit="unknown commit (not a git tree)"
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
say "aimsweep bench, $(date -u +%Y-%m-%dT%H:%MZ), commit $commit, ${cpu_model:-unknown CPU}, $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
say ""

# --- 1. Per-op overhead: the job at 1 user against the same op bare. ---
# A shared machine's speed drifts by more than the targets' 2-3%, from one
# second to the next and within half a second (docs/performance.md has
# figures). Runs one after another, even interleaved, see different
# machines. So the two are
# measured at the same moments, on one CPU: a bare loop (tests/bench/bare
# follow) runs on it from before the level until after it, the job's one
# user is pinned beside it, and aimsweep's --hook cues the bare loop's
# window right after the level's t0. That window is $FOLLOW_CUT s shorter
# than the level's, so that it lies inside it and the bare loop never
# runs alone in it. The scheduler gives two busy tasks of equal weight
# equal shares of a CPU, so the ratio of their ops/s is the ratio of
# their speeds. The driver and its hook run on the other CPUs (the
# driver's own cost is measured in the scale part). The control column
# puts a second bare loop where the job was, with the job's warm-up and
# window, cueing the first as its window starts: what the method reads
# for two identical loops, that is, its own bias and spread.
PAIRS=${PAIRS:-9}
WINDOW=${WINDOW:-1}
WARMUP=0.2
FOLLOW_CUT=0.05
cpu=$(($(nproc) - 1))
[ "$cpu" -gt 0 ] && others=0-$((cpu - 1)) || others=
say "## Per-op overhead at 1 user (median of $PAIRS runs a column; each run shares CPU $cpu with a bare loop whose window lies inside the run's $WINDOW s one, $FOLLOW_CUT s shorter, after $WARMUP s of warm-up; creat in $(stat -f -c %T "$fsdir"))"
say ""
say "| op | control ratio | q1-q3 | ratio, latency on | q1-q3 | ratio, latency off | q1-q3 | bare ns/op | aimsweep ns/op (on) | aimsweep ns/op (off) |"
say "|---|---:|---|---:|---|---:|---|---:|---:|---:|"
# Starts the bare loop that the next run shares its CPU with, in a new
# directory as deep as a user's (scratch/aimsweep.X/u0): reusing one lets
# the bare creat find the dentries of its earlier runs' names, which makes
# it measurably faster than a fresh one, as a user's is.
follow_start() {
	rm -rf "$fsdir/bare"
	mkdir -p "$fsdir/bare/run/u0"
	taskset -c "$cpu" "$BARE" follow "$1" \
		"$(awk -v w="$WINDOW" -v c="$FOLLOW_CUT" 'BEGIN { print w - c }')" \
		"$fsdir/bare/run/u0" >"$work/follow" &
	follower=$!
}
# Ends it; sets f to its window's ops/s, empty if it had none.
follow_end() {
	kill -TERM "$follower" 2>/dev/null
	f=
	wait "$follower" && f=$(cat "$work/follow")
	follower=
}
# One run of column $2 (control, on, off) for op $1, beside a follower;
# prints "column ops/s bare-ops/s ratio", nothing for a failed run.
co_run() {
	follow_start "$1"
	case $2 in
	control)
		rm -rf "$fsdir/ctl"
		mkdir -p "$fsdir/ctl/run/u0"
		x=$(BARE_MARK=$follower taskset -c "$cpu" "$BARE" loop "$1" \
			"$WARMUP" "$WINDOW" "$fsdir/ctl/run/u0") ;;
	on | off)
		x=$(job_run "$1" --hook "kill -USR2 $follower" \
			$([ "$2" = off ] && echo --no-latency)) ;;
	esac
	follow_end
	[ -n "$x" ] && [ -n "$f" ] || return 1
	echo "$2 $x $f" | awk '$3 > 0 { print $1, $2, $3, $2 / $3 }'
}
# The job of op $1 at 1 user, pinned to CPU $cpu, with the options after
# it, the driver on the other CPUs; prints its ops/s.
job_run() {
	jwf=$work/$1.wf
	shift
	PIN=$others
	j=$(sweep "$jwf" --levels 1 -t "$WINDOW" -w "$WARMUP" -d "$fsdir" --cpus "$cpu" "$@") &&
		jq '.levels[0].jobs[0].ops_per_sec' "$j"
}
# The median, first and third quartile of the numbers on stdin: the
# quartiles are the medians of the lower and the upper half (without the
# middle one of an odd count); "- - -" for none.
quartiles() {
	sort -g | awk '
	function med(lo, hi,  n) {
		n = hi - lo + 1
		return n % 2 ? v[lo + (n - 1) / 2] : (v[lo + n / 2 - 1] + v[lo + n / 2]) / 2
	}
	{ v[NR] = $1 }
	END {
		if (!NR) { print "- - -"; exit }
		h = int(NR / 2)
		if (!h) { print v[1], v[1], v[1]; exit }
		print med(1, NR), med(1, h), med(NR - h + 1, NR) }'
}
for op in getppid brk kill creat; do
	printf '1 %s\n' "$op" >"$work/$op.wf"
	: >"$work/$op.runs"
	for r in $(seq "$PAIRS"); do
		for col in control on off; do
			co_run "$op" "$col" >>"$work/$op.runs"
		done
	done
	col() { awk -v c="$1" -v f="$2" '$1 == c { print $f }' "$work/$op.runs"; }
	bns=$(awk '$3 > 0 { print 0.5e9 / $3 }' "$work/$op.runs" | median)
	rctl=$(col control 4 | quartiles)
	ron=$(col on 4 | quartiles)
	roff=$(col off 4 | quartiles)
	echo "$op $ron" >>"$work/ratios"
	target "$op, ratio to the bare loop with latency on" \
		"$(echo "$ron" | awk '$1 != "-" { printf "%.3f", $1 }')" ">=" \
		"$([ "$op" = getppid ] && echo 0.98 || echo 0.97)"
	awk -v op="$op" -v bns="$bns" -v rctl="$rctl" -v ron="$ron" -v roff="$roff" '
	# A column whose runs all failed prints "-".
	function num(x, fmt) { return x == "-" || x == "nan" ? "-" : sprintf(fmt, x) }
	function spread(q) { return q[2] == "-" ? "-" : sprintf("%.3f-%.3f", q[2], q[3]) }
	function per(r) { return bns == "nan" || r == "-" ? "-" : sprintf("%.0f", bns / r) }
	BEGIN {
		split(rctl, c, " "); split(ron, a, " "); split(roff, f, " ")
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			op, num(c[1], "%.3f"), spread(c), num(a[1], "%.3f"), spread(a),
			num(f[1], "%.3f"), spread(f), num(bns, "%.0f"), per(a[1]), per(f[1]) }' |
		tee -a "$OUT"
done
say ""
say "Each loop had about half of CPU $cpu. bare ns/op is the bare loop's"
say "half of the window over its ops, the median of all its runs; aimsweep's"
say "is that over the column's ratio."
say "The control ratio is a second bare loop against the first: what the"
say "method reads for no overhead at all. q1-q3 is the middle half of a"
say "column's ratios. Targets: ratio with latency on >= 0.98 for getppid,"
say ">= 0.97 for the others."
awk '{ t = $1 == "getppid" ? 0.98 : 0.97
       if ($2 == "-") v = "no runs"
       else if ($2 + 0 >= t) v = "met"
       else if ($4 + 0 >= t) v = "not met, within the spread"
       else v = "not met"
       line = line sep $1 " " v; sep = "; " }
     END { print "Here: " line "." }' "$work/ratios" | tee -a "$OUT"
say ""

part_done overhead

# --- 2. Peers, where the same operation exists. ---
say "## Peers (median of $REPS; on CPU $cpu)"
say ""
say "| op | peer | peer figure | aimsweep ops/s (latency on) | aimsweep / peer |"
say "|---|---|---:|---:|---:|"
# peer NAME OP CMD...: CMD prints the peer's figure; each of its runs is
# followed by the job at 1 user, and the ratio is the median of pairs.
peer() {
	name=$1 op=$2
	shift 2
	: >"$work/peer"
	for r in $(seq "$REPS"); do
		p=$(taskset -c "$cpu" "$@" 2>/dev/null) && [ -n "$p" ] || continue
		on=$(job_run "$op") || continue
		echo "$p $on" >>"$work/peer"
	done
	awk -v op="$op" -v n="$name" -v p="$(awk '{ print $1 }' "$work/peer" | median)" \
	    -v on="$(awk '{ print $2 }' "$work/peer" | median)" \
	    -v r="$(awk '$1 > 0 { print $2 / $1 }' "$work/peer" | median)" 'BEGIN {
		printf "| %s | %s | %.0f | %.0f | %.3f |\n", op, n, p, on, r }' |
		tee -a "$OUT"
}
if command -v perf >/dev/null && perf bench syscall basic --loop 1000 >/dev/null 2>&1; then
	peer "perf bench syscall basic (ops/sec)" getppid \
		sh -c 'perf bench syscall basic --loop 1000000 | awk "/ops\\/sec/ { print \$1 }"'
else
	say "| getppid | perf bench syscall basic | not available | | |"
fi
if command -v stress-ng >/dev/null; then
	peer "stress-ng --brk 1 (bogo ops/s; its op also touches the page)" brk \
		sh -c 'stress-ng --brk 1 --timeout 1 --metrics-brief 2>&1 | awk "\$4 == \"brk\" && \$5 ~ /^[0-9]+\$/ { print \$9 }"'
	peer "stress-ng --kill 1 (kill calls per sec)" kill \
		sh -c 'stress-ng --kill 1 --timeout 1 --metrics 2>&1 | awk "/kill calls per sec/ { print \$5 }"'
else
	say "| brk, kill | stress-ng | not installed (apt-get install stress-ng) | | |"
fi
say ""

part_done peers

# Per-user private memory: users of a running level, read from outside.
# 30 users: a user's private memory does not depend on how many others
# there are, and /proc has been seen to stop showing the driver and the
# users of a 100-user level while they ran, unexplained
# (docs/performance.md); 30 read fine.
say "## Per-user memory (during a 30-user level)"
say ""
say "| workfile | users sampled | USS KiB (median) | PSS KiB (median) |"
say "|---|---:|---:|---:|"
for wf in "$work/getppid.wf" "${SRCDIR:-.}/workfiles/syscall-mix"; do
	rm -rf "$work/out"
	"$AIMSWEEP" run --no-plot -o "$work/out" -d "$work" --levels 30 -t 4 -w 1 "$wf" \
		>"$work/run.log" 2>&1 &
	bg=$!
	sleep 3
	: >"$work/uss"
	: >"$work/pss"
	for pid in $(pgrep -P "$bg"); do
		awk '/^Private_(Clean|Dirty):/ { u += $2 } /^Pss:/ { p = $2 }
		     END { if (p) { print u >> "'"$work/uss"'"; print p >> "'"$work/pss"'" } }' \
			"/proc/$pid/smaps_rollup" 2>/dev/null
	done
	wait "$bg"
	awk -v w="$(basename "$wf" .wf)" -v n="$(wc -l <"$work/uss")" \
	    -v u="$(median <"$work/uss")" -v p="$(median <"$work/pss")" 'BEGIN {
		printf "| %s | %d | %.0f | %.0f |\n", w, n, u, p }' | tee -a "$OUT"
	target "per-user private memory (USS), $(basename "$wf" .wf), KiB" \
		"$(median <"$work/uss" | awk '$1 != "nan" { printf "%.0f", $1 }')" "<" 256
done
say ""
say "Target: per-user private memory (USS) < 256 KiB. The shared arena is"
say "not in USS; each user's share of it is in PSS."
say ""

part_done "per-user memory"

# --- 3. Scale: creating users and releasing them through the gate. ---
# A table of rows of N getppid users (N from SCALE_USERS) for each mode,
# each against the bare gate of the same form in the same run; then one
# run of a ramp up to the largest levels, and a level aimsweep must
# refuse. A row this machine's limits do not allow names what it needs
# in place of figures, as aimsweep itself says it (scale_needs in
# verdict.sh); the bench changes no sysctl.
pid_max=$(cat /proc/sys/kernel/pid_max)
threads_max=$(cat /proc/sys/kernel/threads-max)
max_map=$(cat /proc/sys/vm/max_map_count)
# RLIMIT_NPROC, "unlimited" or a number; from /proc, since `ulimit -u`
# is not POSIX and dash refuses it.
nproc_limit=$(awk '/^Max processes/ { print $3 }' /proc/self/limits)
# Tasks on the machine: the total in /proc/loadavg's fourth field.
tasks_now() { awk '{ split($4, t, "/"); print t[2] }' /proc/loadavg; }
printf '1 getppid\n' >"$work/g.wf"
# needs N MODE: what this machine lacks for a level of N getppid users in
# MODE; nothing when it lacks nothing.
needs() { scale_needs "$1" "$2" "$work/g.wf"; }
# The time to set aside for the large runs (left()): the rows' and the
# ramp's that the limits allow.
for mode in process thread; do
	for n in $SCALE_USERS; do
		[ "$n" -ge 10000 ] && [ -z "$(needs "$n" "$mode")" ] &&
			pending=$((pending + $(row_cost "$n")))
	done
done
[ "$ramp_top" -ge 10000 ] && [ -z "$(needs "$ramp_top" process)" ] &&
	pending=$((pending + $(ramp_cost "$ramp_top" "$ramp_levels")))

say "## Scale (getppid users)"
say ""
say "Limits here: pid_max $pid_max, threads-max $threads_max, vm.max_map_count $max_map, RLIMIT_NPROC $nproc_limit (root is exempt), $(tasks_now) tasks, $(awk '/MemAvailable/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) available."
say "Whether a row fits these limits and the memory available is aimsweep's"
say "own check before it forks (aimsweep run --check-limits; see Failed"
say "levels in aimsweep(1)). A row it refuses names what to raise in place"
say "of its figures; the bench changes no limit."
say ""
: >"$work/s.bsplit"
: >"$work/s.bready1000"
: >"$work/rss_by_users"
# What a run costs the machine in memory: MemAvailable before it, less
# the lowest it reads every 0.2 s while the run goes on, in KiB.
mem_available() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }
mem_watch_start() {
	mem_before=$(mem_available)
	echo "$mem_before" >"$work/memlow"
	(
		lo=$mem_before
		while sleep 0.2; do
			m=$(mem_available)
			# Whole or not at all, whenever the watcher is killed.
			[ "$m" -lt "$lo" ] && lo=$m && echo "$lo" >"$work/memlow.new" &&
				mv "$work/memlow.new" "$work/memlow"
		done
	) &
	memwatch=$!
}
# Sets mem_used for a run that ended well ($1 = 0), else leaves it empty.
mem_watch_end() {
	kill "$memwatch" 2>/dev/null
	wait "$memwatch" 2>/dev/null
	memwatch=
	lo=$(cat "$work/memlow" 2>/dev/null)
	[ "$1" -eq 0 ] && mem_used=$((mem_before - ${lo:-$mem_before}))
}
# ratio A B: A / B with three decimals when both are numbers and B is
# above 0; nothing otherwise.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = "^[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?$"
		if (a ~ n && b ~ n && b + 0 > 0) printf "%.3f", a / b }'
}
# scale_header FIRST BARE: the head of a scale table whose first column
# is FIRST and whose floor is the bare gate BARE.
scale_header() {
	say "| $1 | runs | $2 ready s | aimsweep ready s (start_s) | ratio | $2 release s (idle / busy children) | aimsweep release s | ratio to busy | driver CPU % of a core | driver max RSS KiB | memory per user KiB |"
	say "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
}
# scale_targets [NEED]: the targets of the row of $n users in $mode, from
# its figures, or, with NEED, not measured for want of NEED.
scale_targets() {
	if [ "$mode" = process ] && [ "$n" -eq 1000 ]; then
		target "1000 users ready (start_s), s" "$(fmt3 "${ar:-}")" \
			"<" 0.5 "$@"
	fi
	case $n in
	1000 | 10000 | 50000)
		target "$n users, $mode mode, start_s / bare gate ready s" \
			"${sr:-}" "<=" 1.5 "$@" ;;
	esac
	[ "$n" -lt 10000 ] || target "$n users, $mode mode, levels ok" \
		"${levels_ok:-}" ">=" 1 "$@"
}
# scale_row MODE N: the bare gate of N users of MODE's form (processes
# or threads) and an aimsweep level of N getppid users in MODE, side by
# side, REPS times (LARGE_REPS for 10000 users and more, runs that are
# stopped when their share of the bench's time, left(), runs out);
# prints the row and records its targets.
scale_row() {
	mode=$1 n=$2
	form=
	[ "$mode" = thread ] && form=thread
	ar='' sr='' levels_ok=''
	need=$(needs "$n" "$mode")
	if [ -n "$need" ]; then
		say "| $n | 0 | $need | | | | | | | | |"
		scale_targets "$need"
		return
	fi
	reps=$REPS
	limit=
	if [ "$n" -ge 10000 ]; then
		reps=$LARGE_REPS
		pending=$((pending - $(row_cost "$n")))
	fi
	for f in bready brel bbusy ready rel cpu rss; do
		: >"$work/s.$f"
	done
	stalled='' bare_cut='' aim_cut='' mem_used=''
	for r in $(seq "$reps"); do
		[ "$n" -ge 10000 ] && limit=$(left)
		${limit:+timeout "$limit"} "$BARE" spawn "$n" $form \
			>"$work/spawn" || {
			[ $? -eq 124 ] && stalled="$stalled bare" bare_cut=$limit
			continue
		}
		awk '/ready_s/ { print $2 }' "$work/spawn" >>"$work/s.bready"
		awk '/release_s/ { print $2 }' "$work/spawn" >>"$work/s.brel"
		if [ "$mode" = process ] && [ "$n" -eq 1000 ]; then
			"$BARE" spawn "$n" split >"$work/spawn" || continue
			awk '/ready_s/ { print $2 }' "$work/spawn" >>"$work/s.bsplit"
		fi
		# Busy children up to 1000: 10000 of them take a minute.
		if [ "$mode" = process ] && [ "$n" -le 1000 ]; then
			"$BARE" spawn "$n" busy >"$work/spawn" || continue
			awk '/release_s/ { print $2 }' "$work/spawn" >>"$work/s.bbusy"
		fi
		[ "$n" -ge 10000 ] && limit=$(left) && mem_watch_start
		j=$(LIMIT=$limit sweep "$work/g.wf" --levels "$n" -t 3 -w 0.5 \
			--grace 60 --mode "$mode")
		rc=$?
		if [ "$n" -ge 10000 ]; then
			mem_watch_end "$rc"
			levels_ok=$(jq '.summary.levels_ok' \
				"$work"/out/*/result.json 2>/dev/null) ||
				levels_ok=
		fi
		case $rc in
		0) ;;
		124)
			stalled="$stalled aimsweep" aim_cut=$limit
			k=$(jq '.host.kdamonds // 0' "$work"/out/*/result.json 2>/dev/null) &&
				echo "$k" >"$work/kdamonds"
			continue
			;;
		*) continue ;;
		esac
		jq '.levels[0].start_s' "$j" >>"$work/s.ready"
		jq '.levels[0].release_s' "$j" >>"$work/s.rel"
		jq '.levels[0].driver.cpu_pct' "$j" >>"$work/s.cpu"
		jq '.levels[0].driver.max_rss_kb' "$j" >>"$work/s.rss"
		jq '.host.kdamonds // 0' "$j" >"$work/kdamonds"
	done
	[ -z "$stalled" ] ||
		note "$n users, $mode mode:$stalled stopped when the time ran out"
	br=$(median <"$work/s.bready")
	ar=$(median <"$work/s.ready")
	bb=$(median <"$work/s.bbusy")
	al=$(median <"$work/s.rel")
	case $stalled in *bare*) br="stopped after $bare_cut s" ;; esac
	case $stalled in *aimsweep*) ar="stopped after $aim_cut s" ;; esac
	sr=$(ratio "$ar" "$br")
	awk -v n="$n" -v r="$(wc -l <"$work/s.ready")" -v br="$br" -v ar="$ar" \
	    -v sr="$sr" -v bl="$(median <"$work/s.brel")" -v bb="$bb" \
	    -v al="$al" -v lr="$(ratio "$al" "$bb")" \
	    -v c="$(median <"$work/s.cpu")" -v m="$(median <"$work/s.rss")" \
	    -v mu="${mem_used:+$((mem_used / n))}" '
	# A figure no run gave prints "-", a stopped run says so.
	function num(x, fmt) {
		if (x == "" || x == "nan" || x == "null") return "-"
		return x ~ /^[-+0-9.eE]+$/ ? sprintf(fmt, x) : x
	}
	BEGIN {
		printf "| %d | %d | %s | %s | %s | %s / %s | %s | %s | %s | %s | %s |\n",
			n, r, num(br, "%.3f"), num(ar, "%.3f"), num(sr, "%.2f"),
			num(bl, "%.3f"), num(bb, "%.3f"), num(al, "%.3f"),
			num(lr, "%.2f"), num(c, "%.2f"), num(m, "%.0f"),
			num(mu, "%.0f") }' | tee -a "$OUT"
	scale_targets
	[ "$mode" = process ] && [ "$n" -eq 1000 ] &&
		cp "$work/s.bready" "$work/s.bready1000"
	if [ -s "$work/s.rss" ]; then
		[ "$mode" = thread ] && label="$n users as threads" ||
			label="$n users"
		echo "$label|$(median <"$work/s.rss")" >>"$work/rss_by_users"
	fi
	[ -s "$work/s.cpu" ] && median <"$work/s.cpu" >>"$work/driver_cpu"
}

scale_header users "bare fork+gate"
for n in $SCALE_USERS; do
	scale_row process "$n"
done
say ""
say "The bare columns are this machine's floor: the same number of fork()s"
say "from one process, each child counting itself in at a futex gate. Idle"
say "children leave as soon as they are through; busy ones call getppid()"
say "in a loop until the last is through, so later ones wait for CPUs the"
say "earlier ones hold: that release time is the scheduler's round over N"
say "busy tasks. aimsweep's users sleep until all are through instead."
say ""
# Whether forking from two processes beats one, as measured: a gain of
# under 5% is within a shared machine's drift.
awk -v p="$(median <"$work/s.bsplit")" -v o="$(median <"$work/s.bready1000")" \
    -v r="$REPS" -v cpus="$(nproc)" 'BEGIN {
	if (p == "nan" || o == "nan") { print "1000 bare children forked from two processes: no runs."; exit }
	printf "1000 bare children forked half by each of two processes (%s CPUs here) were\n", cpus
	printf "ready in %.3f s (median of %d), against %.3f s from one process: ", p, r, o
	if (p < 0.95 * o)
		printf "forking in\nparallel lowers the floor here, by %.0f%%.\n", 100 * (1 - p / o)
	else
		printf "forking in\nparallel does not lower the floor here.\n" }' | tee -a "$OUT"
say ""

# The same users as threads of one process: no fork() per user.
scale_header "users as threads (--mode thread)" "bare pthread_create+gate"
for n in $SCALE_USERS; do
	scale_row thread "$n"
done
say ""
say "Users that are threads need no fork() each; what they share (one"
say "address space, one file table) is part of what they measure. Their"
say "floor is the same gate passed by as many threads of one process, made"
say "by pthread_create() with the 256 KiB stacks aimsweep gives its thread"
say "users, detached as they are; it has no busy form."
say ""
say "Memory per user is MemAvailable before aimsweep's run less the lowest"
say "it read while the run went on, over the users, for 10000 users and"
say "more. Targets: 1000 users ready in < 0.5 s; start_s <= 1.5 x the bare"
say "gate's ready time at 1000, 10000 and 50000 users in each mode; every"
say "level of 10000 users or more ok; driver CPU < 1% of a core."
kdamonds=$(cat "$work/kdamonds" 2>/dev/null)
if [ "${kdamonds:-0}" -gt 0 ]; then
	say "DAMON ran here ($kdamonds kdamond thread(s), host.kdamonds). Its"
	say "reverse-map walks of a page mapped by every child (the program's"
	say "and libc's text, the gate) hold the locks that fork, stack growth"
	say "and exit of each must take, for the bare gate's children as for"
	say "aimsweep's users, so large rows drift from run to run."
	say "The runs of 10000 users and more are stopped when the bench's time"
	say "(BUDGET, $BUDGET s) would not leave enough for what comes after."
fi
say ""

# One run of a ramp up to the largest levels, as a user takes a machine
# up to them: every level ok, and nothing outlives it (no process with
# the run's tag in its environment, nothing in its scratch directory).
say "| ramp of getppid users, process mode | levels ok | wall s | processes left | scratch entries left |"
say "|---|---:|---:|---:|---:|"
ramp_what="$ramp_first..$ramp_last ramp"
ramp_row="$ramp_first..$ramp_last by $ramp_step, -t 1 -w 0.5"
need=$(needs "$ramp_top" process)
if [ -n "$need" ]; then
	say "| $ramp_row | $need | | | |"
	target "$ramp_what, every level ok" - ">=" "$ramp_levels" "$need"
	target "$ramp_what, processes and scratch entries left behind" \
		- "<=" 0 "$need"
else
	limit=
	if [ "$ramp_top" -ge 10000 ]; then
		pending=$((pending - $(ramp_cost "$ramp_top" "$ramp_levels")))
		limit=$(left)
	fi
	ramp_tag=aimsweep-bench-ramp-$$
	rm -rf "$work/out" "$work/ramp-scratch"
	mkdir "$work/ramp-scratch"
	t0=$(date +%s.%N)
	env AIMSWEEP_BENCH_TAG="$ramp_tag" ${limit:+timeout -s INT "$limit"} \
		"$AIMSWEEP" run --no-plot -o "$work/out" -d "$work/ramp-scratch" \
		-s "$ramp_first" -e "$ramp_last" -i "$ramp_step" -t 1 -w 0.5 \
		--grace 60 "$work/g.wf" >"$work/run.log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	[ "$rc" -eq 0 ] ||
		note "$ramp_what failed ($rc): $(tail -3 "$work/run.log")"
	ramp_ok=$(jq '.summary.levels_ok' "$work"/out/*/result.json \
		2>/dev/null) || ramp_ok=
	jq '.levels[].driver.cpu_pct' "$work"/out/*/result.json \
		>>"$work/driver_cpu" 2>/dev/null
	left_procs=$(grep -lsxz "AIMSWEEP_BENCH_TAG=$ramp_tag" \
		/proc/[0-9]*/environ | wc -l)
	left_files=$(ls -A "$work/ramp-scratch" | wc -l)
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	[ "$rc" -eq 124 ] && wall="stopped after $limit s"
	say "| $ramp_row | ${ramp_ok:--} of $ramp_levels | $wall | $left_procs | $left_files |"
	target "$ramp_what, every level ok" "$ramp_ok" ">=" "$ramp_levels"
	target "$ramp_what, processes and scratch entries left behind" \
		"$((left_procs + left_files))" "<=" 0
fi
say ""

# A level one user past kernel.pid_max, which aimsweep must refuse before
# it forks, naming the sysctl and the value to set it to.
refused_n=$((pid_max + 1))
say "| refused run | exit status | aimsweep's message |"
say "|---|---:|---|"
refused_what="a refused level names the limit to raise"
refused_want="names sysctl -w kernel.pid_max=N"
if [ "$refused_n" -gt 1000000 ]; then
	why="kernel.pid_max + 1 is above the 1000000 users a level may have"
	say "| $refused_n users (kernel.pid_max + 1), process mode | - | not measured: $why |"
	target_row "$refused_what" "$why" "$refused_want" "not measured"
else
	rm -rf "$work/out"
	timeout -s INT 60 "$AIMSWEEP" run --no-plot -o "$work/out" -d "$work" \
		--levels "$refused_n" -t 1 -w 0 "$work/g.wf" >"$work/run.log" 2>&1
	rc=$?
	msg=$(tail -n 1 "$work/run.log" | sed 's/|/\\|/g')
	say "| $refused_n users (kernel.pid_max + 1), process mode | $rc | ${msg:--} |"
	v=$(verdict_names "$msg" kernel.pid_max)
	# It refuses before it forks, with a usage error, or not at all.
	[ "$rc" -eq 2 ] || [ "$v" != met ] || v="not met"
	named=$(printf '%s\n' "$msg" |
		grep -o 'sysctl -w kernel\.pid_max=[0-9]*')
	target_row "$refused_what" "${named:-exit status $rc}" \
		"$refused_want" "$v"
fi
say ""

part_done scale

# --- 4. A 100..1000 ramp against its nominal time. ---
# The ramp `aimsweep run` makes by default: syscall-mix, 100..1000 users
# by 100, 2 s warm-up and 10 s windows; nominal 10 x 12 s. The wall time
# is the driver's whole run, from exec to exit.
say "## Ramp (one run of the default ramp)"
say ""
t0=$(date +%s.%N)
rm -rf "$work/out"
"$AIMSWEEP" run --no-plot -o "$work/out" -d "$work" -s 100 -e 1000 -i 100 -t 10 -w 2 \
	"${SRCDIR:-.}/workfiles/syscall-mix" >"$work/run.log" 2>&1 ||
	note "ramp failed: $(tail -3 "$work/run.log")"
t1=$(date +%s.%N)
j=$(ls "$work"/out/*/result.json)
ramp_ok=$(jq '.summary.levels_ok' "$j")
awk -v a="$t0" -v b="$t1" -v ok="$ramp_ok" \
    -v st="$(jq '[.levels[].start_s] | add' "$j")" \
    -v rel="$(jq '[.levels[] | .release_s - 2 | select(. > 0)] | add // 0' "$j")" \
    -v sp="$(jq '[.levels[].stop_s] | add' "$j")" 'BEGIN {
	printf "| ramp | levels ok | wall s | nominal s | wall / nominal | sum of start_s | sum of release_s beyond the warm-up | sum of stop_s | the rest |\n"
	printf "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
	printf "| syscall-mix 100..1000 by 100, -t 10 -w 2 | %d | %.1f | 120 | %.3f | %.2f | %.2f | %.2f | %.2f |\n",
		ok, b - a, (b - a) / 120, st, rel, sp, b - a - 120 - st - rel - sp }' | tee -a "$OUT"
jq -r '.levels[] | "\(.users) \(.driver.max_rss_kb)"' "$j" >"$work/rss_ramp"
jq '.levels[].driver.cpu_pct' "$j" >>"$work/driver_cpu"
target "default ramp, wall time / nominal" \
	"$([ "$ramp_ok" = 10 ] && awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 120 }')" "<=" 1.05
say ""
say "Target: wall <= 1.05 x nominal. The rest is the driver's start and"
say "checks, writing result.json after each level, and ending 1000 users"
say "and removing their scratch files at the end."
say ""

part_done ramp

# --- 5. Memory growth of the driver. ---
say "## Driver memory growth (max RSS, KiB)"
say ""
j=$(sweep "$work/g.wf" --levels 100 -t 1 -w 0.5) && short=$(jq '.levels[0].driver.max_rss_kb' "$j")
j=$(sweep "$work/g.wf" --levels 100 -t 60 -w 0.5) && long=$(jq '.levels[0].driver.max_rss_kb' "$j")
say "| case | driver max RSS KiB |"
say "|---|---:|"
say "| 100 users, 1 s level | ${short:-?} |"
say "| 100 users, 60 s level | ${long:-?} |"
while IFS='|' read -r what m; do
	say "| $what, 3 s level | $m |"
done <"$work/rss_by_users"
first=$(head -1 "$work/rss_ramp")
last=$(tail -1 "$work/rss_ramp")
say "| ramp, after level ${first% *} / after level ${last% *} | ${first#* } / ${last#* } |"
say ""
say "The driver's RSS counts the pages of the shared arena it has read"
say "(every user's counters and histograms), so it grows with users."
# What a longer level may add: its interval samples, a few KiB. The peak
# RSS of identical 100-user runs differs by a few hundred KiB (the C
# library's and the kernel's pages, not the driver's data; 256 KiB at
# most in the runs docs/performance.md names), so growth under
# RSS_SLACK_KB is not growth.
RSS_SLACK_KB=512
awk -v s="${short:-}" -v l="${long:-}" -v k="$RSS_SLACK_KB" 'BEGIN {
	if (s == "" || l == "") exit
	if (l - s < k)
		printf "With the length of a level it does not grow: %d KiB for 60 s, %d for 1 s\n(under %d KiB apart, what identical runs differ by).\n", l, s, k
	else
		printf "It grew with the length of a level: %d KiB for 60 s against %d for 1 s.\n", l, s }' |
	tee -a "$OUT"
say ""
target "driver RSS, 60 s level less 1 s level (100 users), KiB" \
	"$(awk -v s="${short:-}" -v l="${long:-}" 'BEGIN { if (s != "" && l != "") printf "%d", l - s }')" "<" "$RSS_SLACK_KB"
target "driver CPU during a level, the highest of the scale rows and ramp levels, % of a core" \
	"$(sort -g "$work/driver_cpu" | awk '$1 != "nan" && $1 != "null" { m = $1 } END { if (m != "") printf "%.2f", m }')" "<" 1
part_done "memory growth"

say "## Targets"
say ""
say "| target | measured | wanted | here |"
say "|---|---:|---:|---|"
tee -a "$OUT" <"$work/targets"
say ""
say "bench took $(( $(date +%s) - started )) s ($parts); the table is also in $OUT."
