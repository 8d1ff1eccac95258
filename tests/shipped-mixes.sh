# tests/shipped-mixes.sh: each shipped AIM7 mix has exactly the tests, weights and sizes of reaim's workfile of its name.
. "$(dirname "$0")/lib.sh"

ref=${AIMSWEEP_REFERENCE:-}/aim7-workfiles
[ -d "$ref" ] || skip "no reference workfiles at $ref"

# mix_lines FILE: one "weight name" line per job line (the weight as a
# number, so reaim's "05" is 5), and the FILESIZE and POOLSIZE directives
# as "KEY SIZE" whatever their spelling; anything else as "other: LINE".
# Sorted, so that comparing two of them is a multiset compare.
mix_lines() {
	awk '{ sub(/#.*/, ""); gsub(/\r/, "") }
	NF == 0 { next }
	NF == 2 && $1 ~ /^[0-9]+$/ { print $1 + 0, $2; next }
	/^[ \t]*(FILESIZE|POOLSIZE)/ {
		match($0, /(FILESIZE|POOLSIZE)/)
		key = substr($0, RSTART, RLENGTH)
		val = substr($0, RSTART + RLENGTH)
		gsub(/[: \t]/, "", val)
		print key, toupper(val)
		next
	}
	{ print "other:", $0 }' "$1" | LC_ALL=C sort
}

# The comment lines of FILE, blanks squeezed, without the "#".
comment_lines() {
	sed -n 's/^[ \t]*#[ \t]*//p' "$1" | tr -s ' \t' '  '
}

bad=
n=0
for wf in "$ref"/workfile.*; do
	name=${wf##*/workfile.}
	shipped=$AIMSWEEP_WORKFILES/$name
	n=$((n + 1))
	if [ ! -f "$shipped" ]; then
		echo "$name: FAIL: no shipped workfiles/$name"
		bad="$bad $name"
		continue
	fi
	mix_lines "$wf" >"$test_dir/want"
	mix_lines "$shipped" >"$test_dir/got"
	why=
	if ! cmp -s "$test_dir/want" "$test_dir/got"; then
		missing=$(LC_ALL=C comm -23 "$test_dir/want" "$test_dir/got" |
			tr '\n' ',' | sed 's/,$//; s/,/, /g')
		extra=$(LC_ALL=C comm -13 "$test_dir/want" "$test_dir/got" |
			tr '\n' ',' | sed 's/,$//; s/,/, /g')
		why="missing: ${missing:-none}; not in reaim's: ${extra:-none}"
	fi
	# A header of our own: a first comment line saying what the mix
	# models, then a paragraph; none of it reaim's words.
	if [ -z "$why" ]; then
		first=$(head -n 1 "$shipped")
		second=$(sed -n 2p "$shipped")
		case $first in
		'# '?*) ;;
		*) why="first line is not a '# ' comment saying what it models" ;;
		esac
		case $second in
		'# '?*) ;;
		*) why="${why:-no paragraph of comment after the first line}" ;;
		esac
	fi
	if [ -z "$why" ]; then
		comment_lines "$wf" | awk 'length($0) >= 20' >"$test_dir/theirs"
		copied=$(comment_lines "$shipped" |
			grep -Fx -f "$test_dir/theirs" | head -n 1)
		[ -z "$copied" ] || why="comment copied from reaim's: '$copied'"
	fi
	# Shipped means installed: it must be in dist_workfile_DATA.
	if [ -z "$why" ] && ! grep -Eq "^[[:space:]]*workfiles/$name[[:space:]\\\\]*\$" \
	    "$AIMSWEEP_SRCDIR/Makefile.am"; then
		why="workfiles/$name is not in Makefile.am's dist_workfile_DATA"
	fi
	if [ -n "$why" ]; then
		echo "$name: FAIL: $why"
		bad="$bad $name"
	else
		echo "$name: ok ($(grep -vc '^[A-Z]' "$test_dir/got") lines)"
	fi
done
[ "$n" -gt 0 ] || fail "no workfile.* in $ref"
[ -z "$bad" ] || fail "shipped mixes that differ from reaim's:$bad"
pass
