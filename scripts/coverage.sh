#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/coverage.sh [BUILD_DIR]: line and branch coverage of the whole
# test suite (unit suites, the CLI tests, the mount tests where FUSE is
# there, and every fuzz corpus and regression input replayed through
# fuzz_replay_<target>), as a gcovr report.
#
#   BUILD_DIR   gcc build with -DIOMAPSIM_COVERAGE=ON (default build-cov)
#
# Prints the figures for iomap/direct-io.c, iomap/iter.c,
# iomap/direct-io-next.c (the ->iomap_next proposal), block/ and sim/,
# writes BUILD_DIR/coverage/index.html (every file, line by line) and
# coverage.txt (gcovr's summary), and checks that every line of those
# three iomap files that no run executed is listed, with its reason, in
# docs/coverage-unreachable.txt (scripts/coverage-report.py); exits 1
# when one is not, or when a listed line ran.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build-cov}
out=$dir/coverage

command -v gcovr >/dev/null || {
	echo "coverage: needs gcovr (apt-get install gcovr)" >&2
	exit 1
}
CC=${CC:-gcc} cmake -S "$top" -B "$dir" -DIOMAPSIM_WERROR=ON \
	-DIOMAPSIM_COVERAGE=ON >/dev/null
cmake --build "$dir" -j2 >/dev/null
# counts from this run only
find "$dir" -name '*.gcda' -delete
# a failed test still leaves its counts: report them, then fail
rc=0
ctest --test-dir "$dir" -j2 --output-on-failure >"$dir/coverage-ctest.log" ||
	rc=$?
tail -n 3 "$dir/coverage-ctest.log"

mkdir -p "$out"
filter=(--root "$top" --object-directory "$dir"
	--filter "$top/iomap/" --filter "$top/block/" --filter "$top/sim/")
gcovr "${filter[@]}" --json "$out/coverage.json" >/dev/null
gcovr "${filter[@]}" --txt "$out/coverage.txt" \
	--html-details "$out/index.html" --print-summary | tail -n 3
python3 "$top/scripts/coverage-report.py" "$out/coverage.json" \
	"$top/docs/coverage-unreachable.txt" || rc=1
echo "coverage: report in $out/index.html"
exit $rc
