# tests/compare.sh: `aimsweep compare` on synthetic results with known changes, repeats and --fail-above.
. "$(dirname "$0")/lib.sh"

# Level 1: 1000 -> 900 (-10%), creat 100 -> 80 ops/s (-20%); level 2:
# 2000 -> 2100 (+5%); level 4 only in A, level 8 only in B.
cat >"$test_dir/a.json" <<'EOF'
{
	"schema_version": 1,
	"status": "complete",
	"started_at": "2026-11-30T10:00:00+0000",
	"host": { "hostname": "host-a", "kernel_release": "6.1.0-base", "cpus_online": 2 },
	"mix": { "name": "syscall-mix" },
	"levels": [
		{ "users": 1, "status": "ok", "jobs_per_min": 1000,
		  "jobs": [ { "name": "creat", "ops_per_sec": 100 },
			    { "name": "brk", "ops_per_sec": 50 } ] },
		{ "users": 2, "status": "ok", "jobs_per_min": 2000 },
		{ "users": 4, "status": "ok", "jobs_per_min": 3000 }
	]
}
EOF
cat >"$test_dir/b.json" <<'EOF'
{
	"schema_version": 1,
	"status": "complete",
	"started_at": "2026-11-30T11:00:00+0000",
	"host": { "hostname": "host-b", "kernel_release": "6.2.0-patched", "cpus_online": 2 },
	"mix": { "name": "syscall-mix" },
	"levels": [
		{ "users": 1, "status": "ok", "jobs_per_min": 900,
		  "jobs": [ { "name": "creat", "ops_per_sec": 80 },
			    { "name": "kill", "ops_per_sec": 5 } ] },
		{ "users": 2, "status": "ok", "jobs_per_min": 2100 },
		{ "users": 8, "status": "ok", "jobs_per_min": 500 }
	]
}
EOF
a=$test_dir/a.json b=$test_dir/b.json

# row USERS WHAT: the output line of that level (WHAT "jobs/min") or of
# that job in the level.
row() {
	awk -v u="$1" -v what="$2" '
		$1 ~ /^[0-9]+$/ { level = $1; if (level == u && what == "jobs/min") { print; exit } next }
		level == u && $1 == what { print; exit }' "$test_dir/stdout"
}

expect_status 0 run_aimsweep compare "$a" "$b"
grep -q '^# A: .*a.json: Linux 6.1.0-base, workfile syscall-mix, host host-a' "$test_dir/stdout" ||
	fail "no header for A"
grep -q '^# B: .*b.json: Linux 6.2.0-patched, workfile syscall-mix, host host-b' "$test_dir/stdout" ||
	fail "no header for B"
row 1 jobs/min | grep -qE '^ +1 +jobs/min +1000\.0 +900\.0 +-10\.0% +no repeats: noise unknown$' ||
	fail "level 1: $(row 1 jobs/min)"
row 2 jobs/min | grep -qE '^ +2 +jobs/min +2000\.0 +2100\.0 +\+5\.0% +no repeats: noise unknown$' ||
	fail "level 2: $(row 2 jobs/min)"
row 4 jobs/min | grep -qE ' 3000\.0 +- +- +only in A$' || fail "level 4: $(row 4 jobs/min)"
row 8 jobs/min | grep -qE ' - +500\.0 +- +only in B$' || fail "level 8: $(row 8 jobs/min)"
row 1 creat | grep -qE 'creat ops/s +100\.0 +80\.0 +-20\.0% +no repeats: noise unknown$' || fail "creat: $(row 1 creat)"
row 1 brk | grep -q 'only in A$' || fail "brk: $(row 1 brk)"
row 1 kill | grep -q 'only in B$' || fail "kill: $(row 1 kill)"
grep -q '^# 2 levels in both, 1 only in A, 1 only in B$' "$test_dir/stdout" || fail "summary line"

