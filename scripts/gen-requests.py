#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write a deterministic stream of `iomapsim run` requests, one per line, for
`iomapsim batch` (scripts/tree-diff.sh feeds the same stream to two builds).

    scripts/gen-requests.py [--count N] [--seed S] [--replay BIN] > requests.txt

Three parts, each headed by a comment line:
  1. a full grid over the request's core dimensions: read/write, lengths
     around the logical block and page sizes, aligned and misaligned
     positions and buffers, every iterator type, sync and async;
  2. every value of every other dimension (extent map shape and flag, IOCB_*
     and IOMAP_DIO_* flag, dio ops, iomap mode, fault kind, completion policy
     and seed, device cache, mount switches) crossed with a slice of the
     core grid, so that each one meets reads and writes, sync and async,
     aligned and not;
  3. random combinations of all dimensions (seeded), up to --count lines in
     all (default 100000).
With --replay BIN (a build's fuzz/fuzz_replay_dio), the fuzz seed corpus
and the regression inputs are appended, as the command lines that replay
them.  The same arguments always give the same lines, in the same order.
"""
import argparse
import itertools
import os
import random
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (fs block, logical block, i_size): the default first
GEOMS = [(4096, 512, 1048576), (4096, 4096, 1048576), (1024, 512, 262144),
         (65536, 4096, 1048576), (2048, 512, 61440)]
OPS = ["read", "write"]
LENS = [512, 1024, 2048, 4096, 8192, 16384, 65536, 1048576, 100, 4095]
POSS = [0, 512, 4096, 8192, 100, 4095, 65536]
BUFS = [0, 512, 2048, 1, 8, 100]
ITERS = ["ubuf", "iovec:1", "iovec:2", "iovec:3", "kvec", "bvec"]
ASYNC = [False, True]

FILE_EDGES = ["eof", "past-eof", "straddle-eof"]
MAPS = [
    [],
    ["hole:0:S"],
    ["unwritten:0:S"],
    ["mapped:0:S:new"],
    ["mapped:0:S:shared"],
    ["mapped:0:S:dirty"],
    ["mapped:0:S:integrity"],
    ["unwritten:0:S:new"],
    ["delalloc:0:S"],
    ["mapped:0:S:stale"],
    ["mapped:0:H", "hole:H:H", "unwritten:S2:H"],
    ["hole:0:H", "mapped:H:H", "mapped:S2:H:new"],
    ["unwritten:0:H", "mapped:H:H:dirty", "hole:S2:H"],
]
IOCBS = ["NOWAIT", "HIPRI", "DSYNC", "SYNC", "ATOMIC", "NOWAIT,HIPRI",
         "DSYNC,HIPRI"]
DIOFLAGS = ["FORCE_WAIT", "OVERWRITE_ONLY", "PARTIAL", "FSBLOCK_ALIGNED",
            "BOUNCE", "NO_IOMAP_END", "FORCE_WAIT,PARTIAL"]
DOPS = ["none", "end_io", "submit_io", "bio_set"]
MODES = ["ops", "next", "begin"]
FAULTS = ["bio-error:1", "bio-error:1:IOERR", "bio-error:2:AGAIN",
          "bio-error:1:NOTSUPP", "alloc-fail:1", "alloc-fail:2",
          "alloc-fail:3", "short-pin:1:0", "short-pin:1:512",
          "short-pin:2:2048", "begin-error:EIO", "begin-error:ENOSPC:2",
          "begin-error:EAGAIN"]
COMPLETES = [("irq", 1), ("inline", 1), ("deferred", 1), ("random", 1),
             ("random", 2), ("random", 3), ("random", 7)]
SWITCHES = ["--no-simple", "--no-simple-mount", "--encrypted",
            "--write-cache", "--write-cache --fua", "--done-before 4096"]


def geom_opts(g):
    fsb, lbs, size = g
    out = []
    if fsb != 4096:
        out += ["--fs-block", str(fsb)]
    if lbs != 512:
        out += ["--lbs", str(lbs)]
    if size != 1048576:
        out += ["--size", str(size)]
    return out


def map_opts(shape, g):
    """A map shape over the file's blocks, rounded up to whole blocks."""
    fsb, _, size = g
    full = max(fsb, (size + fsb - 1) // fsb * fsb)
    half = max(fsb, full // 2 // fsb * fsb)
    out = []
    for m in shape:
        m = m.replace("S2", str(2 * half)).replace("S", str(full))
        m = m.replace("H", str(half))
        out += ["--map", m]
    if len(shape) == 3:
        # three extents of half the file each: size the file to fit them
        out += ["--size", str(3 * half)]
    return out


def req(g, op, ln, pos, buf, it, asy, extra=()):
    words = geom_opts(g) + ["--op", op, "--pos", str(pos), "--len", str(ln),
                            "--iter", it]
    if buf:
        words += ["--buf-offset", str(buf)]
    if asy:
        words.append("--async")
    words += list(extra)
    return " ".join(words)


def edge_pos(g, edge, ln):
    size = g[2]
    if edge == "eof":
        return max(0, size - ln)
    if edge == "past-eof":
        return size + g[0]
    return max(0, size - ln // 2)


def core(geoms):
    for g, op, ln, pos, buf, it, asy in itertools.product(
            geoms, OPS, LENS, POSS, BUFS, ITERS, ASYNC):
        yield req(g, op, ln, pos, buf, it, asy)


def features():
    g0 = GEOMS[0]
    # the slice of the core grid each feature value meets
    slice_ = list(itertools.product(OPS, [512, 4096, 16384, 100],
                                    [0, 4096, 100], [0, 8],
                                    ["ubuf", "iovec:2"], ASYNC))
    values = []
    for shape in MAPS:
        values.append(("map", shape))
    for f in IOCBS:
        values.append(("opt", ["--iocb", f]))
    for f in DIOFLAGS:
        values.append(("opt", ["--dio-flags", f]))
    for d in DOPS[1:]:
        values.append(("opt", ["--dops", d]))
    for m in MODES[1:]:
        values.append(("opt", ["--iomap", m]))
    for f in FAULTS:
        values.append(("opt", ["--fault", f]))
    for c, s in COMPLETES:
        values.append(("opt", ["--complete", c, "--seed", str(s)]))
    for s in SWITCHES:
        values.append(("opt", s.split()))
    for kind, v in values:
        for g in GEOMS:
            for op, ln, pos, buf, it, asy in slice_:
                if g != g0 and (buf or it != "ubuf"):
                    continue
                if kind == "map" and any(":stale" in m for m in v) and (
                        buf or pos % 4096 or ln % 4096):
                    continue
                extra = map_opts(v, g) if kind == "map" else v
                yield req(g, op, ln, pos, buf, it, asy, extra)
    for g in GEOMS:
        for edge, op, ln, asy in itertools.product(
                FILE_EDGES, OPS, [512, 4096, 8192, 100], ASYNC):
            yield req(g, op, ln, edge_pos(g, edge, ln), 0, "ubuf", asy)


def random_one(rnd):
    g = rnd.choice(GEOMS)
    extra = []
    shape = []
    if rnd.random() < 0.4:
        # never a stale mapping here: IOMAP_F_STALE from ->iomap_begin is a
        # file system bug by contract, and combined with anything that
        # stops a mapping's progress (a fault, a misaligned buffer) it
        # livelocks iomap_iter() as in the kernel (fuzz_dio.c, stale_map());
        # part 2 has it against aligned requests, which make progress
        shape = rnd.choice([m for m in MAPS[1:] if not any(
            ":stale" in e for e in m)])
        extra += map_opts(shape, g)
    for values, opt, p in ((IOCBS, "--iocb", 0.3),
                           (DIOFLAGS, "--dio-flags", 0.2),
                           (DOPS[1:], "--dops", 0.2),
                           (MODES[1:], "--iomap", 0.15)):
        if rnd.random() < p:
            extra += [opt, rnd.choice(values)]
    for _ in range(rnd.choice([0, 0, 0, 1, 2])):
        extra += ["--fault", rnd.choice(FAULTS)]
    if rnd.random() < 0.5:
        c, s = rnd.choice(COMPLETES)
        extra += ["--complete", c, "--seed", str(rnd.randrange(1, 64))]
    if rnd.random() < 0.25:
        extra += rnd.choice(SWITCHES).split()
    ln = rnd.choice(LENS)
    pos = rnd.choice(POSS + [edge_pos(g, e, ln) for e in FILE_EDGES])
    return req(g, rnd.choice(OPS), ln, pos, rnd.choice(BUFS),
               rnd.choice(ITERS), rnd.choice(ASYNC), extra)


def replayed(binary):
    out = []
    for d in ("corpus/dio", "regressions/dio"):
        path = os.path.join(TOP, "fuzz", d)
        if not os.path.isdir(path):
            continue
        res = subprocess.run([binary, "--print", path], check=True,
                             capture_output=True, text=True)
        for line in res.stdout.splitlines():
            _, _, cmd = line.partition(": iomapsim run ")
            if cmd:
                out.append(cmd)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100000,
                    help="lines of parts 1-3 in all (default 100000)")
    ap.add_argument("--seed", type=int, default=1,
                    help="seed of part 3's random combinations (1)")
    ap.add_argument("--replay", metavar="BIN",
                    help="fuzz_replay_dio: append the fuzz corpus and regressions")
    args = ap.parse_args()
    if args.count < 1:
        ap.error("--count must be at least 1")

    seen = set()
    written = 0
    out = sys.stdout

    def emit(line):
        nonlocal written
        if written >= args.count or line in seen:
            return
        seen.add(line)
        out.write(line + "\n")
        written += 1

    out.write("# 1. core grid\n")
    for line in core(GEOMS[:1]):
        emit(line)
    out.write("# 2. every other dimension's values against a slice of it\n")
    for line in features():
        emit(line)
    out.write("# 3. random combinations, seed %d\n" % args.seed)
    rnd = random.Random(args.seed)
    tries = 0
    while written < args.count and tries < 20 * args.count:
        emit(random_one(rnd))
        tries += 1
    if args.replay:
        out.write("# 4. fuzz corpus and regression inputs\n")
        for line in replayed(args.replay):
            out.write(line + "\n")


if __name__ == "__main__":
    main()
