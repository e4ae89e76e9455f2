#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""scripts/uml-kernel.sh refuses what it cannot build, in one line.

Bad usage (no tree, an unknown option, --jobs that is not a number, an
unknown --base, a tree that is no folder) exits 2 with one line on stderr;
a sparse tree with no base in an empty cache (a temporary HOME), or a
folder that is no kernel tree, exits 1 with one line naming what is
missing and how to get it.  Nothing is fetched or built: this runs in
milliseconds.  get-kernel-tree.sh --full refuses an unknown tree name the
same way, before any download.

usage: scripts_uml_kernel.py BUILD_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UML = os.path.join(TOP, "scripts", "uml-kernel.sh")
GET = os.path.join(TOP, "scripts", "get-kernel-tree.sh")
IOMAP_FILES = ("fs/iomap/direct-io.c", "fs/iomap/iter.c",
               "include/linux/iomap.h")


def run(argv, home):
    env = dict(os.environ, HOME=home)
    env.pop("IOMAPSIM_CACHE", None)
    return subprocess.run(argv, capture_output=True, text=True, env=env,
                          timeout=60)


def expect(r, code, what, words=()):
    """One stderr line, nothing on stdout, exit CODE, WORDS in the line."""
    lines = r.stderr.splitlines()
    bad = []
    if r.returncode != code:
        bad.append(f"exit {r.returncode}, not {code}")
    if len(lines) != 1:
        bad.append(f"{len(lines)} stderr lines, not 1")
    if r.stdout:
        bad.append(f"stdout {r.stdout!r}")
    for w in words:
        if w not in r.stderr:
            bad.append(f"no {w!r} in the message")
    if bad:
        print(f"FAIL: {what}: {'; '.join(bad)}\n  stderr: {r.stderr!r}")
        return 1
    print(f"ok: {what}: {lines[0]}")
    return 0


def main():
    tmp = tempfile.mkdtemp(prefix="iomapsim-uml-")
    try:
        return checks(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def checks(tmp):
    home = os.path.join(tmp, "home")
    os.mkdir(home)
    sparse = os.path.join(tmp, "linux-6.12.999")
    for f in IOMAP_FILES:
        os.makedirs(os.path.dirname(os.path.join(sparse, f)), exist_ok=True)
        with open(os.path.join(sparse, f), "w") as fp:
            fp.write("/* a sparse tree */\n")
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    fails = 0
    for argv, what in (
            ([], "no tree"),
            (["--frobnicate", sparse], "unknown option"),
            (["--jobs", "many", sparse], "--jobs not a number"),
            (["--jobs"], "--jobs without a value"),
            (["--base", "5.4", sparse], "unknown base"),
            ([sparse, sparse], "two trees"),
            ([os.path.join(tmp, "nowhere")], "no such folder")):
        fails += expect(run([UML] + argv, home), 2, what, ("usage:",))
    fails += expect(run([UML, sparse], home), 1,
                    "sparse tree, empty cache",
                    ("no base tree debian-6.12",
                     "get-kernel-tree.sh --full debian-6.12"))
    fails += expect(run([UML, "--base", "newest", sparse], home), 1,
                    "sparse tree, --base newest, empty cache",
                    ("no base tree debian-newest",))
    fails += expect(run([UML, empty], home), 1, "not a kernel tree",
                    ("neither a full kernel tree",))
    fails += expect(run([UML, "--cached", sparse], home), 77,
                    "--cached, empty cache", ("no cached UML kernel",))
    # a sparse tree whose README names no series, in a folder whose
    # README has no section for it either: the base is chosen by what
    # its files declare, not the end of the script
    with open(os.path.join(tmp, "README.md"), "w") as fp:
        fp.write("# trees\n\n## another\n\nlinux-source-6.1\n")
    with open(os.path.join(sparse, "README.md"), "w") as fp:
        fp.write("a tree of no series\n")
    fails += expect(run([UML, "--cached", sparse], home), 77,
                    "--cached, README naming no series",
                    ("no cached UML kernel",))
    if os.listdir(home):
        print(f"FAIL: a refusal wrote into HOME: {os.listdir(home)}")
        fails += 1
    fails += expect(run([GET, "--full", "debian-5.10",
                         os.path.join(tmp, "t")], home), 1,
                    "get-kernel-tree.sh --full, unknown tree",
                    ("unknown tree",))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
