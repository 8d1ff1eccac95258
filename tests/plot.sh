# tests/plot.sh: `aimsweep plot` writes data and a gnuplot script, and draws SVG and PNG when gnuplot is installed.
. "$(dirname "$0")/lib.sh"

expect_status 0 run_aimsweep run --levels 1,2 -t 1 -w 0.2 -d "$scratch" \
	-o "$out" syscall-mix
json=$(latest_result)
[ -f "$json" ] || fail "no result.json in $out"
kernel=$(jq -r .host.kernel_release "$json")

# Without gnuplot in PATH (aimsweep itself needs nothing from PATH): the
# data and the script are still written, with a word on how to install
# gnuplot, and the exit status is 0.
mkdir -p "$test_dir/empty" "$test_dir/nognuplot"
env PATH="$test_dir/empty" AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" plot \
	"$json" -o "$test_dir/nognuplot/out.svg" \
	>"$test_dir/stdout" 2>"$test_dir/stderr" ||
	fail "plot without gnuplot: exit status $?: $(cat "$test_dir/stderr")"
expect_stderr "gnuplot is not installed"
expect_stderr "apt-get install gnuplot-nox"
[ -s "$test_dir/nognuplot/out.gp" ] || fail "no script out.gp without gnuplot"
[ -s "$test_dir/nognuplot/out.dat" ] || fail "no data out.dat without gnuplot"
[ -e "$test_dir/nognuplot/out.svg" ] && fail "out.svg exists without gnuplot"
grep -q "^set terminal svg size 1200,900 dynamic" "$test_dir/nognuplot/out.gp" ||
	fail "script does not set the svg terminal"
grep -q "^set output 'out.svg'" "$test_dir/nognuplot/out.gp" ||
	fail "script does not write out.svg"
# The data: one row per ok level (users, jobs/min, ...) with the JSON's
# numbers, labelled with the kernel release and workfile by default.
awk '/^# index 1:/ { exit } /^[0-9]/ { print $1, $2 }' "$test_dir/nognuplot/out.dat" \
	>"$test_dir/dat.rows"
jq -r '.levels[] | "\(.users) \(.jobs_per_min)"' "$json" >"$test_dir/want.rows"
awk 'NR == FNR { want[FNR] = $0; n = FNR; next }
     { split(want[FNR], w, " ")
       if ($1 != w[1] || ($2 - w[2]) ^ 2 > 1e-6) exit 1 }
     END { if (FNR != n) exit 1 }' "$test_dir/want.rows" "$test_dir/dat.rows" ||
	fail "data rows $(cat "$test_dir/dat.rows") are not $(cat "$test_dir/want.rows")"
grep -qF "title '$kernel syscall-mix'" "$test_dir/nognuplot/out.gp" ||
	fail "default label is not '$kernel syscall-mix'"
# The sys panel says what it shows: the machine's sys% where result.json
# has it, else the users' own system time.
if jq -e '[.levels[].cpu.sys_pct | numbers] | length == 2' "$json" >/dev/null; then
	grep -q "^set title 'machine sys % vs users" "$test_dir/nognuplot/out.gp" ||
		fail "sys panel not labelled as the machine's sys %"
else
	grep -q "^set title 'users'' sys time % vs users'" "$test_dir/nognuplot/out.gp" ||
		fail "sys panel not labelled as the users' sys time"
fi
# One result with the machine's sys% and one without: the legend marks
# the users' sys time.
jq '.levels[].cpu.sys_pct = 42' "$json" >"$test_dir/sys.json"
jq 'del(.levels[].cpu)' "$json" >"$test_dir/nosys.json"
env PATH="$test_dir/empty" "$AIMSWEEP" plot "$test_dir/sys.json" \
	"$test_dir/nosys.json" -o "$test_dir/nognuplot/mixed.svg" 2>/dev/null ||
	fail "plot of sys.json and nosys.json"
grep -q "using 1:4 .* title .*(users'' sys time)'" "$test_dir/nognuplot/mixed.gp" ||
	fail "users' sys time line not marked beside the machine's"
grep -q "^1 .* 42$" "$test_dir/nognuplot/mixed.dat" || fail "machine sys% not plotted"

# The p99 panel is there exactly when the result has job latencies.
if jq -e '[.levels[].jobs[]?.latency_ns.p99 | numbers] | length > 0' "$json" >/dev/null; then
	grep -q "^set title 'p99 latency per job vs users'" "$test_dir/nognuplot/out.gp" ||
		fail "no p99 panel although the result has latency_ns.p99"
	grep -qF "title '$kernel syscall-mix'.': '.'creat'" "$test_dir/nognuplot/out.gp" ||
		fail "no p99 line for creat"
else
	grep -q "p99" "$test_dir/nognuplot/out.gp" && fail "a p99 panel without latency data"
fi

