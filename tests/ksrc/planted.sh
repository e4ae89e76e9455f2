#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# planted.sh SRC FIXTURE
#
# A behaviour change in a kernel tree shows as failures naming docs/rules.md
# rules.  Copies the fixture tree, removes one line pair from the copy (the
# i_size check of the inline iomap_dio_read_simple() in iomap.h: a read
# past EOF is then offered to the simple path), configures kernel-source
# mode against the copy, and requires
#  - the simple-path suite to fail, with test_refuse_beyond_eof naming
#    S-06, and nothing else failing;
#  - the fuzz_dio replay of the seed corpus to find it, naming G-55.
# Builds only the two programs it runs (about a minute on two cores).
set -eu
src=$1
fixture=$2

# shellcheck source=tests/lib/fixture-copy.sh
. "$src/tests/lib/fixture-copy.sh"
fixture_copy "$fixture" "point IOMAPSIM_KSRC_FIXTURE at one"

fixture_plant 's/\tif \(iocb->ki_pos \+ iomi\.len > i_size_read\(iomi\.inode\)\)\n\t\treturn -ENOTBLK;\n//' \
	'the i_size check'

cmake -S "$src" -B "$tmp/build" -DIOMAPSIM_WERROR=ON \
	-DIOMAPSIM_KERNEL_TREE="$tmp/tree" >"$tmp/configure.log" 2>&1 ||
	{ cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/build" -j2 --target iomap_simple fuzz_replay_dio \
	>"$tmp/build.log" 2>&1 || { tail -30 "$tmp/build.log"; exit 1; }

status=0
# the planted copy's verdicts are this test's, not the tree's: keep them
# out of the stage's IOMAPSIM_VERDICTS file
(cd "$tmp/build" && env -u IOMAPSIM_VERDICTS ./iomap_simple) \
	>"$tmp/suite.log" 2>/dev/null || status=$?
grep -v '^CHANGED\|^N/A' "$tmp/suite.log"
if [ "$status" -eq 0 ]; then
	echo "FAIL: iomap_simple passed against the planted tree"
	exit 1
fi
if ! grep -q ':F:eligibility:test_refuse_beyond_eof: .*(covers S-06' "$tmp/suite.log"; then
	echo "FAIL: no failure of test_refuse_beyond_eof naming S-06"
	exit 1
fi
# the reason mirror's check may see the same change: a simple read past
# EOF contradicts the mirror's beyond_eof (why_mismatch), which is S-06 too
if [ "$(grep ':F:' "$tmp/suite.log" |
	grep -vc ':F:eligibility:test_why_agrees_with_observed: .*mirror beyond_eof contradicts')" -ne 1 ]; then
	echo "FAIL: more than the planted rule failed"
	exit 1
fi

status=0
"$tmp/build/fuzz/fuzz_replay_dio" --min 1 "$src/fuzz/corpus/dio" \
	"$src/fuzz/regressions/dio" >"$tmp/fuzz.log" 2>&1 || status=$?
grep -E '^(input|reproduce):|fuzz_dio.c:[0-9]+:' "$tmp/fuzz.log" || true
# the first oracle to fire: the read past EOF itself (G-55), or the reason
# mirror's (a simple read the mirror says is past EOF, why_mismatch)
if [ "$status" -eq 0 ] ||
   ! grep -qE 'past EOF .*\(G-55\)|!o->why_mismatch: fallback reason mirror contradicts' "$tmp/fuzz.log"; then
	echo "FAIL: the fuzz_dio replay did not find the read past EOF (G-55, or the mirror's S-06)"
	exit 1
fi
echo "planted: caught by the suite (S-06) and by the fuzzer's oracles (G-55 or the mirror's S-06)"
