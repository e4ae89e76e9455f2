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