# A failed level is left out of the lines.
jq '.levels[1] = {users: 2, status: "failed", reason: "crashed"}' "$json" \
	>"$test_dir/failed.json"
env PATH="$test_dir/empty" "$AIMSWEEP" plot "$test_dir/failed.json" \
	-o "$test_dir/nognuplot/failed.png" 2>/dev/null || fail "plot of failed.json"
[ "$(awk '/^# index 1:/ { exit } /^[0-9]/ { n++ } END { print n }' \
	"$test_dir/nognuplot/failed.dat")" = 1 ] ||
	fail "failed level plotted: $(cat "$test_dir/nognuplot/failed.dat")"
grep -q "pngcairo" "$test_dir/nognuplot/failed.gp" || fail "png script lacks pngcairo"

# Usage errors.
expect_status 2 run_aimsweep plot
expect_status 2 run_aimsweep plot "$json" -o "$test_dir/x.pdf"
expect_stderr "must end in .svg or .png"
expect_status 2 run_aimsweep plot "$json" --label a --label b
expect_status 2 run_aimsweep plot "$json" -o "$test_dir/$(printf 'a\tb').svg"
expect_stderr "control characters"
expect_status 1 run_aimsweep plot "$test_dir/missing.json"
expect_stderr "missing.json: cannot open"

need gnuplot

# Two runs overlaid, drawn as SVG and PNG.
expect_status 0 run_aimsweep plot "$json" "$test_dir/failed.json" \
	--label "kernel A" --label "kernel B" -o "$test_dir/two.svg"
[ -s "$test_dir/two.svg" ] || fail "no two.svg"
grep -q '<svg' "$test_dir/two.svg" || fail "two.svg is not SVG"
grep -qF "kernel A ($kernel)" "$test_dir/two.svg" || fail "two.svg lacks the label kernel A ($kernel)"
grep -qF "kernel B ($kernel)" "$test_dir/two.svg" || fail "two.svg lacks the label kernel B ($kernel)"
[ -s "$test_dir/two.gp" ] && [ -s "$test_dir/two.dat" ] || fail "no two.gp/two.dat"
# gnuplot's warnings (a one-level result's x range is "empty") are not
# the user's business when it succeeds.
[ -s "$test_dir/stderr" ] && grep -v '^aimsweep: wrote ' "$test_dir/stderr" &&
	fail "plot of two results said more than what it wrote"

# A result without an ok level gets no line, and a warning; alone it is
# an error that leaves no files behind.
jq '.levels |= map({users, status: "failed", reason: "crashed"})' "$json" \
	>"$test_dir/allfailed.json"
expect_status 0 run_aimsweep plot "$json" "$test_dir/allfailed.json" \
	-o "$test_dir/some.svg"
expect_stderr "allfailed.json has no ok level, so it has no line"
expect_status 1 run_aimsweep plot "$test_dir/allfailed.json" -o "$test_dir/none.svg"
expect_stderr "nothing to plot: no level is ok"
for f in none.svg none.gp none.dat; do
	[ -e "$test_dir/$f" ] && fail "a plot with nothing in it left $f"
done

# A gnuplot that fails is quoted; the run's plot does not hide why.
mkdir -p "$test_dir/badgp"
printf '#!/bin/sh\necho "line 3: the fake fails" >&2\nexit 1\n' >"$test_dir/badgp/gnuplot"
chmod +x "$test_dir/badgp/gnuplot"
env PATH="$test_dir/badgp:$PATH" AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" plot \
	"$json" -o "$test_dir/bad.svg" >"$test_dir/stdout" 2>"$test_dir/stderr" &&
	fail "plot with a failing gnuplot exited 0"
expect_stderr "gnuplot: line 3: the fake fails"
expect_stderr "failed with status 1"

expect_status 0 run_aimsweep plot "$json" -o "$test_dir/one.png"
[ -s "$test_dir/one.png" ] || fail "no one.png"
sig=$(od -An -tx1 -N8 "$test_dir/one.png" | tr -d ' \n')
[ "$sig" = 89504e470d0a1a0a ] || fail "one.png does not start with the PNG signature: $sig"

# The default output is plot.svg in the current directory, and the
# script redraws it from its own directory.
mkdir -p "$test_dir/cwd"
(cd "$test_dir/cwd" && run_aimsweep plot "$json" >/dev/null 2>"$test_dir/stderr") ||
	fail "plot with the default output: $(cat "$test_dir/stderr")"
grep -q '<svg' "$test_dir/cwd/plot.svg" || fail "no plot.svg in the current directory"
rm "$test_dir/cwd/plot.svg"
(cd "$test_dir/cwd" && gnuplot plot.gp) 2>"$test_dir/stderr" ||
	fail "gnuplot plot.gp: $(cat "$test_dir/stderr")"
[ -s "$test_dir/cwd/plot.svg" ] || fail "the script does not redraw plot.svg"

check_no_processes
check_scratch_empty
pass
