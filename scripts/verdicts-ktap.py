#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""verdicts-ktap.py VERDICTS OUT: the suite's verdicts as KTAP version 1.

VERDICTS is the file the test harness appends to when IOMAPSIM_VERDICTS
names it (tests/harness/harness.c, verdict()): one line per Check test run,
"VERDICT<TAB>suite<TAB>tcase<TAB>test<TAB>detail", a loop test one line per
iteration.  OUT is written as the kernel's Documentation/dev-tools/ktap.rst
describes it, so that `tools/testing/kunit/kunit.py parse OUT` and other
KTAP readers take it:

    KTAP version 1
    1..<suites>
      KTAP version 1
      # Subtest: <suite>            (kunit.py's name for the subtest)
      1..<tests>
      ok 1 <tcase>.<test>
      ...
    ok 1 <suite>                    (not ok if one of its tests is)

A subtest is indented one level, two spaces, as ktap.rst says.  Each
verdict line becomes one test line, in the order of the file:

    PASS       ok N name
    NA         ok N name # SKIP N/A (<the missing feature>)
    CHANGED    ok N name # XFAIL CHANGED <rule>: <what this code does>
    KNOWN_BUG  ok N name # XFAIL KNOWN BUG <rule>: <upstream change>
    STALE      not ok N name, after a diagnostic line "# name: STALE ..."
    FAIL       not ok N name, after a diagnostic line "# name: FAIL ..."
    SKIP       ok N name # SKIP <why it did not run>

SKIP is never the harness's: scripts/check-tree.sh writes it, beside PASS
and FAIL, for a part of its check (build, suite, fuzz_dio, tree_diff,
under the suite name "check_tree") that did not run, so that a KTAP file
says what was not checked, and why, whatever stopped part way.

CHANGED and KNOWN BUG are outcomes the expectation table predicts: the
test asserts the baseline and fails exactly as the table says this code
does.  KTAP's directive for that is XFAIL ("a test is expected to fail");
the result stays "ok", as kselftest's ksft_test_result_xfail() writes it,
so a reader that does not know XFAIL falls back to "ok" (kunit.py counts
them as passed), never to a failure.  STALE (a listed test that held the
baseline) and FAIL (an unexplained failure) are failures.  A suite all N/A
(or SKIP) is itself "ok N suite # SKIP".

