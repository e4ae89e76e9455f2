#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/check-tree.sh PATH [--fuzz SECONDS] [--ktap FILE] [--real]: what
# iomapsim says about a kernel tree's fs/iomap, on one page.
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
#     and prints its groups with their explanations;
#  5. with --real, builds the tree's own kernel as user-mode Linux
#     (scripts/uml-kernel.sh: a sparse tree laid over Debian's full tree of
#     its series) and runs the real-kernel oracle in it against this
#     build (scripts/uml-oracle.sh, docs/real-kernel.md): cases, the same,
#     explained, findings, fixed, unexplained, per file system.
#
# The page is printed whatever fails part way: a part that failed says so
# with the path of its log, a part that could not run (after a tree that
# does not build, say) says why, and the KTAP file is still written.
#
#   --fuzz SECONDS    fuzz_dio time (default 300, 0: no fuzzing)
#   --ktap FILE       also write the suite's verdicts as KTAP v1
#                     (Documentation/dev-tools/ktap.rst), one subtest per
#                     suite, one test per Check case, N/A as # SKIP; and
#                     first a subtest check_tree, one test per part
#                     (build, suite, fuzz_dio, tree_diff, real_kernel):
#                     ok, not ok with its log, or # SKIP with why it did
#                     not run
#   --real            also the real kernel's section (5.; root, UML)
#   --suite REGEX     run only the suite's tests whose names match REGEX
#                     (ctest -R), for a quicker look
#   --count N         requests for the tree diff (default 30000, 0: no
#                     tree diff)
#   --build-root DIR  where the build folders go (default build-check/)
#
# Exit status: 0 clean, 1 findings (an unexplained or STALE test, a fuzz
# failure, an unexplained diff group, an unexplained real-kernel
# difference), 2 error (bad usage, a tree that
# does not configure or build; so too a part that could not run to its
# end: fuzz_dio that does not build, a suite that gives no verdict, a
# tree diff that fails, a KTAP file that cannot be written).  An error
# wins over findings: the check is incomplete.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
fuzz=300
ktap=
real=
suite=
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
	--suite)
		tree_opt_value "a test name pattern" "$@"
		suite=$2
		;;
	--real)
		real=1
		shifted=1
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
[ -n "$tree" ] || die "usage: check-tree.sh PATH [--fuzz SECONDS] [--ktap FILE] [--real] [--suite REGEX]"
case $fuzz in '' | *[!0-9]*) die "--fuzz $fuzz: not a number of seconds" ;; esac
case $count in '' | *[!0-9]*) die "--count $count: not a number" ;; esac
[ -d "$tree" ] || die "$tree: not a folder (want a kernel tree)"
[ -f "$tree/fs/iomap/direct-io.c" ] ||
	die "$tree: no fs/iomap/direct-io.c (want a kernel tree)"
