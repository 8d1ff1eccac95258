# tests/readme-run.sh: the README's main command, `aimsweep run`, with shorter levels: the default workfile and ramp, the table, result.json and the plots; and the README's shape.
. "$(dirname "$0")/lib.sh"

readme=$AIMSWEEP_SRCDIR/README.md
# The README's two commands, each on a line of its own, indented as code.
# The main one builds as make check's own build did and then runs
# aimsweep; what follows "./aimsweep" is what this test runs. The test
# command is the one .ci/run ends with.
build='sh .ci/install-deps && autoreconf -fi && ./configure && make'
main=$(grep -E '^    sh \.ci/install-deps && .*&& \./aimsweep ' "$readme")
[ "$(printf '%s\n' "$main" | grep -c .)" = 1 ] ||
	fail "README.md must give one main command line, found: '$main'"
[ "${main%% && ./aimsweep *}" = "    $build" ] ||
	fail "README.md's main command does not build as '$build': $main"
args=${main#* && ./aimsweep }
[ "$args" = run ] ||
	fail "README.md's main command runs 'aimsweep $args'; this test checks 'aimsweep run'"
grep -qxF "    $build -j2 check" "$readme" ||
	fail "README.md has no test command line '$build -j2 check'"
grep -qxF './configure && make -j2 check || { show_logs .; exit 1; }' \
    "$AIMSWEEP_SRCDIR/.ci/run" || fail ".ci/run does not run the README's test command"
# A README people read: the rest goes to docs/ and the man page.
lines=$(wc -l <"$readme")
[ "$lines" -le 250 ] || fail "README.md has $lines lines, more than 250"
# Every relative link of the README and of docs/ names a file of the tree.
for md in "$readme" "$AIMSWEEP_SRCDIR"/docs/*.md; do
	for link in $(grep -oE '\]\([^)#]+' "$md" | sed 's/^](//' |
	    grep -vE '^[a-z]+:'); do
		[ -e "$(dirname "$md")/$link" ] ||
			fail "$md links to $link, which does not exist"
	done
done

# As the README has it, from a directory of one's own: no workfile, no
# levels, results under ./results, the users' files under $TMPDIR (which
# make check's test_guard gives each test, and checks is left empty).
# Only the times are cut, 10 levels of 0.5 s after 0.2 s of warm-up.
cd "$test_dir" || fail "cannot enter $test_dir"
# shellcheck disable=SC2086 # the README's arguments, split as a shell would
expect_status 0 run_aimsweep_plot $args -t 0.5 -w 0.2
json=$(ls -d "$test_dir"/results/*-syscall-mix/result.json 2>/dev/null)
[ -f "$json" ] || fail "no results/<date>-syscall-mix/result.json in $test_dir"
check_documented "$json"
jq_check "$json" '.mix.name == "syscall-mix"' "the default workfile"
jq_check "$json" '.params.levels == [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]' \
	"the default ramp, 100 to 1000 by 100"
jq_check "$json" '[.levels[].status] == [range(10) | "ok"]' "every level ok"
jq_check "$json" '[.levels[] | .jobs_per_min > 0] | all' "every level measured"
# The table: a header, one row per level as it ends, a summary.
for users in 100 500 1000; do
	grep -Eq "^ +$users +[0-9.]+ .* ok\$" "$test_dir/stdout" ||
		fail "no ok row for $users users in the table: $(cat "$test_dir/stdout")"
done
grep -q '^# 10 levels ok, 0 failed' "$test_dir/stdout" ||
	fail "no summary line: $(tail -3 "$test_dir/stdout")"
# The plots, when gnuplot is there (.ci/install-deps installs it).
if command -v gnuplot >/dev/null; then
	dir=$(dirname "$json")
	for f in plot.svg plot.png plot.gp plot.dat; do
		[ -s "$dir/$f" ] || fail "no $f beside result.json"
	done
else
	echo "note: gnuplot is not installed: the plots are not checked"
fi
check_no_processes
pass
