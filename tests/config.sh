# tests/config.sh: `run -c reaim.config` applies every key aimsweep reads, and the command line and the workfile win over it.
. "$(dirname "$0")/lib.sh"

mkdir -p "$scratch/a" "$scratch/b" "$scratch/c" || fail "cannot make scratch dirs"
# Every key aimsweep reads, and the ones it accepts and ignores, in
# reaim's spellings (sizes in k and m, as reaim.config has them).
cat >"$test_dir/reaim.config" <<CONF
# a reaim.config
FILESIZE 20k
POOLSIZE 2m
DISKDIR $scratch/a
DISKDIR $scratch/b
STARTUSERS 1
ENDUSERS 3
INCREMENT 2
JOBS 20
VERBOSE 1
CROSSOVER 1
BRIEF 1
CONF
printf '1 disk_wrt\n' >"$test_dir/wf"
# A hook that writes down, at each level, the working directory of every
# process of this run: a user works in its own scratch directory, so
# this says which DISKDIR each user was given.
cat >"$test_dir/cwds.sh" <<HOOK
for env in \$(grep -lsxz "AIMSWEEP_TEST_TAG=$tag" /proc/[0-9]*/environ); do
	readlink "\${env%/environ}/cwd"
done >"\$AIMSWEEP_LEVEL_DIR/cwds" 2>/dev/null
exit 0
HOOK

expect_status 0 run_aimsweep run -c "$test_dir/reaim.config" -t 0.3 -w 0.1 \
	--hook "sh $test_dir/cwds.sh" -o "$out" "$test_dir/wf"
json=$(latest_result)
check_documented "$json"
jq_check "$json" ".params.config == \"$test_dir/reaim.config\"" "params.config"
jq_check "$json" '.params.levels == [1, 3]' "STARTUSERS, ENDUSERS, INCREMENT"
jq_check "$json" ".params.scratch_dirs == [\"$scratch/a\", \"$scratch/b\"]" \
	"both DISKDIRs, in order"
jq_check "$json" '.mix.file_size_bytes == 20480 and .mix.pool_size_bytes == 2097152' \
	"FILESIZE and POOLSIZE"
# The users' file is FILESIZE + POOLSIZE / users, in 1 KiB blocks.
jq_check "$json" '[.levels[] | .jobs[0].inner_ops] == [20 + 2048, 20 + 682]' \
	"the disk job's file follows FILESIZE + POOLSIZE / users"
jq_check "$json" '[.levels[].status] == ["ok", "ok"]' "levels ok"
for d in a b; do
	[ -z "$(ls -A "$scratch/$d")" ] || fail "$scratch/$d not left empty"
done
# Users take the DISKDIRs in turn: at 3 users, users 0 and 2 work in
# the first, user 1 in the second.
cwds=$(dirname "$json")/level-3/cwds
[ -f "$cwds" ] || fail "the hook wrote no $cwds"
for d in a:2 b:1; do
	dir=$(cd "$scratch/${d%:*}" && pwd -P)
	n=$(grep -c "^$dir/" "$cwds")
	[ "$n" = "${d#*:}" ] ||
		fail "$n users worked in DISKDIR $dir at 3 users, want ${d#*:}: $(cat "$cwds")"
done

# The command line wins over the file: levels and scratch directories.
expect_status 0 run_aimsweep run -c "$test_dir/reaim.config" -s 2 -e 2 \
	-d "$scratch/c" -t 0.3 -w 0.1 -o "$out" "$test_dir/wf"
json=$(latest_result)
jq_check "$json" '.params.levels == [2]' "-s and -e over STARTUSERS and ENDUSERS"
jq_check "$json" ".params.scratch_dirs == [\"$scratch/c\"]" "-d over DISKDIR"

# And the workfile's FILESIZE over the file's, as in reaim; --levels
# over the file's ramp.
printf 'FILESIZE 5k\n1 disk_wrt\n' >"$test_dir/wf-size"
expect_status 0 run_aimsweep run -c "$test_dir/reaim.config" --levels 2 \
	-t 0.3 -w 0.1 -o "$out" "$test_dir/wf-size"
json=$(latest_result)
jq_check "$json" '.params.levels == [2] and [.levels[].users] == [2]' \
	"--levels over STARTUSERS, ENDUSERS and INCREMENT"
jq_check "$json" '.mix.file_size_bytes == 5120 and .mix.pool_size_bytes == 2097152' \
	"the workfile's FILESIZE over the config's"

# A key that is neither read nor reaim's is an error at its line.
printf 'FILESIZE 10k\nNOSUCHKEY 1\n' >"$test_dir/bad.config"
expect_status 2 run_aimsweep run -c "$test_dir/bad.config" --levels 1 \
	-t 0.3 -o "$out" "$test_dir/wf"
expect_stderr "bad.config:2"
check_no_processes
pass
