#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tests/ksrc/ktap.sh [TOOLS_DIR]
#
# scripts/verdicts-ktap.py writes KTAP that the kernel's own parser reads
# with the counts the verdicts give: a verdicts file with every verdict
# kind (and a loop test, a STALE entry naming several tests under tcase
# "*", a failure message starting with "SKIP" and holding a "#", two
# suites' lines interleaved as parallel test programs write them, a suite
# all N/A) is converted, and `tools/testing/kunit/kunit.py parse` (Debian
# linux-source-6.12's, scripts/get-kernel-tools.sh) must report exactly
# the passed/failed/skipped counts and the per-test statuses the mapping
# in verdicts-ktap.py gives (CHANGED and KNOWN BUG "ok # XFAIL", N/A
# "# SKIP", STALE and FAIL "not ok"), and exit 1 for it, 0 for a file
# without failures.  So too scripts/check-tree.sh's parts, whose SKIP (a
# part that did not run) is "# SKIP" with its reason.  Bad verdicts files
# are refused and leave OUT alone.
#
# The tools folder: $IOMAPSIM_KERNEL_TOOLS if set (one cache for several
# build folders), else TOOLS_DIR, else build/kernel-tools; fetched there
# when it lacks them.  Skips (77) when they cannot be had.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
conv=$top/scripts/verdicts-ktap.py
tools=${IOMAPSIM_KERNEL_TOOLS:-${1:-$top/build/kernel-tools}}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ktap-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

bad() {
	echo "FAIL: $*"
	fail=1
}

if ! command -v python3 >/dev/null; then
	echo "SKIP: no python3 (verdicts-ktap.py and kunit.py need it)"
	exit 77
fi

# VERDICT suite tcase test detail, as tests/harness/harness.c's verdict()
# writes them; "\t" below stands for a tab
tabs() {
	sed 's/\\t/\t/g'
}

tabs >"$tmp/all.verdicts" <<'EOF'
PASS\tiomap_generic\treads\ttest_read_aligned\t
PASS\tblock_bio\tsubmit\ttest_submit\t
NA\tiomap_generic\treads\ttest_simple_read\tno simple path
CHANGED\tiomap_generic\twrites\ttest_sub_block_hole\tS-05: returns 0, not -EFAULT
PASS\tiomap_generic\tloop\ttest_sizes\t
KNOWN_BUG\tblock_bio\tsplit\ttest_split_tail\tB-29: iomap: don't lose the tail's error
PASS\tiomap_generic\tloop\ttest_sizes\t
FAIL\tblock_bio\tsubmit\ttest_flags\tSKIP is no directive: Assertion 'op == 1' failed # 3 (covers B-01)
PASS\tiomap_generic\tloop\ttest_sizes\t
PASS\tiomap_generic\tloop\ttest_blocks\t
CHANGED\tiomap_generic\tloop\ttest_blocks\tS-08: -ENOTBLK for a 512-byte block
PASS\tiomap_generic\tloop\ttest_blocks\t
STALE\tiomap_generic\tloop\ttest_sizes\tS-09: "short" in no iteration
STALE\tblock_bio\t*\ttest_x test_y\tB-03: expects "EAGAIN"
NA\tiomap_next\tnext\ttest_next_begin\tno iomap_next
STALE\tblock_bio\tsubmit\ttest_polled\tB-07: expects "EAGAIN"
NA\tiomap_next\tnext\ttest_next_end\tno iomap_next
EOF
# what kunit.py must make of it (suite, KTAP name, status)
cat >"$tmp/all.want" <<'EOF'
iomap_generic reads.test_read_aligned PASS
iomap_generic reads.test_simple_read SKIP
iomap_generic writes.test_sub_block_hole PASS
iomap_generic loop.test_sizes.0 PASS
iomap_generic loop.test_sizes.1 PASS
iomap_generic loop.test_sizes.2 PASS
iomap_generic loop.test_blocks.0 PASS
iomap_generic loop.test_blocks.1 PASS
iomap_generic loop.test_blocks.2 PASS
iomap_generic loop.test_sizes.3 FAIL
block_bio submit.test_submit PASS
block_bio split.test_split_tail PASS
block_bio submit.test_flags FAIL
block_bio _.test_x+test_y FAIL
block_bio submit.test_polled FAIL
iomap_next next.test_next_begin SKIP
iomap_next next.test_next_end SKIP
EOF
declare -A counts summary
counts[all]="17 verdicts in 3 suites: 7 pass, 2 CHANGED, 3 N/A, 1 KNOWN BUG, 3 STALE, 1 FAIL"
summary[all]="Testing complete. Ran 17 tests: passed: 10, failed: 4, skipped: 3"

tabs >"$tmp/clean.verdicts" <<'EOF'
PASS\tiomap_generic\treads\ttest_read_aligned\t
CHANGED\tiomap_generic\twrites\ttest_sub_block_hole\tS-05: returns 0
KNOWN_BUG\tblock_bio\tsplit\ttest_split_tail\tB-29: iomap: fix
NA\tblock_bio\tsubmit\ttest_simple_bio\tno simple path
EOF
counts[clean]="4 verdicts in 2 suites: 1 pass, 1 CHANGED, 1 N/A, 1 KNOWN BUG, 0 STALE, 0 FAIL"
summary[clean]="Testing complete. Ran 4 tests: passed: 3, skipped: 1"

