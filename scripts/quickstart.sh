#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# iomapsim quick start, for a fresh Debian 12 machine as root:
#   scripts/quickstart.sh demo   install what is missing, build, mount the
#                                default image through FUSE, run a short
#                                O_DIRECT workload, print the stats
#   scripts/quickstart.sh test   install what is missing, build, run every test
#   scripts/quickstart.sh deps   only install what is missing
#   scripts/quickstart.sh build  only build (into build/)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=$(nproc 2>/dev/null || echo 2)
# The test programs whose verdicts depend on a tree's iomap code (the Check
# suites, the batch command and the fuzz replay), for the corpus: the
# mounts, style and documents do not change with the tree.
corpus_suite='^(iomap_|block_|sim_|cli_batch|cli_run|simfs_core|fuzz_replay_dio)'

# Debian packages the project needs: compiler and build tools, Check (unit
# tests), libfuse3 + fuse3 (the mount), libblkid (mkfs probing, device
# topology), liburing (the O_DIRECT backend), clang (libFuzzer targets),
# fio and python3 (the demo workload and the FUSE benchmark), valgrind
# (iomapsim bench --profile), python3-matplotlib (scripts/trace-plot.py),
# gcovr (scripts/coverage.sh), clang-format (scripts/format-check.sh:
# Debian 12's is version 14, the one the code is formatted with),
# user-mode-linux (the real-kernel oracle's pinned kernel,
# scripts/uml-oracle.sh).
PACKAGES=(build-essential cmake pkg-config git check libfuse3-dev fuse3
	libblkid-dev liburing-dev util-linux clang libclang-rt-14-dev fio
	python3 e2fsprogs xfsprogs valgrind python3-matplotlib gcovr
	clang-format user-mode-linux)

need_packages() {
	local missing=() p
	for p in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "install ok installed" || missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		return 0
	fi
	echo "quickstart: installing ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		echo "quickstart: need root to install packages" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# build DIR [cmake options...]: configure and build one tree.
build() {
	local dir=$1
	shift
	cmake -S "$top" -B "$top/$dir" -DIOMAPSIM_WERROR=ON "$@" >/dev/null
	cmake --build "$top/$dir" -j"$jobs" >/dev/null
}

# Tests passed over every ctest run, for the closing summary line.
passed_total=0

run_ctest() {
	local dir=$1 log n
	shift
	log=$(mktemp)
	ctest --test-dir "$top/$dir" --output-on-failure -j"$jobs" "$@" |
		tee "$log"
	# a failed suite fails the command (pipefail): only passes add up here
	n=$(sed -n 's/.*tests passed, 0 tests failed out of \([0-9]*\).*/\1/p' "$log")
	rm -f "$log"
	passed_total=$((passed_total + ${n:-0}))
}

# One line of the verdicts (tests/harness/expect.h) IOMAPSIM_VERDICTS
# collected over a build's suite.
verdict_line() {
	local f=$2
	n() {
		grep -c "^$1	" "$f" || true
	}
	echo "$1: $(n PASS) passed, $(n CHANGED) CHANGED, $(n NA) N/A," \
		"$(n KNOWN_BUG) KNOWN BUG, $(n STALE) STALE, $(n FAIL) failed"
}

# real_oracle LABEL [uml-oracle.sh options]: the real-kernel oracle in a
# UML kernel, its per-file-system counts into the verdict lines; a skip
# (77: no root, no UML) is said and passes, anything unexplained fails.
real_oracle() {
	local label=$1 out rc=0 l
	shift
	out=$(mktemp)
	"$top/scripts/uml-oracle.sh" "$@" | tee "$out" || rc=${PIPESTATUS[0]}
	case $rc in
	0)
		while read -r l; do
			summary+=("real kernel ($label) $l")
		done < <(grep -E '^(ext4|xfs): [0-9]+ cases' "$out")
		;;
	77) echo "== real-kernel oracle skipped (the line above says why)" ;;
	*)
		rm -f "$out"
		exit 1
		;;
	esac
	rm -f "$out"
}

cmd=${1:-}
case "$cmd" in
deps)
	need_packages
	;;
build)
	need_packages
	build build
	;;
demo)
	need_packages
	build build
	exec "$top/scripts/demo-mount.sh" "$top/build"
	;;
