#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/uml-batch.sh [--kernel LINUX] [--fs LIST] [--blocks LIST]
#                      [--timeout SECS] [--log FILE] --build DIR
#                      REQUESTS OUTDIR
#
# `iomapsim batch` request lines answered by a real kernel: a user-mode
# Linux kernel boots once (the host's root on hostfs, scripts/lib/uml.sh),
# makes each file system of LIST on a ubd device (512-byte sectors), once
# per block size, mounts it and runs DIR/real_batch
# (tests/real/real-batch.c) over REQUESTS there: the 4 KiB pass answers
# every line but those for the other block sizes, each other pass only
# those for its own.  OUTDIR gets, per file system FS:
#
#   real-FS.jsonl   one JSON line per request: ret, ki_pos, iter_count,
#                   data, or "unsupported" (what a real kernel cannot be
#                   given) or "error"
#   real-FS.err     real_batch's standard error
#   real-FS.ms      how long the batches took inside UML, in milliseconds
#
#   --kernel LINUX  the UML kernel (default: Debian's user-mode-linux,
#                   /usr/bin/linux.uml)
#   --fs LIST       xfs, ext4 or both, comma separated (default xfs,ext4)
#   --blocks LIST   the block sizes (4096 and any of 1024, 2048; default
#                   4096,1024,2048); requests for a size not made are
#                   not expressible
#   --timeout SECS  kill UML after SECS seconds (default 1800)
#   --log FILE      keep the UML console here (default: OUTDIR/uml-console.log)
#   --build DIR     an iomapsim build that has real_batch
#
# scripts/tree-diff.sh --real runs this and compares the answers with
# `iomapsim batch` of kernel-source mode on the tree the kernel was built
# from.  Exit 0 when every file system's batch ran through, 1 when one
# did not or UML failed (the console log is named), 2 on bad usage, 77
# when something it needs is missing (one line says what).
set -euo pipefail

prog=uml-batch.sh
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/uml.sh
. "$top/scripts/lib/uml.sh"
usage="usage: $prog [--kernel LINUX] [--fs LIST] [--timeout SECS] [--log FILE] --build DIR REQUESTS OUTDIR"

fss=xfs,ext4
blocks=4096,1024,2048
timeout=1800
build=
uml_parse_opts "$usage" --fs=fss --blocks=blocks --build=build -- "$@"
shift "$uml_opts_used"
case ${1-} in -*) die "unknown option '$1'; $usage" ;; esac
[ $# -eq 2 ] || die "want REQUESTS and OUTDIR; $usage"
requests=$1
outdir=$2
[ -n "$build" ] || die "--build DIR is needed; $usage"
case $timeout in
'' | *[!0-9]*) die "--timeout needs a number of seconds, not '$timeout'" ;;
esac
for fs in ${fss//,/ }; do
	case $fs in
	xfs | ext4) ;;
	*) die "--fs $fss: want xfs, ext4 or both" ;;
	esac
done
others=
for b in ${blocks//,/ }; do
	case $b in
	4096) ;;
	1024 | 2048) others=$others${others:+,}$b ;;
	*) die "--blocks $blocks: want 4096 and any of 1024, 2048" ;;
	esac
done
case ,$blocks, in *,4096,*) ;; *) die "--blocks $blocks: 4096 is needed" ;; esac
[ -f "$requests" ] || die "$requests: no such file"

uml_need "$prog" "$kernel"
build=$(cd "$build" && pwd)
[ -x "$build/real_batch" ] ||
	die "$build has no real_batch (cmake --build $build --target real_batch)"
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
log=${log:-$outdir/uml-console.log}

# UML sees the host's files but not its /tmp (a tmpfs of its own): the
# requests and the answers go through a folder of the build
work=$(mktemp -d "$build/uml-batch.XXXXXX")
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	uml_kill
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cp "$requests" "$work/requests.txt"

{
	uml_init_head
	for fs in ${fss//,/ }; do
		echo "echo 0 >\"$work/real-$fs.rc\"; : >\"$work/real-$fs.jsonl\"; ms=0"
		for b in 4096 ${others//,/ }; do
			mkfs=$(uml_mkfs "$fs" "$b")
			if [ "$b" = 4096 ]; then
				pass="--block 4096${others:+ --others $others}"
			else
				pass="--block $b --only"
			fi
			cat <<EOF
# $fs with $b-byte blocks: made fresh, the batch over it, its time
if $mkfs >>"$work/real-$fs.err" 2>&1 && mkdir -p /tmp/$fs &&
	mount -t $fs /dev/ubda /tmp/$fs 2>>"$work/real-$fs.err"; then
	start=\$(date +%s%N)
	"$build/real_batch" --dir /tmp/$fs $pass "$work/requests.txt" \\
		>>"$work/real-$fs.jsonl" 2>>"$work/real-$fs.err" ||
		echo \$? >"$work/real-$fs.rc"
	ms=\$((ms + (\$(date +%s%N) - start) / 1000000))
	umount /tmp/$fs
else
	echo 1 >"$work/real-$fs.rc"
fi
EOF
		done
		echo "echo \$ms >\"$work/real-$fs.ms\""
	done
	uml_init_tail
} >"$work/init"
chmod +x "$work/init"

if ! uml_run "$kernel" "$work" "$work/init" "$log" "$timeout" iomapsim-batch; then
	echo "$prog: UML ($kernel) did not finish within ${timeout}s; killed; console log: $log" >&2
	exit 1
fi
rc=0
for fs in ${fss//,/ }; do
	for f in jsonl err ms; do
		[ ! -f "$work/real-$fs.$f" ] || mv "$work/real-$fs.$f" "$outdir/"
	done
	r=$(cat "$work/real-$fs.rc" 2>/dev/null || echo none)
	if [ "$r" != 0 ]; then
		echo "$prog: $fs: real_batch exit $r; $outdir/real-$fs.err, console log $log" >&2
		rc=1
		continue
	fi
	n=$(wc -l <"$outdir/real-$fs.jsonl")
	ms=$(cat "$outdir/real-$fs.ms")
	echo "$prog: $fs: $n answers in $((ms / 1000)).$((ms % 1000 / 100)) s" >&2
done
echo "$prog: UML $("$kernel" --version 2>/dev/null | head -n 1), boot to halt in $((uml_ms / 1000)).$((uml_ms % 1000 / 100)) s" >&2
exit $rc
