# tests/sweep-syscall-mix.sh: a 2-level sweep of syscall-mix, checked field by field.
. "$(dirname "$0")/lib.sh"

# The field-by-field check that the sweep tests share.
. "$(dirname "$0")/check-result.sh"

start=$(date +%s%N)
expect_status 0 run_aimsweep_plot run --levels 1,2 -t 1 -w 0.5 \
	-d "$scratch" -o "$out" --seed 42 syscall-mix
wall_ms=$((($(date +%s%N) - start) / 1000000))
json=$(latest_result)
[ -f "$json" ] || fail "no result.json in $out"
check_ok_result "$json" syscall-mix "1,2" per-user \
	"creat unlink close brk kill" "$wall_ms"

# The table: a header naming the workfile and one row per level.
grep -q 'workfile syscall-mix' "$test_dir/stdout" || fail "no header"
rows=$(grep -cE '^ +[0-9]+ +[0-9.]+ ' "$test_dir/stdout")
[ "$rows" = 2 ] || fail "$rows table rows, want 2"

# The scratch directory's filesystem is recorded as the mount table names
# it; for ext2/3/4 also whether the ext4 driver runs a journal on it (its
# options then show a data= mode), and a run that creates files on one
# without a journal is warned that it slows down from run to run.
if ! command -v findmnt >/dev/null 2>&1; then
	not_checked "findmnt is not installed: the scratch filesystem's type and journal"
else
	fstype=$(findmnt -n -o FSTYPE -T "$scratch" | head -1)
	jq_check "$json" "[.params.scratch_fs[].type] == [\"$fstype\"]" "scratch_fs type $fstype"
	majmin=$(findmnt -n -o MAJ:MIN -T "$scratch" | head -1 | tr -d ' ')
	dev=$(basename "$(readlink "/sys/dev/block/$majmin" 2>/dev/null)" 2>/dev/null)
	options=/proc/fs/ext4/$dev/options
	case $fstype in
	ext2 | ext3 | ext4)
		if [ -z "$dev" ] || [ ! -r "$options" ]; then
			jq_check "$json" '.params.scratch_fs[0] | has("journal") | not' "no journal key where it cannot be told"
		elif grep -q '^data=' "$options"; then
			jq_check "$json" '.params.scratch_fs[0].journal == true' "journal on $dev"
			! grep -q 'without a journal' "$test_dir/stderr" ||
				fail "warned of no journal on $dev, which has one"
		else
			jq_check "$json" '.params.scratch_fs[0].journal == false' "no journal on $dev"
			grep -qF "$scratch is on $fstype without a journal" "$test_dir/stderr" ||
				fail "no warning that $dev has no journal"
		fi
		;;
	*)
		jq_check "$json" '.params.scratch_fs[0] | has("journal") | not' "no journal key on $fstype"
		;;
	esac
fi

# The run draws its plot beside result.json where gnuplot is installed.
dir=$(dirname "$json")
if command -v gnuplot >/dev/null 2>&1; then
	[ -s "$dir/plot.svg" ] && grep -q '<svg' "$dir/plot.svg" ||
		fail "no plot.svg beside result.json"
	[ "$(head -c 4 "$dir/plot.png" | od -An -c | tr -d ' ')" = '211PNG' ] ||
		fail "no plot.png beside result.json"
else
	grep -q 'gnuplot is not installed' "$test_dir/stderr" ||
		fail "no word that gnuplot is missing"
	not_checked "gnuplot is not installed: the plot beside result.json"
fi

check_no_processes
check_scratch_empty
pass
