#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tests/ksrc/check-tree-fuzz-dies.sh SRC BUILD_ROOT FIXTURE [TOOLS_DIR]
#
# scripts/check-tree.sh prints its page and writes its KTAP file when
# fuzz_dio stops on the first input it runs.  Copies the fixture tree,
# plants a G-02 break in the copy's __iomap_dio_rw() (an empty request
# returns -EIO, not 0), and runs check-tree.sh on it with a short --fuzz
# and the suite cut to one program (--suite): the page's parts, not the
# suite's verdicts, are what this test is about.
# libFuzzer runs the empty input before the seed corpus, and the oracle
# "empty request returned ... (G-02)" stops it there, before its first
# cov: line.  Requires
#  - exit 1, the documented status for findings (a fuzz failure);
#  - the page whole: the headline (tree, sha256, features), the suite's
#    counts, the fuzz part named as stopped with the path of its log and
#    the G-02 oracle, the tree diff;
#  - the KTAP file, whose check_tree subtest has part.fuzz_dio not ok;
#    read by the kernel's kunit.py parse when TOOLS_DIR (or
#    $IOMAPSIM_KERNEL_TOOLS) has it, else checked for its KTAP form.
# Then the first part failing: a copy whose iomap.h does not compile
# fails at configure, in seconds; exit 2 (an error), the page with each
# later part "not run" and why, the KTAP file with part.build not ok and
# the three others skipped.  Last a tree too old (no fs/iomap/iter.c):
# refused by name, exit 2, part.build not ok.
#
# The copy stays at a fixed path under BUILD_ROOT, so check-tree.sh's
# build folders (one per tree path) are reused by the next run.  Needs
# clang (libFuzzer): skips (77) without it, or without the fixture.
set -euo pipefail

src=$1
root=$2
fixture=$3
tools=${IOMAPSIM_KERNEL_TOOLS:-${4:-}}

