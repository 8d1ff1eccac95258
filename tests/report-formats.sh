# tests/report-formats.sh: `aimsweep report` in every format, checked against the result.json of a real 2-level sweep.
. "$(dirname "$0")/lib.sh"

expect_status 0 run_aimsweep run --levels 1,2 -t 1 -w 0.2 -d "$scratch" \
	-o "$out" --seed 7 syscall-mix
cp "$test_dir/stdout" "$test_dir/run.out"
json=$(latest_result)
[ -f "$json" ] || fail "no result.json in $out"
jq_check "$json" '[.levels[].status] == ["ok", "ok"]' "both levels ok"

# report FORMAT [FILE]: report's output in $test_dir/FORMAT.out.
report() {
	expect_status 0 run_aimsweep report -f "$1" "${2:-$json}"
	[ -s "$test_dir/stderr" ] && fail "report -f $1 wrote to stderr: $(cat "$test_dir/stderr")"
	cp "$test_dir/stdout" "$test_dir/$1.out"
}

# same_number JQPATH TEXT WHAT: TEXT read as a JSON number is exactly
# the value at JQPATH (the formats copy numbers without rounding).
same_number() {
	jq -e --argjson v "$2" "$1 == \$v" "$json" >/dev/null 2>&1 ||
		fail "$3: '$2' is not $1 ($(jq "$1" "$json"))"
}

# default: the very rows `aimsweep run` printed.
report default
grep -q '^# aimsweep .*: workfile syscall-mix (5 jobs), 2 levels' "$test_dir/default.out" ||
	fail "default: header"
grep -E '^ +[0-9]+ +[0-9.]+ ' "$test_dir/run.out" >"$test_dir/run.rows"
grep -E '^ +[0-9]+ +[0-9.]+ ' "$test_dir/default.out" >"$test_dir/default.rows"
[ "$(wc -l <"$test_dir/run.rows")" = 2 ] || fail "run printed no 2 rows"
cmp -s "$test_dir/run.rows" "$test_dir/default.rows" ||
	fail "default rows differ from the run's: $(diff "$test_dir/run.rows" "$test_dir/default.rows")"
grep -q '^# 2 levels ok, 0 failed; peak ' "$test_dir/default.out" ||
	fail "default: summary"
[ "$(head -1 "$test_dir/run.out")" = "$(head -1 "$test_dir/default.out")" ] ||
	fail "default: header differs from the run's: $(head -1 "$test_dir/default.out")"

# A ramp's header names its levels as they ran, in run and report alike:
# -e 6 ends a ramp by 2 from 1 at 5 users.
printf '1 getppid\n' >"$test_dir/g.wf"
expect_status 0 run_aimsweep run --no-plot -s 1 -e 6 -i 2 -t 0.2 -w 0.1 \
	-o "$out/ramp" "$test_dir/g.wf"
want='(1 job), 3 levels, users 1..5 by 2, 0.2 s per level'
head -1 "$test_dir/stdout" | grep -qF "$want" ||
	fail "ramp header: $(head -1 "$test_dir/stdout")"
cp "$test_dir/stdout" "$test_dir/ramp.out"
report default "$(ls "$out"/ramp/*/result.json)"
[ "$(head -1 "$test_dir/ramp.out")" = "$(head -1 "$test_dir/default.out")" ] ||
	fail "ramp: report's header differs from the run's: $(head -1 "$test_dir/default.out")"

# simple: "users jobs_per_min", one line per level, the JSON's numbers.
report simple
[ "$(wc -l <"$test_dir/simple.out")" = 2 ] || fail "simple: not 2 lines"
i=0
while read -r users jpm rest; do
	[ -z "$rest" ] || fail "simple: more than 2 fields: $users $jpm $rest"
	same_number ".levels[$i].users" "$users" "simple users"
	same_number ".levels[$i].jobs_per_min" "$jpm" "simple jobs_per_min"
	i=$((i + 1))
done <"$test_dir/simple.out"

# csv: the header and a row per level.
report csv
[ "$(wc -l <"$test_dir/csv.out")" = 3 ] || fail "csv: not 3 lines"
head -n 1 "$test_dir/csv.out" | grep -qx 'users,status,window_s,jobs_per_min,jobs_per_min_per_user,user_min,user_median,user_max,jti,utime_s,stime_s,errors,reason' ||
	fail "csv: header is $(head -n 1 "$test_dir/csv.out")"
