# tests/result-keys.sh: result.json has exactly the keys of tests/result-keys.txt, so a change that drops or renames one fails here.
. "$(dirname "$0")/lib.sh"

expected=$AIMSWEEP_SRCDIR/tests/result-keys.txt
[ -f "$expected" ] || fail "no $expected"

# The key paths of a result.json, one a line, array indices as [].
key_paths() {
	jq -r '[paths | map(if type == "number" then "[]" else . end) |
		join(".")] | unique[]' "$1" || fail "cannot read the keys of $1"
}

# check_keys JSON RUN [SKIP]: every key of JSON is listed for RUN (as "RUN
# key" or "RUN? key", a key that a run may or may not have, such as the
# knee, or a level's lock entries when perf saw no contention), and every
# key listed as "RUN key" is in JSON, bar those matching the regex SKIP.
check_keys() {
	local got=$test_dir/$2.keys want=$test_dir/$2.want
	local may=$test_dir/$2.may extra missing
	key_paths "$1" >"$got"
	awk -v r="$2" -v skip="${3:-^$}" '$1 == r && $2 !~ skip { print $2 }' \
		"$expected" | sort -u >"$want"
	awk -v r="$2?" '$1 == r { print $2 }' "$expected" |
		sort -u - "$want" | sort -u >"$may"
	[ -s "$want" ] || fail "no keys listed for run $2 in $expected"
	extra=$(comm -23 "$got" "$may")
	missing=$(comm -13 "$got" "$want")
	[ -z "$extra" ] || fail "run $2: keys not in $expected:" $extra
	[ -z "$missing" ] || fail "run $2: keys missing from $1:" $missing
}

printf '10 creat\n10 add_int\n' >"$test_dir/mix"

# Run a: processes, interleaved repeats, interval samples, a knee.
expect_status 0 run_aimsweep run --levels 1,2 -t 1 -w 0.3 -r 2 \
	--interval 0.5 --knee 1 -d "$scratch" -o "$out/a" "$test_dir/mix"
check_keys "$(ls -d "$out"/a/*/result.json)" a

# Run b: threads, a config, pinning, a hook, the crossover and, as root
# with perf, the lock and CPU profiles.
printf 'FILESIZE 20k\nPOOLSIZE 1m\nSTARTUSERS 1\nENDUSERS 2\nINCREMENT 1\n' \
	>"$test_dir/reaim.config"
profiles=
if [ "$(id -u)" = 0 ] && command -v perf >/dev/null 2>&1; then
	profiles="--lock-profile --lock-profile-seconds 0.5 --cpu-profile --cpu-profile-seconds 0.5"
else
	echo "note: the profiles' keys (run b, needs root and perf) not checked"
fi
# shellcheck disable=SC2086 # $profiles is options or none.
expect_status 0 run_aimsweep run -c "$test_dir/reaim.config" -t 1 -w 0.3 \
	--mode thread --cpus 0 --hook true --seed 7 --stop-at-crossover 1e17 \
	$profiles -d "$scratch" -o "$out/b" "$test_dir/mix"
json=$(ls -d "$out"/b/*/result.json)
if [ -n "$profiles" ]; then
	check_keys "$json" b
else
	check_keys "$json" b 'lock|cpu_profile'
	key_paths "$json" | grep -qE 'lock|cpu_profile' &&
		fail "profile keys without --lock-profile or --cpu-profile"
fi
check_no_processes
check_scratch_empty
pass