if ! command -v clang >/dev/null 2>&1; then
	echo "SKIP: no clang: fuzz_dio is a libFuzzer target (scripts/quickstart.sh deps)"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: no python3 (check-tree.sh's KTAP needs it)"
	exit 77
fi
if [ ! -f "$fixture/fs/iomap/direct-io.c" ]; then
	echo "SKIP: no kernel tree fixture at $fixture (configure with -DIOMAPSIM_CHECKTREE_FIXTURE=TREE)"
	exit 77
fi

fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

mkdir -p "$root/planted"
root=$(cd "$root" && pwd)
tree=$root/planted/$(basename "$fixture")
rm -rf "$tree"
cp -r "$fixture" "$tree"
chmod -R u+w "$tree"
out=$(mktemp -d "${TMPDIR:-/tmp}/check-tree-test.XXXXXX")
trap 'rm -rf "$out"' EXIT

# G-02: a request of 0 bytes returns 0 without allocating; make it -EIO
f=$tree/fs/iomap/direct-io.c
perl -0pi -e 's/(\tif \(!iomi\.len\)\n\t\treturn) NULL;/$1 ERR_PTR(-EIO);/' "$f"
if cmp -s "$f" "$fixture/fs/iomap/direct-io.c"; then
	echo "FAIL: the planted change did not apply (the fixture's __iomap_dio_rw() changed?)"
	exit 1
fi
echo "planted: __iomap_dio_rw() returns -EIO for an empty request (G-02), in a copy of $fixture"

rc=0
IOMAPSIM_KERNEL_TOOLS=${tools:-$root/kernel-tools} \
	"$src/scripts/check-tree.sh" "$tree" --fuzz 5 --count 300 \
	--suite '^iomap_generic_entry$' \
	--build-root "$root" --ktap "$out/k.tap" >"$out/page.txt" \
	2>"$out/err.txt" || rc=$?
tree=$(cd "$tree" && pwd -P)
echo "check-tree.sh exited $rc; its page:"
cat "$out/page.txt"
if [ "$rc" -ne 1 ]; then
	tail -20 "$out/err.txt"
	bad "check-tree.sh exited $rc, want 1 (findings: the fuzz failure)"
fi

# the page, whole
# check-tree.sh's build folder for the tree: its name and path's sha256
key=$(printf '%s' "$(cd "$tree" && pwd -P)" | sha256sum | cut -c1-8)
dir=$root/$(basename "$tree")-$key
want_lines=(
	"^iomapsim check of $tree\$"
	'^  direct-io.c sha256 [0-9a-f]{16}\.\.\.$'
	'^  features: .*[a-z]'
	'^suite: [0-9]+ passed, [0-9]+ CHANGED as expected, [0-9]+ N/A, '
	"^fuzz_dio: failed: stopped after its first input \\(exit [1-9][0-9]*\\), before its first coverage line \\(log: $dir/fuzz\\.log\\)\$"
	'empty request returned -5 \(G-02\)'
	'^  reproduce: iomapsim run .*--len 0 '
	"^  input: $dir/fuzz-crash-[0-9a-f]+\$"
	'^tree diff: tree-diff: A = embedded '
	'^  requests compared +[0-9]'
)
for w in "${want_lines[@]}"; do
	grep -qE -- "$w" "$out/page.txt" || bad "the page has no line matching '$w'"
done
grep -q '^  features: unknown' "$out/page.txt" && bad "the page's features are unknown: the tree did not build"
[ -s "$dir/fuzz.log" ] || bad "the fuzz log $dir/fuzz.log the page names is not there"
# the first input: libFuzzer stopped before INITED, its first cov: line
if grep -q 'cov: [0-9]' "$dir/fuzz.log"; then
	bad "fuzz_dio got past its first input (a cov: line in $dir/fuzz.log)"
fi

# the KTAP file
if [ ! -s "$out/k.tap" ]; then
	bad "no KTAP file $out/k.tap"
elif [ -n "$tools" ] && [ ! -f "$tools/tools/testing/kunit/kunit.py" ] &&
	! "$src/scripts/get-kernel-tools.sh" "$tools" >"$out/fetch" 2>&1; then
	echo "note: no kunit.py ($(tail -n 1 "$out/fetch")): checking the KTAP form only"
	tools=
fi
if [ -s "$out/k.tap" ] && [ -n "$tools" ]; then
	krc=0
	# kunit.py changes to the tree's top folder: absolute paths only
	python3 "$tools/tools/testing/kunit/kunit.py" parse \
		--json="$out/k.json" "$out/k.tap" >"$out/parsed" 2>&1 || krc=$?
	sed -e 's/\x1b\[[0-9;]*m//g' -e 's/^\[[0-9:]*\] //' "$out/parsed" |
		grep -E '^Testing complete|check_tree|part\.' || true
	[ "$krc" -eq 1 ] || bad "kunit.py parse exited $krc, want 1 (a test not ok)"
	python3 - "$out/k.json" >"$out/parts" <<'EOF' || bad "kunit.py's JSON has no check_tree subtest"
import json, sys
g = [g for g in json.load(open(sys.argv[1]))['sub_groups']
     if g['name'] == 'check_tree'][0]
for t in g['test_cases']:
    print(t['name'], t['status'])
EOF
elif [ -s "$out/k.tap" ]; then
	python3 - "$out/k.tap" >"$out/parts" <<'EOF' || bad "$out/k.tap is not KTAP as verdicts-ktap.py writes it"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0] == 'KTAP version 1' and re.fullmatch(r'1\.\.\d+', lines[1])
assert int(lines[1][3:]) == sum(bool(re.match(r'(not )?ok \d+ ', l)) for l in lines)
assert lines[3] == '  # Subtest: check_tree'
for l in lines[5:]:
    m = re.fullmatch(r'  (not ok|ok) \d+ (part\.\w+)( # SKIP.*)?', l)
    if m:
        print(m[2], 'SKIP' if m[3] else 'PASS' if m[1] == 'ok' else 'FAIL')
    elif not l.startswith('  #'):
        break
