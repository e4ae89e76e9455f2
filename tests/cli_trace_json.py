#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The trace timeline (`iomapsim run --trace-json`, `iomapsim trace`).

Checks the Chrome trace-event JSON's structure (every begin has its end on
its track, every async bio slice ends, every flow arrow starts and ends
inside an existing slice, every track is named), what one request's
timeline shows (a failed async read punted to the workqueue), that two
runs with the same seed give the same file byte for byte, and that
`iomapsim trace` over the ring's text gives what `run --trace-json` gave.

usage: cli_trace_json.py BUILD_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(binary, *args):
    return subprocess.run([binary] + list(args), capture_output=True,
                          text=True, check=False)


def validate(doc, label):
    """Structure rules a viewer relies on; returns the events."""
    ev = doc["traceEvents"]
    named = {e["tid"] for e in ev if e["ph"] == "M" and
             e["name"] == "thread_name"}
    stacks, spans, asyncs, flows = {}, {}, {}, {}
    for e in ev:
        ph, tid = e["ph"], e.get("tid")
        if ph != "M":
            check(tid in named, f"{label}: track {tid} has no name")
        if ph == "B":
            stacks.setdefault(tid, []).append(e)
        elif ph == "E":
            st = stacks.get(tid, [])
            check(st and st[-1]["name"] == e["name"],
                  f"{label}: E {e['name']} at {e['ts']} closes no B")
            if st:
                b = st.pop()
                check(e["ts"] >= b["ts"], f"{label}: E before its B")
                spans.setdefault(tid, []).append((b["ts"], e["ts"]))
        elif ph == "X":
            spans.setdefault(tid, []).append((e["ts"], e["ts"] + e["dur"]))
        elif ph in ("b", "e"):
            asyncs.setdefault(e["id"], []).append(ph)
        elif ph in ("s", "f"):
            flows.setdefault(e["id"], []).append(e)
    for tid, st in stacks.items():
        check(not st, f"{label}: track {tid} leaves {len(st)} B open")
    for i, phs in asyncs.items():
        check(phs == ["b", "e"], f"{label}: async {i} is {phs}")
    for i, fl in flows.items():
        check([f["ph"] for f in fl] == ["s", "f"],
              f"{label}: flow {i} is {[f['ph'] for f in fl]}")
        for f in fl:
            inside = any(a <= f["ts"] <= b for a, b in
                         spans.get(f["tid"], []))
            check(inside, f"{label}: flow {i} {f['ph']} at {f['ts']} "
                  f"is in no slice of track {f['tid']}")
    return ev


def track_names(ev):
    return {e["tid"]: e["args"]["name"] for e in ev
            if e["ph"] == "M" and e["name"] == "thread_name"}


def features(binary):
    """What the iomap code has, from `iomapsim --version`'s features."""
    out = run(binary, "--version").stdout
    words = out.split("features:", 1)[1].split() if "features:" in out else []
    return {w.split("=")[0]: (w.split("=")[1] if "=" in w else True)
            for w in words}


