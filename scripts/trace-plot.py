#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Draw an iomapsim timeline without a browser.

usage: scripts/trace-plot.py TRACE.json OUT.png [--title TEXT]

TRACE.json is what `iomapsim run --trace-json` or `iomapsim trace MNT
--json` wrote (Chrome trace-event JSON).  The picture has one lane per
simulated CPU and context (task, hard IRQ, softirq, kworker) with the
iomap_dio_rw, path and work slices as bars, one bar per bio from submission
to end_io, arrows for completions (submitting to completing context) and
punts (to the workqueue), and the notable instant events (ki_complete,
injected faults, warnings, context violations) as labelled marks.

Needs Debian's python3-matplotlib (scripts/quickstart.sh installs it).
"""
import argparse
import json
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
except ImportError:
    sys.exit("trace-plot.py: needs matplotlib (apt-get install "
             "python3-matplotlib)")

SLICE_COLOURS = {
    "iomap_dio_rw": "#c6dbef",
    "simple path": "#74c476",
    "generic path": "#fd8d3c",
    "work": "#bcbddc",
}
MARKS = {
    # event name (or category): colour, marker
    "ki_complete": ("#08519c", "v"),
    "iomap_dio_complete": ("#6a51a3", "d"),
    "iomap_dio_rw_queued": ("#636363", "|"),
    "fault": ("#cb181d", "X"),
    "sim_warning": ("#e6550d", "*"),
    "sim_context_violation": ("#a50f15", "*"),
    "sim_deadlock": ("#a50f15", "*"),
}
# JSON timestamps are records times STEP (iomapsim's trace-json.c)
STEP = 10
# blk_status_t values the bio completion records print (blk_types.h)
BLK_STS = {"1": "NOTSUPP", "2": "TIMEOUT", "3": "NOSPC", "4": "TRANSPORT",
           "5": "TARGET", "6": "RESV_CONFLICT", "7": "MEDIUM",
           "8": "PROTECTION", "9": "RESOURCE", "10": "IOERR",
           "12": "AGAIN", "13": "DEV_RESOURCE", "16": "OFFLINE",
           "19": "INVAL"}
LABELS = {
    "iomap_dio_rw_queued": "-EIOCBQUEUED",
    "iomap_dio_complete": "dio complete",
    "sim_warning": "WARN",
    "sim_context_violation": "context violation",
    "sim_deadlock": "deadlock",
}


def load(path):
    with open(path) as f:
        doc = json.load(f)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def lanes_of(events):
    """tid -> (row, name), in the tracks' sort order."""
    names = {e["tid"]: e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    used = sorted({e["tid"] for e in events if e["ph"] != "M"})
    return {tid: (row, names.get(tid, f"track {tid}"))
            for row, tid in enumerate(used)}


def slices_of(events):
    """(tid, name, start, end, depth) for every B/E pair."""
    stacks, out = {}, []
    for e in events:
        if e["ph"] == "B":
            stacks.setdefault(e["tid"], []).append(e)
        elif e["ph"] == "E" and stacks.get(e["tid"]):
            b = stacks[e["tid"]].pop()
            out.append((e["tid"], b["name"], b["ts"], e["ts"],
                        len(stacks[e["tid"]])))
    return out


def bios_of(events):
    """(name, start, end, status) per async bio slice."""
    open_, out = {}, []
    for e in events:
        if e["ph"] == "b":
            open_[e["id"]] = e
        elif e["ph"] == "e" and e["id"] in open_:
            b = open_.pop(e["id"])
            args = e.get("args", {}).get("args", "")
            status = "0"
            for tok in args.split():
                if tok.startswith("status="):
                    status = tok[7:]
            out.append((b["name"], b["ts"], e["ts"], status))
    return out


def flows_of(events):
    """(category, (ts, tid) start, (ts, tid) end) per flow arrow."""
    starts, out = {}, []
    for e in events:
        if e["ph"] == "s":
            starts[(e["cat"], e["id"])] = e
        elif e["ph"] == "f" and (e["cat"], e["id"]) in starts:
            s = starts.pop((e["cat"], e["id"]))
            out.append((e["cat"], (s["ts"], s["tid"]), (e["ts"], e["tid"])))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--title", default=None)
    a = ap.parse_args()

    try:
        events = load(a.trace)
    except (OSError, ValueError, KeyError) as err:
        sys.exit(f"trace-plot.py: {a.trace}: {err}")
    lanes = lanes_of(events)
    if not lanes:
        sys.exit(f"trace-plot.py: {a.trace}: no events")
    bios = bios_of(events)
    nlanes = len(lanes)
    # bios below the context lanes, one row each
    bio_row0 = nlanes + 0.4
    rows = nlanes + len(bios) * 0.55 + 0.6
    t_end = max(e.get("ts", 0) + e.get("dur", 0) for e in events)

    fig, ax = plt.subplots(figsize=(11, 1.4 + 0.75 * rows))
    t_end /= STEP

    def y(tid):
        return lanes[tid][0]

    for tid, name, t0, t1, depth in slices_of(events):
        t0, t1 = t0 / STEP, t1 / STEP
        h = 0.62 - 0.2 * depth
        ax.barh(y(tid), max(t1 - t0, 0.1), left=t0, height=h,
                color=SLICE_COLOURS.get(name, "#d9d9d9"),
                edgecolor="#525252", linewidth=0.6, zorder=1 + depth)
        # the outer slice's name above its bar, nested ones inside
        ax.text(t0 + 0.2, y(tid) - (h / 2 + 0.02 if depth == 0 else 0),
                name, fontsize=7, va="bottom" if depth == 0 else "center",
                zorder=10)

    for e in events:
        if e["ph"] == "X":
            t0 = e["ts"] / STEP
            ax.barh(y(e["tid"]), e["dur"] / STEP, left=t0, height=0.3,
                    color="#252525", zorder=15)
            ax.text(t0, y(e["tid"]) + 0.2, e["name"], fontsize=6,
                    va="top", ha="center", zorder=16)

    for i, (name, t0, t1, status) in enumerate(bios):
        t0, t1 = t0 / STEP, t1 / STEP
        row = bio_row0 + i * 0.55
        failed = status not in ("0", "")
        ax.barh(row, max(t1 - t0, 0.1), left=t0, height=0.4,
                color="#fcbba1" if failed else "#9ecae1",
                edgecolor="#525252", linewidth=0.6)
        ax.text(t1 + 0.3, row, name + (f", failed: {BLK_STS.get(status, status)}"
                                       if failed else ""),
                fontsize=7, va="center")

    for cat, (ts0, tid0), (ts1, tid1) in flows_of(events):
        ts0, ts1 = ts0 / STEP, ts1 / STEP
        colour = "#2171b5" if cat == "bio" else "#d94801"
        ax.annotate("", xy=(ts1, y(tid1)), xytext=(ts0, y(tid0)),
                    arrowprops=dict(arrowstyle="-|>", color=colour, lw=1.4,
                                    shrinkA=0, shrinkB=0,
                                    connectionstyle="arc3,rad=-0.12"),
                    zorder=20)
        ax.text((ts0 + ts1) / 2 + 0.3, (y(tid0) + y(tid1)) / 2,
                "end_io" if cat == "bio" else "punt",
                fontsize=7, color=colour, zorder=21)

    level = {}
    for e in events:
        if e["ph"] != "i":
            continue
        t = e["ts"] / STEP
        key = e["name"] if e["name"] in MARKS else e.get("cat")
        if key not in MARKS:
            ax.plot(t, y(e["tid"]) + 0.36, marker="|", color="#969696",
                    markersize=4, zorder=5)
            continue
        colour, marker = MARKS[key]
        # labels of one lane take turns at two heights
        n = level.get(e["tid"], 0)
        level[e["tid"]] = n + 1
        dy = 0.5 + 0.22 * (n % 2)
        ax.plot(t, y(e["tid"]) - 0.36, marker=marker, color=colour,
                markersize=7, zorder=25)
        label = LABELS.get(e["name"], e["name"])
        if e["name"] == "ki_complete":
            label = "ki_complete(" + e["args"]["args"].split()[-1] + ")"
        ax.text(t, y(e["tid"]) - dy, label, fontsize=7, color=colour,
                ha="center", va="bottom", zorder=26)

    ticks = [row for row, _ in lanes.values()]
    labels = [name for _, name in lanes.values()]
    ticks += [bio_row0 + i * 0.55 for i in range(len(bios))]
    labels += ["bio"] * len(bios)
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_ylim(rows - 0.2, -1.0)
    ax.set_xlim(-0.5, t_end * 1.15 + 1)
    ax.set_xlabel("trace ring record (the deterministic engine's logical "
                  "time)", fontsize=8)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.tick_params(axis="x", labelsize=7)
    ax.grid(axis="x", color="#eeeeee", zorder=0)
    ax.set_title(a.title or a.trace, fontsize=9)
    fig.tight_layout()
    try:
        fig.savefig(a.out, dpi=100)
    except OSError as err:
        sys.exit(f"trace-plot.py: {a.out}: {err}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
