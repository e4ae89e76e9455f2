#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/uml-run.sh [--kernel LINUX] [--fs xfs|ext4] [--block N]
#                    [--timeout SECS] [--log FILE] PROGRAM [ARG...]
#
# One program on a real kernel: a user-mode Linux kernel boots with the
# host's root on hostfs (scripts/lib/uml.sh), makes FS on a ubd device
# (512-byte sectors, DMA alignment 511) with N-byte blocks, mounts it,
# and runs PROGRAM there with each ARG in which @MNT@ stands for the
# mount point.  Prints the program's output, then what the kernel
# reported while it ran: every KASAN, BUG, WARNING or UBSAN report of its
# log, whole.  For a finding's real-kernel reproducer
# (tests/findings/) under a kernel built by scripts/uml-kernel.sh, a
# KASAN one (--kasan) included:
#
#   scripts/uml-run.sh --kernel "$(scripts/uml-kernel.sh --kasan T)" \
#           build/dio_iovec_past_segments @MNT@/f
#
#   --kernel LINUX  the UML kernel (default: Debian's user-mode-linux)
#   --fs FS         xfs (default) or ext4
#   --block N       the file system's block size (default 4096)
#   --timeout SECS  kill UML after SECS seconds (default 300)
#   --log FILE      keep the UML console here (default: a temporary file,
#                   named when something fails)
#
# Exit status: the program's own; 3 when the kernel reported something
# (whatever the program said); 1 when UML did not finish or the file
# system could not be made; 2 on bad usage; 77 when root or UML is
# missing (one line says what).
set -euo pipefail

prog=uml-run.sh
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/uml.sh
. "$top/scripts/lib/uml.sh"
usage="usage: $prog [--kernel LINUX] [--fs xfs|ext4] [--block N] [--timeout SECS] [--log FILE] PROGRAM [ARG...]"

fs=xfs
block=4096
timeout=300
uml_parse_opts "$usage" --fs=fs --block=block -- "$@"
shift "$uml_opts_used"
case ${1-} in
--) shift ;;
-*) die "unknown option $1; $usage" ;;
esac
[ $# -ge 1 ] || die "no PROGRAM; $usage"
case $fs in xfs | ext4) ;; *) die "--fs $fs: xfs or ext4" ;; esac
case $block in 1024 | 2048 | 4096) ;; *) die "--block $block: 1024, 2048 or 4096" ;; esac
case $timeout in '' | *[!0-9]*) die "--timeout $timeout: not a number of seconds" ;; esac
command -v "$1" >/dev/null || [ -x "$1" ] || die "$1: no such program"
program=$(command -v "$1" || echo "$1")
case $program in /*) ;; *) program=$PWD/$program ;; esac
shift

uml_need "$prog" "$kernel"

work=$(mktemp -d "${TMPDIR:-/var/tmp}/uml-run.XXXXXX")
case $work in /tmp/*) rm -rf "$work"; work=$(mktemp -d /var/tmp/uml-run.XXXXXX) ;; esac
keep=${log:+1}
log=${log:-$work/console.log}
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	uml_kill
	if [ -z "$keep" ] && [ -f "$log" ] && [ "${failed:-}" ]; then
		cp "$log" "/var/tmp/uml-run-console.$$.log" &&
			echo "$prog: console log: /var/tmp/uml-run-console.$$.log"
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the arguments, @MNT@ made the mount point, quoted for the init script
args=
for a in "$@"; do
	args+=" $(printf '%q' "${a//@MNT@//tmp/mnt}")"
done
mkfs=$(uml_mkfs "$fs" "$block")
{
	uml_init_head
	cat <<EOF
if $mkfs >"$work/out" 2>&1 && mkdir -p /tmp/mnt &&
	mount /dev/ubda /tmp/mnt 2>>"$work/out"; then
	dmesg -C
	$(printf '%q' "$program")$args >>"$work/out" 2>&1
	echo \$? >"$work/rc"
	dmesg >"$work/dmesg"
	umount /tmp/mnt
fi
EOF
	uml_init_tail
} >"$work/init"
chmod +x "$work/init"

failed=1
if ! uml_run "$kernel" "$work" "$work/init" "$log" "$timeout" uml-run; then
	[ -f "$work/out" ] && cat "$work/out"
	echo "$prog: UML ($kernel) did not finish within ${timeout}s; killed"
	exit 1
fi
[ -f "$work/out" ] && cat "$work/out"
if [ ! -f "$work/rc" ]; then
	echo "$prog: the program did not run (no $fs on the device, or UML ended first)"
	exit 1
fi
rc=$(cat "$work/rc")
# each report whole: from its first line to the line that closes it (a
# KASAN or UBSAN report's line of '=', a warning's "end trace")
reports=$(awk '/BUG: |WARNING: |UBSAN: |KASAN: / { on = 1 }
	on { print }
	on && /(^|\] )=+$|---\[ end trace/ { on = 0 }' \
	"$work/dmesg" 2>/dev/null || true)
failed=
echo "$prog: UML $("$kernel" --version 2>/dev/null | head -n 1), $fs with $block-byte blocks:" \
	"the program exited $rc in $((uml_ms / 1000)).$((uml_ms % 1000 / 100)) s"
if [ -n "$reports" ]; then
	echo "$prog: the kernel reported:"
	printf '%s\n' "$reports"
	exit 3
fi
echo "$prog: the kernel reported nothing (no KASAN, BUG, WARNING or UBSAN line)"
exit "$rc"
