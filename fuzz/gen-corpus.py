#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write the seed corpora under fuzz/corpus/<target>/.

    fuzz/gen-corpus.py [--check] [BUILD_DIR]

fuzz_iov_iter and fuzz_bio_pages: one seed per iterator type and
direction, with segment layouts and operation sequences that reach every
operation.  fuzz_dio: one seed per request the iomap and cli suites
run, captured at run time by the corpus tap (fuzz/dio_tap.c) and encoded
by the target's own codec (fuzz/dio_codec.c), so the byte layout is
defined in one place.  BUILD_DIR (default build-fz-gcc) is a configured non-fuzz
build where the tapped suites are built.

File names are the content's SHA-1 (as libFuzzer names corpus files), so
regenerating is idempotent and never duplicates a seed.  --check exits 1
if a seed is missing (CI: the corpus is in sync with the tests).
"""
import hashlib
import os
import glob
import re
import struct
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(TOP, "fuzz", "corpus")


def u8(v):
    return struct.pack("<B", v & 0xFF)


def u16(v):
    return struct.pack("<H", v & 0xFFFF)


# ---- fuzz_iov_iter ------------------------------------------------------

# header: type, dir, nr_segs, flags, trim(u16), base(u16)
IOV_TYPES = {"ubuf": 0, "iovec": 1, "kvec": 2, "bvec": 3, "discard": 4}
(OP_ADVANCE, OP_REVERT, OP_TRUNCATE, OP_REEXPAND, OP_COPY, OP_ZERO,
 OP_COPY_PAGE, OP_WRONG_DIR, OP_NPAGES, OP_ALIGNMENT, OP_IS_ALIGNED,
 OP_EXTRACT) = range(12)


def iov_seed(itype, direction, segs, flags=0, trim=0, base=0, ops=b""):
    """segs: list of (gap, len, bvec_pages_back)."""
    out = u8(IOV_TYPES[itype]) + u8(direction) + u8(max(len(segs), 1) - 1)
    out += u8(flags) + u16(trim) + u16(base)
    for gap, length, back in segs:
        out += u8(gap) + u16(length) + u8(back)
    return out + ops


def iov_ops_all():
    """Every operation once or twice, in an order that moves around."""
    ops = b""
    ops += u8(OP_NPAGES) + u16(300)
    ops += u8(OP_ALIGNMENT)
    ops += u8(OP_IS_ALIGNED) + u8(0x99)
    ops += u8(OP_COPY) + u16(700)
    ops += u8(OP_ADVANCE) + u16(5000)
    ops += u8(OP_REVERT) + u16(3000)
    ops += u8(OP_TRUNCATE) + u16(6000)
    ops += u8(OP_ZERO) + u16(1500)
    ops += u8(OP_REEXPAND) + u16(60000)
    ops += u8(OP_COPY_PAGE) + u16(5000) + u16(100)
    # extraction: own array, then allocated, short pin, failing alloc
    ops += u8(OP_EXTRACT) + u16(9000) + u8(3) + u8(1)
    ops += u8(OP_EXTRACT) + u16(20000) + u8(63) + u8(0)
    ops += u8(OP_EXTRACT) + u16(20000) + u8(8) + u8(5) + u16(1000)
    ops += u8(OP_EXTRACT) + u16(20000) + u8(8) + u8(2)
    ops += u8(OP_WRONG_DIR) + u16(10)
    ops += u8(OP_REVERT) + u16(65535)
    ops += u8(OP_NPAGES) + u16(2)
    ops += u8(OP_COPY) + u16(65535)
    return ops


def iov_seeds():
    layouts = {
        "one_page": [(0, 4096, 0)],
        "unaligned": [(17, 3000, 0), (255, 4096, 1), (3, 513, 0)],
        "empty_segs": [(0, 0, 0), (5, 1000, 0), (0, 0, 0), (0, 2048, 0),
                       (0, 0, 0)],
        "page_chain": [(255, 4096, 0), (255, 8192, 2), (255, 100, 0)],
        "many": [(i * 7 % 200, 300 + i * 411, i % 3) for i in range(16)],
    }
    seeds = []
    for itype in IOV_TYPES:
        for direction in (0, 1):
            if itype == "discard" and direction:
                continue
            for name, segs in layouts.items():
                if itype == "ubuf" and name not in ("one_page", "unaligned"):
                    continue
                seeds.append(iov_seed(itype, direction, segs, base=100,
                                      ops=iov_ops_all()))
                seeds.append(iov_seed(itype, direction, segs, flags=3,
                                      trim=777, ops=iov_ops_all()))
    return seeds


# ---- fuzz_bio_pages -----------------------------------------------------



def bio_seeds():
    """Seeds for fuzz_bio_pages (layout: see fuzz_bio_pages.c)."""
    def hdr(itype, direction, nsegs, mask_shift, nr_vecs, rounds=7,
            faults=0, pin_nth=0, pin_bytes=0, alloc_nth=0, base=0):
        return (u8(itype) + u8(direction) + u8(nsegs - 1) + u8(0) +
                u16(0) + u16(base) + u8(mask_shift) + u8(nr_vecs) +
                u8(rounds) + u8(faults) + u8(pin_nth) + u16(pin_bytes) +
                u8(alloc_nth))

    segs4 = [(0, 4096, 0), (255, 8192, 1), (3, 1000, 0), (0, 512, 0)]
    seeds = []
    for itype in range(4):
        for direction in (0, 1):
            for mask_shift in (0, 9, 12):
                for nr_vecs in (0, 1, 4, 16):
                    h = hdr(itype, direction, 4, mask_shift, nr_vecs,
                            base=512 if mask_shift else 77)
                    seeds.append(h + b"".join(u8(g) + u16(l) + u8(b)
                                              for g, l, b in segs4))
    # faults: short pin, failing pin, allocation failure in bio_alloc
    segs2 = [(0, 8192, 0), (255, 4096, 0)]
    for faults, pin in ((1, 700), (1, 0), (2, 0), (3, 4096)):
        h = hdr(1, 0, 2, 9, 2, faults=faults, pin_nth=1, pin_bytes=pin,
                alloc_nth=1)
        seeds.append(h + b"".join(u8(g) + u16(l) + u8(b)
                                  for g, l, b in segs2))
    return seeds


# ---- fuzz_dio -----------------------------------------------------------

PER_SUITE = 128


def dio_seeds(build):
    """Every request the iomap and cli suites run, encoded by the target's
    own codec: the suites are rebuilt with the corpus tap (fuzz/dio_tap.c,
    target fuzz_corpus_taps) and run once with IOMAPSIM_CORPUS_OUT set."""
    p = subprocess.run(["cmake", "--build", build, "-j2", "--target",
                        "fuzz_corpus_taps"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if p.returncode:
        sys.stderr.write(p.stdout.decode())
        raise SystemExit("gen-corpus: building the corpus taps failed")
    p = subprocess.run(["cmake", "--build", build, "-j2", "--target",
                        "tap_iomapsim"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if p.returncode:
        print("  tap_iomapsim does not build: the cli suites' requests "
              "skipped")
    taps = sorted(glob.glob(os.path.join(build, "fuzz", "tap_iomap_*")) +
                  glob.glob(os.path.join(build, "fuzz", "tap_cli_*")))
    if not taps:
        raise SystemExit("gen-corpus: no iomap or cli suites to tap")
    seeds = []
    for tap in taps:
        with tempfile.TemporaryDirectory() as out:
            # tests/cli_*.c run $IOMAPSIM_BIN/iomapsim: the tapped one
            env = dict(os.environ, IOMAPSIM_CORPUS_OUT=out, CK_FORK="no",
                       IOMAPSIM_SRC=TOP,
                       IOMAPSIM_BIN=os.path.join(build, "fuzz", "tapbin"))
            p = subprocess.run([tap], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
            skipped = p.stderr.decode().count("corpus tap: skipped")
            got = set()
            for name in os.listdir(out):
                with open(os.path.join(out, name), "rb") as f:
                    got.add(f.read())
        # A randomized property suite runs thousands of requests; a
        # sample of them seeds as well and keeps the replay quick.
        got = sorted(got, key=lambda b: hashlib.sha1(b).hexdigest())
        kept = got[:PER_SUITE]
        print("  %s: exit %d, %d distinct request(s), %d kept, %d not "
              "expressible" % (os.path.basename(tap), p.returncode,
                               len(got), len(kept), skipped))
        seeds += kept
    return seeds


def write(target, seeds, check):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    missing = 0
    for s in seeds:
        path = os.path.join(d, hashlib.sha1(s).hexdigest())
        if os.path.exists(path):
            continue
        missing += 1
        if not check:
            with open(path, "wb") as f:
                f.write(s)
    print("%s: %d seed(s), %d %s" % (target, len(seeds), missing,
                                     "missing" if check else "new"))
    return missing


def main():
    check = "--check" in sys.argv
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    build = args[0] if args else os.path.join(TOP, "build-fz-gcc")
    missing = write("iov_iter", iov_seeds(), check)
    missing += write("bio_pages", bio_seeds(), check)
    if os.path.exists(os.path.join(build, "CMakeCache.txt")):
        missing += write("dio", dio_seeds(build), check)
    else:
        print("dio: SKIP, %s is not a configured (gcc) build directory"
              % build)
    return 1 if check and missing else 0


if __name__ == "__main__":
    sys.exit(main())
