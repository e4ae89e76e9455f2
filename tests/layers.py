#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tests/layers.py TOP: no file includes from a layer above its own.

The folders are the layers (docs/architecture.md, "Layers"), bottom up:
sim (the simulated kernel), block, iomap, fs (testfs, simfs), tools (the
FUSE front end, the iomapsim command); tests, fuzz and bench sit on top
and may include anything.  Every #include of every C file under a layer
is resolved as the compiler would (a quoted name next to the file first,
then the include folders, lowest layer first); a header that resolves
into a higher layer is a failure, printed with the file and line.
Headers that are not in the repository (the C library's, the system's,
a kernel tree's in kernel-source mode) are not the layers' business.
"""
import os
import re
import subprocess
import sys

LAYERS = ["sim", "block", "iomap", "fs", "tools"]
TOP_LAYER = len(LAYERS)          # tests, fuzz, bench
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def layer_of(path):
    first = path.split("/", 1)[0]
    return LAYERS.index(first) if first in LAYERS else TOP_LAYER


def include_dirs(files):
    """Every include/ folder of a layer, and the folders a library hands
    its users (CMakeLists.txt: testfs, simfs, fuse, the harness), lowest
    layer first."""
    dirs = {os.path.dirname(f)[:os.path.dirname(f).index("/include") + 8]
            for f in files if "/include/" in f}
    dirs |= {"fs/testfs", "fs/simfs", "tools/fuse", "tools/cli",
             "tests/harness", "tests/model"}
    return sorted(dirs, key=lambda d: (layer_of(d), d))


def resolve(top, src, quote, name, dirs):
    if quote == '"':
        here = os.path.normpath(os.path.join(os.path.dirname(src), name))
        if os.path.isfile(os.path.join(top, here)):
            return here
    for d in dirs:
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(top, cand)):
            return cand
    return None


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    files = subprocess.run(["git", "-C", top, "ls-files", "*.c", "*.h"],
                           capture_output=True, text=True,
                           check=True).stdout.split()
    dirs = include_dirs(files)
    bad = checked = 0
    for f in files:
        mine = layer_of(f)
        if mine == TOP_LAYER:
            continue
        with open(os.path.join(top, f), encoding="utf-8",
                  errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = resolve(top, f, m.group(1), m.group(2), dirs)
                if target is None:
                    continue
                checked += 1
                if layer_of(target) > mine:
                    print("FAIL: %s:%d (%s) includes %s (%s)" %
                          (f, n, LAYERS[mine], target,
                           LAYERS[layer_of(target)]
                           if layer_of(target) < TOP_LAYER
                           else target.split("/")[0]))
                    bad += 1
    print("%d includes of the layers' own headers checked, %d upward" %
          (checked, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
