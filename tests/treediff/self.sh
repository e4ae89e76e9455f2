#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# self.sh SRC BUILD_ROOT: scripts/tree-diff.sh of the embedded copy with
# itself reports no difference and exits 0 (every request's outcome is
# deterministic, and the report groups nothing).
set -eu
src=$1
root=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/iomapsim-treediff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

status=0
"$src/scripts/tree-diff.sh" --count 5000 --build-root "$root" \
	embedded embedded >"$tmp/report.txt" 2>"$tmp/err.txt" || status=$?
cat "$tmp/report.txt"
if [ "$status" -ne 0 ]; then
	tail -20 "$tmp/err.txt"
	echo "FAIL: tree-diff.sh embedded embedded exited $status, want 0"
	exit 1
fi
grep -q '^  different  *0$' "$tmp/report.txt" ||
	{ echo "FAIL: differences reported"; exit 1; }
grep -q '^no difference$' "$tmp/report.txt" ||
	{ echo "FAIL: no 'no difference' line"; exit 1; }
n=$(sed -n 's/^requests compared  *\([0-9,]*\)$/\1/p' "$tmp/report.txt" | tr -d ,)
[ "${n:-0}" -ge 5000 ] ||
	{ echo "FAIL: only ${n:-0} requests compared, want at least 5000"; exit 1; }
echo "self diff: $n requests, no difference"
