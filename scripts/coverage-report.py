#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Figures from a gcovr JSON report, the unreachable-line check, and the
function-by-function report of a kernel tree.

usage: scripts/coverage-report.py COVERAGE.json UNREACHABLE.txt
       scripts/coverage-report.py --functions [--tree PATH --build DIR]
                                  COVERAGE.json UNREACHABLE.txt

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

--functions reports function by function, as gcov lists the functions of
the file: each one's call count and line coverage (its lines run from
the line gcov gives it to its closing brace in column 0), then the
functions never entered.  With --tree PATH --build DIR (kernel-source
mode) the files are the tree's fs/iomap/direct-io.c and fs/iomap/iter.c;
gcov names each after the byte-for-byte copy the build compiled
(DIR/ksrc/fs/iomap/..., see cmake/kernel-tree.cmake), or after the tree's
own file, and the report maps either back to the tree's.  Without --tree
they are the embedded iomap/direct-io.c, iter.c and direct-io-next.c.
Line numbers differ from tree to tree, so the check is by function: a
function never entered must be listed in UNREACHABLE.txt as
"fs/iomap/FILE | function | reason" (iomap/FILE for the embedded copy);
exits 1 when one is not, or when a listed function was entered.
"""
import json
import os
import re
import sys

CHECKED = ("iomap/direct-io.c", "iomap/iter.c", "iomap/direct-io-next.c")
GROUPS = ("iomap/", "block/", "sim/kernel/", "fs/testfs/", "fs/simfs/",
          "tools/fuse/", "tools/cli/", "sim/")


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
    """(line key -> reason, "file | function" -> reason)

    An entry of three fields names a function that no run enters, one of
    four a line that no run executes.
    """
    listed, funcs = {}, {}
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ")]
            if len(parts) == 3 and parts[2]:
                funcs[" | ".join(parts[:2])] = parts[2]
            elif len(parts) == 4 and parts[3]:
                listed[" | ".join(parts[:3])] = parts[3]
            else:
                sys.exit(f"{path}: neither 'file | function | line | "
                         f"reason' nor 'file | function | reason': {line}")
    return listed, funcs


def print_groups(files):
    for group in GROUPS:
        lines = [ln for p, e in files.items() if p.startswith(group)
                 for ln in e["lines"]]
        if lines:
            print("  " + row(group, figures(lines)))


def extent(source, start):
    """the lines of the function gcov places at line start: up to its
    closing brace in column 0 (kernel style)"""
    lines = source.split("\n")
    for no in range(start, len(lines) + 1):
        if lines[no - 1].rstrip() == "}":
            return start, no
    return start, len(lines)


def function_rows(entry, source):
    """(function, calls, lines executed, lines) for each function gcov
    lists in the file, in the order of the file"""
    code = [ln for ln in entry["lines"] if not ln["gcovr/noncode"] and
            not ln["gcovr/excluded"]]
    out = []
    for fn in sorted(entry.get("functions", []), key=lambda f: f["lineno"]):
        first, last = extent(source, fn["lineno"])
        mine = [ln for ln in code if first <= ln["line_number"] <= last]
        out.append((fn["name"], fn["execution_count"],
                    sum(1 for ln in mine if ln["count"] > 0), len(mine)))
    return out


def functions_main(args):
    """--functions [--tree PATH --build DIR] COVERAGE.json UNREACHABLE.txt"""
    tree = build = None
    while args and args[0].startswith("--"):
        if args[0] == "--tree" and len(args) > 1:
            tree = os.path.abspath(args[1])
        elif args[0] == "--build" and len(args) > 1:
            build = os.path.abspath(args[1])
        else:
            sys.exit(__doc__)
        args = args[2:]
    if len(args) != 2 or (tree is None) != (build is None):
        sys.exit(__doc__)
    report, unreachable = args
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(report) as f:
        files = {os.path.normpath(os.path.join(top, e["file"])): e
                 for e in json.load(f)["files"]}

    # (name in the report and the allow list, the file gcov saw, the
    # source to read the function extents from)
    if tree:
        wanted = []
        for rel in ("fs/iomap/direct-io.c", "fs/iomap/iter.c"):
            own = os.path.join(tree, rel)
            seen = [p for p in (os.path.join(build, "ksrc", rel), own)
                    if p in files]
            if not seen:
                print(f"coverage: neither {build}/ksrc/{rel} nor {own} "
                      f"is in the report")
                return 1
            with open(seen[0], "rb") as a, open(own, "rb") as b:
                if a.read() != b.read():
                    print(f"coverage: {seen[0]} is not the tree's {own} "
                          f"(a stale build?)")
                    return 1
            wanted.append((rel, seen[0], own))
        print(f"coverage of the kernel tree {tree}:")
    else:
        wanted = [(p, os.path.join(top, p), os.path.join(top, p))
                  for p in CHECKED]
        print("functions of the embedded copy:")

    # the embedded copy's figures came with the line check
    for rel, seen, own in wanted if tree else []:
        print("  " + row(rel, figures(files[seen]["lines"])))
        if seen != own:
            print(f"    (gcov's name: {os.path.relpath(seen, top)})")
    if tree:
        print_groups({os.path.relpath(p, top): e for p, e in files.items()})

    _, allowed = read_list(unreachable)
    never, listed_entered, n_all, n_entered = [], [], 0, 0
    for rel, seen, source_path in wanted:
        with open(source_path) as f:
            source = f.read()
        rows = function_rows(files[seen], source)
        print(f"{rel}: {sum(1 for r in rows if r[1] > 0)} of {len(rows)} "
              f"functions entered")
        print(f"  {'function':<34} {'calls':>10} {'lines':>11}")
        for name, calls, done, total in rows:
            print(f"  {name:<34} {calls:10d} {done:5d}/{total:<5d} "
                  f"{pct(done, total)}")
            key = f"{rel} | {name}"
            n_all += 1
            if calls > 0:
                n_entered += 1
                if key in allowed:
                    listed_entered.append(key)
            else:
                never.append(key)
    print(f"functions entered: {n_entered} of {n_all}")
    print("functions never entered:" + ("" if never else " none"))
    unexplained = []
    for key in never:
        if key in allowed:
            print(f"  {key} (listed: {allowed[key]})")
        else:
            print(f"  {key}")
            unexplained.append(key)
    for key in unexplained:
        print(f"never entered and not listed in "
              f"{os.path.relpath(unreachable, top)}: {key}")
    for key in listed_entered:
        print(f"listed as never entered but entered: {key}")
    return 1 if unexplained or listed_entered else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--functions":
        return functions_main(sys.argv[2:])
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    report, unreachable = sys.argv[1], sys.argv[2]
    with open(report) as f:
        files = {e["file"]: e for e in json.load(f)["files"]}
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    print("coverage (gcov, lines and branches):")
    for path in CHECKED:
        if path in files:
            print("  " + row(path, figures(files[path]["lines"])))
    print_groups(files)

    listed, _ = read_list(unreachable)
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
