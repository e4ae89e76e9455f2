#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""scripts/trace-plot.py draws a timeline `iomapsim run` wrote.

A PNG with the picture's size comes out of a failed, punted async read's
trace; a file that is not a trace gets one line and a non-zero exit.  Skips
(77) when Debian's python3 has no matplotlib (scripts/quickstart.sh
installs python3-matplotlib).

usage: cli_trace_plot.py BUILD_DIR
"""
import os
import struct
import subprocess
import sys
import tempfile

PY = "/usr/bin/python3"


def main():
    build = sys.argv[1]
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    plot = os.path.join(top, "scripts", "trace-plot.py")
    if subprocess.run([PY, "-c", "import matplotlib"],
                      capture_output=True).returncode:
        print(f"SKIP: {PY} has no matplotlib (python3-matplotlib)")
        return 77
    tmp = tempfile.mkdtemp(prefix="iomapsim-plot-")
    js, png = os.path.join(tmp, "t.json"), os.path.join(tmp, "t.png")
    r = subprocess.run([os.path.join(build, "iomapsim"), "run", "--op",
                        "read", "--pos", "4096", "--len", "4096", "--async",
                        "--fault", "bio-error:1:IOERR", "--trace-json", js],
                       capture_output=True, text=True)
    if r.returncode:
        print("FAIL: iomapsim run:", r.stderr)
        return 1
    r = subprocess.run([PY, plot, js, png], capture_output=True, text=True)
    if r.returncode:
        print("FAIL: trace-plot.py:", r.stderr)
        return 1
    with open(png, "rb") as f:
        head = f.read(24)
    width, height = struct.unpack(">II", head[16:24])
    if head[:8] != b"\x89PNG\r\n\x1a\n" or width < 600 or height < 200:
        print(f"FAIL: not the expected PNG ({width}x{height})")
        return 1
    r = subprocess.run([PY, plot, os.path.join(top, "README.md"), png],
                       capture_output=True, text=True)
    if r.returncode == 0 or r.stderr.count("\n") != 1:
        print("FAIL: a file that is not a trace:", r.returncode, r.stderr)
        return 1
    print(f"trace-plot.py drew {width}x{height}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