EOF
fi
if [ -s "$out/k.tap" ]; then
	for w in 'part.build PASS' 'part.suite' 'part.fuzz_dio FAIL' 'part.tree_diff'; do
		grep -q "^$w" "$out/parts" ||
			bad "the KTAP file's check_tree subtest has no '$w' (it has: $(tr '\n' ';' <"$out/parts"))"
	done
	grep -qE "^  # part\\.fuzz_dio: FAIL: stopped after its first input \\(exit [1-9][0-9]*\\), before its first coverage line \\(log: $dir/fuzz\\.log\\): .*\\(G-02\\)\$" "$out/k.tap" ||
		bad "the KTAP file does not name the fuzz log"
fi

# The same when the very first part fails: a tree whose iomap.h does not
# compile fails at configure (cmake/ksrc/features.cmake compiles it), in
# seconds.  Exit 2 (an error), the page with each part named, the KTAP
# file with part.build not ok and the other three skipped.
btree=$root/planted/no-configure
rm -rf "$btree"
cp -r "$tree" "$btree"
echo 'not C: iomap.h does not compile' >>"$btree/include/linux/iomap.h"
btree=$(cd "$btree" && pwd -P)
bkey=$(printf '%s' "$btree" | sha256sum | cut -c1-8)
blog=$root/no-configure-$bkey/check.log
# check_error TREE TAG WHAT: check-tree.sh on TREE, whose page goes to
# $out/TAGpage.txt and KTAP file to $out/TAG.tap, must exit 2 (an error)
check_error() {
	local rc=0
	"$src/scripts/check-tree.sh" "$1" --fuzz 5 --count 300 \
		--build-root "$root" --ktap "$out/$2.tap" >"$out/$2page.txt" \
		2>"$out/$2err.txt" || rc=$?
	echo
	echo "check-tree.sh on $3 exited $rc; its page:"
	cat "$out/$2page.txt"
	[ "$rc" -eq 2 ] || bad "check-tree.sh exited $rc for $3, want 2"
}

check_error "$btree" b "a tree that does not configure"
nc="not run: the tree does not configure (log: $blog)"
for w in "iomapsim check of $btree" \
	"  features: unknown: the tree does not configure (log: $blog)" \
	"suite: $nc" "fuzz_dio: $nc" "tree diff: $nc" "KTAP: $out/b.tap"; do
	grep -qxF -- "$w" "$out/bpage.txt" || bad "the page has no line '$w'"
done
want="  not ok 1 part.build
  ok 2 part.suite # SKIP $nc
  ok 3 part.fuzz_dio # SKIP $nc
  ok 4 part.tree_diff # SKIP $nc"
[ "$(grep -E '^  (not )?ok ' "$out/b.tap" 2>/dev/null)" = "$want" ] ||
	bad "the KTAP file of a tree that does not configure is not the build failed and three parts skipped"

# A tree older than kernel-source mode supports (no fs/iomap/iter.c, as
# before Linux 5.15): refused by name, with the missing piece, on the
# page, without running cmake; exit 2, part.build not ok in the KTAP file.
otree=$root/planted/too-old
rm -rf "$otree"
mkdir -p "$otree/fs/iomap" "$otree/include/linux"
cp "$fixture/fs/iomap/direct-io.c" "$otree/fs/iomap/"
cp "$fixture/include/linux/iomap.h" "$otree/include/linux/"
printf 'VERSION = 5\nPATCHLEVEL = 10\nSUBLEVEL = 0\nEXTRAVERSION =\n' >"$otree/Makefile"
otree=$(cd "$otree" && pwd -P)
check_error "$otree" o "a tree without fs/iomap/iter.c"
why='refused: Linux 5.10.0, older than kernel-source mode supports: no fs/iomap/iter.c (iomap_iter(), from "iomap: add the new iomap_iter model", Linux 5.15)'
for w in "iomapsim check of $otree" "  features: unknown: $why" \
	"suite: not run: $why" "KTAP: $out/o.tap"; do
	grep -qxF -- "$w" "$out/opage.txt" || bad "the page has no line '$w'"
done
grep -qx '  not ok 1 part.build' "$out/o.tap" 2>/dev/null ||
	bad "the KTAP file of a tree too old has no part.build not ok"

if [ "$fail" -ne 0 ]; then
	exit 1
fi
echo "check-tree: the page and the KTAP file, with fuzz_dio stopped on its first input, with a tree that does not configure, and with one too old"
