#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# check-fix.sh PATCH TREE BUILD SRC: a finding's fix works on TREE.
#
# PATCH is one of the .patch files of docs/findings/ (kernel patch
# format); its notes, between the "---" line and the diff, say how to see
# the finding:
#
#   iomapsim-run: OPTIONS        the reproducer (`iomapsim run OPTIONS`)
#   iomapsim-before: TEXT        in its outcome on the unpatched tree
#   iomapsim-after: TEXT         in its outcome on the patched tree
#   iomapsim-test: SUITE:TCASE:TEST  a test whose verdict the fix changes
#
# TREE is the kernel tree BUILD (a kernel-source build) was configured
# with.  The script copies TREE (never touching it), applies PATCH to the
# copy, builds kernel-source mode against the copy, and requires:
#
#  - the reproducer shows the finding on BUILD and not on the patched
#    build;
#  - the iomap and cli suites give every test the same verdict on both,
#    except tests the patch names, which the finding failed as a KNOWN
#    BUG and which now pass (a named test the bug does not show through
#    on this tree passes on both) (STALE in the expectation table's
#    words: the table keeps listing the bug for the unpatched code);
#  - fuzz_dio's corpus and regressions hold every oracle on the patched
#    code.
#
# A patch that does not apply to TREE is a tree the finding does not
# affect, or one of another shape: skipped (77), with the reason.
set -euo pipefail

patch=$(realpath "$1")
tree=$(realpath "$2")
build=$(realpath "$3")
src=$(realpath "$4")
name=$(basename "$patch" .patch)
work=$build/findings/$name
suites="iomap_align iomap_diff iomap_generic_entry iomap_generic_loop
	iomap_generic_errors iomap_generic_completion
	iomap_iter iomap_next iomap_simple iomap_testfs iomap_threaded
	cli_batch cli_run"

note() {
	echo "$name: $*"
}
fail() {
	note "FAIL: $*"
	exit 1
}

notes() {
	sed -n '/^---$/,/^diff --git/p' "$patch" | sed -n "s/^$1: //p"
}
run_opts=$(notes iomapsim-run)
before=$(notes iomapsim-before)
after=$(notes iomapsim-after)
tests=$(notes iomapsim-test)
[ -n "$run_opts" ] && [ -n "$before" ] && [ -n "$after" ] ||
	fail "$patch lacks its iomapsim-run/-before/-after notes"

rm -rf "$work"
mkdir -p "$work/tree"
cp -r "$tree"/. "$work/tree"/
chmod -R u+w "$work/tree"
if ! (cd "$work/tree" && patch -p1 --dry-run -s <"$patch" >/dev/null 2>&1); then
	echo "SKIP: $name does not apply to $tree (not affected, or another shape of the code)"
	exit 77
fi
(cd "$work/tree" && patch -p1 -s <"$patch")

note "building kernel-source mode against the patched copy of $tree"
if ! { cmake -S "$src" -B "$work/build" -DIOMAPSIM_KERNEL_TREE="$work/tree" \
	-DIOMAPSIM_WERROR=ON &&
	# shellcheck disable=SC2086 # a list of targets
	cmake --build "$work/build" -j"$(nproc)" --target iomapsim fuzz_replay_dio $suites; } \
	>"$work/build.log" 2>&1; then
	tail -20 "$work/build.log"
	fail "the patched tree does not build (log: $work/build.log)"
fi

# ---- the reproducer ----------------------------------------------------------

# word splitting of the options is intended: they are a command line
# shellcheck disable=SC2086
out_before=$("$build/iomapsim" run $run_opts 2>&1)
# shellcheck disable=SC2086
out_after=$("$work/build/iomapsim" run $run_opts 2>&1)
case $out_before in *"$before"*) ;; *)
	fail "the unpatched tree does not show the finding: no '$before' in $out_before" ;;
esac
case $out_after in *"$after"*) ;; *)
	fail "the patched tree still shows it: no '$after' in $out_after" ;;
esac
note "reproducer: '$before' unpatched, '$after' patched"

# ---- the rest of the suite ---------------------------------------------------

verdicts() {
	local dir=$1 out=$2 s
	: >"$out"
	for s in $suites; do
		(cd "$dir" && IOMAPSIM_VERDICTS=$out IOMAPSIM_SRC=$src \
			IOMAPSIM_BIN=$dir "./$s" >/dev/null 2>&1) || true
	done
	# one line per test verdict, without the detail (which names the
	# code), in a stable order
	cut -f1-4 "$out" | sort >"$out.sorted"
}
verdicts "$build" "$work/before.txt"
verdicts "$work/build" "$work/after.txt"
[ -s "$work/before.txt.sorted" ] || fail "no verdicts from the unpatched suites"

changed=$({ diff "$work/before.txt.sorted" "$work/after.txt.sorted" || true; } |
	sed -n 's/^[<>] //p' | cut -f2-4 | sort -u | tr '\t' ':')
for t in $changed; do
	case " $(echo $tests) " in *" $t "*) ;; *)
		diff "$work/before.txt.sorted" "$work/after.txt.sorted" | grep -F "$(echo "$t" | tr ':' '\t')" || true
		fail "the fix changes $t, which it does not name" ;;
	esac
	grep -q "^KNOWN_BUG	$(echo "$t" | tr ':' '\t')$" "$work/before.txt.sorted" ||
		fail "$t was not a KNOWN BUG on the unpatched tree"
	grep -qE "^(STALE|PASS)	$(echo "$t" | tr ':' '\t')$" "$work/after.txt.sorted" ||
		fail "$t does not pass on the patched tree"
done
# a named test that kept its verdict must pass: on this tree the bug
# does not show through it
for t in $tests; do
	case " $(echo $changed) " in *" $t "*) continue ;; esac
	grep -qE "^PASS	$(echo "$t" | tr ':' '\t')$" "$work/after.txt.sorted" ||
		fail "$t, which the fix names, kept a verdict other than passing"
done
# the fuzz corpus and its regressions hold on the patched code as well
"$work/build/fuzz/fuzz_replay_dio" --min 1 "$src/fuzz/corpus/dio" \
	"$src/fuzz/regressions/dio" >"$work/replay.log" 2>&1 ||
	fail "fuzz_dio's corpus trips an oracle on the patched tree (log: $work/replay.log)"
n=$(wc -l <"$work/before.txt.sorted")
note "PASS: $n verdicts compared; only named tests changed, $(echo $changed | wc -w) of them, from KNOWN BUG to passing"