i=0
tail -n +2 "$test_dir/csv.out" >"$test_dir/csv.rows"
while IFS=, read -r users status window jpm jpmu umin umed umax jti ut st errors reason; do
	[ "$status" = ok ] || fail "csv: status '$status'"
	[ -z "$reason" ] || fail "csv: an ok level with a reason"
	same_number ".levels[$i].users" "$users" "csv users"
	same_number ".levels[$i].window_s" "$window" "csv window_s"
	same_number ".levels[$i].jobs_per_min" "$jpm" "csv jobs_per_min"
	same_number ".levels[$i].jobs_per_min_per_user" "$jpmu" "csv jobs_per_min_per_user"
	same_number ".levels[$i].per_user_jobs_per_min.min" "$umin" "csv user_min"
	same_number ".levels[$i].per_user_jobs_per_min.median" "$umed" "csv user_median"
	same_number ".levels[$i].per_user_jobs_per_min.max" "$umax" "csv user_max"
	same_number ".levels[$i].jti" "$jti" "csv jti"
	same_number ".levels[$i].rusage.utime_s" "$ut" "csv utime_s"
	same_number ".levels[$i].rusage.stime_s" "$st" "csv stime_s"
	same_number ".levels[$i].errors" "$errors" "csv errors"
	i=$((i + 1))
done <"$test_dir/csv.rows"
[ "$i" = 2 ] || fail "csv: $i rows read"

# lkp: every key, with the JSON's values.
report lkp
lkp() {
	v=$(sed -n "s/^$1: //p" "$test_dir/lkp.out")
	[ -n "$v" ] || fail "lkp: no key $1"
	echo "$v"
}
for i in 0 1; do
	n=$((i + 1))
	same_number ".levels[$i].jobs_per_min" "$(lkp "users\.$n\.jobs_per_min")" "lkp users.$n.jobs_per_min"
	same_number ".levels[$i].jobs_per_min_per_user" "$(lkp "users\.$n\.jobs_per_min_per_user")" "lkp users.$n.jobs_per_min_per_user"
	same_number ".levels[$i].jti" "$(lkp "users\.$n\.jti")" "lkp users.$n.jti"
	[ "$(lkp "users\.$n\.status")" = ok ] || fail "lkp: users.$n.status"
done
same_number ".summary.peak_jobs_per_min" "$(lkp max_jobs_per_min)" "lkp max_jobs_per_min"
same_number ".summary.peak_users" "$(lkp max_jobs_per_min_users)" "lkp max_jobs_per_min_users"
same_number ".summary.peak_users as \$u | first(.levels[] | select(.users == \$u)).jti" \
	"$(lkp jti)" "lkp jti"

# lkp with lock profiles: each kept entry's wait per second profiled, as
# users.N.lock.CALLER.TYPE.wait_ns_per_s, names lowercased and every byte
# but [a-z0-9_+-] made '_'. Level 1 covered 0.5 s (its lock_profile);
# level 2 is as an older result has it: params' 0.25 s, under window_s.
grep -q '\.lock\.' "$test_dir/lkp.out" && fail "lkp: lock keys without a lock profile"
jq '.params.lock_profile = {seconds: 0.25, top: 10} |
    .levels[0].lock_profile = {method: "perf", why: "w", offset_s: 0, covered_s: 0.5} |
    .levels[0].lock_contention = [
	{caller: "Foo.isra.0+0x1A", type: "rwsem:W", total_wait_ns: 3e8},
	{caller: "", type: "spinlock", total_wait_ns: 1e6}] |
    .levels[1].lock_contention = [
	{caller: "do_x+0x3b", type: "mutex", total_wait_ns: 5e6}]' \
	"$json" >"$test_dir/locks.json"
report lkp "$test_dir/locks.json"
grep '\.lock\.' "$test_dir/lkp.out" >"$test_dir/lkp.locks"
cat >"$test_dir/want" <<'EOF'
users.1.lock.foo_isra_0+0x1a.rwsem_w.wait_ns_per_s: 600000000
users.1.lock.unknown.spinlock.wait_ns_per_s: 2000000
users.2.lock.do_x+0x3b.mutex.wait_ns_per_s: 20000000
EOF
diff "$test_dir/want" "$test_dir/lkp.locks" >&2 || fail "lkp: lock keys"
# A level's lock keys come after its jti, before its status.
awk '/^users\.1\.jti:/ { j = NR } /^users\.1\.lock\./ { l = NR }
     /^users\.1\.status:/ { s = NR } END { exit !(j < l && l < s) }' \
	"$test_dir/lkp.out" || fail "lkp: lock keys out of place"

