#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/uml-oracle.sh [--kernel LINUX] [--tree DIR | --build DIR]
#                       [--timeout SECS] [--log FILE]
#
# The real-kernel oracle (tests/oracle-kernel.c) inside a user-mode Linux
# kernel, so that the kernel judged is the one a tree builds, not
# whichever kernel the machine boots.  UML mounts the host's root
# read-write through hostfs and runs the oracle as its init: ext4 and XFS
# are made on a ubd device (512-byte sectors, 4 KiB blocks) over a sparse
# file, and every case runs as syscalls there (pread/pwrite,
# preadv2/pwritev2, io_uring where the kernel has it) and as `iomapsim
# run` built in kernel-source mode on the same tree's fs/iomap files.
#
#   --kernel LINUX  the UML kernel (default: Debian's user-mode-linux,
#                   /usr/bin/linux.uml)
#   --tree DIR      the kernel tree LINUX was built from (sparse or full):
#                   `iomapsim run` is built in kernel-source mode on its
#                   fs/iomap files, into build-uml-NAME/
#   --build DIR     an iomapsim build that already has iomapsim and
#                   oracle_kernel (kernel-source mode on LINUX's files)
#   --timeout SECS  kill UML after SECS seconds (default 300)
#   --log FILE      keep the UML console here (default: in the build)
#
# With neither --tree nor --build, the tree is the one Debian's UML
# package was built from: linux-source at `LINUX --version`, fetched once
# (scripts/get-kernel-tree.sh --version) into ~/.cache/iomapsim/trees/.
#
# Prints the oracle's report; the last lines give per file system the
# cases, the same, explained (docs/rules.md 3.R), findings the kernel
# carries, findings it has the fix for, and unexplained.  Exit 0 when
# nothing is unexplained, 1 when something is or UML failed (the console
# log is named), 2 on bad usage, 77 when something it needs is missing
# (one line says what).
set -euo pipefail

prog=uml-oracle.sh
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/uml.sh
. "$top/scripts/lib/uml.sh"
usage="usage: $prog [--kernel LINUX] [--tree DIR | --build DIR] [--timeout SECS] [--log FILE]"

tree=
build=
timeout=300
uml_parse_opts "$usage" --tree=tree --build=build -- "$@"
shift "$uml_opts_used"
[ $# -eq 0 ] || die "unknown argument '$1'; $usage"
[ -z "$tree" ] || [ -z "$build" ] || die "--tree and --build exclude each other"
case $timeout in
'' | *[!0-9]*) die "--timeout needs a number of seconds, not '$timeout'" ;;
esac

uml_need "$prog" "$kernel"

# The tree and the build judged against the kernel.
if [ -z "$build" ]; then
	if [ -z "$tree" ]; then
		# a subshell: its exit 77 comes back as its status
		tree=$(uml_kernel_tree "$prog" "$kernel" "$top") || {
			rc=$?
			echo "$tree"
			exit $rc
		}
	fi
	[ -f "$tree/fs/iomap/direct-io.c" ] || die "$tree has no fs/iomap/direct-io.c"
	tree=$(cd "$tree" && pwd)
	build=$top/build-uml-$(basename "$tree")
	echo "$prog: iomapsim in kernel-source mode on $tree, into $build"
	cmake -S "$top" -B "$build" -DIOMAPSIM_WERROR=ON \
		-DIOMAPSIM_KERNEL_TREE="$tree" >/dev/null
	cmake --build "$build" -j"$(nproc)" --target iomapsim oracle_kernel >/dev/null
fi
build=$(cd "$build" && pwd)
{ [ -x "$build/iomapsim" ] && [ -x "$build/oracle_kernel" ]; } ||
	die "$build has no iomapsim and oracle_kernel (cmake --build $build --target iomapsim oracle_kernel)"

# Everything UML touches on the host lives in one folder of the build,
# outside /tmp: UML's /tmp is a tmpfs of its own.
work=$(mktemp -d "$build/uml-oracle.XXXXXX")
log=${log:-$build/uml-oracle-console.log}
cleanup() {
	uml_kill
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

{
	uml_init_head
	cat <<EOF
# the oracle, its output and status into $work
cd "$work"
ORACLE_DEVICE=/dev/ubda IOMAPSIM_BIN="$build" \\
	ORACLE_CASES="${ORACLE_CASES:-}" ORACLE_VERBOSE="${ORACLE_VERBOSE:-}" \\
	"$build/oracle_kernel" \\
	>"$work/out" 2>&1
echo \$? >"$work/rc"
EOF
	uml_init_tail
} >"$work/init"
chmod +x "$work/init"

if ! uml_run "$kernel" "$work" "$work/init" "$log" "$timeout" iomapsim-oracle; then
	[ -f "$work/out" ] && cat "$work/out"
	echo "$prog: UML ($kernel) did not finish within ${timeout}s; killed; console log: $log"
	exit 1
fi
ms=$uml_ms

if [ ! -f "$work/rc" ]; then
	[ -f "$work/out" ] && cat "$work/out"
	echo "$prog: UML ($kernel) ended before the oracle did; console log: $log"
	exit 1
fi
cat "$work/out"
rc=$(cat "$work/rc")
printf '%s: UML %s, boot and oracle in %d.%d s, oracle exit %s\n' \
	"$prog" "$("$kernel" --version 2>/dev/null | head -n 1)" \
	$((ms / 1000)) $((ms % 1000 / 100)) "$rc"
case $rc in
0) ;;
77) exit 77 ;;
*)
	echo "$prog: console log: $log"
	exit 1
	;;
esac
