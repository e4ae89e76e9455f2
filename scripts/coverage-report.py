#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Figures from a gcovr JSON report, and the unreachable-line check.

usage: scripts/coverage-report.py COVERAGE.json UNREACHABLE.txt

Prints line and branch coverage of iomap/direct-io.c, iomap/iter.c and
iomap/direct-io-next.c (the ->iomap_next proposal), and of block/ and
sim/ (and their parts) as totals.  Then checks UNREACHABLE.txt
(docs/coverage-unreachable.txt): every line of the three files that no
run executed must be listed there with the reason it cannot be, and
every listed line must still be one that is not executed.
A line is named by its file, the function it is in, its text (blanks
collapsed) and, when that text occurs more than once in the function,
which occurrence (#2, #3, ...), so the list survives edits elsewhere in
the file.  Exits 1 when a line is missing from the list or a listed line
is executed (or gone).
"""
import json
import os
import re
import sys

CHECKED = ("iomap/direct-io.c", "iomap/iter.c", "iomap/direct-io-next.c")
GROUPS = ("iomap/", "block/", "sim/kernel/", "sim/testfs/", "sim/simfs/",
          "sim/fuse/", "sim/cli/", "sim/")


def figures(lines):
    """(lines executed, lines, branches taken, branches)"""
    code = [ln for ln in lines if not ln["gcovr/noncode"] and
            not ln["gcovr/excluded"]]
    br = [b for ln in code for b in ln["branches"]]
    return (sum(1 for ln in code if ln["count"] > 0), len(code),
            sum(1 for b in br if b["count"] > 0), len(br))


def pct(a, b):
    return f"{100.0 * a / b:5.1f}%" if b else "   - "


def row(name, f):
    return (f"{name:<24} lines {f[0]:6d}/{f[1]:<6d} {pct(f[0], f[1])}   "
            f"branches {f[2]:6d}/{f[3]:<6d} {pct(f[2], f[3])}")


FUNC = re.compile(r"^(?:[A-Za-z_][\w \t*]*?[ \t*])?([A-Za-z_]\w*)\(")


def keys_of(path, source):
    """line number -> "file | function | text[#n]" for every line.

    A function starts at a line that begins, in column 0, with a
    declaration whose first "(" follows its name and that does not end
    with ";" (kernel style puts nothing else there).
    """
    seen, keys, func = {}, {}, "(file)"
    for no, line in enumerate(source.split("\n"), 1):
        m = FUNC.match(line)
        if m and not line.rstrip().endswith(";"):
            func = m.group(1)
        t = re.sub(r"\s+", " ", line).strip()
        n = seen.get((func, t), 0) + 1
        seen[(func, t)] = n
        keys[no] = f"{path} | {func} | {t}" + (f" #{n}" if n > 1 else "")
    return keys


def read_list(path):
    """key -> reason"""
    listed = {}
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ")]
            if len(parts) != 4 or not parts[3]:
                sys.exit(f"{path}: not 'file | function | line | reason': "
                         f"{line}")
            listed[" | ".join(parts[:3])] = parts[3]
    return listed


def main():
    report, unreachable = sys.argv[1], sys.argv[2]
    with open(report) as f:
        files = {e["file"]: e for e in json.load(f)["files"]}
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    print("coverage (gcov, lines and branches):")
    for path in CHECKED:
        if path in files:
            print("  " + row(path, figures(files[path]["lines"])))
    for group in GROUPS:
        lines = [ln for p, e in files.items() if p.startswith(group)
                 for ln in e["lines"]]
        if lines:
            print("  " + row(group, figures(lines)))

    listed = read_list(unreachable)
    missing, stale, excused = [], set(listed), 0
    for path in CHECKED:
        if path not in files:
            print(f"coverage: {path} not in the report")
            return 1
        with open(os.path.join(top, path)) as f:
            keys = keys_of(path, f.read())
        code = [ln for ln in files[path]["lines"]
                if not ln["gcovr/noncode"] and not ln["gcovr/excluded"]]
        for ln in code:
            key = keys[ln["line_number"]]
            if ln["count"] > 0:
                continue
            if key in listed:
                stale.discard(key)
                excused += 1
            else:
                missing.append(f"{key} | (line {ln['line_number']}: why "
                               f"can it not run?)")
        done, total = sum(1 for ln in code if ln["count"] > 0), len(code)
        unlisted = total - sum(1 for ln in code if ln["count"] == 0 and
                               keys[ln["line_number"]] in listed)
        print(f"  {path}: {done} of the {unlisted} lines not listed as "
              f"unreachable executed ({pct(done, unlisted).strip()})")
    print(f"  {excused} line(s) listed as unreachable in "
          f"{os.path.relpath(unreachable, top)}")
    for m in missing:
        print("not executed and not listed: " + m)
    for s in sorted(stale):
        print("listed but executed (or gone): " + s)
    return 1 if missing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
