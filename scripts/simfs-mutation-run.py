#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""simfs-mutation-run.py IOMAPSIM [N] [SEED]: structurally corrupted images,
checksums made valid again, through the real fsck and the real FUSE mount.

A first such run found 61 images that fsck flagged, 46 of which mounted.  This
makes a populated image (mkfs, a FUSE mount, a workload), then N mutants of
its committed generation: a field of an inode, extent, directory entry,
xattr, the metadata header or the superblock set to an interesting value,
or random bits flipped in the copy.  Each mutant is resealed (m_len,
s_meta_len, s_meta_crc, the superblock crc recomputed), then:

  iomapsim fsck IMG      exit 0 clean, 4 damaged, 8 cannot check
  iomapsim mount IMG MNT must refuse exactly the images fsck does not call
                         clean, with fsck's first error; an image it
                         mounts is unmounted again and must stay clean.

Prints one line per disagreement and a summary; exits 1 on any.  Needs
root and /dev/fuse.
"""
import os, random, shutil, struct, subprocess, sys, tempfile

SB, HDR, DINODE, DEXT, DDIR, DXATTR = 256, 64, 88, 24, 16, 8


def crc32c(data, crc=0):
    # the Castagnoli polynomial, reflected, as simfs_crc32c()
    global _T
    try:
        t = _T
    except NameError:
        t = []
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
            t.append(c)
        _T = t
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def committed(img):
    """(superblock offset, block size, area offset, meta length)."""
    best = None
    for bs in (512, 1024, 2048, 4096, 8192, 16384, 32768, 65536):
        for slot in (0, 1):
            sb = img[slot * bs:slot * bs + SB]
            if sb[:8] != b"IOMAPSFS" or struct.unpack_from("<I", sb, 12)[0] != bs:
                continue
            gen = struct.unpack_from("<Q", sb, 56)[0]
            if best is None or gen > best[0]:
                best = (gen, slot * bs, bs)
    gen, sboff, bs = best
    start, blocks = struct.unpack_from("<QQ", img, sboff + 32)
    mlen = struct.unpack_from("<Q", img, sboff + 64)[0]
    return sboff, bs, (start + (gen & 1) * blocks) * bs, mlen


def fields(meta):
    """Every mutable field of the copy: (offset, size, what)."""
    out = [(16, 8, "m_nr_inodes"), (24, 8, "m_next_ino"), (40, 4, "m_block_size")]
    nr = struct.unpack_from("<Q", meta, 16)[0]
    off = HDR
    for _ in range(nr):
        names = ["i_ino", "i_mode", "i_nlink", "i_uid", "i_gid", "i_size",
                 "i_atime", "i_mtime", "i_ctime", "i_parent", "i_flags",
                 "i_nr_extents", "i_inline_len", "i_nr_dirents", "i_nr_xattrs"]
        sizes = [8, 4, 4, 4, 4, 8, 8, 8, 8, 8, 4, 4, 4, 4, 4]
        o = off
        for n, s in zip(names, sizes):
            out.append((o, s, n))
            o += s
        ne, il, nd, nx = struct.unpack_from("<IIII", meta, off + 68)
        off += DINODE
        for _ in range(ne):
            out += [(off, 8, "e_lblk"), (off + 8, 8, "e_pblk"),
                    (off + 16, 4, "e_len"), (off + 20, 4, "e_flags")]
            off += DEXT
        if il:
            out.append((off, 1, "inline byte"))
        off += (il + 7) & ~7
        for _ in range(nd):
            ln = struct.unpack_from("<H", meta, off + 8)[0]
            out += [(off, 8, "d_ino"), (off + 8, 2, "d_name_len"),
                    (off + 16, 1, "name byte"),
                    (off + 16 + ln - 1, 1, "name byte")]
            off += DDIR + ((ln + 7) & ~7)
        for _ in range(nx):
            nl, vl = struct.unpack_from("<H2xI", meta, off)
            out += [(off, 2, "x_name_len"), (off + 4, 4, "x_value_len"),
                    (off + 8, 1, "xattr name byte")]
            off += DXATTR + ((nl + vl + 7) & ~7)
    return out


# struct simfs_dsb (fs/simfs/format.h): offset, size, name
SB_FIELDS = [(8, 4, "s_version"), (12, 4, "s_block_size"), (16, 4, "s_lbs"),
             (20, 4, "s_io_opt"), (24, 8, "s_nr_blocks"),
             (32, 8, "s_meta_start"), (40, 8, "s_meta_blocks"),
             (48, 8, "s_data_start"), (56, 8, "s_generation"),
             (76, 4, "s_state"), (80, 4, "s_features"), (84, 4, "s_inline_max"),
             (88, 8, "s_mkfs_time"), (104, 1, "s_uuid byte"),
             (120, 1, "s_label byte"), (151, 1, "s_label's last byte"),
             (152, 1, "s_reserved byte")]


def interesting(rng, size, cur):
    top = (1 << (8 * size)) - 1
    pool = [0, 1, 2, 3, cur + 1, cur - 1 if cur else 1, top, top >> 1,
            rng.randrange(top + 1), cur ^ (1 << rng.randrange(8 * size))]
    if size == 8:
        pool += [1 << 62, (1 << 62) - 1, (1 << 62) + 1, 1 << 52, 5000]
    if size == 1:
        pool += [ord("/"), ord("."), 0]
    return pool[rng.randrange(len(pool))] & top


def mutate(rng, img, sboff, area, mlen):
    img = bytearray(img)
    meta = img[area:area + mlen]
    kind = rng.randrange(10)
    if kind < 7:
        o, s, what = rng.choice(fields(meta))
        cur = int.from_bytes(meta[o:o + s], "little")
        v = interesting(rng, s, cur)
        meta[o:o + s] = v.to_bytes(s, "little")
        desc = f"{what}@{o}: {cur} -> {v}"
    elif kind < 9:
        o = rng.randrange(HDR, mlen)
        b = rng.randrange(8)
        meta[o] ^= 1 << b
        desc = f"bit {b} of byte {o}"
    else:
        o, s, what = rng.choice(SB_FIELDS)
        cur = int.from_bytes(img[sboff + o:sboff + o + s], "little")
        v = interesting(rng, s, cur)
        img[sboff + o:sboff + o + s] = v.to_bytes(s, "little")
        desc = f"superblock {what}: {cur} -> {v}"
    if meta == img[area:area + mlen] and kind < 9:
        return None, desc
    # reseal: the checksums must not be what catches it
    img[area:area + mlen] = meta
    struct.pack_into("<Q", img, area + 32, mlen)
    struct.pack_into("<I", img, sboff + 72, crc32c(bytes(meta)))
    struct.pack_into("<I", img, sboff + 252, crc32c(bytes(img[sboff:sboff + 252])))
    return bytes(img), desc


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    return p.returncode, p.stdout


def main():
    bin_ = os.path.realpath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    rng = random.Random(seed)
    tmp = tempfile.mkdtemp(prefix="simfs-mutants.", dir="/var/tmp")
    mnt = os.path.join(tmp, "mnt")
    os.mkdir(mnt)
    base = os.path.join(tmp, "base.img")
    img = os.path.join(tmp, "m.img")
    try:
        subprocess.run([bin_, "mkfs", "--size", "16m", base], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([bin_, "mount", "-o", "commit=0", base, mnt], check=True,
                       stdout=subprocess.DEVNULL)
        os.makedirs(f"{mnt}/a/b/c")
        os.makedirs(f"{mnt}/d")
        for i, p in enumerate(["s1", "a/s2", "a/b/s3", "d/s4"]):
            with open(f"{mnt}/{p}", "w") as f:
                f.write("x" * (10 + i * 30))
        for p, size in [("big", 40960), ("a/b/c/mid", 8192), ("d/e", 4096)]:
            with open(f"{mnt}/{p}", "wb") as f:
                f.write(os.urandom(size))
        with open(f"{mnt}/holey", "wb") as f:
            f.seek(65536)
            f.write(b"end")
        os.setxattr(f"{mnt}/s1", "user.note", b"hello")
        os.truncate(f"{mnt}/d/e", 100000)
        subprocess.run(["fallocate", "-l", "16384", f"{mnt}/d/unwritten"],
                       check=True)
        subprocess.run(["fusermount3", "-u", mnt], check=True)
        rc, out = run([bin_, "fsck", base])  # waits for the last commit
        assert rc == 0, out
        pristine = open(base, "rb").read()
        sboff, bs, area, mlen = committed(pristine)

        tally = {"mutants": 0, "fsck rejects": 0, "mount refuses them": 0,
                 "fsck clean": 0, "mount accepts them": 0,
                 "clean after mount": 0}
        bad = 0
        while tally["mutants"] < n:
            mutant, desc = mutate(rng, pristine, sboff, area, mlen)
            if mutant is None:
                continue
            tally["mutants"] += 1
            with open(img, "wb") as f:
                f.write(mutant)
            frc, fout = run([bin_, "fsck", img])
            first = next((l[7:] for l in fout.splitlines()
                          if l.startswith("error: ")), None)
            mrc, mout = run([bin_, "mount", img, mnt])
            if mrc == 0:
                run(["fusermount3", "-u", mnt])
            if frc != 0:
                tally["fsck rejects"] += 1
                if mrc != 0 and (first is None or first in mout):
                    tally["mount refuses them"] += 1
                else:
                    bad += 1
                    print(f"DISAGREE {desc}: fsck {frc} ({first}), "
                          f"mount {mrc}: {mout.strip()}")
            else:
                tally["fsck clean"] += 1
                if mrc == 0:
                    tally["mount accepts them"] += 1
                    rc, out = run([bin_, "fsck", img])
                    if rc == 0:
                        tally["clean after mount"] += 1
                    else:
                        bad += 1
                        print(f"NOT CLEAN AFTER MOUNT {desc}: {out.strip()}")
                else:
                    bad += 1
                    print(f"DISAGREE {desc}: fsck clean, mount {mrc}: "
                          f"{mout.strip()}")
        print(f"seed {seed}: " + ", ".join(f"{k} {v}" for k, v in tally.items()))
        return 1 if bad else 0
    finally:
        if os.path.ismount(mnt):
            run(["fusermount3", "-u", mnt])
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