# aim7: AIM7's multitask table, read as LKP's aim7 parser reads it: the
# line right after the header naming Tasks, jobs/min and jti, fields 2 to
# 6 as numbers. run -f aim7 prints it as report -f aim7 prints that run's
# result.json, and both carry the JSON's numbers to the printed precision.
#
# aim7_row FILE: the line after FILE's AIM7 header.
aim7_row() {
	awk '/Tasks/ && /jobs\/min/ && /jti/ { if ((getline) > 0) print; exit }' "$1"
}

# check_aim7_row FILE JSON I WHAT: aim7_row FILE is level I of JSON:
# Tasks, then jobs/min, jti, jobs/min/task, real and cpu (utime + stime)
# as plain numbers within half a unit of their last printed digit.
check_aim7_row() {
	want=$(jq -r ".levels[$3] | \"\(.users) \(.jobs_per_min) \(.jti) \(.jobs_per_min_per_user) \(.window_s) \(.rusage.utime_s + .rusage.stime_s)\"" "$2")
	aim7_row "$1" | awk -v want="$want" -v what="$4" '
		BEGIN {
			split("Tasks jobs/min jti jobs/min/task real cpu", name, " ")
			split("0 0.005 0.5 0.00005 0.005 0.005", eps, " ")
			split(want, w, " ")
		}
		function bad(msg) { print what ": " msg > "/dev/stderr"; failed = 1 }
		{
			rows++
			if (NF != 6)
				bad(NF " fields after the header, want 6: " $0)
			for (i = 1; i <= 6; i++) {
				if ($i !~ /^[0-9]+(\.[0-9]+)?$/) {
					bad(name[i] " \"" $i "\" is not a plain number")
					continue
				}
				# Half a unit, and the double rounding of numbers
				# of nine digits and more (1% of it is plenty).
				d = $i - w[i]
				if (d > eps[i] * 1.01 + 1e-9 || -d > eps[i] * 1.01 + 1e-9)
					bad(name[i] " " $i ", want " w[i])
			}
		}
		END {
			if (rows != 1)
				bad("no line after a header naming Tasks, jobs/min and jti")
			exit failed
		}' || fail "$4: the row after the AIM7 header is not level $3 of $2 (above)"
}

expect_status 0 run_aimsweep run -f aim7 --no-plot --levels 1,2 -t 0.3 -w 0.1 \
	-d "$scratch" -o "$out/aim7" "$test_dir/g.wf"
