# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# Sourced by the tests that plant a change in a kernel tree
# (tests/ksrc/planted.sh, tests/treediff/planted.sh): never edit the
# fixture, edit a copy.
#
# fixture_copy FIXTURE HOW: exit 77 (CTest's skip) when FIXTURE is not a
# kernel tree, saying HOW to give one; otherwise set `tmp` to a new folder
# removed on exit, holding a writable copy of FIXTURE at $tmp/tree.
fixture_copy() {
	fixture_src=$1
	if [ ! -f "$1/include/linux/iomap.h" ]; then
		echo "SKIP: no kernel tree fixture at $1 ($2)"
		exit 77
	fi
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/iomapsim-fixture.XXXXXX")
	# shellcheck disable=SC2064 # $tmp is fixed now
	trap "rm -rf '$tmp'" EXIT
	cp -r "$1" "$tmp/tree"
	chmod -R u+w "$tmp/tree"
}

# fixture_plant PERL WHAT: plant the change in the copy's
# include/linux/iomap.h (PERL, a perl -0p substitution that drops WHAT, a
# check of the inline iomap_dio_read_simple()), and fail when it changed
# nothing: the fixture's iomap.h no longer has the lines.
fixture_plant() {
	h=$tmp/tree/include/linux/iomap.h
	perl -0pi -e "$1" "$h"
	if cmp -s "$h" "$fixture_src/include/linux/iomap.h"; then
		echo "FAIL: the planted change did not apply (the fixture's iomap.h changed?)"
		exit 1
	fi
	echo "planted: removed $2 of iomap_dio_read_simple() in a copy of $fixture_src"
}