test)
	need_packages
	# the kernel's own tools (kunit.py for the KTAP test), fetched once
	export IOMAPSIM_KERNEL_TOOLS=${IOMAPSIM_KERNEL_TOOLS:-$HOME/.cache/iomapsim/kernel-tools}
	echo "== build (gcc, -Werror) and unit/integration tests"
	build build
	: >"$top/build/verdicts.txt"
	IOMAPSIM_VERDICTS=$top/build/verdicts.txt run_ctest build
	summary=("$(verdict_line "embedded copy" "$top/build/verdicts.txt")")
	echo "== ASan+UBSan build, whole suite"
	build build-asan -DIOMAPSIM_SANITIZE="address;undefined"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		run_ctest build-asan
	echo "== TSan build, whole suite (threaded engine under real threads)"
	build build-tsan -DIOMAPSIM_SANITIZE=thread
	TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$top/tests/tsan.supp" \
		run_ctest build-tsan
	if [ -x "$top/fuzz/smoke.sh" ]; then
		echo "== libFuzzer smoke"
		"$top/fuzz/smoke.sh"
	fi
	# The fuzzing configuration builds every program, as an OSS-Fuzz-style
	# build does, not only the fuzz targets smoke.sh builds: a program
	# that gets the coverage callbacks without libFuzzer's runtime fails
	# to link only here.
	if command -v clang >/dev/null; then
		echo "== fuzzing configuration (clang, IOMAPSIM_FUZZ=ON), everything"
		CC=clang build build-fuzz-all -DIOMAPSIM_FUZZ=ON
	fi
	# The real-kernel oracle on a pinned kernel, never the machine's own:
	# Debian's prebuilt UML, against kernel-source mode on the fs/iomap
	# files of the linux-source version it was built from.
	echo "== real-kernel oracle: Debian's UML $(linux.uml --version 2>/dev/null | head -n 1)," \
		"against kernel-source mode on its own tree"
	real_oracle "UML $(linux.uml --version 2>/dev/null | head -n 1)"
	# Kernel-source mode against every kernel tree there is: each tree
	# folder under ../shared/kernel/ (or the one tree in
	# IOMAPSIM_KERNEL_TREE): the whole suite on the tree's own
	# fs/iomap/direct-io.c and iter.c, a line of verdict counts per
	# tree, and fuzz_dio's smoke on the tree's code.
	if [ -n "${IOMAPSIM_KERNEL_TREE:-}" ]; then
		trees=("$IOMAPSIM_KERNEL_TREE")
	else
		trees=()
		for t in "$top"/../shared/kernel/*/; do
			[ -d "$t/fs/iomap" ] && trees+=("${t%/}")
		done
	fi
	[ ${#trees[@]} -gt 0 ] ||
		echo "== kernel-source mode skipped: no tree in $top/../shared/kernel" \
			"(IOMAPSIM_KERNEL_TREE=/path/to/linux $0 test)"
	first=1
	for t in "${trees[@]}"; do
		name=$(basename "$t")
		echo "== kernel-source mode: $name, whole suite"
		verdicts=$top/build-ksrc-$name/verdicts.txt
		build "build-ksrc-$name" -DIOMAPSIM_KERNEL_TREE="$t"
		: >"$verdicts"
		# the loop-device mount is the image mount again, the tree
		# diff's, the documents' and the style tests ran in the plain
		# build; the planted-change test builds a tree of its own: once
		skip='fuse_mount_loop|treediff_.*|docs_.*|style_.*|ksrc_ktap'
		[ $first -eq 1 ] || skip="$skip|ksrc_planted"
		first=0
		IOMAPSIM_VERDICTS=$verdicts run_ctest "build-ksrc-$name" \
			-E "^($skip)\$"
		summary+=("$(verdict_line "kernel tree $name" "$verdicts")")
		# the tree's own kernel, where an earlier run built it as UML
		# (scripts/uml-kernel.sh; building one takes half an hour)
		if kernel=$("$top/scripts/uml-kernel.sh" --cached "$t" 2>/dev/null); then
			echo "== real-kernel oracle: $name's own kernel (UML, cached)"
			real_oracle "UML of $name" --kernel "$kernel" \
				--build "$top/build-ksrc-$name"
		else
			echo "== real-kernel oracle for $name skipped: no UML kernel" \
				"of it cached (scripts/uml-kernel.sh $t builds one)"
		fi
		if [ -x "$top/fuzz/smoke.sh" ]; then
			echo "== libFuzzer smoke of fuzz_dio on $name"
			IOMAPSIM_KERNEL_TREE=$t FUZZ_SMOKE_TARGETS=fuzz_dio \
				FUZZ_SMOKE_DIR=$top/build-fuzz-smoke-$name \
				"$top/fuzz/smoke.sh"
		fi
	done
	# The corpus of trees nobody tuned the simulator for: Debian's
	# oldest and newest of each series and unstable's newest, fetched
	# once into the cache, and the feature combinations of
	# tests/corpus/ (scripts/make-corpus.sh --ci).  The suite only (the
	# fixture trees above had the fuzzing and the tree diff): each tree
	# gets its page, and any unexplained failure or STALE expectation
	# fails the test command.
	if [ -z "${IOMAPSIM_KERNEL_TREE:-}" ]; then
		corpus=${IOMAPSIM_CACHE:-$HOME/.cache/iomapsim}/corpus-ci
		echo "== the corpus: scripts/make-corpus.sh --ci $corpus"
		"$top/scripts/make-corpus.sh" --ci "$corpus"
		"$top/scripts/check-corpus.sh" --fuzz 0 --count 0 \
			--suite "$corpus_suite" --out "$top/build-corpus-ci" "$corpus"
		summary+=("corpus: $(grep -c . "$top/build-corpus-ci/trees.tsv") trees, each page in build-corpus-ci/pages/")
	fi
	echo "== verdicts by iomap code (passed, expected changes, not applicable,"
	echo "   known bugs, stale expectations, failures)"
	for l in "${summary[@]}"; do
		echo "$l"
	done
	echo "quickstart: $passed_total passed, 0 failed"
	;;
*)
	echo "usage: $0 demo|test|deps|build" >&2
	exit 2
	;;
esac