# --fail-above: only drops beyond PCT count. a2 and b2 have levels 1 and
# 2 only.
jq 'del(.levels[2])' "$a" >"$test_dir/a2.json"
jq 'del(.levels[2])' "$b" >"$test_dir/b2.json"
a2=$test_dir/a2.json b2=$test_dir/b2.json
expect_status 1 run_aimsweep compare "$a2" "$b2" --fail-above 5
expect_stderr "jobs/min at 1 users dropped 10.0%, more than --fail-above 5%"
row 1 jobs/min | grep -q 'REGRESSION$' || fail "level 1 not marked"
row 2 jobs/min | grep -q 'REGRESSION' && fail "a rise marked as regression"
expect_status 1 run_aimsweep compare --fail-above 9.99 "$a2" "$b2"
expect_status 0 run_aimsweep compare "$a2" "$b2" --fail-above 10
expect_status 0 run_aimsweep compare "$a2" "$b2" --fail-above 15
# B to A: level 1 rises 11.1%, level 2 drops 4.8%.
expect_status 0 run_aimsweep compare "$b2" "$a2" --fail-above 5
expect_status 1 run_aimsweep compare "$b2" "$a2" --fail-above 4
expect_stderr "jobs/min at 2 users dropped 4.8%"
# A level of A that B lacks fails the check, whatever PCT: a B that was
# cut short must not pass. One only in B does not.
expect_status 1 run_aimsweep compare "$a" "$b" --fail-above 50
expect_stderr "the level of 4 users is missing in B"
row 4 jobs/min | grep -q 'only in A; REGRESSION$' || fail "level 4: $(row 4 jobs/min)"
row 8 jobs/min | grep -q 'REGRESSION' && fail "a level only in B marked"
jq '.status = "interrupted" | .levels = []' "$b" >"$test_dir/b-cut.json"
expect_status 1 run_aimsweep compare "$a2" "$test_dir/b-cut.json" --fail-above 50
expect_stderr "B (.*b-cut.json) did not complete: its status is interrupted"
expect_stderr "the level of 1 users is missing in B"
expect_status 0 run_aimsweep compare "$a2" "$test_dir/b-cut.json"
expect_stderr "did not complete"
# Other workfiles: said, and still compared.
jq '.mix.name = "creat-contention"' "$b2" >"$test_dir/b-wf.json"
expect_status 0 run_aimsweep compare "$a2" "$test_dir/b-wf.json"
expect_stderr "A ran workfile syscall-mix and B workfile creat-contention"
expect_status 0 run_aimsweep compare "$a2" "$b2"
[ -s "$test_dir/stderr" ] && fail "warnings for two complete runs of one workfile: $(cat "$test_dir/stderr")"

# A level that worked in A and fails in B is a drop, whatever PCT.
jq '.levels[1] = {users: 2, status: "failed", reason: "user 1 (pid 5) killed by signal 9 (SIGKILL)"}' \
	"$b" >"$test_dir/b-failed.json"
expect_status 1 run_aimsweep compare "$a" "$test_dir/b-failed.json" --fail-above 50
row 2 jobs/min | grep -q 'failed in B: user 1 (pid 5) killed by signal 9 (SIGKILL); REGRESSION$' ||
	fail "failed level: $(row 2 jobs/min)"
jq 'del(.levels[2])' "$test_dir/b-failed.json" >"$test_dir/b2-failed.json"
expect_status 0 run_aimsweep compare "$test_dir/b2-failed.json" "$a2" --fail-above 50

# Repeats: Welch's t-test on levels[].repeats.jobs_per_min. The p-values
# are worked by hand: t = (mean_b - mean_a) / sqrt(sd_a^2/n_a + sd_b^2/n_b)
# with Welch's df, and for an even df the two-sided p of Student's t in
# closed form, 1 - sin(h) (1 + cos^2(h)/2 + 3 cos^4(h)/8 + ...) with
# h = atan(|t| / sqrt(df)). 1000 vs 900, sd 10 each: t -15.81, df 8, p
# 2.56e-07; 1000 vs 995: t -0.791, df 8, p 0.452; 1000 (sd 10) vs 970
# (sd 2): t -6.578, df 4.319, p 0.0021 (by numerical integration); creat
# 100 vs 70, sd 1: t -47.43, df 8, p 4.31e-11; 100 vs 99.5: p 0.452.
repeats() { # FILE N MEAN STDDEV
	jq --argjson n "$2" --argjson m "$3" --argjson s "$4" \
		'.levels[0].repeats = {jobs_per_min: {n: $n, mean: $m, stddev: $s}}' "$1"
}
repeats "$a" 5 1000 10 >"$test_dir/ra.json"
repeats "$b" 5 900 10 >"$test_dir/rb.json"
repeats "$b" 5 995 10 >"$test_dir/rc.json"
expect_status 0 run_aimsweep compare "$test_dir/ra.json" "$test_dir/rb.json"
row 1 jobs/min | grep -qE ' -10\.0% +significant \(Welch p=2\.56e-07, n=5\+5\)$' ||
	fail "repeats 1000 vs 900: $(row 1 jobs/min)"