def main():
    build = sys.argv[1]
    binary = os.path.join(build, "iomapsim")
    feat = features(binary)
    simple = feat.get("simple", "none") != "none"
    # a failed read is punted (G-51), but not before INLINE_COMP (G-61)
    punts = feat.get("comp_work") or feat.get("inline_comp")
    tmp = tempfile.mkdtemp(prefix="iomapsim-trace-")
    punted = ["--op", "read", "--pos", "4096", "--len", "4096", "--async",
              "--fault", "bio-error:1:IOERR"]

    # a failed async read (on the simple path where the code has one),
    # punted to the workqueue
    a = os.path.join(tmp, "a.json")
    r = run(binary, "run", *punted, "--trace-json", a)
    check(r.returncode == 0, f"run --trace-json: {r.stderr.strip()}")
    with open(a) as f:
        ev = validate(json.load(f), "punted read")
    names = track_names(ev)
    by = {}
    for e in ev:
        by.setdefault((e["ph"], e["name"]), []).append(e)
    sub = by.get(("X", "submit_bio"), [])
    endio = by.get(("X", "bio_endio"), [])
    check(len(sub) == 1 and len(endio) == 1, "one bio submitted and ended")
    if sub and endio:
        check(names[sub[0]["tid"]] == "CPU0 task",
              f"bio submitted from {names[sub[0]['tid']]}")
        check(names[endio[0]["tid"]] == "CPU0 hardirq",
              f"bio ended in {names[endio[0]['tid']]}")
    check(len(by.get(("b", "bio READ sector 16"), [])) == 1,
          "the bio is an async slice named for its op and sector")
    work = by.get(("B", "work"), [])
    punt = [e for e in ev if e["ph"] in ("s", "f") and e["name"] == "punt"]
    kc = by.get(("i", "ki_complete"), [])
    if punts:
        check(len(work) == 1 and
              names.get(work[0]["tid"]) == "CPU0 kworker",
              "the punted completion runs as a work item on a kworker track")
        check([names[e["tid"]] for e in punt] ==
              ["CPU0 hardirq", "CPU0 kworker"],
              f"punt arrow from hardirq to kworker: {punt}")
        check(len(kc) == 1 and names[kc[0]["tid"]] == "CPU0 kworker",
              "ki_complete is an instant on the kworker track")
    else:
        check(not work and not punt, "no punt: the read ends in end_io")
        check(len(kc) == 1 and names[kc[0]["tid"]] == "CPU0 hardirq",
              "ki_complete is an instant on the hardirq track")
    check(len(by.get(("i", "bdev_fault_inject"), [])) == 1 and
          by[("i", "bdev_fault_inject")][0]["cat"] == "fault",
          "the injected fault is an instant event")
    paths = [e["name"] for e in ev if e["ph"] == "B" and
             e["name"].endswith(" path")]
    # the path slice is drawn from trace_iomap_dio_rw_begin()
    want = ["simple path" if simple else "generic path"]
    check(paths == (want if feat.get("dio_trace") else []),
          f"path slices {paths}")

    # the same seed, the same file, byte for byte (random completion order)
    many = ["--op", "read", "--pos", "0", "--len", "65536",
            "--iter", "iovec:16", "--map", "mapped:0:32768",
            "--map", "mapped:32768:32768", "--async",
            "--complete", "random", "--seed", "7"]
    b1, b2 = os.path.join(tmp, "b1.json"), os.path.join(tmp, "b2.json")
    run(binary, "run", *many, "--trace-json", b1)
    run(binary, "run", *many, "--trace-json", b2)
    with open(b1, "rb") as f1, open(b2, "rb") as f2:
        one, two = f1.read(), f2.read()
    check(len(one) > 1000 and one == two, "same seed, identical JSON")
    with open(b1) as f:
        ev = validate(json.load(f), "random completion")
    check(len([e for e in ev if e["ph"] == "b"]) >= 2,
          "several bios in the random-completion run")

    # `iomapsim trace` over the ring's text gives the same timeline
    ring = os.path.join(tmp, "ring.txt")
    r = run(binary, "run", *punted, "--trace")
    with open(ring, "w") as f:
        f.write(r.stderr)
    c = os.path.join(tmp, "c.json")
    r = run(binary, "trace", ring, "--json", c)
    check(r.returncode == 0, f"iomapsim trace: {r.stderr.strip()}")
    with open(a, "rb") as f1, open(c, "rb") as f2:
        check(f1.read() == f2.read(),
              "iomapsim trace of the ring text equals run --trace-json")

    # a WARN_ON is an instant event where it fired (the atomic length
    # check on a short bio, docs/fuzzing.md K8)
    if feat.get("atomic"):
        check_warning(binary, tmp)
    else:
        print("N/A (no atomic writes): the warning instant of a short "
              "atomic bio")

    # bad usage: one line, exit 2; no half-written file on failure
    r = run(binary, "trace", ring)
    check(r.returncode == 2 and r.stderr.count("\n") == 1,
          "trace without --json is refused")
    r = run(binary, "run", *punted, "--trace-json",
            os.path.join(tmp, "no", "such", "dir.json"))
    check(r.returncode == 1 and "--trace-json" in r.stderr,
          "an unwritable --trace-json file is reported")

    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all trace timeline checks passed")
    return 0


def check_warning(binary, tmp):
    w = os.path.join(tmp, "w.json")
    r = run(binary, "run", "--op", "write", "--pos", "0", "--len", "8192",
            "--iocb", "ATOMIC", "--map", "mapped:0:65536:atomic",
            "--iter", "iovec:2", "--fault", "short-pin:2:0",
            "--trace-json", w)
    check(r.returncode == 0, f"atomic run: {r.stderr.strip()}")
    with open(w) as f:
        ev = validate(json.load(f), "warning")
    warns = [e for e in ev if e["ph"] == "i" and e["name"] == "sim_warning"]
    check(len(warns) == 1 and
          track_names(ev)[warns[0]["tid"]] == "CPU0 task" and
          "iomap_dio_bio_iter" in warns[0]["args"]["args"],
          f"one warning instant in the task: {warns}")
    check(any(e["ph"] == "i" and e["name"] == "fault_short_pin"
              for e in ev), "the short pin is a fault instant")


if __name__ == "__main__":
    sys.exit(main())
