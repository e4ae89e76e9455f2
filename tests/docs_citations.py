#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The repository reads from a clone: its references resolve there.

Over every text file of the repository (this one excepted, since it
holds the patterns, and the fuzz inputs, which are data):
  - no issue number, seed file or person is cited: a comment, test name
    or document cites the rule ID, the kernel function or the upstream
    commit subject instead (docs/rules.md);
  - nothing points to the specification or design outside the
    repository (they are docs/rules.md and docs/architecture.md);
  - every docs/... path named, and every relative Markdown link, leads
    to a file or folder that exists.
Fails with one line per hit: file, line, what was found.

usage: docs_citations.py [BUILD_DIR]
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docscan  # noqa: E402

SELF = os.path.relpath(os.path.abspath(__file__), docscan.TOP)
DATA = ("fuzz/corpus/", "fuzz/regressions/", "fuzz/known/")

CITATIONS = [
    ("an issue number", re.compile(r"issue[ -]#?[0-9]", re.I)),
    ("a seed file", re.compile(r"seed[ -]?0[0-4][0-9]|seeds/[0-9]", re.I)),
    ("a person", re.compile(
        r"\b(Christoph|Hellwig|Joanne|Koong|Jens|Axboe|axboe|Darrick|"
        r"djwong|Chinner|Ritesh|Ojaswin|Garry|Keith|Busch|Jan Kara|Willy|"
        r"Wilcox|Brauner|brauner|hch|Fengnan|changfengnan|Begunkov|"
        r"Pavel)\b")),
    ("the rules or design outside the repository",
     re.compile(r"SEMANTICS\.md|DESIGN\.md|shared/seeds")),
]
DOCS_PATH = re.compile(r"(?<![\w/.-])(docs/[\w/.-]*\w)")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def link_target(rel, target):
    """The path a relative Markdown link of @rel names, or None."""
    if re.match(r"[a-z]+:", target) or target.startswith("#"):
        return None
    target = target.split("#")[0]
    return os.path.normpath(os.path.join(os.path.dirname(rel), target))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else None
    hits = 0
    seen = set()
    for rel, no, line in docscan.text_lines(
            build, lambda rel: rel != SELF and not rel.startswith(DATA),
            seen):
        for what, pat in CITATIONS:
            m = pat.search(line)
            if m:
                print(f"FAIL: {rel}:{no}: cites {what}: "
                      f"'{m.group(0)}' in: {line.strip()[:100]}")
                hits += 1
        paths = DOCS_PATH.findall(line)
        if rel.endswith(".md"):
            paths += [p for p in (link_target(rel, t)
                                  for t in MD_LINK.findall(line)) if p]
        for p in paths:
            if not os.path.exists(os.path.join(docscan.TOP, p)):
                print(f"FAIL: {rel}:{no}: {p} does not exist")
                hits += 1
    if docscan.too_few(seen):
        return 1
    print(f"{len(seen)} files scanned, {hits} problem(s)")
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main())
