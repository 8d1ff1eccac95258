# tests/architecture.sh: docs/architecture.md names every source file and no missing one, the driver's folders form layers, every capture and job is listed, and no file or function outgrows the limits a newcomer can read.
. "$(dirname "$0")/lib.sh"

src=$AIMSWEEP_SRCDIR
doc=$src/docs/architecture.md
[ -f "$doc" ] || fail "no $doc"
problems=

problem() {
	problems="$problems
$*"
}

# The stage folders, lowest first. A file includes headers of its own
# folder or of a folder before it here; jobs/ is below them all and
# includes nothing of the driver.
layers="base measure users capture output run cli"

rank_of() {
	local r=0 l
	for l in $layers; do
		[ "$l" = "$1" ] && { echo "$r"; return; }
		r=$((r + 1))
	done
	echo -1
}

# (lock_bpf.skel.h is made by bpftool in the build, not written.)
sources=$(cd "$src" && ls driver/*/*.[ch] jobs/*.[ch] | grep -v '\.skel\.h$' |
	sort)
[ -n "$sources" ] || fail "no sources under $src/driver"

# 1. Every source file is named in architecture.md by its path, and
# every driver/ or jobs/ path the document names exists.
# A header named like its .c is named with it.
for f in $sources; do
	case $f in *.h) [ -f "$src/${f%.h}.c" ] && continue ;; esac
	grep -qF "$f" "$doc" || problem "architecture.md does not name $f"
done
for f in $(grep -oE '(driver|jobs)/[a-z_/]+\.(c|h)' "$doc" | sort -u); do
	case $f in */lock_bpf.skel.h) continue ;; esac
	[ -f "$src/$f" ] || problem "architecture.md names $f, which does not exist"
done
for d in $(cd "$src" && ls -d driver/*/); do
	d=${d%/}
	[ "$(rank_of "${d#driver/}")" -ge 0 ] ||
		problem "$d is not a stage folder this test knows: add it to \$layers and to architecture.md"
done

# 2. Includes go down the layers, never up or sideways.
for f in $sources; do
	folder=${f#*/}
	folder=${folder%%/*}
	for inc in $(grep -oE '^#include "(driver|jobs)/[^"]+"' "$src/$f" |
	    sed 's/^#include "//; s/"$//'); do
		case $f in
		jobs/*)
			case $inc in driver/*)
				problem "$f includes $inc: jobs/ knows nothing of the driver" ;;
			esac
			continue ;;
		esac
		case $inc in jobs/*) continue ;; esac
		to=${inc#driver/}
		to=${to%%/*}
		[ "$to" = "$folder" ] && continue
		case $inc in */lock_bpf.skel.h) continue ;; esac
		[ "$(rank_of "$to")" -lt "$(rank_of "$folder")" ] ||
			problem "$f includes $inc: $to is not below $folder"
	done
done

# 3. No include cycle between files: a header's includes, followed
# depth-first, never lead back to it.
graph=$test_dir/includes
for f in $sources; do
	grep -oE '^#include "(driver|jobs)/[^"]+\.h"' "$src/$f" |
		sed "s|^#include \"||; s|\"$||; s|^|$f |"
done >"$graph"
cycle=$(awk '
	{ edge[$1] = edge[$1] " " $2; node[$1] = 1 }
	function visit(n,   i, k, to) {
		if (state[n] == 1) { found = n; return 1 }
		if (state[n] == 2) return 0
		state[n] = 1
		k = split(edge[n], to, " ")
		for (i = 1; i <= k; i++)
			if (visit(to[i])) { path = to[i] " " path; return 1 }
		state[n] = 2
		return 0
	}
	END {
		for (n in node)
			if (visit(n)) { print n " -> " path; exit }
	}' "$graph")
[ -z "$cycle" ] || problem "include cycle: $cycle"

# 4. Sizes: a .c file under driver/ holds at most 700 lines besides its
# tables (the lines of a `static const ... [] = {` initialiser), and no
# function is longer than 80 lines, from its opening brace in column 0
# to its closing one.
for f in $sources; do
	case $f in *.c) ;; *) continue ;; esac
	awk -v f="$f" -v under_driver="${f%%/*}" '
		/^(static )?const .*\[[A-Z_0-9]*\] = \{$/ { table = 1 }
		table { tables++; if ($0 ~ /^\};/) table = 0; next }
		/^\{/ { start = NR; name = prev }
		/^\}/ && start {
			if (NR - start + 1 > 80)
				printf "%s: %s is %d lines (at most 80)\n",
				    f, name, NR - start + 1
			start = 0
		}
		{ prev = $0 }
		END {
			if (under_driver == "driver" && NR - tables > 700)
				printf "%s: %d lines besides tables (at most 700)\n",
				    f, NR - tables
		}' "$src/$f"
