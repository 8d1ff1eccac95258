# tests/man-options.sh: aimsweep.1 documents every option of run's table, and no other, every option of the other commands' tables, and every micro job.
. "$(dirname "$0")/lib.sh"

man=$AIMSWEEP_SRCDIR/aimsweep.1
[ -r "$man" ] || fail "cannot read $man"

# The options, from the program: "  -s, --start N ..." or "      --levels
# LIST ..." in --help, which is made from the table; as "s start" or
# "- levels".
expect_status 0 run_aimsweep run --help
sed -n 's/^  \(-\([A-Za-z]\), \|    \)--\([a-z][-a-z]*\).*/\2 \3/p' \
	"$test_dir/stdout" | sed 's/^ /- /' >"$test_dir/options"
n=$(wc -l <"$test_dir/options")
[ "$n" -ge 10 ] ||
	fail "only $n options read from run --help; has its layout changed?"

# The tags of the man page's OPTIONS section (the line after each .TP),
# as troff shows them: the arguments of .BR, .BI... run together, those
# of .B and .I with spaces, escapes dropped: "-s, --start N".
awk 'function shown(line,   macro, out, sep, m) {
		macro = line
		sub(/ .*/, "", macro)
		sub(/^\.[A-Z]+ */, "", line)
		sep = macro == ".B" || macro == ".I" ? " " : ""
		out = ""
		while (line != "") {
			if (substr(line, 1, 1) == "\"") {
				line = substr(line, 2)
				m = index(line, "\"")
			} else {
				m = index(line, " ")
			}
			if (!m)
				m = length(line) + 1
			out = out (out == "" ? "" : sep) substr(line, 1, m - 1)
			line = substr(line, m + 1)
			sub(/^ +/, "", line)
		}
		return out
	}
	/^\.SH / { in_options = ($2 == "OPTIONS") }
	in_options && tag { print shown($0) " " }
	{ tag = in_options && $0 == ".TP" }' "$man" |
	sed -e 's/\\%//g' -e 's/\\f[BIPR]//g' -e 's/\\-/-/g' \
	>"$test_dir/tags"
[ -s "$test_dir/tags" ] || fail "no option tags in the OPTIONS of $man"

missing=
while read -r letter name; do
	if [ "$letter" = - ]; then
		grep -qE -- "(^| )--$name[ ,=]" "$test_dir/tags" ||
			missing="$missing --$name"
	else
		grep -qE -- "(^| )-$letter, --$name[ ,=]" "$test_dir/tags" ||
			missing="$missing -$letter/--$name"
	fi
done <"$test_dir/options"
[ -z "$missing" ] ||
	fail "options of run --help not in the OPTIONS of aimsweep.1:$missing"

# And the man page names no option the program does not have.
extra=
for name in $(grep -oE -- "--[a-z][-a-z]*" "$test_dir/tags" | sort -u); do
	grep -qx -- ". ${name#--}" "$test_dir/options" ||
		extra="$extra $name"
done
[ -z "$extra" ] ||
	fail "aimsweep.1's OPTIONS has options run --help does not:$extra"

# The other commands' options, from their --help, which their tables
# make ("  -f, --format FORMAT" or "  --noise PCT"): each is named in
# that command's paragraph under COMMANDS, the .TP whose tag starts with
# the command's name. Only this way: those paragraphs also name run's
# options.
missing=
for cmd in report compare plot list; do
	expect_status 0 run_aimsweep "$cmd" --help
	sed -n 's/^  \(-[A-Za-z], \)\{0,1\}--\([a-z][-a-z]*\).*/\2/p' \
		"$test_dir/stdout" | grep -vx help >"$test_dir/$cmd.options"
	[ -s "$test_dir/$cmd.options" ] ||
		fail "no options read from $cmd --help; has its layout changed?"
	awk -v cmd="$cmd" '
	/^\.SH / { in_commands = ($2 == "COMMANDS"); next }
	!in_commands { next }
	/^\.TP/ { tag = 1; next }
	tag { tag = 0; mine = ($2 == cmd) }
	mine { print }' "$man" |
		sed -e 's/\\%//g' -e 's/\\f[BIPR]//g' -e 's/\\-/-/g' \
		>"$test_dir/$cmd.para"
	[ -s "$test_dir/$cmd.para" ] ||
		fail "aimsweep.1's COMMANDS has no paragraph for $cmd"
	while read -r name; do
		grep -qE -- "(^|[^-a-z])--$name([^-a-z]|\$)" \
			"$test_dir/$cmd.para" || missing="$missing $cmd --$name"
	done <"$test_dir/$cmd.options"
done
[ -z "$missing" ] ||
	fail "options not in their command's paragraph of aimsweep.1's COMMANDS:$missing"
# Every micro job has its own paragraph under JOBS (a .TP tagged with its
# name); the AIM7 catalog is described by `list jobs -v`, from its rows.
"$AIMSWEEP" list jobs | awk '/^# [0-9]+ micro jobs/ { on = 1; next }
	/^#/ { on = 0 } on && NF { print $1 }' >"$test_dir/micro"
[ -s "$test_dir/micro" ] || fail "list jobs shows no micro job; has its layout changed?"
awk '/^\.SH / { on = ($2 == "JOBS"); next }
	on && /^\.TP/ { tag = 1; next }
	tag { tag = 0; print $2 }' "$man" >"$test_dir/job-tags"
undocumented=
while read -r job; do
	grep -qx -- "$job" "$test_dir/job-tags" ||
		undocumented="$undocumented $job"
done <"$test_dir/micro"
[ -z "$undocumented" ] ||
	fail "micro jobs without their paragraph under aimsweep.1's JOBS:$undocumented"
pass
