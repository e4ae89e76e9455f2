# SPDX-License-Identifier: GPL-2.0-only
"""The repository's own text files, for the docs_* tests (not a test).

From a git checkout: the tracked files and the untracked ones .gitignore
does not hide (so a new file is checked before it is added).  Elsewhere
(an exported tarball): every file, without .git and the build trees (a
folder named build* at the top, or holding a CMakeCache.txt).  The build
directory a test is given is left out either way.
"""
import os
import subprocess

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _walk(skip):
    for root, dirs, names in os.walk(TOP):
        keep = []
        for d in dirs:
            path = os.path.join(root, d)
            if d == ".git" or os.path.realpath(path) in skip:
                continue
            if root == TOP and d.startswith("build"):
                continue
            if os.path.exists(os.path.join(path, "CMakeCache.txt")):
                continue
            keep.append(d)
        dirs[:] = keep
        for n in names:
            yield os.path.relpath(os.path.join(root, n), TOP)


def files(build_dir=None):
    """Relative paths of the repository's files, sorted."""
    skip = set()
    if build_dir:
        skip.add(os.path.realpath(build_dir))
    if os.path.isdir(os.path.join(TOP, ".git")) or \
            os.path.isfile(os.path.join(TOP, ".git")):
        r = subprocess.run(["git", "-C", TOP, "ls-files", "-z", "--cached",
                            "--others", "--exclude-standard"],
                           capture_output=True)
        if r.returncode == 0:
            out = sorted(set(p.decode() for p in r.stdout.split(b"\0") if p))
            return [p for p in out
                    if os.path.isfile(os.path.join(TOP, p)) and
                    not any(os.path.realpath(os.path.join(TOP, p))
                            .startswith(s + os.sep) for s in skip)]
    return sorted(_walk(skip))


def read_text(rel):
    """The file's text, or None for a binary file (one holding a NUL)."""
    with open(os.path.join(TOP, rel), "rb") as f:
        data = f.read()
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace")


def text_lines(build_dir, keep, seen):
    """(path, line number, line) of each text file @keep accepts; the
    paths read are added to the set @seen."""
    for rel in files(build_dir):
        if not keep(rel):
            continue
        text = read_text(rel)
        if text is None:
            continue
        seen.add(rel)
        for no, line in enumerate(text.splitlines(), 1):
            yield rel, no, line


def too_few(seen):
    """A repository this small is not this one: say so."""
    if len(seen) < 50:
        print(f"FAIL: only {len(seen)} files found to scan")
        return True
    return False