Names: "<tcase>.<test>", blanks turned into "+" (a STALE line may list
several tests) and anything but letters, digits and "_.+-" into "_", so no
"#" or space reaches a description.  A name that occurs more than once in
a suite (a loop test's iterations) gets ".<k>", k counting its lines from 0
in file order: the loop index for a loop from 0; a loop test's STALE line,
which the harness writes after its iterations, comes last.

Prints the counts on stdout.  Exit status: 0, or 1 with one line on
stderr for bad input (OUT is then not touched).
"""

import os
import re
import sys
import tempfile

PROG = 'verdicts-ktap.py'
KINDS = ('PASS', 'CHANGED', 'NA', 'KNOWN_BUG', 'STALE', 'FAIL')
# check-tree.sh's parts only; counted where there are any, so that the
# counts of a verdicts file the harness wrote read as they always did
EXTRA_KINDS = ('SKIP',)
LABEL = {'PASS': 'pass', 'CHANGED': 'CHANGED', 'NA': 'N/A',
         'KNOWN_BUG': 'KNOWN BUG', 'STALE': 'STALE', 'FAIL': 'FAIL',
         'SKIP': 'skipped'}
INDENT = '  '


def die(msg):
    print(f'{PROG}: {msg}', file=sys.stderr)
    sys.exit(1)


def safe_name(s):
    s = re.sub(r'\s+', '+', s.strip())
    return re.sub(r'[^A-Za-z0-9_.+-]', '_', s)


def safe_data(s):
    """Diagnostic data on a result line: one line, no '#'."""
    return re.sub(r'\s+', ' ', s.replace('#', ' ')).strip()


def read_verdicts(path):
    """[(suite, [(kind, name, detail), ...]), ...], suites in order."""
    suites = {}
    try:
        f = open(path, encoding='utf-8', errors='backslashreplace')
    except OSError as e:
        die(f'{path}: {e.strerror}')
    with f:
        for n, line in enumerate(f, 1):
            fields = line.rstrip('\r\n').split('\t')
            if len(fields) != 5:
                die(f'{path}:{n}: {len(fields)} tab-separated fields, '
                    'want 5: VERDICT suite tcase test detail')
            kind, suite, tcase, test, detail = fields
            if kind not in KINDS + EXTRA_KINDS:
                die(f'{path}:{n}: unknown verdict "{kind}" '
                    f'(one of {", ".join(KINDS + EXTRA_KINDS)})')
            if not suite.strip() or not tcase.strip() or not test.strip():
                die(f'{path}:{n}: empty suite, tcase or test name')
            suites.setdefault(suite, []).append(
                (kind, safe_name(tcase) + '.' + safe_name(test), detail))
    if not suites:
        die(f'{path}: no verdict lines')
    return list(suites.items())


def number_repeats(tests):
    """Give each name that occurs more than once a ".k" suffix."""
    total, seen, out = {}, {}, []
    for _, name, _ in tests:
        total[name] = total.get(name, 0) + 1
    for kind, name, detail in tests:
        if total[name] > 1:
            k = seen.get(name, 0)
            seen[name] = k + 1
            name = f'{name}.{k}'
        out.append((kind, name, detail))
    return out


def result_lines(n, kind, name, detail):
    data = safe_data(detail)
    if kind == 'PASS':
        return [f'ok {n} {name}']
    if kind == 'NA':
        return [f'ok {n} {name} # SKIP N/A ({data})']
    if kind == 'SKIP':
        return [f'ok {n} {name} # SKIP {data}'.rstrip()]
    if kind in ('CHANGED', 'KNOWN_BUG'):
        return [f'ok {n} {name} # XFAIL {LABEL[kind]} {data}'.rstrip()]
    # the detail on a line of its own: on the result line a failure
    # message could read as a directive ("SKIP ...") to a KTAP reader
    diag = f'# {name}: {kind}'
    if detail.strip():
        diag += ': ' + ' '.join(detail.split())
    return [diag, f'not ok {n} {name}']


def to_ktap(suites):
    out = ['KTAP version 1', f'1..{len(suites)}']
    for i, (suite, tests) in enumerate(suites, 1):
        tests = number_repeats(tests)
        sname = safe_name(suite)
        out += [INDENT + 'KTAP version 1', INDENT + f'# Subtest: {sname}',
                INDENT + f'1..{len(tests)}']
        for n, (kind, name, detail) in enumerate(tests, 1):
            out += [INDENT + l for l in result_lines(n, kind, name, detail)]
        kinds = [t[0] for t in tests]
        counts = ' '.join(f'{k.lower()}:{kinds.count(k)}' for k in KINDS +
                          tuple(k for k in EXTRA_KINDS if k in kinds))
        out.append(f'# {sname}: {counts}')
        if 'FAIL' in kinds or 'STALE' in kinds:
            out.append(f'not ok {i} {sname}')
        elif all(k == 'NA' for k in kinds):
            out.append(f'ok {i} {sname} # SKIP every test N/A')
        elif all(k in ('NA', 'SKIP') for k in kinds):
            out.append(f'ok {i} {sname} # SKIP nothing run')
        else:
            out.append(f'ok {i} {sname}')
    return '\n'.join(out) + '\n'


def write_atomic(path, text):
    d = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix='.ktap.', dir=d)
    except OSError as e:
        die(f'{path}: {e.strerror}')
    try:
        with os.fdopen(fd, 'w') as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as e:
        os.unlink(tmp)
        die(f'{path}: {e.strerror}')


def main(argv):
    if len(argv) != 3:
        die('usage: verdicts-ktap.py VERDICTS OUT')
    suites = read_verdicts(argv[1])
    write_atomic(argv[2], to_ktap(suites))
    kinds = [t[0] for _, tests in suites for t in tests]
    c = {k: kinds.count(k) for k in KINDS + EXTRA_KINDS}
    shown = KINDS + tuple(k for k in EXTRA_KINDS if c[k])
    print(f'{len(kinds)} verdicts in {len(suites)} suites: ' +
          ', '.join(f'{c[k]} {LABEL[k]}' for k in shown))
    print(f'KTAP: {c["PASS"] + c["CHANGED"] + c["KNOWN_BUG"]} ok '
          f'({c["CHANGED"] + c["KNOWN_BUG"]} of them XFAIL), '
          f'{c["NA"] + c["SKIP"]} skipped, {c["STALE"] + c["FAIL"]} not ok')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
