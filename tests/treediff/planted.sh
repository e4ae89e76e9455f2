#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# planted.sh SRC BUILD_ROOT FIXTURE: a one-line change shows up in
# scripts/tree-diff.sh as exactly the group it makes.  Copies the fixture
# tree, removes the IS_ENCRYPTED check of the inline
# iomap_dio_read_simple() in the copy's iomap.h (S-07: an encrypted inode
# must use the generic path), and diffs the fixture against the copy: the
# report must be exit 1 with one group: the path generic→simple, fallback
# encrypted→null, the bio from the simple pool instead of fs_bio_set, and
# the reason mirror contradicting the observed path (why_mismatch), whose
# every request is on an encrypted inode, and which no release change
# explains (UNEXPLAINED); the --json report must agree.
set -eu
src=$1
root=$2
fixture=$3

# shellcheck source=tests/lib/fixture-copy.sh
. "$src/tests/lib/fixture-copy.sh"
fixture_copy "$fixture" "configure with -DIOMAPSIM_KSRC_FIXTURE=TREE"
fixture_plant 's/\tif \(IS_ENCRYPTED\(iomi\.inode\)\)\n\t\treturn -ENOTBLK;\n//' \
	'the IS_ENCRYPTED check'

status=0
"$src/scripts/tree-diff.sh" --count 30000 --build-root "$root" \
	--keep "$tmp/out" "$fixture" "$tmp/tree" >"$tmp/report.txt" \
	2>"$tmp/err.txt" || status=$?
cat "$tmp/report.txt"
if [ "$status" -ne 1 ]; then
	tail -20 "$tmp/err.txt"
	echo "FAIL: tree-diff.sh exited $status, want 1 (differences)"
	exit 1
fi
groups=$(grep -c ' requests*$' "$tmp/report.txt" || true)
# the path as observed: the bio from the simple pool, not the fs bio_set,
# and the reason mirror (which still says encrypted) contradicting it
want='path "generic"→"simple", fallback "encrypted"→null, bios_fs_bio_set fewer, bios_simple_pool more, why_mismatch false→true: '
if [ "$groups" -ne 1 ] || ! grep -q "^$want" "$tmp/report.txt"; then
	echo "FAIL: want exactly one group, '$want...'; got $groups"
	exit 1
fi
if ! grep -A1 "^$want" "$tmp/report.txt" | grep -q -- '--encrypted'; then
	echo "FAIL: the group's reproducer is not on an encrypted inode"
	exit 1
fi
# both sides have the same features: no release change explains a patch
# between them, so the planted group is a finding
if ! grep -q '^explained 0, unexplained 1$' "$tmp/report.txt" ||
	! grep -A4 "^$want" "$tmp/report.txt" | grep -q '^  UNEXPLAINED: '; then
	echo "FAIL: the planted group is not UNEXPLAINED"
	exit 1
fi
python3 "$src/scripts/tree-diff-report.py" --json "$tmp/out/requests.txt" \
	"$tmp/out/a.jsonl" "$tmp/out/b.jsonl" >"$tmp/report.json" || true
python3 - "$tmp/report.json" "$tmp/out/requests.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
reqs = open(sys.argv[2]).read().splitlines()
g = r["groups"]
assert r["different"] >= 1 and len(g) == 1, r
assert g[0]["changes"] == ['path "generic"\u2192"simple"',
                           'fallback "encrypted"\u2192null',
                           'bios_fs_bio_set fewer',
                           'bios_simple_pool more',
                           'why_mismatch false\u2192true'], g[0]
assert g[0]["count"] == r["different"], g[0]
assert "--encrypted" in reqs[g[0]["line"] - 1], g[0]
print("planted: json report agrees: %d request(s), one group" % g[0]["count"])
PY
