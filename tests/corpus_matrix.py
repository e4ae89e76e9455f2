#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tests/corpus_matrix.py [BUILD]: scripts/corpus-matrix.py's matrix from
the folders scripts/check-tree.sh leaves (BUILD, as for every tests/*_*.py,
is not needed: the script is found beside this file).

Lays out what check-corpus.sh would have after three trees (one clean with
a known bug and a CHANGED rule, one that did not build, one with the same
files as the first) and requires the Markdown row of each: its counts,
the fuzz and tree-diff cells, the findings carried, the twin marked as
such with its twin's counts; and the picture where matplotlib is there.
"""
import hashlib
import os
import subprocess
import sys
import tempfile

# Debian's python3 has python3-matplotlib (scripts/quickstart.sh deps)
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def check_dir(out, path):
    key = hashlib.sha256(path.encode()).hexdigest()[:8]
    return os.path.join(out, "checks", f"{os.path.basename(path)}-{key}")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_parts(d, verdicts):
    """d/parts.txt as check-tree.sh writes it: @verdicts, a (status,
    detail) for each of its parts in order."""
    parts = ("build", "suite", "fuzz_dio", "tree_diff")
    write(os.path.join(d, "parts.txt"),
          "".join(f"{status}\tcheck_tree\tpart\t{part}\t{detail}\n"
                  for part, (status, detail) in zip(parts, verdicts)))


def lay_out(out):
    a, b, c = "/corpus/tree-a", "/corpus/tree-b", "/corpus/tree-c"
    write(os.path.join(out, "trees.tsv"),
          f"tree-a\t{a}\t1111\t\ntree-b\t{b}\t2222\t\n"
          f"tree-c\t{c}\t1111\ttree-a\n")
    da = check_dir(out, a)
    write(os.path.join(da, "verdicts.txt"),
          "PASS\tiomap_x\tc\ttest_a\t\nPASS\tiomap_x\tc\ttest_b\t\n"
          "CHANGED\tiomap_x\tc\ttest_c\tG-51, G-61: punted\n"
          "NA\tiomap_y\tc\ttest_d\tno atomic writes\n"
          "KNOWN_BUG\tiomap_x\tc\ttest_e\tG-30: bug in the code "
          "(docs/findings/0001-tail-zeroing-replaces-error.md): iomapsim run ...\n")
    write_parts(da, [("PASS", "")] * 4)
    write(os.path.join(da, "tree-diff.txt"),
          "requests compared  10\nexplained 2, unexplained 0\n\n"
          "path \"simple\"->\"generic\": 7 requests\n"
          "  line 2: iomapsim run --op read\n"
          "ret bytes->-22: 3 requests\n  line 5: iomapsim run --op write\n")
    write(os.path.join(out, "pages", "tree-a.txt"),
          "iomapsim check of /corpus/tree-a\n  features: simple=none\n\n"
          "suite: 2 passed\n\nfuzz_dio: 1234567 inputs in 60s, cov: 1 ft: 2, "
          "no oracle failure\n")
    db = check_dir(out, b)
    write_parts(db, [("FAIL", "the tree does not build")] +
                [("SKIP", "not run")] * 3)
    write(os.path.join(out, "pages", "tree-b.txt"),
          "iomapsim check of /corpus/tree-b\n\nfuzz_dio: not run: the tree "
          "does not build\n")
    for name, rc in (("tree-a", 0), ("tree-b", 2), ("tree-c", 0)):
        write(os.path.join(out, "pages", f"{name}.rc"), f"{rc}\n")


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bad = []
    with tempfile.TemporaryDirectory() as out:
        lay_out(out)
        r = subprocess.run([PY,
                            os.path.join(top, "scripts", "corpus-matrix.py"),
                            out, top], capture_output=True, text=True)
        if r.returncode:
            print(r.stdout, r.stderr)
            bad.append(f"corpus-matrix.py exited {r.returncode}")
        md = open(os.path.join(out, "matrix.md")).read().splitlines()
        print("\n".join(md))
        want = [
            "| tree-a | 0 | PASS | 2 | 1 | 1 | 1 | 0 | 0 | clean, 1,234,567 "
            "inputs in 60 s | 2 groups, 0 unexplained | 0001 |",
            "| tree-b | 2 | FAIL | 0 | 0 | 0 | 0 | 0 | 0 | not run | "
            "not run | - |",
            "| tree-c (= tree-a) | 0 | PASS | 2 | 1 | 1 | 1 | 0 | 0 | clean, "
            "1,234,567 inputs in 60 s | 2 groups, 0 unexplained | 0001 |",
        ]
        for w in want:
            if w not in md:
                bad.append(f"no row '{w}'")
        has_mpl = subprocess.run([PY, "-c", "import matplotlib"],
                                 capture_output=True).returncode == 0
        png = os.path.join(out, "matrix.png")
        if not has_mpl:
            print(f"note: {PY} has no matplotlib: the picture is not checked")
        elif not os.path.isfile(png) or not os.path.getsize(png):
            bad.append("no matrix.png, or an empty one")
        else:
            with open(png, "rb") as f:
                if f.read(8) != b"\x89PNG\r\n\x1a\n":
                    bad.append("matrix.png is not a PNG")
    for b in bad:
        print("FAIL:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
