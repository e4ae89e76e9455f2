#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every rule ID the repository cites is defined in docs/rules.md.

A rule is defined where docs/rules.md writes its ID in bold: `**G-14**`,
`**G-48a**` (a rule's lettered part), `**K6**` (a known fuzz finding).
A citation is any `X-NN` (one capital letter, a dash, two or three
digits, maybe a letter) or `KN` in a C, header, Python, shell, CMake,
Markdown, text or TSV file, docs/rules.md included; a range such as
`S-01..S-08` cites both ends.  Fails naming each undefined ID with where
it is cited, and each ID defined twice.

usage: docs_rules.py [BUILD_DIR]
"""
import collections
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docscan  # noqa: E402

RULES = "docs/rules.md"
DEFINED = re.compile(r"\*\*([A-Z]-[0-9]{2,3}[a-z]?|K[0-9]{1,2})\*\*")
CITED = re.compile(r"\b([A-Z]-[0-9]{2,3}[a-z]?|K[0-9]{1,2})\b")
EXTS = (".c", ".h", ".py", ".sh", ".cmake", ".md", ".txt", ".tsv")


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else None
    text = docscan.read_text(RULES)
    defined = collections.Counter(DEFINED.findall(text))
    if len(defined) < 100:
        print(f"FAIL: {RULES} defines only {len(defined)} rule IDs")
        return 1
    bad = 0
    for rid, n in sorted(defined.items()):
        if n > 1:
            print(f"FAIL: {rid} is defined {n} times in {RULES}")
            bad += 1

    cited = collections.defaultdict(list)
    seen = set()
    for rel, no, line in docscan.text_lines(
            build, lambda rel: rel.endswith(EXTS), seen):
        for rid in CITED.findall(line):
            cited[rid].append(f"{rel}:{no}")
    if docscan.too_few(seen):
        return 1
    for rid in sorted(cited):
        if rid not in defined:
            where = cited[rid]
            more = f" (and {len(where) - 3} more)" if len(where) > 3 else ""
            print(f"FAIL: {rid} is not defined in {RULES}; cited at "
                  f"{', '.join(where[:3])}{more}")
            bad += 1
    print(f"{len(defined)} rule IDs defined, {len(cited)} cited in "
          f"{len(seen)} files, {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
