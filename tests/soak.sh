# tests/soak.sh: three fserver ramps in a row; descriptors, driver memory and SysV IPC must not grow.
. "$(dirname "$0")/lib.sh"

levels=${SOAK_LEVELS:--s 100 -e 1000 -i 100}
runtime=${SOAK_RUNTIME:-10}
ipc_count() {
	ipcs -m -s -q | grep -c '^0x'
}

ipc_before=$(ipc_count)
for run in 1 2 3; do
	env AIMSWEEP_TEST_TAG="$tag" "$AIMSWEEP" run --no-plot $levels \
		-t "$runtime" -w 2 -d "$scratch" -o "$out" fserver \
		>"$test_dir/stdout.$run" 2>"$test_dir/stderr.$run" &
	driver=$!
	fds_max=0
	# The driver's descriptors, every second.
	while kill -0 "$driver" 2>/dev/null; do
		fds=$(ls /proc/$driver/fd 2>/dev/null | wc -l)
		[ "${fds:-0}" -gt "$fds_max" ] && fds_max=$fds
		sleep 1
	done
	wait "$driver" || fail "run $run exited $?: $(tail -3 "$test_dir/stderr.$run")"
	# The driver's own peak (getrusage at each window's end): sampled
	# once a second from outside, the peak at the end of the last level
	# was caught in some runs and missed in others.
	rss_max=$(jq '[.levels[].driver.max_rss_kb] | max' "$(latest_result)")
	echo "run $run: driver fds max $fds_max, RSS max ${rss_max} KiB, SysV IPC objects $(ipc_count)"
	eval fds_$run=$fds_max rss_$run=$rss_max
	[ "$(ipc_count)" = "$ipc_before" ] || fail "run $run left SysV IPC objects"
	check_no_processes
	check_scratch_empty
done
[ "$fds_3" -le "$fds_1" ] || fail "driver descriptors grew: $fds_1 -> $fds_3"
# RSS may wobble by a few pages; growth would show as a steady climb.
[ "$rss_3" -le $((rss_1 + rss_1 / 10 + 256)) ] ||
	fail "driver memory grew: $rss_1 -> $rss_3 KiB"
pass