cp "$test_dir/stdout" "$test_dir/run-aim7.out"
aim7_json=$(ls "$out"/aim7/*/result.json)
jq_check "$aim7_json" '[.levels[].status] == ["ok", "ok"]' "aim7 run: both levels ok"
check_aim7_row "$test_dir/run-aim7.out" "$aim7_json" 0 "run -f aim7"
report aim7 "$aim7_json"
check_aim7_row "$test_dir/aim7.out" "$aim7_json" 0 "report -f aim7"
cmp -s "$test_dir/run-aim7.out" "$test_dir/aim7.out" ||
	fail "run -f aim7 and report -f aim7 differ: $(diff "$test_dir/run-aim7.out" "$test_dir/aim7.out")"
[ "$(wc -l <"$test_dir/aim7.out")" = 3 ] || fail "aim7: not a header and 2 rows"
head -n 1 "$test_dir/aim7.out" | tr -s ' ' | grep -qx ' *Tasks jobs/min jti jobs/min/task real cpu' ||
	fail "aim7: header is $(head -n 1 "$test_dir/aim7.out")"
# The second row too, with the first level's row taken out.
sed 2d "$test_dir/aim7.out" >"$test_dir/aim7-2.out"
check_aim7_row "$test_dir/aim7-2.out" "$aim7_json" 1 "report -f aim7, level 2"

# reaim: reaim's columns: Num Forked, Parent Time, Child SysTime, Child
# UTime, Jobs per Minute, Jobs/min/Child, Std_dev, Percent, JTI.
report reaim
head -n 2 "$test_dir/reaim.out" | tr -s ' ' >"$test_dir/reaim.head"
grep -qx 'Num Parent Child Child Jobs per Jobs/min/ Std_dev Percent JTI' "$test_dir/reaim.head" ||
	fail "reaim: header line 1: $(head -n 1 "$test_dir/reaim.head")"
grep -qx 'Forked Time SysTime UTime Minute Child' "$test_dir/reaim.head" ||
	fail "reaim: header line 2: $(sed -n 2p "$test_dir/reaim.head")"
# Std_dev is per_user_jobs_per_min.stddev, or where a result.json has none,
# recovered from jti = 100 * (1 - stddev / mean).
jq -r '.levels[] | "\(.users) \(.window_s) \(.rusage.stime_s) \(.rusage.utime_s) \(.jobs_per_min) \(.jobs_per_min_per_user) \(.jti) \(.per_user_jobs_per_min.stddev // (.jobs_per_min_per_user * (1 - .jti / 100)))"' \
	"$json" >"$test_dir/reaim.want"
max=$(jq '.summary.peak_jobs_per_min' "$json")
awk -v max="$max" -v want="$test_dir/reaim.want" '
	function near(a, b, eps) { return a - b <= eps && b - a <= eps }
	function bad(msg) { print "reaim: " msg > "/dev/stderr"; failed = 1 }
	# A table row: 9 numeric columns.
	NF == 9 {
		for (i = 1; i <= 9; i++)
			if ($i !~ /^[0-9]+(\.[0-9]+)?$/)
				next
		rows++
		if ((getline w < want) <= 0) { bad("more rows than levels"); next }
		split(w, v, " ")
		if ($1 != v[1]) bad("Num Forked " $1 ", want " v[1])
		if (!near($2, v[2], 0.005)) bad("Parent Time " $2 ", want " v[2])
		if (!near($3, v[3], 0.005)) bad("Child SysTime " $3 ", want " v[3])
		if (!near($4, v[4], 0.005)) bad("Child UTime " $4 ", want " v[4])
		if (!near($5, v[5], 0.005)) bad("Jobs per Minute " $5 ", want " v[5])
		if (!near($6, v[6], 0.005)) bad("Jobs/min/Child " $6 ", want " v[6])
		if (!near($7, v[8], 0.005)) bad("Std_dev " $7 ", want " v[8])
		# Percent is the Std_dev Percent of reaim: Std_dev over Jobs/min/Child,
		# so that JTI = 100 - Percent (JTI is rounded, and held >= 0).
		if (!near($8, v[8] / v[6] * 100, 0.005)) bad("Percent " $8 ", want " v[8] / v[6] * 100)
		if (!near($9, v[7], 0.5)) bad("JTI " $9 ", want " v[7])
		if (v[7] > 0 && !near($9, 100 - $8, 0.5)) bad("JTI " $9 " is not 100 - Percent " $8)
		users[rows] = $1
	}
	/^Max Jobs per Minute / {
		maxline++
		if (!near($5, max, 0.005)) bad("Max Jobs per Minute " $5 ", want " max)
	}
	END {
		if (rows != 2) bad(rows " rows, want 2")
		if (users[1] != 1 || users[2] != 2) bad("Num Forked not 1 then 2")
		if (maxline != 1) bad(maxline " Max Jobs per Minute lines")
		exit failed
	}' "$test_dir/reaim.out" || fail "reaim table (above)"

# json: the same document.
report json
jq -S . "$json" >"$test_dir/want.json"
jq -S . "$test_dir/json.out" >"$test_dir/got.json" || fail "json: not JSON"
cmp -s "$test_dir/want.json" "$test_dir/got.json" || fail "json: not the same document"

# A failed level: csv quotes its reason, reaim and aim7 comment it, lkp and simple
# carry no numbers for it, default says FAILED.
jq '.levels[1] = {users: 2, status: "failed", reason: "user 1 (pid 7) said \"no\", then died"}' \
	"$json" >"$test_dir/failed.json"
report csv "$test_dir/failed.json"
sed -n 3p "$test_dir/csv.out" | grep -qx '2,failed,,,,,,,,,,,"user 1 (pid 7) said ""no"", then died"' ||
	fail "csv: failed row is $(sed -n 3p "$test_dir/csv.out")"
report reaim "$test_dir/failed.json"
grep -qx '# level 2 users failed: user 1 (pid 7) said "no", then died' "$test_dir/reaim.out" ||
	fail "reaim: no failed-level comment"
grep -qE '^1 +([0-9.]+ +){6}0\.00 +100$' "$test_dir/reaim.out" ||
	fail "reaim: a 1-user level has a spread: $(grep '^1 ' "$test_dir/reaim.out")"
# aim7 has no row for a failed level, even a first one: the row after the
# header is the first ok level, and the failure is a comment after the rows.
jq '.levels[0] = {users: 1, status: "failed", reason: "user 0 died"}' \
	"$json" >"$test_dir/failed-first.json"
report aim7 "$test_dir/failed-first.json"
check_aim7_row "$test_dir/aim7.out" "$test_dir/failed-first.json" 1 "aim7, first level failed"
[ "$(tail -n 1 "$test_dir/aim7.out")" = '# level 1 users failed: user 0 died' ] ||
	fail "aim7: the failed level is not commented last: $(tail -n 1 "$test_dir/aim7.out")"
[ "$(wc -l <"$test_dir/aim7.out")" = 3 ] || fail "aim7: a row for a failed level"
report lkp "$test_dir/failed.json"
grep -qx 'users.2.status: failed' "$test_dir/lkp.out" || fail "lkp: users.2.status"
grep -q '^users\.2\.jobs_per_min' "$test_dir/lkp.out" && fail "lkp: numbers for a failed level"
grep -qx 'max_jobs_per_min_users: 1' "$test_dir/lkp.out" || fail "lkp: peak of the ok level"
report simple "$test_dir/failed.json"
[ "$(wc -l <"$test_dir/simple.out")" = 1 ] || fail "simple: a line for a failed level"
report default "$test_dir/failed.json"
grep -qE '^ +2  FAILED: user 1 \(pid 7\)' "$test_dir/default.out" || fail "default: FAILED row"

# Bad files exit 1 and say what is wrong; bad usage exits 2.
expect_status 1 run_aimsweep report "$test_dir/missing.json"
expect_stderr "missing.json: cannot open: No such file or directory"
printf '{"schema_version": 1, "levels": [' >"$test_dir/cut.json"
expect_status 1 run_aimsweep report "$test_dir/cut.json"
expect_stderr "cut.json: not JSON"
jq '.schema_version = 4' "$json" >"$test_dir/v4.json"
expect_status 1 run_aimsweep report -f csv "$test_dir/v4.json"
expect_stderr "v4.json: schema_version 4 is not one this aimsweep reads (1 to 3)"
# Version 1 files (start_s with the set-up in it) still read.
jq '.schema_version = 1' "$json" >"$test_dir/v1.json"
expect_status 0 run_aimsweep report -f csv "$test_dir/v1.json"
jq 'del(.levels)' "$json" >"$test_dir/nolevels.json"
expect_status 1 run_aimsweep report "$test_dir/nolevels.json"
expect_stderr "nolevels.json: no levels\[\]"
expect_status 2 run_aimsweep report -f xml "$json"
expect_stderr "unknown format 'xml'"
expect_status 2 run_aimsweep report
expect_status 2 run_aimsweep report "$json" "$json"
expect_status 2 run_aimsweep report -f
expect_status 0 run_aimsweep report --help
for f in default simple json csv aim7 reaim lkp; do
	grep -q "^  $f " "$test_dir/stdout" || fail "report --help does not document $f"
done

# Every format of `run -f` prints what `report -f` prints of that run's
# result.json: one renderer each, whether the run is live or saved.
for fmt in simple json csv reaim lkp; do
	expect_status 0 run_aimsweep run -f "$fmt" --no-plot --levels 1,2 \
		-t 0.3 -w 0.1 -d "$scratch" -o "$out/run-$fmt" "$test_dir/g.wf"
	cp "$test_dir/stdout" "$test_dir/run-$fmt.out"
	report "$fmt" "$(ls "$out/run-$fmt"/*/result.json)"
	[ -s "$test_dir/run-$fmt.out" ] || fail "run -f $fmt printed nothing"
	cmp -s "$test_dir/run-$fmt.out" "$test_dir/$fmt.out" ||
		fail "run -f $fmt and report -f $fmt differ: $(diff "$test_dir/run-$fmt.out" "$test_dir/$fmt.out" | head -n 6)"
done

check_no_processes
check_scratch_empty
pass