row 2 jobs/min | grep -q 'no repeats: noise unknown$' || fail "level 2 has no repeats"
expect_status 0 run_aimsweep compare "$test_dir/ra.json" "$test_dir/rc.json"
row 1 jobs/min | grep -qE ' -0\.5% +within noise \(Welch p=0\.452, n=5\+5\)$' ||
	fail "repeats 1000 vs 995: $(row 1 jobs/min)"
# A clear p-value for a change under the noise floor is not significant:
# 1000 vs 970 with tight repeats, with the default 5% floor and with 2%.
repeats "$b" 5 970 2 >"$test_dir/rd.json"
expect_status 0 run_aimsweep compare "$test_dir/ra.json" "$test_dir/rd.json"
row 1 jobs/min | grep -qE ' -3\.0% +within noise \(Welch p=0\.0021, n=5\+5; under --noise 5%\)$' ||
	fail "3% under the default floor: $(row 1 jobs/min)"
expect_status 0 run_aimsweep compare --noise 2 "$test_dir/ra.json" "$test_dir/rd.json"
row 1 jobs/min | grep -qE ' -3\.0% +significant \(Welch p=0\.0021, n=5\+5\)$' ||
	fail "3% over --noise 2: $(row 1 jobs/min)"
expect_status 2 run_aimsweep compare --noise -1 "$test_dir/ra.json" "$test_dir/rd.json"
# Repeats on one side only say nothing about the noise.
expect_status 0 run_aimsweep compare "$test_dir/ra.json" "$b"
row 1 jobs/min | grep -q 'no repeats: noise unknown$' || fail "one-sided repeats"
row 1 creat | grep -q 'no repeats: noise unknown$' || fail "creat without repeats: $(row 1 creat)"
# Each job's repeats (levels[].repeats.jobs[]): its row shows the means
# and its own verdict.
jobrep() { # FILE MEAN STDDEV
	jq --argjson m "$2" --argjson s "$3" \
		'.levels[0].repeats.jobs = [{name: "creat", ops_per_sec: {n: 5, mean: $m, stddev: $s}}]' "$1"
}
jobrep "$test_dir/ra.json" 100 1 >"$test_dir/ja.json"
jobrep "$test_dir/rb.json" 70 1 >"$test_dir/jb.json"
jobrep "$test_dir/rc.json" 99.5 1 >"$test_dir/jc.json"
expect_status 0 run_aimsweep compare "$test_dir/ja.json" "$test_dir/jb.json"
row 1 creat | grep -qE 'creat ops/s +100\.0 +70\.0 +-30\.0% +significant \(Welch p=4\.31e-11, n=5\+5\)$' ||
	fail "creat 100 vs 70 over repeats: $(row 1 creat)"
expect_status 0 run_aimsweep compare "$test_dir/ja.json" "$test_dir/jc.json"
row 1 creat | grep -qE 'creat ops/s +100\.0 +99\.5 +-0\.5% +within noise \(Welch p=0\.452, n=5\+5\)$' ||
	fail "creat 100 vs 99.5 over repeats: $(row 1 creat)"

# Lock profiles: the 5 callers (with their lock type) whose wait per
# second of profiled time moved most at a level both sides profiled. A
# covered 2 s (its level's lock_profile); B is older, without one: 1 s,
# the smaller of params.lock_profile.seconds and window_s. In ms/s, A
# then B: mkdir W 50 -> 150, unlink W 200 -> 150, beta 4 -> 24, alpha
# 10 -> none, delta none -> 7; mkdir R 30 and gamma 1 did not move.
jq '.params.lock_profile = {seconds: 2, top: 10} |
    .levels[0] += {window_s: 2,
	lock_profile: {method: "perf", why: "w", offset_s: 0, covered_s: 2},
	lock_contention: [
	  {caller: "__x64_sys_unlink+0x3b", type: "rwsem:W", total_wait_ns: 4e8},
	  {caller: "do_mkdirat+0x58", type: "rwsem:W", total_wait_ns: 1e8},
	  {caller: "do_mkdirat+0x58", type: "rwsem:R", total_wait_ns: 6e7},
	  {caller: "alpha+0x2", type: "spinlock", total_wait_ns: 2e7},
	  {caller: "beta+0x1", type: "mutex", total_wait_ns: 8e6},
	  {caller: "gamma", type: "mutex", total_wait_ns: 2e6}]}' \
	"$a" >"$test_dir/la.json"
