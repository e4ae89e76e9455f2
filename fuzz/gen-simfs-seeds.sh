#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fuzz/gen-simfs-seeds.sh IOMAPSIM [OUTDIR]: the seed corpus of
# fuzz_simfs_image, from real images.  For each block size it makes a
# 2 MiB image with `iomapsim mkfs`, mounts it through FUSE, runs a small
# workload (directories, inline and extent files, direct and buffered
# writes, holes, unwritten extents, xattrs, renames, unlinks), unmounts,
# and writes the committed superblock and metadata copy as fuzz inputs
# (one with the RESEAL mode bit, one without), and a third seed in the
# state a crash leaves when extending writes' blocks reached the disk but
# their sizes did not (F-01): i_size cut below the written extents.
# Needs root and /dev/fuse.  OUTDIR defaults to fuzz/corpus/simfs_image.
#
# gen-simfs-seeds.sh --cut-short SEED... writes only that third kind,
# from seeds already made (RESEAL ones), into OUTDIR as well.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

# A RESEAL seed with each written file's i_size cut: the first such file
# to 0, the next inside its first block, the next inside its second,
# and so on (the harness reseals); a new workload seed.
cut_short() {	# seed file, outdir
	python3 - "$1" "$2" <<'PY'
import hashlib, os, struct, sys
src, out = sys.argv[1], sys.argv[2]
d = bytearray(open(src, "rb").read())
assert d[0] & 1, "not a RESEAL seed"
bs = struct.unpack_from("<I", d, 16 + 12)[0]
meta = 16 + 256
off, k = meta + 64, 0
for _ in range(struct.unpack_from("<Q", d, meta + 16)[0]):
    mode, = struct.unpack_from("<I", d, off + 8)
    size, = struct.unpack_from("<Q", d, off + 24)
    ne, il, nd, nx = struct.unpack_from("<IIII", d, off + 68)
    ext = off + 88
    written = any(not struct.unpack_from("<I", d, ext + 24 * i + 20)[0] & 1
                  for i in range(ne))
    cut = [0, 100, bs + 1000][k % 3]
    if mode & 0o170000 == 0o100000 and written and cut < size:
        struct.pack_into("<Q", d, off + 24, cut)
        k += 1
    off = ext + 24 * ne + ((il + 7) & ~7)
    for _ in range(nd):
        off += 16 + ((struct.unpack_from("<H", d, off + 8)[0] + 7) & ~7)
    for _ in range(nx):
        nl, vl = struct.unpack_from("<H2xI", d, off)
        off += 8 + ((nl + vl + 7) & ~7)
assert k, "no written file to cut"
d[1] = 31
d[4] ^= 0x33
name = hashlib.sha1(d).hexdigest()
open(os.path.join(out, name), "wb").write(d)
print(f"{name}: {k} files cut short")
PY
}

if [ "${1:-}" = --cut-short ]; then
	shift
	for f; do
		cut_short "$f" "$(dirname "$f")"
	done
	exit 0
fi
bin=$(realpath "$1")
out=${2:-$top/fuzz/corpus/simfs_image}
tmp=$(mktemp -d /var/tmp/simfs-seeds.XXXXXX)
mnt=$tmp/mnt
mkdir -p "$out" "$mnt"
cleanup() {
	mountpoint -q "$mnt" && fusermount3 -u "$mnt"
	rm -rf "$tmp"
}
trap cleanup EXIT

extract() {	# image, mode, seed byte
	python3 - "$1" "$2" "$3" "$out" <<'PY'
import hashlib, os, struct, sys
img, mode, seed, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
d = open(img, "rb").read()
best = None
for bs in (512, 1024, 2048, 4096, 8192, 16384, 32768, 65536):
    for slot in (0, 1):
        sb = d[slot * bs:slot * bs + 256]
        if sb[:8] != b"IOMAPSFS" or struct.unpack_from("<I", sb, 12)[0] != bs:
            continue
        gen = struct.unpack_from("<Q", sb, 56)[0]
        if best is None or gen > best[0]:
            best = (gen, sb, bs)
gen, sb, bs = best
meta_start, meta_blocks = struct.unpack_from("<QQ", sb, 32)
meta_len = struct.unpack_from("<Q", sb, 64)[0]
area = (meta_start + (gen & 1) * meta_blocks) * bs
meta = d[area:area + meta_len]
hdr = bytes([mode, 24, 0, 0, seed, seed ^ 0x5a, 0, 0]) + bytes(8)
blob = hdr + sb + meta
name = hashlib.sha1(blob).hexdigest()
open(os.path.join(out, name), "wb").write(blob)
print(f"{name}: bs {bs}, generation {gen}, {meta_len}-byte copy")
PY
}

for bs in 512 1024 4096; do
	img=$tmp/img-$bs
	"$bin" mkfs --size 2m --block-size "$bs" "$img" >/dev/null
	extract "$img" 1 1
	"$bin" mount -o commit=0 "$img" "$mnt" >/dev/null
	mkdir -p "$mnt/d/e/f"
	printf 'fourteen bytes' >"$mnt/small"
	printf 'inline in a dir' >"$mnt/d/tiny"
	dd if=/dev/urandom of="$mnt/big" bs=4096 count=6 oflag=direct \
		status=none
	dd if=/dev/urandom of="$mnt/d/e/holey" bs=512 count=3 seek=40 \
		oflag=direct status=none
	fallocate -l 16384 "$mnt/d/unwritten"
	fallocate -o 8192 -l 8192 -n "$mnt/big"
	fallocate -p -o 4096 -l 4096 "$mnt/big"
	python3 -c 'import os, sys
os.setxattr(sys.argv[1], "user.note", b"hello")
os.setxattr(sys.argv[2], "user.iomapsim.dops", b"bio_set")' \
		"$mnt/small" "$mnt/big"
	truncate -s 100 "$mnt/d/e/f/grown"
	touch "$mnt/d/gone" "$mnt/d/e/moved"
	mv "$mnt/d/e/moved" "$mnt/d/f-renamed"
	rm "$mnt/d/gone"
	fusermount3 -u "$mnt"
	# fsck waits for the daemon's last commit (the image lock)
	"$bin" fsck -q "$img" >/dev/null
	extract "$img" 1 $((bs / 256)) >"$tmp/made"
	cat "$tmp/made"
	cut_short "$out/$(cut -d: -f1 "$tmp/made")" "$out"
	extract "$img" 0 7
done
