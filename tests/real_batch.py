#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tests/real/real-batch.c reads `iomapsim batch` lines as the simulator
does and marks what a real kernel cannot be given, without a kernel.

`real_batch --parse-only` answers each line: expressible, "unsupported"
with the reason's kind (counted apart by scripts/tree-diff.sh --real,
never compared), or "error" for options the simulator refuses too.
Checked: line numbers as `iomapsim batch` numbers them (comments and
blank lines counted, "iomapsim run" in front allowed), every option of
`iomapsim run` (tools/cli/run.c's run_opts) known, the kinds that are not
expressible, each line answered by one pass of uml-batch.sh's (one per
block size), and tree-diff-report.py --real on a made-up pair: the
shared keys compared, the marked lines counted apart, a difference by
design explained (R-02) and an unknown one reported UNEXPLAINED.

usage: real_batch.py BUILD_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# line -> expected answer: True (expressible), or ("unsupported"|"error",
# the start of the reason)
CASES = [
    ("# a comment", None),
    ("", None),
    ("--op read --pos 0 --len 4096", True),
    ("iomapsim run --op write --pos 4096 --len 8192 --iter iovec:2", True),
    ("--op read --iter iovec:100,3996@0 --buf-offset 8", True),
    ("--op read --async --iocb HIPRI,NOWAIT --no-poll", True),
    ("--op write --iocb DSYNC,SYNC --dops end_io", True),
    ("--op write --map mapped:0:4096 --map hole:4096:4096 "
     "--map unwritten:8192:8192 --size 16384", True),
    ("--op write --fault unmapped:4096 --len 8192", True),
    ("--op read --complete irq --seed 1 --fs-block 4096 --lbs 512", True),
    ("--op read --iter kvec", ("unsupported", "iterator")),
    ("--op read --iter bvec", ("unsupported", "iterator")),
    ("--op write --iter bvec --async --buf-offset 512", True),
    ("--op write --iter bvec --async --fault unmapped:0",
     ("unsupported", "unmapped registered buffer")),
    ("--op read --fault bio-error:1:IOERR", ("unsupported",
                                             "injected fault")),
    ("--op read --fault alloc-fail:2", ("unsupported", "injected fault")),
    ("--op read --map mapped:0:1048576:new", ("unsupported",
                                              "mapping flag")),
    ("--op read --map inline:0:100 --size 100", ("unsupported",
                                                 "extent type")),
    ("--op read --map hole:0:100", ("unsupported",
                                    "extent off the block size")),
    ("--op write --dops ioend", ("unsupported", "dio ops")),
    ("--op read --dio-flags PARTIAL", ("unsupported", "IOMAP_DIO flags")),
    ("--op write --iocb ATOMIC", ("unsupported", "iocb flag")),
    ("--op read --complete random --seed 1", ("unsupported",
                                              "completion policy")),
    ("--op read --seed 7", ("unsupported", "engine seed")),
    ("--op read --fs-block 1024", ("unsupported", "file system block")),
    ("--op read --lbs 4096", ("unsupported", "logical block")),
    ("--op read --iomap next", ("unsupported", "iomap mode")),
    ("--op read --encrypted", ("unsupported", "encrypted inode")),
    ("--op read --no-simple", ("unsupported", "simple-path switch")),
    ("--op write --write-cache --fua", ("unsupported",
                                        "device cache switch")),
    ("--op read --dma-alignment 3", ("unsupported", "DMA alignment mask")),
    ("--op read --done-before 4096", ("unsupported", "done before")),
    ("--op write --fault unmapped:100", ("unsupported",
                                         "unmapped offset off a page")),
    ("--op read --bogus", ("error", "unknown option")),
    ("--op sideways", ("error", "--op sideways")),
    ("--op read --iter iovec:100,100 --len 4096", ("error", "iovec")),
    ("--op read 'unterminated", ("error", "unterminated quote")),
]


def run_opts():
    """The long options of `iomapsim run` (tools/cli/run.c's run_opts
    table): [(name, "required" or "no")]."""
    with open(os.path.join(TOP, "tools", "cli", "run.c")) as f:
        text = f.read()
    table = text[text.index("run_opts[] = {"):]
    table = table[:table.index("\n};")]
    # { "name", "ARG" or NULL, ...: an entry's first line
    return [(name, "no" if arg == "NULL" else "required") for name, arg in
            re.findall(r'^\t\{ "([a-z-]+)", (NULL|")', table, re.M)]


