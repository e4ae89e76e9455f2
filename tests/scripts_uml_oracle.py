#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""scripts/uml-oracle.sh: bad usage, and a UML kernel that hangs.

Bad usage is one stderr line, nothing on stdout, exit 2.  A "kernel" that
never ends (a script standing in for linux.uml, with a child in its
process group) is killed when --timeout runs out: exit 1, the message
names the kept console log, which holds what the kernel printed, and
neither the kernel nor its child is left running, nor the work folder
with its image.  Needs root (the script refuses anyone else with 77),
as the real runs do; skips (77) otherwise.

usage: scripts_uml_oracle.py BUILD_DIR
"""
import glob
import os
import subprocess
import sys
import tempfile
import time

BAD = [
    ["--bogus"],
    ["--timeout", "soon"],
    ["--tree", "a", "--build", "b"],
    ["--kernel"],
]


def run(script, args):
    return subprocess.run([script] + args, capture_output=True, text=True,
                          timeout=120)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for this purpose: it runs nothing
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split(") ")[1][0] != "Z"


def main():
    build = os.path.abspath(sys.argv[1])
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = os.path.join(top, "scripts", "uml-oracle.sh")
    bad = 0
    for args in BAD:
        r = run(script, args)
        lines = r.stderr.splitlines()
        if r.returncode != 2 or len(lines) != 1 or r.stdout:
            print(f"FAIL: {args}: exit {r.returncode}, stdout {r.stdout!r}, "
                  f"stderr {r.stderr!r} (want 2, one line, no stdout)")
            bad += 1
    if os.geteuid():
        print("SKIP: the hung-kernel case needs root, as uml-oracle.sh does")
        return 77 if not bad else 1

    tmp = tempfile.mkdtemp(prefix="iomapsim-umlo-")
    kernel, pids = os.path.join(tmp, "linux"), os.path.join(tmp, "pids")
    log = os.path.join(tmp, "console.log")
    with open(kernel, "w") as f:
        f.write(f"""#!/bin/sh
[ "$1" = --version ] && {{ echo 9.9.9; exit 0; }}
sleep 300 &
echo $$ $! > {pids}
echo "hung kernel console"
wait
""")
    os.chmod(kernel, 0o755)
    before = set(glob.glob(os.path.join(build, "uml-oracle.*")))
    t0 = time.monotonic()
    r = run(script, ["--kernel", kernel, "--build", build, "--timeout", "2",
                     "--log", log])
    took = time.monotonic() - t0
    want = f"did not finish within 2s; killed; console log: {log}"
    if r.returncode != 1 or want not in r.stdout:
        print(f"FAIL: hung kernel: exit {r.returncode}, stdout {r.stdout!r},"
              f" stderr {r.stderr!r} (want 1 and '{want}')")
        bad += 1
    if took > 60:
        print(f"FAIL: hung kernel: killed after {took:.0f} s, not ~2 s")
        bad += 1
    try:
        with open(log) as f:
            if "hung kernel console" not in f.read():
                print(f"FAIL: {log} lacks what the kernel printed")
                bad += 1
    except FileNotFoundError:
        print(f"FAIL: the console log {log} was not kept")
        bad += 1
    try:
        with open(pids) as f:
            left = [int(p) for p in f.read().split() if alive(int(p))]
        if left:
            print(f"FAIL: processes left running: {left}")
            bad += 1
    except FileNotFoundError:
        print("FAIL: the stand-in kernel never ran")
        bad += 1
    new = set(glob.glob(os.path.join(build, "uml-oracle.*"))) - before
    if new:
        print(f"FAIL: work folders left behind: {sorted(new)}")
        bad += 1
    print(f"uml-oracle.sh: {len(BAD)} bad usages refused, a hung kernel "
          f"killed after {took:.1f} s: {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
