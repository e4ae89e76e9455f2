#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/check-tree.sh PATH [--fuzz SECONDS] [--ktap FILE]: what iomapsim
# says about a kernel tree's fs/iomap, on one page.
#
# PATH is a kernel tree: a full Linux tree, or a sparse one with
# fs/iomap/direct-io.c, fs/iomap/iter.c and include/linux/iomap.h at their
# kernel paths (scripts/get-kernel-tree.sh makes one from Debian's
# linux-source packages).  The script
#
#  1. configures and builds kernel-source mode for PATH (a build folder per
#     tree path under build-check/, reused by the next run), which prints
#     the tree's features or, for a tree that lacks what the simulator
#     needs, each missing piece;
#  2. runs the whole suite against the tree's code and counts each Check
#     case's verdict (tests/harness/expect.h): passed, CHANGED as the
#     expectation table says, N/A (a feature the tree lacks), KNOWN BUG,
#     STALE and unexplained failures, each failure with the rules it
#     covers;
#  3. fuzzes the tree's code with fuzz_dio for SECONDS (default 300; 0
#     skips; needs clang), and prints any oracle failure with its
#     `iomapsim run` reproducer;
#  4. runs the tree diff against the embedded copy (scripts/tree-diff.sh)
#     and prints its groups with their explanations.
#
#   --fuzz SECONDS    fuzz_dio time (default 300, 0: no fuzzing)
#   --ktap FILE       also write the suite's verdicts as KTAP v1
#                     (Documentation/dev-tools/ktap.rst), one subtest per
#                     suite, one test per Check case, N/A as # SKIP
#   --count N         requests for the tree diff (default 30000)
#   --build-root DIR  where the build folders go (default build-check/)
#
# Exit status: 0 clean, 1 findings (an unexplained or STALE test, a fuzz
# failure, an unexplained diff group), 2 error (bad usage, a tree that
# does not configure or build).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
fuzz=300
ktap=
count=30000
root=$top/build-check

prog="check-tree"
# shellcheck source-path=SCRIPTDIR source=lib/tree-opts.sh
. "$top/scripts/lib/tree-opts.sh"

tree=

# the tree is taken wherever it stands among the options
tree_opt() {
	case $1 in
	--fuzz)
		tree_opt_value "a number of seconds" "$@"
		fuzz=$2
		;;
	--ktap)
		tree_opt_value "a file" "$@"
		ktap=$2
		;;
	-*) ;;
	*)
		[ -z "$tree" ] || die "one tree at a time ('$tree', then '$1')"
		tree=$1
		shifted=1
		;;
	esac
}

tree_parse_opts "$@"
shift "$opts_used"
[ -n "$tree" ] || die "usage: check-tree.sh PATH [--fuzz SECONDS] [--ktap FILE]"
case $fuzz in '' | *[!0-9]*) die "--fuzz $fuzz: not a number of seconds" ;; esac
case $count in '' | *[!0-9]*) die "--count $count: not a number" ;; esac
[ -d "$tree" ] || die "$tree: not a folder (want a kernel tree)"
for f in fs/iomap/direct-io.c fs/iomap/iter.c include/linux/iomap.h; do
	[ -f "$tree/$f" ] || die "$tree: no $f (want a kernel tree)"
done
tree=$(cd "$tree" && pwd -P)
if [ -n "$ktap" ]; then
	ktap_dir=$(dirname "$ktap")
	[ -d "$ktap_dir" ] || die "--ktap $ktap: no folder $ktap_dir"
	ktap=$(cd "$ktap_dir" && pwd)/$(basename "$ktap")
fi

# one build folder per tree path, named so a user can find it
key=$(printf '%s' "$tree" | sha256sum | cut -c1-8)
dir=$root/$(basename "$tree")-$key
mkdir -p "$dir"
log=$dir/check.log
: >"$log"

note() {
	echo "check-tree: $*" >&2
}

# ---- 1. configure and build ----------------------------------------------

note "configuring and building $tree in ${dir#"$top"/}"
if ! cmake -S "$top" -B "$dir/build" -DIOMAPSIM_KERNEL_TREE="$tree" \
	-DIOMAPSIM_WERROR=ON >>"$log" 2>&1; then
	# configure names what the tree lacks: show its message
	sed -n '/CMake Error/,/^-- Configuring incomplete/p' "$log" >&2
	die "$tree does not configure (log: $log)"
fi
if ! cmake --build "$dir/build" -j"$jobs" >>"$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -20 >&2
	die "$tree does not build (log: $log)"
fi
features=$("$dir/build/iomapsim" --version | sed -n 's/.*features: //p')

# ---- 2. the suite ------------------------------------------------------------

note "running the suite"
verdicts=$dir/verdicts.txt
: >"$verdicts"
# ksrc_planted builds a tree of its own; the kernel tools come from a cache
set +e
IOMAPSIM_VERDICTS=$verdicts \
	IOMAPSIM_KERNEL_TOOLS=${IOMAPSIM_KERNEL_TOOLS:-$root/kernel-tools} \
	ctest --test-dir "$dir/build" -j"$jobs" -E '^ksrc_planted$' \
	>"$dir/ctest.log" 2>&1