done >"$test_dir/sizes"
[ ! -s "$test_dir/sizes" ] || problem "$(cat "$test_dir/sizes")"

# 5. The users' program links nothing of the output stage: a symbol
# that an object of driver/output/ defines is not in aimsweep-users.
builddir=$(dirname "$AIMSWEEP")
users_bin=$builddir/aimsweep-users
command -v nm >/dev/null || fail "nm (binutils) is needed"
[ -x "$users_bin" ] || fail "no $users_bin"
objs=$(ls "$builddir"/driver/output/*.o 2>/dev/null)
[ -n "$objs" ] || fail "no objects of driver/output/ in $builddir"
nm --defined-only $objs 2>/dev/null | awk '$2 ~ /^[TDBR]$/ { print $3 }' |
	sort -u >"$test_dir/output_syms"
[ -s "$test_dir/output_syms" ] || fail "no symbols found in $objs"
nm --defined-only "$users_bin" | awk '{ print $3 }' | sort -u \
	>"$test_dir/users_syms"
linked=$(comm -12 "$test_dir/output_syms" "$test_dir/users_syms" | head -n 5)
[ -z "$linked" ] ||
	problem "aimsweep-users links the output stage: $(echo $linked)"

# 6. Every capture is run: a capture_ops row that driver/capture/NAME.c
# defines as NAME_capture is listed in capture_list.h, unless another
# capture runs it as its steps (perf_lock for lock_profile). A row left
# out builds without a warning and its option does nothing.
for f in $(cd "$src" && ls driver/capture/*.c); do
	for row in $(sed -n 's/^const struct capture_ops \([a-z_0-9]*\)_capture = {.*/\1/p' \
		"$src/$f"); do
		grep -qx "CAPTURE($row)" "$src/driver/capture/capture_list.h" && continue
		grep -lw "${row}_capture" "$src"/driver/capture/*.c |
			grep -qv "^$src/$f\$" && continue
		problem "$f defines ${row}_capture, which capture_list.h does not list and no capture runs"
	done
done

# 7. Every job is in the table: a job row (a `const struct job job_ID`,
# written out or made by a macro) that an object of jobs/ defines is
# listed as JOB(ID) in job_list.h. A row left out builds without a
# warning, and the job is then unknown.
objs=$(ls "$builddir"/jobs/*.o 2>/dev/null)
[ -n "$objs" ] || fail "no objects of jobs/ in $builddir"
nm --defined-only $objs | awk '$2 ~ /^[RD]$/ && $3 ~ /^job_/ &&
	$3 != "job_table" && $3 != "job_table_len" { print $3 }' |
	sort -u >"$test_dir/job_rows"
[ -s "$test_dir/job_rows" ] || fail "no job rows found in $objs"
sed -n 's/^JOB(\([a-z_0-9]*\))$/job_\1/p' "$src/jobs/job_list.h" | sort -u \
	>"$test_dir/job_list"
unlisted=$(comm -23 "$test_dir/job_rows" "$test_dir/job_list")
[ -z "$unlisted" ] ||
	problem "job rows not listed in jobs/job_list.h: $(echo $unlisted)"

[ -z "$problems" ] || fail "the tree does not keep its architecture:$problems"
echo "ok: $(echo "$sources" | wc -l) files named, layered, within size"
