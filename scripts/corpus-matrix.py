#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""corpus-matrix.py OUT TOP: the matrix of scripts/check-corpus.sh.

Reads OUT/trees.tsv (name, path, content sum, the tree of the same
content checked in its place), each tree's page (OUT/pages/NAME.txt) and
check folder (OUT/checks/NAME-KEY: verdicts.txt, parts.txt,
tree-diff.txt, as scripts/check-tree.sh leaves them), and writes
OUT/matrix.md (a row per tree: verdict counts, fuzz result, tree-diff
groups, findings carried) and OUT/matrix.png (trees x findings and the
rules CHANGED or N/A, the way KernelCI shows a release matrix; needs
Debian's python3-matplotlib, else no picture and a line saying so).
"""
import hashlib
import os
import re
import sys

KINDS = ["PASS", "CHANGED", "NA", "KNOWN_BUG", "STALE", "FAIL"]


def check_dir(out, path):
    """The folder check-tree.sh made for PATH (its name and a path hash)."""
    key = hashlib.sha256(path.encode()).hexdigest()[:8]
    return os.path.join(out, "checks", f"{os.path.basename(path)}-{key}")


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def rules_of(reason):
    """'G-51, G-61: text' -> ['G-51', 'G-61']; ranges stay one item."""
    head = reason.split(":", 1)[0]
    return [r.strip() for r in head.split(",")
            if re.fullmatch(r"[A-Z]+-\d+(\.\.[A-Z]+-\d+)?", r.strip())]


def tree_row(out, name, path, same_as):
    """What one tree's check said (its own, or its twin's)."""
    d = check_dir(out, path)
    row = {"name": name, "same_as": same_as, "counts": dict.fromkeys(KINDS, 0),
           "findings": set(), "changed": set(), "na": set(), "parts": {}}
    src = name if not same_as else same_as
    page = read(os.path.join(out, "pages", f"{src}.txt"))
    rc = read(os.path.join(out, "pages", f"{name}.rc")).strip() or "?"
    row["rc"] = rc
    m = re.search(r"^  features: (.*)$", page, re.M)
    row["features"] = m.group(1) if m else ""
    m = re.search(r"^fuzz_dio: (.*)$", page, re.M)
    row["fuzz"] = m.group(1) if m else "no line on the page"
    row["suite_line"] = (re.search(r"^suite: (.*)$", page, re.M) or
                         re.search(r"()", "")).group(1)
    if same_as:
        twin = [p for n, p, _, _ in trees(out) if n == same_as]
        d = check_dir(out, twin[0]) if twin else d
    for line in read(os.path.join(d, "parts.txt")).splitlines():
        f = line.split("\t")
        if len(f) >= 4:
            row["parts"][f[3]] = f[0]
    for line in read(os.path.join(d, "verdicts.txt")).splitlines():
        f = line.split("\t")
        if len(f) < 5 or f[0] not in KINDS:
            continue
        row["counts"][f[0]] += 1
        if f[0] == "KNOWN_BUG":
            for fid in re.findall(r"docs/findings/(\d{4})", f[4]):
                row["findings"].add(fid)
        elif f[0] == "CHANGED":
            row["changed"].update(rules_of(f[4]))
        elif f[0] == "NA":
            row["na"].update(rules_of(f[4]) or [f[4].split(":")[0]])
    diff = read(os.path.join(d, "tree-diff.txt"))
    groups = re.findall(r"^\S.*: (\d+) requests$", diff, re.M)
    unexplained = len(re.findall(r"^  UNEXPLAINED", diff, re.M))
    if row["parts"].get("tree_diff") == "SKIP" or not diff:
        row["diff"] = "not run"
    else:
        row["diff"] = f"{len(groups)} groups, {unexplained} unexplained"
    return row


def trees(out):
    rows = []
    for line in read(os.path.join(out, "trees.tsv")).splitlines():
        f = line.split("\t")
        if len(f) >= 3:
            rows.append((f[0], f[1], f[2], f[3] if len(f) > 3 else ""))
    return rows


def fuzz_cell(row):
    s = row["fuzz"]
    if s.startswith("not run"):
        return "not run"
    m = re.search(r"(\d+) inputs in (\d+)s", s)
    ok = row["parts"].get("fuzz_dio") == "PASS"
    return ("clean" if ok else "STOPPED") + \
        (f", {int(m.group(1)):,} inputs in {m.group(2)} s" if m else "")


def markdown(rows):
    out = ["| tree | exit | build | passed | CHANGED | N/A | KNOWN BUG | "
           "STALE | FAIL | fuzz_dio | tree diff | findings carried |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        c = r["counts"]
        name = r["name"] + (f" (= {r['same_as']})" if r["same_as"] else "")
        build = r["parts"].get("build", "?")
        out.append(
            f"| {name} | {r['rc']} | {build} | {c['PASS']} | {c['CHANGED']} | "
            f"{c['NA']} | {c['KNOWN_BUG']} | {c['STALE']} | {c['FAIL']} | "
            f"{fuzz_cell(r)} | {r['diff']} | "
            f"{', '.join(sorted(r['findings'])) or '-'} |")
    return "\n".join(out) + "\n"


def picture(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import ListedColormap
    except ImportError:
        print("corpus-matrix.py: no matrix.png: needs python3-matplotlib",
              file=sys.stderr)
        return
    findings = sorted({f for r in rows for f in r["findings"]})
    rules = sorted({x for r in rows for x in r["changed"] | r["na"]})
    cols = [f"finding {f}" for f in findings] + rules
    # 0 as the embedded copy, 1 N/A, 2 CHANGED, 3 finding carried, 4 failed
    grid = []
    for r in rows:
        line = [3 if f in r["findings"] else 0 for f in findings]
        line += [2 if x in r["changed"] else 1 if x in r["na"] else 0
                 for x in rules]
        if r["counts"]["FAIL"] or r["counts"]["STALE"] or \
                r["parts"].get("build") == "FAIL":
            line = [4] * len(line)
        grid.append(line or [0])
    cmap = ListedColormap(["#4caf50", "#bdbdbd", "#ffc107", "#e53935",
                           "#000000"])
    fig, ax = plt.subplots(figsize=(max(6, 0.32 * len(cols) + 3),
                                    max(2.5, 0.3 * len(rows) + 1.5)))
    ax.imshow(grid, cmap=cmap, vmin=0, vmax=4, aspect="auto")
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels(cols, rotation=90, fontsize=7)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r["name"] for r in rows], fontsize=7)
    ax.set_title("green: as the embedded copy, grey: N/A, amber: CHANGED, "
                 "red: finding carried, black: FAIL/STALE/no build",
                 fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: corpus-matrix.py OUT TOP")
    out = sys.argv[1]
    rows = [tree_row(out, n, p, s) for n, p, _, s in trees(out)]
    if not rows:
        sys.exit("corpus-matrix.py: no trees in " + out)
    with open(os.path.join(out, "matrix.md"), "w", encoding="utf-8") as f:
        f.write(markdown(rows))
    picture(rows, os.path.join(out, "matrix.png"))


if __name__ == "__main__":
    main()
