#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare two `iomapsim batch` outputs of the same request stream and report
what differs, grouped by which outcome keys changed and how.  Called by
scripts/tree-diff.sh; usable alone:

    tree-diff-report.py [--json] [--name-a A] [--name-b B]
                        REQUESTS OUT_A OUT_B

Exit status: 0 when no request differs, 1 when some do, 2 on error.
"""
import argparse
import json
import re
import sys

# keys that say which build ran, not what the request did
IGNORED = {"line", "code"}
# positions and sizes: grouped as shorter/longer, whatever the values, so
# that one behaviour change makes one group, not one per request size
SIZES = {"ki_pos", "iter_count", "i_size"}
# the return value: the same between two byte counts; an errno or 0 is
# shown, since which errno is the behaviour, and a byte count beside it is
# "bytes"
RETURNS = {"ret"}
# counters: fewer/more (each group's example shows the values)
COUNTS = {"bios", "bios_fs_bio_set", "bios_dops_bio_set", "bios_simple_pool",
          "cache_hits", "punted", "ki_complete_calls", "leaks", "warnings",
          "context_violations"}
# a request that one build cannot express (an option its iomap generation
# lacks) is counted apart, never as a difference
# (`iomapsim run` says so: "... not in this build's iomap code ...")
NOT_EXPRESSIBLE = re.compile(
    r"not (?:available |supported )?(?:in|by|with) this build")


def load_requests(path):
    """Input line number -> request text, as the batch numbered them."""
    reqs = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            text = line.strip()
            if text and not text.startswith("#"):
                reqs[n] = text
    return reqs


def load_outcomes(path):
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                o = json.loads(line)
                out[o["line"]] = o
            except (ValueError, KeyError, TypeError):
                raise SystemExit("tree-diff: %s:%d: not an outcome line" %
                                 (path, n))
    return out


def show(v):
    return json.dumps(v)


def change(key, a, b):
    """One key's change, in the words the groups are made of."""
    if isinstance(a, int) and isinstance(b, int):
        if key in SIZES or (key in RETURNS and a > 0 and b > 0):
            return "%s %s" % (key, "shorter" if b < a else "longer")
        if key in COUNTS:
            return "%s %s" % (key, "fewer" if b < a else "more")
        if key in RETURNS:
            return "%s %s\u2192%s" % (key, "bytes" if a > 0 else a,
                                       "bytes" if b > 0 else b)
    return "%s %s\u2192%s" % (key, show(a), show(b))


def diff_keys(a, b):
    # a refused request has no outcome keys to compare: its error is all
    if "error" in a or "error" in b:
        return ["error"] if a.get("error") != b.get("error") else []
    keys = [k for k in a if k not in IGNORED]
    keys += [k for k in b if k not in IGNORED and k not in a]
    return [k for k in keys if a.get(k) != b.get(k)]


def expressible(o):
    return not ("error" in o and NOT_EXPRESSIBLE.search(str(o["error"])))


def compare(reqs, out_a, out_b):
    lines = sorted(set(out_a) | set(out_b))
    res = {"compared": 0, "identical": 0, "different": 0,
           "not_expressible": 0, "missing": 0}
    groups = {}
    for n in lines:
        a, b = out_a.get(n), out_b.get(n)
        if a is None or b is None:
            res["missing"] += 1
            continue
        if not expressible(a) or not expressible(b):
            res["not_expressible"] += 1
            continue
        res["compared"] += 1
        keys = diff_keys(a, b)
        if not keys:
            res["identical"] += 1
            continue
        res["different"] += 1
        how = tuple(change(k, a.get(k), b.get(k)) for k in keys)
        g = groups.setdefault(how, {"count": 0, "best": None})
        g["count"] += 1
        text = reqs.get(n, "")
        if g["best"] is None or len(text) < len(g["best"][1]):
            g["best"] = (n, text, a, b)
    res["groups"] = []
    for how, g in sorted(groups.items(), key=lambda kv: (-kv[1]["count"],
                                                         kv[0])):
        n, text, a, b = g["best"]
        res["groups"].append({
            "changes": list(how), "count": g["count"], "line": n,
            "reproducer": "iomapsim run " + text,
            "a": {k: v for k, v in a.items() if k not in IGNORED},
            "b": {k: v for k, v in b.items() if k not in IGNORED},
        })
    return res


def print_text(res, name_a, name_b, f):
    w = max(len("{:,}".format(res["compared"])), 1)
    f.write("tree-diff: A = %s\n           B = %s\n" % (name_a, name_b))
    f.write("requests compared  %*s\n" % (w, "{:,}".format(res["compared"])))
    f.write("  identical        %*s\n" % (w, "{:,}".format(res["identical"])))
    f.write("  different        %*s\n" % (w, "{:,}".format(res["different"])))
    f.write("not expressible    %*s   (an option one build's iomap lacks)\n" %
            (w, "{:,}".format(res["not_expressible"])))
    if res["missing"]:
        f.write("missing outcomes   %*s   (a batch stopped early)\n" %
                (w, "{:,}".format(res["missing"])))
    if not res["groups"]:
        f.write("no difference\n")
        return
    f.write("\n%d group(s) of differences, largest first; each with its "
            "shortest request (input line N), runnable against either build:\n"
            % len(res["groups"]))
    for g in res["groups"]:
        f.write("\n%s: %s requests\n" % (", ".join(g["changes"]),
                                         "{:,}".format(g["count"])))
        f.write("  line %d: %s\n" % (g["line"], g["reproducer"]))
        f.write("  A: %s\n" % json.dumps(g["a"], separators=(",", ":")))
        f.write("  B: %s\n" % json.dumps(g["b"], separators=(",", ":")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true",
                    help="one JSON object instead of the text report")
    ap.add_argument("--name-a", default="A")
    ap.add_argument("--name-b", default="B")
    ap.add_argument("requests")
    ap.add_argument("out_a")
    ap.add_argument("out_b")
    args = ap.parse_args()
    try:
        reqs = load_requests(args.requests)
        res = compare(reqs, load_outcomes(args.out_a),
                      load_outcomes(args.out_b))
    except OSError as e:
        print("tree-diff: %s" % e, file=sys.stderr)
        return 2
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    if res["missing"]:
        print("tree-diff: %d request(s) have an outcome from one build only"
              % res["missing"], file=sys.stderr)
    if args.json:
        res = dict(res, a=args.name_a, b=args.name_b)
        json.dump(res, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print_text(res, args.name_a, args.name_b, sys.stdout)
    if res["missing"]:
        return 2
    return 1 if res["different"] else 0


if __name__ == "__main__":
    sys.exit(main())