def parse_only(prog, lines):
    r = subprocess.run([prog, "--parse-only"], input="\n".join(lines) + "\n",
                       capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("FAIL: real_batch --parse-only: exit %d: %s" %
                         (r.returncode, r.stderr))
    return [json.loads(x) for x in r.stdout.splitlines()]


def check_cases(prog):
    bad = 0
    out = {o["line"]: o for o in parse_only(prog, [c[0] for c in CASES])}
    for n, (line, want) in enumerate(CASES, 1):
        got = out.get(n)
        if want is None:
            if got is not None:
                print("FAIL: line %d (%r) answered: %s" % (n, line, got))
                bad += 1
            continue
        if want is True:
            ok = got == {"line": n, "expressible": True}
        else:
            ok = (got is not None and set(got) == {"line", want[0]} and
                  str(got[want[0]]).startswith(want[1]))
        if not ok:
            print("FAIL: line %d (%r): want %s, got %s" % (n, line, want,
                                                          got))
            bad += 1
    return bad


def check_options(prog):
    """No option of `iomapsim run` is unknown here."""
    bad = 0
    opts = run_opts()
    if len(opts) < 25:
        print("FAIL: found only %d options in tools/cli/run.c" % len(opts))
        return 1
    lines = []
    for name, arg in opts:
        if name == "help":
            continue
        lines.append("--%s%s" % (name, " 1" if arg == "required" else ""))
    for o, line in zip(parse_only(prog, lines), lines):
        if "unknown option" in str(o.get("error", "")):
            print("FAIL: %s: %s" % (line, o["error"]))
            bad += 1
    return bad


def check_passes(prog):
    """Each line answered by exactly one pass of scripts/uml-batch.sh:
    the 4 KiB one (--others) or the one of its block size (--only)."""
    lines = ["--op read --fs-block 1024", "--op read --fs-block 2048",
             "--op read --fs-block 65536", "--op read",
             "--op read --fs-block 1024 --seed 3"]
    seen = []
    for args in (["--block", "4096", "--others", "1024,2048"],
                 ["--block", "1024", "--only"],
                 ["--block", "2048", "--only"]):
        r = subprocess.run([prog, "--parse-only"] + args,
                           input="\n".join(lines) + "\n",
                           capture_output=True, text=True)
        seen += [json.loads(x) for x in r.stdout.splitlines()]
    want = [{"line": 3, "unsupported": "file system block: 65536"},
            {"line": 4, "expressible": True},
            {"line": 5, "unsupported": "engine seed: 3"},
            {"line": 1, "expressible": True},
            {"line": 2, "expressible": True}]
    if seen != want:
        print("FAIL: the block-size passes answered %s" % seen)
        return 1
    return 0


def check_report(tmp):
    """tree-diff-report.py --real on two made-up outcome files."""
    reqs = ["--op read --pos 0 --len 4096",
            "--op write --pos 0 --len 512 --iter iovec:2 --iocb NOWAIT",
            "--op read --iter kvec",
            "--op read --pos 8192 --len 4096"]
    sim = [{"ret": 4096, "ki_pos": 4096, "iter_count": 0, "data": "ok",
            "path": "generic", "bios": 1},
           {"ret": -22, "ki_pos": 0, "iter_count": 512, "data": "n/a",
            "bios": 0},
           {"ret": 4096, "ki_pos": 4096, "iter_count": 0, "data": "ok"},
           {"ret": 4096, "ki_pos": 12288, "iter_count": 0, "data": "ok"}]
    real = [{"ret": 4096, "ki_pos": 4096, "iter_count": 0, "data": "ok"},
            {"ret": -11, "ki_pos": 0, "iter_count": 512, "data": "n/a"},
            {"unsupported": "iterator: ITER_KVEC"},
            {"ret": 4096, "ki_pos": 12288, "iter_count": 0,
             "data": "mismatch"}]
    paths = [os.path.join(tmp, n) for n in ("r.txt", "s.jsonl", "k.jsonl")]
    with open(paths[0], "w") as f:
        f.write("".join(r + "\n" for r in reqs))
    for p, outs in ((paths[1], sim), (paths[2], real)):
        with open(p, "w") as f:
            for n, o in enumerate(outs, 1):
                f.write(json.dumps(dict({"line": n}, **o)) + "\n")
    r = subprocess.run([sys.executable,
                        os.path.join(TOP, "scripts", "tree-diff-report.py"),
                        "--json", "--real", "xfs"] + paths,
                       capture_output=True, text=True)
    if r.returncode != 1:
        print("FAIL: tree-diff-report.py --real: exit %d: %s" %
              (r.returncode, r.stderr))
        return 1
    res = json.loads(r.stdout)
    want = {"compared": 3, "identical": 1, "different": 2,
            "not_expressible": 1, "explained": 1, "unexplained": 1}
    got = {k: res.get(k) for k in want}
    if got != want:
        print("FAIL: tree-diff-report.py --real counts: %s" % got)
        return 1
    rules = [e["rules"] for g in res["groups"] if g["explanation"]
             for e in g["explanation"]["by"]]
    if rules != ["R-02"] or res["not_expressible_why"] != {
            "real cannot express: iterator": 1}:
        print("FAIL: tree-diff-report.py --real explained %s, counted "
              "apart %s" % (rules, res["not_expressible_why"]))
        return 1
    return 0


def main():
    prog = os.path.join(sys.argv[1], "real_batch")
    if not os.access(prog, os.X_OK):
        print("SKIP: no %s (cmake --build BUILD --target real_batch)" % prog)
        return 77
    bad = check_cases(prog) + check_options(prog) + check_passes(prog)
    with tempfile.TemporaryDirectory(prefix="iomapsim-real-") as tmp:
        bad += check_report(tmp)
    print("real_batch: %d request lines, %d options, %d problem(s)" %
          (len(CASES), len(run_opts()), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