tree=$(cd "$tree" && pwd -P)
# A tree older than kernel-source mode supports is refused by name, with
# the piece it lacks, on the page (not with a usage error): the iterator
# came with "iomap: add the new iomap_iter model" (Linux 5.15).
refused=
kver=$(awk '/^(VERSION|PATCHLEVEL|SUBLEVEL) =/ { v = v (v ? "." : "") $3 }
	/^EXTRAVERSION/ { exit } END { print v }' "$tree/Makefile" 2>/dev/null || true)
if [ ! -f "$tree/fs/iomap/iter.c" ]; then
	refused="refused: ${kver:+Linux $kver, }older than kernel-source mode supports: no fs/iomap/iter.c (iomap_iter(), from \"iomap: add the new iomap_iter model\", Linux 5.15)"
elif [ ! -f "$tree/include/linux/iomap.h" ]; then
	refused="refused: no include/linux/iomap.h"
fi
if [ -n "$ktap" ]; then
	ktap_dir=$(dirname "$ktap")
	[ -d "$ktap_dir" ] || die "--ktap $ktap: no folder $ktap_dir"
	ktap=$(cd "$ktap_dir" && pwd)/$(basename "$ktap")
fi

# one build folder per tree path, named so a user can find it
key=$(printf '%s' "$tree" | sha256sum | cut -c1-8)
dir=$root/$(basename "$tree")-$key
mkdir -p "$dir" 2>/dev/null || die "cannot make the build folder $dir"
log=$dir/check.log
verdicts=$dir/verdicts.txt
parts=$dir/parts.txt
# what an earlier run left must not pass for this run's: a part that
# stops before writing its file leaves none
rm -f "$dir/fuzz.log" "$dir/fuzz-build.log" "$dir/tree-diff.txt" \
	"$dir/tree-diff.log" "$dir/page.txt" "$dir/ctest.log" \
	"$dir/uml-kernel.log" "$dir/real.txt"
{ : >"$log" && : >"$verdicts" && : >"$parts"; } 2>/dev/null ||
	die "cannot write in the build folder $dir"

note() {
	echo "check-tree: $*" >&2
}

# Each part (build, suite, fuzz_dio, tree_diff, real_kernel) ends in one
# of three states, and none of them ends the script: a part that fails
# part way is named on the page with its log, the parts after it still
# run when they can, and the page and the KTAP file are written with what is
# known.  A part that could not run to its end is an error (exit 2), as a
# tree that does not build always was; a finding is exit 1.
error=

# part NAME PASS|FAIL|SKIP DETAIL: one line of the KTAP file's check_tree
# subtest (scripts/verdicts-ktap.py: SKIP is "# SKIP DETAIL", FAIL a
# diagnostic line with DETAIL); the page says the same in its own words
part() {
	printf '%s\tcheck_tree\tpart\t%s\t%s\n' "$2" "$1" "${3#failed: }" >>"$parts"
}

# skip_part NAME VAR WHY: part NAME skipped, and WHY its line of the
# summary too, in the variable VAR
skip_part() {
	printf -v "$2" %s "$3"
	part "$1" SKIP "$3"
}

# ---- 1. configure and build ----------------------------------------------

note "configuring and building $tree in ${dir#"$top"/}"
built=
build_line=
features=
if [ -n "$refused" ]; then
	echo "$refused" >>"$log"
	build_line=$refused
elif ! cmake -S "$top" -B "$dir/build" -DIOMAPSIM_KERNEL_TREE="$tree" \
	-DIOMAPSIM_WERROR=ON >>"$log" 2>&1; then
	# configure names what the tree lacks: show its message
	sed -n '/CMake Error/,/^-- Configuring incomplete/p' "$log" >&2
	build_line="the tree does not configure (log: $log)"
elif ! cmake --build "$dir/build" -j"$jobs" >>"$log" 2>&1; then
	# || true: no line may match (a compiler killed by a signal), and
	# head may close the pipe early; either would end the script here
	{ grep -E 'error|Error' "$log" || true; } | head -20 >&2 || true
	build_line="the tree does not build (log: $log)"
else
	built=1
	vrc=0
	version=$("$dir/build/iomapsim" --version 2>>"$log") || vrc=$?
	features=$(printf '%s\n' "$version" | sed -n 's/.*features: //p')
	if [ $vrc -ne 0 ]; then
		build_line="built, but iomapsim --version exited $vrc (log: $log)"
		features=
	elif [ -z "$features" ]; then
		features="none named by iomapsim --version"
	fi
fi
if [ -n "$build_line" ]; then
	error=1
	note "$build_line"
	part build FAIL "$build_line"
else
	part build PASS ""
fi
# the parts below need a built tree
not_built="not run: $build_line"

# ---- 2. the suite ------------------------------------------------------------

n_pass=0 n_changed=0 n_na=0 n_bug=0 n_stale=0 n_fail=0
silent_fails=
suite_line=
if [ -z "$built" ]; then
	skip_part suite suite_line "$not_built"
else
	note "running the suite"
	# ksrc_planted builds a tree of its own; the kernel tools come from a cache
	crc=0
	IOMAPSIM_VERDICTS=$verdicts \
		IOMAPSIM_KERNEL_TOOLS=${IOMAPSIM_KERNEL_TOOLS:-$root/kernel-tools} \
		ctest --test-dir "$dir/build" -j"$jobs" -E '^ksrc_planted$' \
		${suite:+-R "$suite"} >"$dir/ctest.log" 2>&1 || crc=$?
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
	for p in $failed_programs; do
		grep -qE "^(FAIL|STALE)	$p	" "$verdicts" ||
			silent_fails="$silent_fails $p"
	done
	if [ ! -s "$verdicts" ] && [ -z "$silent_fails" ]; then
		# nothing ran that could say a verdict: ctest itself failed
		error=1
		suite_line="no verdicts: ctest exited $crc (log: $dir/ctest.log)"
		part suite FAIL "$suite_line"
	elif [ -n "$silent_fails" ]; then
		part suite FAIL "failed without a verdict:$silent_fails (log: $dir/ctest.log)"
	else
		part suite PASS ""
	fi
fi

# ---- 3. fuzzing --------------------------------------------------------------

fuzz_line=
fuzz_fail=
if [ "$fuzz" -eq 0 ]; then
	skip_part fuzz_dio fuzz_line "not run (--fuzz 0)"
elif [ -z "$built" ]; then
	skip_part fuzz_dio fuzz_line "$not_built"
elif ! command -v clang >/dev/null 2>&1; then
	skip_part fuzz_dio fuzz_line \
		"not run: no clang (scripts/quickstart.sh deps)"
else
	note "building fuzz_dio for the tree (clang) and fuzzing it for ${fuzz}s"
	fdir=$dir/fuzz
	flog=$dir/fuzz-build.log
	if ! { CC=clang cmake -S "$top" -B "$fdir" -DIOMAPSIM_FUZZ=ON \
		-DCMAKE_BUILD_TYPE=Release -DIOMAPSIM_WERROR=OFF \
		-DIOMAPSIM_KERNEL_TREE="$tree" &&
		cmake --build "$fdir" -j"$jobs" --target fuzz_dio; } \
		>"$flog" 2>&1; then
		error=1
		fuzz_line="failed: fuzz_dio does not build against the tree (log: $flog)"
		note "$fuzz_line"
		part fuzz_dio FAIL "$fuzz_line"
	elif ! { rm -rf "$dir/fuzz-corpus" && mkdir -p "$dir/fuzz-corpus" &&
		cp "$top"/fuzz/corpus/dio/* "$dir/fuzz-corpus"/; } 2>>"$flog"; then
		# libFuzzer adds to the corpus it is given: a copy of the seeds
		error=1
		fuzz_line="failed: cannot copy the seed corpus (log: $flog)"
		note "$fuzz_line"
		part fuzz_dio FAIL "$fuzz_line"
	else
		corpus=$dir/fuzz-corpus
		frc=0
		(cd "$dir" && "$fdir/fuzz/fuzz_dio" -dict="$top/fuzz/fuzz_dio.dict" \
			-max_len=600 -timeout=25 -max_total_time="$fuzz" \
			-print_final_stats=1 -artifact_prefix="$dir/fuzz-" \
			"$corpus") >"$dir/fuzz.log" 2>&1 || frc=$?
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz.log")
		# a fuzzer that stops on an input of the seed corpus prints no
		# cov: line (libFuzzer prints the first at INITED): no match is
		# no coverage, not the end of the script
		cov=$({ grep -o 'cov: [0-9]* ft: [0-9]*' "$dir/fuzz.log" || true; } | tail -1)
		if [ $frc -eq 0 ]; then
			fuzz_line="${runs:-?} inputs in ${fuzz}s, ${cov:-no coverage line}, no oracle failure"
			part fuzz_dio PASS ""
		else
			inputs="${runs:-?} inputs"
			[ "$runs" != 1 ] || inputs="its first input"
			fuzz_line="failed: stopped after $inputs (exit $frc), ${cov:-before its first coverage line} (log: $dir/fuzz.log)"
			fuzz_fail=$(grep -E -m1 -A2 'fuzz_dio.c:[0-9]+:|kernel BUG|ERROR: (AddressSanitizer|libFuzzer)' \
				"$dir/fuzz.log" || true)
			# the oracle's lines may hold the reproducer already
			repro=$(grep -m1 '^reproduce:' "$dir/fuzz.log" || true)
			case $fuzz_fail in
			*"$repro"*) ;;
			*) fuzz_fail="$fuzz_fail
$repro" ;;
			esac
			unit=$(sed -n 's/.*Test unit written to //p;T;q' "$dir/fuzz.log")
			fuzz_fail="$fuzz_fail${unit:+
input: $unit}"
			first=$(printf '%s\n' "$fuzz_fail" | sed -n '1{/./p}')
			part fuzz_dio FAIL "$fuzz_line${first:+: $first}"
		fi
	fi
fi

# ---- 4. the tree diff against the embedded copy ------------------------------

diff_line=
unexplained_groups=0
if [ "$count" -eq 0 ]; then
	skip_part tree_diff diff_line "not run (--count 0)"
elif [ -z "$built" ]; then
	skip_part tree_diff diff_line "$not_built"
else
	note "tree diff against the embedded copy ($count requests)"
	drc=0
	# checks sharing a build root (check-corpus.sh runs several) share
	# the diff's build of the embedded copy: one builds it at a time
	mkdir -p "$root/diff"
	flock "$root/diff/.lock" "$top/scripts/tree-diff.sh" --count "$count" \
		--build-root "$root/diff" embedded "$tree" \
		>"$dir/tree-diff.txt" 2>"$dir/tree-diff.log" || drc=$?
	if [ $drc -le 1 ]; then
		unexplained_groups=$(grep -c '^  UNEXPLAINED' "$dir/tree-diff.txt" || true)
		if [ "$unexplained_groups" -gt 0 ]; then
			part tree_diff FAIL "$unexplained_groups UNEXPLAINED groups ($dir/tree-diff.txt)"
		else
			part tree_diff PASS ""
		fi
	else
		error=1
		diff_line="failed: tree-diff.sh exited $drc (log: $dir/tree-diff.log)"
		note "$diff_line"
		part tree_diff FAIL "$diff_line"
	fi
fi

# ---- 5. the tree's own kernel, as user-mode Linux ----------------------------

real_line=
real_unexplained=0
if [ -z "$real" ]; then
	:
elif [ -z "$built" ]; then
	skip_part real_kernel real_line "$not_built"
else
	note "building the tree's kernel as UML and running the real-kernel oracle"
	krc=0
	kernel=$("$top/scripts/uml-kernel.sh" "$tree" 2>"$dir/uml-kernel.log") ||
		krc=$?
	if [ $krc -ne 0 ] || [ ! -x "$kernel" ]; then
		error=1
		real_line="not run: no UML kernel for the tree: $(tail -n 1 "$dir/uml-kernel.log") (log: $dir/uml-kernel.log)"
		part real_kernel FAIL "$real_line"
	else
		orc=0
		"$top/scripts/uml-oracle.sh" --kernel "$kernel" --build "$dir/build" \
			--log "$dir/uml-console.log" >"$dir/real.txt" 2>&1 || orc=$?
		real_unexplained=$({ grep -E '^(ext4|xfs): [0-9]+ cases' "$dir/real.txt" || true; } |
			sed -n 's/.* \([0-9]*\) unexplained$/\1/p' | awk '{ n += $1 } END { print n + 0 }')
		nfs=$(grep -cE '^(ext4|xfs): [0-9]+ cases' "$dir/real.txt" || true)
		if [ $orc -eq 77 ]; then
			skip_part real_kernel real_line \
				"not run: $(tail -n 1 "$dir/real.txt")"
		elif [ "$nfs" -ne 2 ]; then
			error=1
			real_line="failed: the oracle did not finish (exit $orc, log: $dir/real.txt)"
			part real_kernel FAIL "$real_line"
		elif [ "$real_unexplained" -gt 0 ]; then
			part real_kernel FAIL "$real_unexplained unexplained ($dir/real.txt)"
		else
			part real_kernel PASS ""
		fi
		real_line=${real_line:-"UML kernel $kernel ($(grep -m1 '^base:' "$dir/uml-kernel.log" || echo "a full tree"))"}
	fi
fi

# ---- the page ----------------------------------------------------------------

# Each command here may find nothing to print (grep), or the part it
# prints may not have run: the page is printed whole, never cut short.
page() {
	echo "iomapsim check of $tree"
	echo "  direct-io.c sha256 $(sha256sum "$tree/fs/iomap/direct-io.c" | cut -c1-16)..."
	if [ -n "$features" ]; then
		echo "  features: $features"
	else
		echo "  features: unknown: $build_line"
	fi
	echo
	if [ -n "$suite_line" ]; then
		echo "suite: $suite_line"
	else
		echo "suite: $n_pass passed, $n_changed CHANGED as expected, $n_na N/A," \
			"$n_bug KNOWN BUG, $n_stale STALE, $n_fail unexplained failures"
	fi
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
	if [ -n "$diff_line" ]; then
		echo "tree diff: $diff_line"
		return 0
	fi
	sed -n '1,/^not expressible/p' "$dir/tree-diff.txt" | sed 's/^/  /' |
		sed '1s/^  /tree diff: /'
	{ grep -E '^[^ ].*requests$|^  (line [0-9]+:|why:|UNEXPLAINED)' \
		"$dir/tree-diff.txt" || true; } | sed 's/^/  /'
	real_page
}

# the real kernel's section: its per-file-system counts, and each case
# that is a finding or unexplained, by its description
real_page() {
	[ -n "$real" ] || return 0
	echo
	echo "real kernel: $real_line"
	[ -s "$dir/real.txt" ] || return 0
	{ grep -E '^(kernel: |(ext4|xfs): )' "$dir/real.txt" || true; } |
		grep -vE '^(ext4|xfs) (on|case) ' | sed 's/^/  /'
	{ grep -B3 -E '^  (FINDING|UNEXPLAINED)' "$dir/real.txt" || true; } |
		{ grep -E '^(ext4|xfs) case |^  (FINDING|UNEXPLAINED)' || true; } |
		cut -c1-160 | sed 's/^/  /'
}
# the page is no part: a page.txt that cannot be written changes nothing
page | tee "$dir/page.txt" || true

if [ -n "$ktap" ]; then
	# the parts first, then the suite's verdicts: a file that says what
	# was not checked even when the suite never ran
	if cat "$parts" "$verdicts" >"$dir/ktap-verdicts.txt" &&
		python3 "$top/scripts/verdicts-ktap.py" "$dir/ktap-verdicts.txt" \
			"$ktap" >/dev/null; then
		echo
		echo "KTAP: $ktap"
	else
		error=1
		note "cannot write the KTAP file $ktap"
	fi
fi

if [ -n "$error" ]; then
	exit 2
fi
if [ "$n_fail" -gt 0 ] || [ "$n_stale" -gt 0 ] || [ -n "$silent_fails" ] ||
	[ -n "$fuzz_fail" ] || [ "$unexplained_groups" -gt 0 ] ||
	[ "$real_unexplained" -gt 0 ]; then
	exit 1
fi
exit 0
