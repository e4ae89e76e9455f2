#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/coverage.sh [--tree PATH] [BUILD_DIR]: line and branch coverage
# of the whole test suite (unit suites, the CLI tests, the mount tests
# where FUSE is there, and every fuzz corpus and regression input
# replayed through fuzz_replay_<target>), as a gcovr report.
#
#   --tree PATH  kernel-source mode: measure the tree's own
#                fs/iomap/direct-io.c and iter.c (-DIOMAPSIM_KERNEL_TREE)
#   BUILD_DIR    gcc build with -DIOMAPSIM_COVERAGE=ON (default build-cov,
#                or build-cov-<the tree folder's name> with --tree)
#
# Embedded copy: prints the figures for iomap/direct-io.c, iomap/iter.c,
# iomap/direct-io-next.c (the ->iomap_next proposal), block/ and sim/,
# and checks that every line of those three iomap files that no run
# executed is listed, with its reason, in docs/coverage-unreachable.txt;
# exits 1 when one is not, or when a listed line ran.  Then it reports
# those files function by function.
#
# --tree: reports the tree's direct-io.c and iter.c function by function
# (calls and line coverage of each, the functions never entered); tree
# line numbers differ per tree, so the check is by function: exits 1 when
# a function no run entered is not in the function section of
# docs/coverage-unreachable.txt, or a function listed there was entered.
#
# Both write BUILD_DIR/coverage/index.html (every file, line by line),
# coverage.txt (gcovr's summary) and coverage.json, through
# scripts/coverage-report.py.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
usage() {
	echo "usage: $0 [--tree PATH] [BUILD_DIR]" >&2
	exit 2
}
tree=
while [ $# -gt 0 ]; do
	case $1 in
	--tree)
		[ $# -ge 2 ] || usage
		tree=$2
		shift 2
		;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -le 1 ] || usage
if [ -n "$tree" ]; then
	[ -f "$tree/fs/iomap/direct-io.c" ] || {
		echo "coverage: $tree has no fs/iomap/direct-io.c" >&2
		exit 2
	}
	tree=$(cd "$tree" && pwd)
	dir=${1:-$top/build-cov-$(basename "$tree")}
else
	dir=${1:-$top/build-cov}
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
out=$dir/coverage

command -v gcovr >/dev/null || {
	echo "coverage: needs gcovr (apt-get install gcovr)" >&2
	exit 1
}
# an empty IOMAPSIM_KERNEL_TREE: the embedded copy, whatever the cache says
CC=${CC:-gcc} cmake -S "$top" -B "$dir" -DIOMAPSIM_WERROR=ON \
	-DIOMAPSIM_COVERAGE=ON -DIOMAPSIM_KERNEL_TREE="$tree" >/dev/null
cmake --build "$dir" -j2 >/dev/null
# counts from this run only
find "$dir" -name '*.gcda' -delete
# a failed test still leaves its counts: report them, then fail.
# ksrc_planted builds and measures a modified copy of a tree elsewhere.
rc=0
ctest --test-dir "$dir" -j2 --output-on-failure -E '^ksrc_planted$' \
	>"$dir/coverage-ctest.log" || rc=$?
tail -n 3 "$dir/coverage-ctest.log"

# a path as a gcovr filter (a regular expression)
re() {
	printf '%s/' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'
}
mkdir -p "$out"
# gcovr drops functions whose name begins with "__" unless asked, and
# __iomap_dio_rw(), __iomap_dio_bio_end_io() are iomap's own
filter=(--root "$top" --object-directory "$dir" --include-internal-functions
	--filter "$(re "$top/iomap")" --filter "$(re "$top/block")"
	--filter "$(re "$top/sim")")
# gcov names the tree's files after the copies the build compiles
# (cmake/kernel-tree.cmake), or after the tree's own: take both
[ -z "$tree" ] ||
	filter+=(--filter "$(re "$dir/ksrc/fs/iomap")"
		--filter "$(re "$tree/fs/iomap")")
# search this build only (gcovr's default, --root, holds every build)
gcovr "${filter[@]}" --json "$out/coverage.json" "$dir" >/dev/null
gcovr "${filter[@]}" --txt "$out/coverage.txt" \
	--html-details "$out/index.html" --print-summary "$dir" | tail -n 3
list=$top/docs/coverage-unreachable.txt
if [ -n "$tree" ]; then
	python3 "$top/scripts/coverage-report.py" --functions --tree "$tree" \
		--build "$dir" "$out/coverage.json" "$list" || rc=1
else
	python3 "$top/scripts/coverage-report.py" "$out/coverage.json" \
		"$list" || rc=1
	python3 "$top/scripts/coverage-report.py" --functions \
		"$out/coverage.json" "$list" || rc=1
fi
echo "coverage: report in $out/index.html"
exit $rc