# scripts/check-tree.sh's parts: SKIP, never the harness's, is "# SKIP"
# with its reason; a suite of parts all skipped is itself skipped
tabs >"$tmp/parts.verdicts" <<'EOF'
PASS\tcheck_tree\tpart\tbuild\t
FAIL\tcheck_tree\tpart\tfuzz_dio\tstopped after 0 inputs (exit 1); log /b/fuzz.log
SKIP\tcheck_tree\tpart\ttree_diff\tnot run: the tree does not build (log: /b/check.log)
SKIP\tcheck_parts\tpart\tsuite\tnot run (--fuzz 0)
PASS\tiomap_generic\treads\ttest_read_aligned\t
EOF
counts[parts]="5 verdicts in 3 suites: 2 pass, 0 CHANGED, 0 N/A, 0 KNOWN BUG, 0 STALE, 1 FAIL, 2 skipped"
summary[parts]="Testing complete. Ran 5 tests: passed: 2, failed: 1, skipped: 2"

# 1. the converter's own counts
for c in all clean parts; do
	"$conv" "$tmp/$c.verdicts" "$tmp/$c.ktap" >"$tmp/out" ||
		bad "verdicts-ktap.py $c.verdicts exited $?"
	got=$(head -n 1 "$tmp/out")
	[ "$got" = "${counts[$c]}" ] ||
		bad "verdicts-ktap.py $c.verdicts printed '$got', want '${counts[$c]}'"
	head -n 1 "$tmp/$c.ktap" | grep -qx 'KTAP version 1' ||
		bad "$c.ktap does not start with 'KTAP version 1'"
done

# 2. bad input: one line on stderr, status 1, OUT untouched
printf '%s\n' 'PASS\tiomap_generic\treads\ttest_a' | tabs >"$tmp/fields.verdicts"
printf '%s\n' 'PASSED\tiomap_generic\treads\ttest_a\t' | tabs >"$tmp/kind.verdicts"
: >"$tmp/empty.verdicts"
for c in fields kind empty missing; do
	echo "keep" >"$tmp/out.ktap"
	rc=0
	"$conv" "$tmp/$c.verdicts" "$tmp/out.ktap" >"$tmp/out" 2>"$tmp/err" ||
		rc=$?
	[ "$rc" -eq 1 ] || bad "bad input $c: exit $rc, want 1"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] ||
		bad "bad input $c: $(wc -l <"$tmp/err") lines on stderr, want 1"
	[ ! -s "$tmp/out" ] || bad "bad input $c: printed counts"
	[ "$(cat "$tmp/out.ktap")" = keep ] || bad "bad input $c: OUT changed"
	echo "bad input $c: $(cat "$tmp/err")"
done

# 3. the kernel's parser
if [ ! -f "$tools/tools/testing/kunit/kunit.py" ]; then
	if ! "$top/scripts/get-kernel-tools.sh" "$tools" >"$tmp/fetch" 2>&1; then
		echo "SKIP: the kernel's kunit.py cannot be had: $(tail -n 1 "$tmp/fetch")"
		exit 77
	fi
fi
kunit=$tools/tools/testing/kunit/kunit.py
echo "kunit.py: $(head -n 1 "$tools/README.md" | sed 's/^# //')"

for c in all clean parts; do
	want_rc=0
	[ "$c" = clean ] || want_rc=1
	rc=0
	# kunit.py changes to the tree's top folder: absolute paths only
	python3 "$kunit" parse --json="$tmp/$c.json" "$tmp/$c.ktap" \
		>"$tmp/$c.parsed" 2>&1 || rc=$?
	sed -e 's/\x1b\[[0-9;]*m//g' -e 's/^\[[0-9:]*\] //' "$tmp/$c.parsed"
	[ "$rc" -eq "$want_rc" ] || bad "kunit.py parse $c.ktap exited $rc, want $want_rc"
	got=$(sed -e 's/\x1b\[[0-9;]*m//g' -e 's/^\[[0-9:]*\] //' \
		"$tmp/$c.parsed" | grep '^Testing complete' || true)
	[ "$got" = "${summary[$c]}" ] ||
		bad "kunit.py parse $c.ktap: '$got', want '${summary[$c]}'"
done

python3 - "$tmp/all.json" >"$tmp/all.got" <<'EOF'
import json, sys
for g in json.load(open(sys.argv[1]))['sub_groups']:
    for t in g['test_cases']:
        print(g['name'], t['name'], t['status'])
EOF
if ! diff -u "$tmp/all.want" "$tmp/all.got"; then
	bad "kunit.py's per-test statuses differ from the mapping (- want, + kunit.py)"
fi
grep -qx '  ok 3 part.tree_diff # SKIP not run: the tree does not build (log: /b/check.log)' \
	"$tmp/parts.ktap" || bad "parts.ktap: part.tree_diff is not '# SKIP' with its reason"
grep -qx 'ok 2 check_parts # SKIP nothing run' "$tmp/parts.ktap" ||
	bad "parts.ktap: a suite of skipped parts is not itself skipped"

if [ "$fail" -ne 0 ]; then
	exit 1
fi
echo "ktap: kunit.py reads verdicts-ktap.py's KTAP with the verdicts' counts"
