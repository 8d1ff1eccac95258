# tests/fault-signals.sh: SIGINT, SIGTERM and SIGHUP during warm-up and during the grace wait end the run cleanly.
#
# interrupt.sh covers a signal in the middle of a measured window; this
# covers the two other moments a driver can be in: the warm-up after the
# start gate, and the wait for users to park after the window, when one
# of them is stuck.
. "$(dirname "$0")/lib.sh"

printf '1 getppid\n1 creat\n' >"$test_dir/wf"

# interrupt_at WHAT SIG STATUS DONE DELAY BEFORE WANT_USERS [options...]:
# starts a run, waits until DONE levels are written, then DELAY more
# seconds, sends SIG and checks the run ends within $exit_limit_ms ms
# (lib.sh) with STATUS, keeping exactly the levels WANT_USERS (a jq
# array), with nothing left behind. The moment aimed at ends no sooner
# than BEFORE ms after the DONE-th level (or the header) was written. A
# busy machine can run this shell late, past it: the driver is held
# still (SIGSTOP) while that is looked at, and a try that came too late
# is signalled all the same and made again, up to three tries.
interrupt_at() {
	local what=$1 sig=$2 want=$3 done=$4 delay=$5 before=$6 users=$7
	local driver got start try seen since_ms
	shift 7
	for try in 1 2 3; do
		rm -rf "$out"/*
		# Not through a shell function: $! must be the driver itself.
		# (Not $pid: tagged_pids sets that.) $START may name an env(1)
		# option with which the driver is started; env execs it in its
		# own pid.
		env AIMSWEEP_TEST_TAG="$tag" ${START:+env "$START"} "$AIMSWEEP" run --no-plot -d "$scratch" \
			-o "$out" "$@" "$test_dir/wf" >"$test_dir/stdout" 2>"$test_dir/stderr" &
		driver=$!
		if [ "$done" = 0 ]; then
			# No level is on disk yet: the header written before
			# the first level says the driver is past its checks.
			for i in $(seq 1 100); do
				json=$(latest_result)
				[ -n "$json" ] && [ -f "$json" ] && break
				sleep 0.05
			done
		else
			wait_for_levels "$done"
		fi
		sleep "$delay"
		kill -STOP "$driver" 2>/dev/null ||
			fail "$what $sig: the run ended before the signal"
		since_ms=$((($(date +%s%N) - $(stat -c %.9Y "$json" | tr -d .)) / 1000000))
		seen=$(jq '.levels | length' "$json")
		start=$(date +%s%N)
		kill -"$sig" "$driver"
		kill -CONT "$driver"
		wait "$driver"
		got=$?
		elapsed_ms=$((($(date +%s%N) - start) / 1000000))
		[ "$seen" = "$done" ] && [ "$since_ms" -lt "$before" ] && break
		echo "note: $what $sig: signalled $since_ms ms after level $seen was written, too late; again"
		check_no_processes
		check_scratch_empty
	done
	[ "$seen" = "$done" ] && [ "$since_ms" -lt "$before" ] ||
		fail "$what $sig: three tries all signalled the driver too late"
	[ "$got" = "$want" ] || {
		cat "$test_dir/stderr" >&2
		fail "$what $sig: exit status $got, want $want"
	}
	[ "$elapsed_ms" -lt "$exit_limit_ms" ] ||
		fail "$what $sig: took $elapsed_ms ms to exit, want under $exit_limit_ms"
	echo "$what SIG$sig: exit after $elapsed_ms ms"
	json=$(latest_result)
	jq_check "$json" '.status == "interrupted"' "$what $sig: status"
	jq_check "$json" ".interrupted_by == \"SIG$sig\"" "$what $sig: interrupted_by"
	jq_check "$json" "[.levels[].users] == $users" "$what $sig: exactly the finished levels"
	jq_check "$json" '[.levels[].status | . == "ok"] | all' "$what $sig: finished levels ok"
	grep -q "interrupted by SIG$sig: kept $(echo "$users" | jq length) finished levels" \
		"$test_dir/stderr" || {
		cat "$test_dir/stderr" >&2
		fail "$what $sig: no message"
	}
	check_no_processes
	check_scratch_empty
}

# The warm-up, in s: long enough that a driver deaf to signals in it,
# signalled half a second in, would sleep out the rest, 1.5 s past the
# exit limit lib.sh allows this build: 4 s unsanitized; 6 s sanitized,
# whose limit is longer. (The windows around it are short: what they
# hold does not matter here.)
warm=$((exit_limit_ms / 1000 + 2))
for sig_status in INT:130 TERM:143 HUP:129; do
	sig=${sig_status%:*}
	status=${sig_status#*:}
	# Half a second into the first level's warm-up: no level finished,
	# an empty list.
	interrupt_at first-warm-up "$sig" "$status" 0 0.5 $((warm * 1000)) \
		'[]' --levels 2,3 -t 0.5 -w "$warm"
	# The same in the second level's warm-up, which ends $warm s after
	# the first level is written at the soonest: the first level is
	# kept. (What is kept does not depend on the signal: once is enough.)
	[ "$sig" = INT ] && interrupt_at warm-up "$sig" "$status" 1 0.5 \
		$((warm * 1000)) '[1]' --levels 1,2,3 -t 0.5 -w "$warm"
	# User 1 ignores the stop, so after the 2-user level's window
	# (0.2 s warm-up + 0.5 s) the driver waits up to --grace for it,
	# 1 s longer than the warm-up above: the signal lands about 1 s into
	# that wait, and must cut it short (a driver that waited it out
	# would take 1.5 s past the exit limit, as above). The wait ends
	# 0.7 s + the grace after the first level is written at the soonest.
	AIMSWEEP_TEST_FAULT=hang:1 interrupt_at grace-wait "$sig" "$status" \
		1 1.7 $((700 + (warm + 1) * 1000)) '[1]' \
		--levels 1,2,3 -t 0.5 -w 0.2 --grace $((warm + 1))
done
# A parent that blocked the signal before it started the driver: the
# mask does not survive into the driver, so the signal still lands.
# (env(1) of coreutils 8.31 or later blocks it.)
if env --block-signal=INT true 2>/dev/null; then
	START=--block-signal=INT interrupt_at blocked-by-parent INT 130 0 0.5 \
		$((warm * 1000)) '[]' --levels 2,3 -t 0.5 -w "$warm"
else
	not_checked "env has no --block-signal (coreutils 8.31): SIGINT blocked by the parent"
fi
pass
