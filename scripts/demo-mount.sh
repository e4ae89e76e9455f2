#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The FUSE mount in one go: mount the default image, run a short O_DIRECT
# workload against it from this (separate) process, print what the
# simulated stack did, and leave the mount for you to use.
#
#   scripts/demo-mount.sh BUILD_DIR [MOUNTPOINT]
#
# MOUNTPOINT defaults to $IOMAPSIM_MNT or /tmp/iomapsim.  Needs root and
# /dev/fuse.  The image is $IOMAPSIM_IMAGE or ~/.cache/iomapsim/default.img.
set -euo pipefail

build=${1:?usage: $0 BUILD_DIR [MOUNTPOINT]}
mnt=${2:-${IOMAPSIM_MNT:-/tmp/iomapsim}}
bin=$build/iomapsim
[ -x "$bin" ] || { echo "demo: no $bin (build first)" >&2; exit 1; }
[ -e /dev/fuse ] || { echo "demo: no /dev/fuse on this machine" >&2; exit 1; }

# Print a command, then run it: the workload is meant to be read.
run() {
	printf '\n$ %s\n' "$*"
	"$@"
}

mkdir -p "$mnt"
if grep -q " $(realpath "$mnt") fuse.iomapsim " /proc/mounts; then
	echo "demo: $mnt is already an iomapsim mount; using it"
else
	run "$bin" mount "$mnt"
fi
ctl=$mnt/.iomapsim
echo reset >"$ctl/stats"

echo
echo "== O_DIRECT I/O from this shell (a separate process from the daemon)"
run dd if=/dev/urandom of="$mnt/demo.dat" bs=1M count=8 oflag=direct status=none
run dd if="$mnt/demo.dat" of=/dev/null bs=4k count=256 iflag=direct status=none
run dd if="$mnt/demo.dat" of=/dev/null bs=8k count=64 iflag=direct status=none
python3 - "$mnt" <<'EOF'
import os, sys
p = os.path.join(sys.argv[1], "demo.enc")
fd = os.open(p, os.O_RDWR | os.O_CREAT | os.O_DIRECT, 0o644)
os.close(fd)
os.setxattr(p, "user.iomapsim.encrypted", b"1")
print("$ setfattr -n user.iomapsim.encrypted -v 1", p, " (via python)")
EOF
run dd if=/dev/zero of="$mnt/demo.enc" bs=4k count=16 oflag=direct status=none
run dd if="$mnt/demo.enc" of=/dev/null bs=4k count=16 iflag=direct status=none
echo
echo "== a device error, injected through the control file"
run sh -c "echo bio-error:1:IOERR:read > $ctl/fault"
if dd if="$mnt/demo.dat" of=/dev/null bs=4k count=1 iflag=direct status=none; then
	echo "(unexpected: no error)"
else
	echo "(EIO, as the injected BLK_STS_IOERR should give)"
fi
echo clear >"$ctl/fault"
if command -v fio >/dev/null; then
	printf '\n$ fio --name=demo --filename=%s --direct=1 --rw=randread --bs=4k --ioengine=io_uring --iodepth=16 --runtime=2 --time_based\n' "$mnt/demo.dat"
	fio --name=demo --filename="$mnt/demo.dat" --direct=1 \
		--rw=randread --bs=4k --ioengine=io_uring --iodepth=16 \
		--runtime=2 --time_based --output-format=json |
		python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]["read"]; print("fio: %d IOPS, mean latency %.0f us" % (j["iops"], j["clat_ns"]["mean"] / 1000))'
fi

echo
echo "== what the stack did (iomapsim stats $mnt, selected counters)"
"$bin" stats "$mnt" | grep -E '^(# |iomap_simple_hits|iomap_simple_fallback_|iomap_dio_punted|iomap_dio_queued|bio_alloc |bio_submit |bio_cache_hit|bio_cache_miss|simfs_unwritten_converted|simfs_iomap_alloc|device_read_bios|device_write_bios|device_error_bios|fuse_reply_from_completion)' || true
echo
echo "All counters: $bin stats $mnt   (or cat $ctl/stats)"
echo "Recent events: tail $ctl/trace"
echo "The mount stays up for you.  Unmount with: fusermount3 -u $mnt"
