# tests/signal-optlevels.sh: signal_test and jmp_test stay correct at -O0, -O2 and -O3.
. "$(dirname "$0")/lib.sh"

: "${AIMSWEEP_SRCDIR:?run through make check, which sets AIMSWEEP_SRCDIR}"
cc=${CC:-cc}
need timeout
command -v "${cc%% *}" >/dev/null 2>&1 || skip "no C compiler ($cc)"
src=$AIMSWEEP_SRCDIR
for opt in -O0 -O2 -O3; do
	bin=$test_dir/signal$opt
	$cc -std=gnu11 -D_GNU_SOURCE -I"$src" -Wall -Wextra -Werror \
		-Wno-missing-field-initializers $opt -pthread \
		-o "$bin" "$src/tests/signal_optlevels.c" "$src/jobs/signal.c" \
		"$src/jobs/util.c" 2>"$test_dir/cc$opt" ||
		fail "cannot build the harness with $opt: $(cat "$test_dir/cc$opt")"
	# reaim's signal_test hangs at -O2: a hang is a failure, not a wait.
	timeout 120 "$bin" >"$test_dir/out$opt" 2>&1 ||
		fail "$opt: $(cat "$test_dir/out$opt")"
done
pass