set -e
count_of() {
	grep -c "^$1	" "$verdicts" || true
}
n_pass=$(count_of PASS)
n_changed=$(count_of CHANGED)
n_na=$(count_of NA)
n_bug=$(count_of KNOWN_BUG)
n_stale=$(count_of STALE)
n_fail=$(count_of FAIL)
# test programs that failed without a verdict line saying why (a crash,
# a script test, an integration test): ctest's FAILED list only, not the
# tests that did not run (skipped with their reason, or disabled)
failed_programs=$(sed -n '/^The following tests FAILED:/,$ s/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' \
	"$dir/ctest.log")
silent_fails=
for p in $failed_programs; do
	grep -qE "^(FAIL|STALE)	$p	" "$verdicts" ||
		silent_fails="$silent_fails $p"
done

# ---- 3. fuzzing --------------------------------------------------------------

fuzz_line="not run (--fuzz 0)"
fuzz_fail=
if [ "$fuzz" -gt 0 ]; then
	if ! command -v clang >/dev/null 2>&1; then
		fuzz_line="not run: no clang (scripts/quickstart.sh deps)"
	else
		note "building fuzz_dio for the tree (clang) and fuzzing it for ${fuzz}s"
		fdir=$dir/fuzz
		if ! { CC=clang cmake -S "$top" -B "$fdir" -DIOMAPSIM_FUZZ=ON \
			-DCMAKE_BUILD_TYPE=Release -DIOMAPSIM_WERROR=OFF \
			-DIOMAPSIM_KERNEL_TREE="$tree" &&
			cmake --build "$fdir" -j"$jobs" --target fuzz_dio; } \
			>>"$log" 2>&1; then
			die "fuzz_dio does not build against $tree (log: $log)"
		fi
		corpus=$dir/fuzz-corpus
		rm -rf "$corpus"
		mkdir -p "$corpus"
		cp "$top"/fuzz/corpus/dio/* "$corpus"/
		set +e
		(cd "$dir" && "$fdir/fuzz/fuzz_dio" -dict="$top/fuzz/fuzz_dio.dict" \
			-max_len=600 -timeout=25 -max_total_time="$fuzz" \
			-print_final_stats=1 -artifact_prefix="$dir/fuzz-" \
			"$corpus") >"$dir/fuzz.log" 2>&1
		frc=$?
		set -e
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz.log")
		cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$dir/fuzz.log" | tail -1)
		if [ $frc -eq 0 ]; then
			fuzz_line="${runs:-?} inputs in ${fuzz}s, ${cov:-no coverage line}, no oracle failure"
		else
			fuzz_line="stopped after ${runs:-?} inputs (exit $frc); log $dir/fuzz.log"
			fuzz_fail=$(grep -E -m1 -A2 'fuzz_dio.c:[0-9]+:|kernel BUG|ERROR: (AddressSanitizer|libFuzzer)' \
				"$dir/fuzz.log" || true)
			fuzz_fail="$fuzz_fail
$(grep -m1 '^reproduce:' "$dir/fuzz.log" || true)"
		fi
	fi
fi

# ---- 4. the tree diff against the embedded copy ------------------------------

note "tree diff against the embedded copy ($count requests)"
set +e
"$top/scripts/tree-diff.sh" --count "$count" --build-root "$root/diff" \
	embedded "$tree" >"$dir/tree-diff.txt" 2>>"$log"
drc=$?
set -e
[ $drc -le 1 ] || die "the tree diff failed (log: $log)"
unexplained_groups=$(grep -c '^  UNEXPLAINED' "$dir/tree-diff.txt" || true)

# ---- the page ----------------------------------------------------------------

page() {
	echo "iomapsim check of $tree"
	echo "  direct-io.c sha256 $(sha256sum "$tree/fs/iomap/direct-io.c" | cut -c1-16)..."
	echo "  features: $features"
	echo
	echo "suite: $n_pass passed, $n_changed CHANGED as expected, $n_na N/A," \
		"$n_bug KNOWN BUG, $n_stale STALE, $n_fail unexplained failures"
	{ grep -E '^(FAIL|STALE)	' "$verdicts" || true; } |
		while IFS='	' read -r v s c t d; do
			echo "  $v $s:$c:$t: $d"
		done
	for p in $silent_fails; do
		echo "  FAIL $p: failed without a verdict (log: $dir/ctest.log)"
	done
	{ grep -E '^KNOWN_BUG	' "$verdicts" || true; } | sort -u -t'	' -k2,4 |
		while IFS='	' read -r v s c t d; do
			echo "  KNOWN BUG $s:$c:$t: $d"
		done
	echo
	echo "fuzz_dio: $fuzz_line"
	[ -z "$fuzz_fail" ] || printf '%s\n' "$fuzz_fail" | sed 's/^/  /'
	echo
	sed -n '1,/^not expressible/p' "$dir/tree-diff.txt" | sed 's/^/  /' |
		sed '1s/^  /tree diff: /'
	{ grep -E '^[^ ].*requests$|^  (line [0-9]+:|why:|UNEXPLAINED)' \
		"$dir/tree-diff.txt" || true; } | sed 's/^/  /'
}
page | tee "$dir/page.txt"

if [ -n "$ktap" ]; then
	python3 "$top/scripts/verdicts-ktap.py" "$verdicts" "$ktap" >/dev/null ||
		die "cannot write the KTAP file $ktap"
	echo
	echo "KTAP: $ktap"
fi

if [ "$n_fail" -gt 0 ] || [ "$n_stale" -gt 0 ] || [ -n "$silent_fails" ] ||
	[ -n "$fuzz_fail" ] || [ "$unexplained_groups" -gt 0 ]; then
	exit 1
fi
exit 0
