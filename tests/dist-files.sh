# tests/dist-files.sh: the release tarball holds every file the README, the man page and docs/ name, and every doc, result note and workfile of the tree.
. "$(dirname "$0")/lib.sh"

# make distdir is the tarball's tree without the tar: a second or two.
# The make that runs this test has its own job server; this make must not
# take part in it.
builddir=$(dirname "$AIMSWEEP")
dist=$test_dir/dist
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$builddir" distdir \
	distdir="$dist" >"$test_dir/distdir.log" 2>&1 ||
	fail "make distdir failed: $(tail -n 20 "$test_dir/distdir.log")"
[ -f "$dist/README.md" ] && [ -f "$dist/configure" ] ||
	fail "make distdir made no tree at $dist: $(ls -A "$dist" 2>&1)"
src=$AIMSWEEP_SRCDIR
missing=

# Every relative link of a Markdown file that ships resolves in the
# tarball.
for md in $(cd "$dist" && find . -name '*.md' | sort); do
	for link in $(grep -oE '\]\([^)#]+' "$dist/$md" | sed 's/^](//' |
	    grep -vE '^[a-z]+:'); do
		[ -e "$dist/$(dirname "$md")/$link" ] ||
			missing="$missing
${md#./} links to $link"
	done
done

# Every path of the tree that the README, the man page or a doc names
# (docs/profiles.md, results/SCHEMA.md, driver/run/sweep.c, ...) ships. Words
# of the same shape that name no file of the tree (jobs/min) are not
# paths; programs (tests/test_guard) are built, not shipped, even where
# a build in the source tree put them beside the sources.
for f in README.md aimsweep.1 $(cd "$src" && find docs results -name '*.md'); do
	[ -f "$src/$f" ] || continue
	# (troff spells a hyphen \- and may put \& in a word.)
	for path in $(sed 's/\\-/-/g; s/\\&//g' "$src/$f" |
	    grep -oE '(\.ci|docs|driver|jobs|results|tests|workfiles)/[A-Za-z0-9._/-]*[A-Za-z0-9_]' |
	    sort -u); do
		[ -e "$src/$path" ] && [ ! -e "$dist/$path" ] &&
		    ! head -c 4 "$src/$path" 2>/dev/null | grep -q ELF &&
			missing="$missing
$f names $path"
	done
done

# Everything under docs/, the notes in results/ and the workfiles ship:
# a doc is read from the tarball, a workfile is installed from it. (The
# runs that land in results/ by default are directories; they do not.)
for path in $(cd "$src" && find docs workfiles -type f &&
    find results -maxdepth 1 -type f); do
	[ -e "$dist/$path" ] || missing="$missing
$path is in the tree"
done

[ -z "$missing" ] ||
	fail "not in the tarball (make distdir):$missing
(add them to EXTRA_DIST in Makefile.am)"
pass
