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

# Debian packages the project needs: compiler and build tools, Check (unit
# tests), libfuse3 + fuse3 (the mount), libblkid (mkfs probing, device
# topology), liburing (the O_DIRECT backend), clang (libFuzzer targets),
# fio and python3 (the demo workload and the FUSE benchmark), valgrind
# (iomapsim bench --profile), python3-matplotlib (scripts/trace-plot.py),
# gcovr (scripts/coverage.sh).
PACKAGES=(build-essential cmake pkg-config git check libfuse3-dev fuse3
	libblkid-dev liburing-dev util-linux clang libclang-rt-14-dev fio
	python3 e2fsprogs xfsprogs valgrind python3-matplotlib gcovr)

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
	echo "== build (gcc, -Werror) and unit/integration tests"
	build build
	run_ctest build
	echo "== ASan+UBSan build, whole suite"
	build build-asan -DIOMAPSIM_SANITIZE="address;undefined"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		run_ctest build-asan
	echo "== TSan build, whole suite (threaded engine under real threads)"
	build build-tsan -DIOMAPSIM_SANITIZE=thread
	TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$top/tests/tsan.supp" \
		run_ctest build-tsan
	# Kernel-source mode against the fixture tree, when it is there: the
	# whole suite (fuzz replays, a mount test, the planted-change test)
	# on the tree's own fs/iomap/direct-io.c and iter.c.
	ksrc_tree=${IOMAPSIM_KERNEL_TREE:-$top/../shared/kernel/vfs-2913b382}
	if [ -d "$ksrc_tree/fs/iomap" ]; then
		echo "== kernel-source mode ($ksrc_tree), whole suite"
		build build-ksrc -DIOMAPSIM_KERNEL_TREE="$ksrc_tree"
		run_ctest build-ksrc -E '^simfs_mount_loop$'
	else
		echo "== kernel-source mode skipped: no tree at $ksrc_tree" \
			"(IOMAPSIM_KERNEL_TREE=/path/to/linux $0 test)"
	fi
	if [ -x "$top/fuzz/smoke.sh" ]; then
		echo "== libFuzzer smoke"
		"$top/fuzz/smoke.sh"
	fi
	echo "quickstart: $passed_total passed, 0 failed"
	;;
*)
	echo "usage: $0 demo|test|deps|build" >&2
	exit 2
	;;
esac
