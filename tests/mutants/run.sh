#!/bin/sh
# tests/mutants/run.sh: applies each mutation of tests/mutants/ to a copy of the tree, builds it, and fails unless the tests the mutation names catch it.
#
# Usage: run.sh SRCDIR [MUTANT.patch ...]   (make check-mutants runs it)
#
# A mutant is a patch (`git diff` output) that breaks one behaviour on
# purpose, after a header of two lines:
#   Mutant: what the patch breaks, in a phrase
#   Caught-by: the tests (make check TESTS names) of which one must fail
# The tree is copied and built once; each mutant is then applied to the
# copy, rebuilt incrementally, its tests run, and taken out again. A mutant
# survives when every named test passes; one that no longer applies or
# no longer builds is reported as stale, since it checks nothing. Either
# fails the run.
set -u

srcdir=$(cd "${1:?usage: run.sh SRCDIR [MUTANT.patch ...]}" && pwd)
shift
[ $# -gt 0 ] || set -- "$srcdir"/tests/mutants/*.patch
[ -f "$1" ] || { echo "no mutants in $srcdir/tests/mutants" >&2; exit 1; }
jobs=${MUTANT_JOBS:-2}

work=$(mktemp -d "${TMPDIR:-/tmp}/aimsweep-mutants.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# One copy of the files git knows of, as they are in the work tree
# (uncommitted changes included), built once. Each mutant is applied to
# it, built, tested and taken out again: the build records absolute
# paths, so the copy stays where it was configured. ../shared sits
# beside it as beside the tree, for the tests that read it.
tree=$work/main
echo "building the tree once in $tree"
mkdir "$tree"
[ -d "$srcdir/../shared" ] && ln -s "$srcdir/../shared" "$work/shared"
(cd "$srcdir" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 tar cf - 2>/dev/null) | tar xf - -C "$tree" || exit 1
(cd "$tree" && autoreconf -fi && ./configure -q &&
	make -j"$jobs") >"$work/base.log" 2>&1 || {
	tail -n 30 "$work/base.log" >&2
	echo "the unmutated tree does not build" >&2
	exit 1
}

header() {
	sed -n "s/^$2: *//p" "$1" | head -n 1
}

# A mutant counts as caught only by a test that passes without it: the
# named tests run once on the unmutated tree first.
all_tests=$(for p in "$@"; do header "$p" Caught-by; done | tr ' ' '\n' |
	sort -u | tr '\n' ' ')
echo "running the mutants' tests on the unmutated tree: $all_tests"
make -C "$tree" check TESTS="$all_tests" >"$work/pristine.log" 2>&1 || {
	grep -E '^(FAIL|ERROR)' "$work/pristine.log" >&2
	echo "a test fails without any mutant: fix it first" >&2
	exit 1
}

caught=0
survived=0
stale=0
for patch in "$@"; do
	patch=$(cd "$(dirname "$patch")" && pwd)/$(basename "$patch")
	name=$(basename "$patch" .patch)
	what=$(header "$patch" Mutant)
	tests=$(header "$patch" Caught-by)
	if [ -z "$what" ] || [ -z "$tests" ]; then
		echo "STALE    $name: no Mutant: or Caught-by: line"
		stale=$((stale + 1))
		continue
	fi
	if ! (cd "$tree" && git apply "$patch") >"$work/$name.log" 2>&1
	then
		echo "STALE    $name: the patch no longer applies ($what)"
		sed 's/^/         /' "$work/$name.log"
		stale=$((stale + 1))
		continue
	fi
	if ! make -C "$tree" -j"$jobs" >>"$work/$name.log" 2>&1; then
		echo "STALE    $name: the mutated tree does not build ($what)"
		tail -n 10 "$work/$name.log" | sed 's/^/         /'
		stale=$((stale + 1))
		(cd "$tree" && git apply -R "$patch")
		continue
	fi
	by=
	for t in $tests; do
		if ! make -C "$tree" check TESTS="$t" >>"$work/$name.log" 2>&1
		then
			by="$by $t"
		fi
	done
	(cd "$tree" && git apply -R "$patch") >>"$work/$name.log" 2>&1 || {
		echo "cannot take $name out of the tree again" >&2
		exit 1
	}
	if [ -n "$by" ]; then
		echo "caught   $name by$by ($what)"
		caught=$((caught + 1))
	else
		echo "SURVIVED $name: $tests all passed ($what)"
		survived=$((survived + 1))
	fi
done

echo "mutants: $caught caught, $survived survived, $stale stale"
[ "$survived" = 0 ] && [ "$stale" = 0 ]
