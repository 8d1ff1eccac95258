# tests/user-cwd.sh: every user works in its scratch directory, wherever the driver was started.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault-lib.sh"


# check_clean JSON WHAT: every job of the level ran an op, none failed,
# none was skipped.
check_clean() {
	jq_check "$1" '.levels[0].status == "ok"' "$2: the level is ok"
	jq_check "$1" '[.levels[0].jobs[] | .errors == 0 and (.skipped | not)] | all' \
		"$2: no job failed or was skipped ($(jq -c '[.levels[0].jobs[] | select(.errors > 0 or .skipped) | {name, errors, last_errno, skip_reason}]' "$1"))"
}

# watch_cwds OUT: while the run whose tag is ours goes on, appends the
# working directory of each of its tasks (threads too) to OUT.
watch_cwds() {
	local i pid
	for i in $(seq 1 60); do
		for pid in $(tagged_pids); do
			readlink /proc/"$pid"/task/*/cwd 2>/dev/null
		done >>"$1"
		sleep 0.1
	done
}

# --- As uid 65534, started where it may not go -------------------------
# A private home (mode 0700, root's) that the run starts in: uid 65534
# cannot enter it, so a job that went back to the driver's working
# directory fails with EACCES.
nobody_setup
# disk_src changes into its tree and back; creat_clo writes in the
# user's directory; misc_rtns_1 calls getcwd(); shell_rtns_1's shell
# starts in the user's working directory. (In $fault_tmp: uid 65534 may
# not reach $test_dir, which can be under the same kind of private home.)
wf=$fault_tmp/wf
printf '1 disk_src\n1 creat_clo\n1 misc_rtns_1\n1 shell_rtns_1\n' >"$wf"
chmod 644 "$wf"
private=$fault_tmp/private
mkdir -m 700 "$private"
for mode in process thread; do
	for layout in per-user shared; do
		rm -rf "${nout:?}"/* "$test_dir/cwds"
		watch_cwds "$test_dir/cwds" &
		watcher=$!
		fault_pids="$fault_pids $watcher"
		(cd "$private" && as_nobody "$naimsweep" run --no-plot \
			--levels 2 -t 2 -w 0.5 --mode "$mode" --layout "$layout" \
			-d "$nscratch" -o "$nout" "$wf") \
			>"$test_dir/stdout" 2>"$test_dir/stderr" ||
			fail "$mode mode, $layout layout, as uid 65534 from a 0700 directory: $(cat "$test_dir/stderr")"
		kill "$watcher" 2>/dev/null
		wait "$watcher" 2>/dev/null
		check_clean "$(ls "$nout"/*/result.json)" "$mode mode, $layout layout"
		# Each user's working directory was its own, in the run's
		# scratch: u0 and u1, or the shared one.
		if [ "$layout" = per-user ]; then
			want="u0 u1"
		else
			want=shared
		fi
		for d in $want; do
			grep -q "^$nscratch/aimsweep\.[^/]*/$d\$" "$test_dir/cwds" ||
				fail "$mode mode, $layout layout: no task worked in its scratch directory $d; seen: $(sort -u "$test_dir/cwds" | tr '\n' ' ')"
		done
		[ -z "$(ls -A "$nscratch")" ] ||
			fail "$mode mode, $layout layout left scratch files"
	done
done

# --- A relative scratch directory --------------------------------------
# The users change into their directories: a -d relative to where the
# driver started must still name the same place.
mkdir "$test_dir/rel"
for mode in process thread; do
	(cd "$test_dir" && expect_status 0 run_aimsweep run --levels 1,2 -t 1 \
		-w 0.2 --mode "$mode" -d rel -o "$out" "$wf") ||
		fail "$mode mode with -d rel: $(cat "$test_dir/stderr")"
	check_clean "$(latest_result)" "$mode mode with a relative -d"
	[ -z "$(ls -A "$test_dir/rel")" ] ||
		fail "$mode mode with -d rel left $(ls -A "$test_dir/rel")"
done

check_no_processes
check_scratch_empty
pass
