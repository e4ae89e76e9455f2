#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every entry of the expectation table names tests that exist.

tests/harness/expect.c says, feature by feature, which Check tests a
kernel tree's iomap code is expected to fail (CHANGED, KNOWN BUG) or cannot
run (N/A).  An entry that names a suite, test case or test the suites do
not have would never apply, on any tree: a silent hole in the table.  Each
entry's suite must be a test program (tests/<suite>.c, or the header it is
built from), its test case one that program creates, and each test a
START_TEST (or SIM_TEST_NA) of that program.

usage: docs_expect_table.py [BUILD_DIR]   (the build folder is not used)
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(TOP, "tests", "harness", "expect.c")

# E(rule, kind, applies, when, suite, tcase, tests, ...): the C string
# literals of an entry in order; adjacent literals are one string
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def entries(text):
    body = text[text.index("expect_table[] = {"):]
    for m in re.finditer(r"\bE\((.*?)\),\s*(?=E\(|/\*|\};)", body, re.S):
        args = m.group(1)
        # join adjacent literals, then take the literals in order
        args = re.sub(r'"\s*\n\s*"', "", args)
        args = re.sub(r'"\s+"', "", args)
        lits = STRING.findall(args)
        yield m.group(0).count("\n"), lits


def suite_text(suite):
    """The suite's source and the local headers it includes."""
    path = os.path.join(TOP, "tests", suite + ".c")
    if not os.path.isfile(path):
        return None
    seen, todo, text = set(), [path], ""
    while todo:
        p = todo.pop()
        if p in seen or not os.path.isfile(p):
            continue
        seen.add(p)
        with open(p) as f:
            t = f.read()
        text += t
        for inc in re.findall(r'#include "([^"]+)"', t):
            todo.append(os.path.join(os.path.dirname(p), inc))
    return text


def main():
    with open(TABLE) as f:
        text = f.read()
    problems, n = [], 0
    for _, lits in entries(text):
        # rule, when, suite, tcase, tests come first among the literals
        if len(lits) < 5:
            problems.append("an entry with fewer strings than "
                            "rule, when, suite, tcase, tests: %r" % lits)
            continue
        n += 1
        rule, _, suite, tcase, tests = lits[:5]
        src = suite_text(suite)
        if src is None:
            problems.append("%s: no test program tests/%s.c" % (rule, suite))
            continue
        if tcase != "*" and not re.search(
                r'(sim_tcase|tcase_create|_tcase)\("%s"\)' % re.escape(tcase),
                src):
            problems.append("%s: %s has no test case \"%s\"" %
                            (rule, suite, tcase))
        if tests == "*":
            continue
        for t in tests.split():
            if not re.search(r"(START_TEST|SIM_TEST_NA)\(%s\)" % re.escape(t),
                             src):
                problems.append("%s: %s has no test %s" % (rule, suite, t))
    for p in problems:
        print("FAIL:", p)
    print("%d entries of tests/harness/expect.c checked, %d problem(s)" %
          (n, len(problems)))
    if n == 0:
        print("FAIL: no entry found: has the table's layout changed?")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