jq '.params.lock_profile = {seconds: 1, top: 10} |
    .levels[0] += {window_s: 1.5, lock_contention: [
	  {caller: "do_mkdirat+0x58", type: "rwsem:W", total_wait_ns: 1.5e8},
	  {caller: "__x64_sys_unlink+0x3b", type: "rwsem:W", total_wait_ns: 1.5e8},
	  {caller: "do_mkdirat+0x58", type: "rwsem:R", total_wait_ns: 3e7},
	  {caller: "beta+0x1", type: "mutex", total_wait_ns: 2.4e7},
	  {caller: "delta+0x3", type: "rwlock:R", total_wait_ns: 7e6},
	  {caller: "gamma", type: "mutex", total_wait_ns: 1e6}]}' \
	"$b" >"$test_dir/lb.json"
lock_rows() {
	grep -E '^ +lock ' "$test_dir/stdout" | tr -s ' ' | sed 's/^ //'
}
expect_status 0 run_aimsweep compare "$test_dir/la.json" "$test_dir/lb.json"
cat >"$test_dir/want" <<'EOF'
lock do_mkdirat+0x58 (rwsem:W) 50.00 ms/s 150.00 ms/s +100.00 ms/s
lock __x64_sys_unlink+0x3b (rwsem:W) 200.00 ms/s 150.00 ms/s -50.00 ms/s
lock beta+0x1 (mutex) 4.00 ms/s 24.00 ms/s +20.00 ms/s
lock alpha+0x2 (spinlock) 10.00 ms/s none -10.00 ms/s
lock delta+0x3 (rwlock:R) none 7.00 ms/s +7.00 ms/s
EOF
lock_rows | diff "$test_dir/want" - >&2 || fail "lock callers at level 1"
# They follow level 1's jobs, before level 2's row.
awk '/^ +lock / { l = NR } /^ +2 +jobs\/min/ { two = NR }
     /^ +creat ops/ { c = NR } END { exit !(c && c < l && l < two) }' \
	"$test_dir/stdout" || fail "lock rows out of place"
# B kept as many callers as --lock-profile-top allowed: one it did not
# keep waited at most its smallest kept rate, 1 ms/s, and is counted at
# it: alpha moves by -9, below beta's +20, above delta's +7.
jq '.params.lock_profile.top = 6' "$test_dir/lb.json" >"$test_dir/lb6.json"
expect_status 0 run_aimsweep compare "$test_dir/la.json" "$test_dir/lb6.json"
lock_rows | sed -n 4p | grep -qx 'lock alpha+0x2 (spinlock) 10.00 ms/s <1.00 ms/s -9.00 ms/s' ||
	fail "a caller B did not keep: $(lock_rows | sed -n 4p)"
# Only where both sides profiled: none against a side without locks.
expect_status 0 run_aimsweep compare "$test_dir/la.json" "$b"
lock_rows | grep -q . && fail "lock rows against a side without a profile"

# Usage and input errors exit 2.
expect_status 2 run_aimsweep compare "$a"
expect_stderr "want two result.json files, got 1"
expect_status 2 run_aimsweep compare "$a" "$b" "$a"
expect_status 2 run_aimsweep compare "$a" "$b" --fail-above abc
expect_stderr "'abc' is not a percentage"
expect_status 2 run_aimsweep compare "$a" "$b" --fail-above -5
expect_status 2 run_aimsweep compare "$a" "$b" --fail-above 0x10
expect_status 2 run_aimsweep compare "$a" "$b" --fail-above inf
if [ -w /dev/full ]; then
	run_aimsweep compare "$a2" "$b2" >/dev/full 2>"$test_dir/full.err"
	st=$?
	[ "$st" = 2 ] || fail "compare into a full device exited $st, want 2"
	grep -q "cannot write standard output" "$test_dir/full.err" ||
		fail "no message for a failed write: $(cat "$test_dir/full.err")"
else
	not_checked "no writable /dev/full: compare into a full device"
fi
expect_status 2 run_aimsweep compare "$a" "$b" --fail-above
expect_status 2 run_aimsweep compare "$a" "$test_dir/missing.json"
expect_stderr "missing.json: cannot open: No such file or directory"
printf 'not json\n' >"$test_dir/bad.json"
expect_status 2 run_aimsweep compare "$test_dir/bad.json" "$b"
expect_stderr "bad.json: not JSON"
expect_status 0 run_aimsweep compare --help
grep -q 'only drops count' "$test_dir/stdout" || fail "--help does not say only drops count"
grep -q "Welch" "$test_dir/stdout" || fail "--help does not name the test"
pass
