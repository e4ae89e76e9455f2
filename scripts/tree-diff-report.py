#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare two `iomapsim batch` outputs of the same request stream and report
what differs, grouped by which outcome keys changed and how.  Called by
scripts/tree-diff.sh; usable alone:

    tree-diff-report.py [--json | --markdown | --summary]
                        [--name-a A] [--name-b B]
                        [--features-a WORDS --features-b WORDS | --real FS]
                        REQUESTS OUT_A OUT_B

--markdown writes the report as Markdown (docs/releases.md is made of
it); --summary, with features, only the counts and, for each release
change that explains groups, how many groups and requests it explains.

With each build's features (the words after "features:" in `iomapsim
--version`), every group says why its requests differ: the behaviour
change between releases that accounts for every changed key of every
request in it (scripts/tree_diff_explain.py), or UNEXPLAINED -- a
finding, or an explanation missing.

With --real FS, OUT_A is the simulator's batch and OUT_B the answers of
a real kernel on file system FS (tests/real/real-batch.c, through
scripts/uml-batch.sh): the two are compared on the outcome keys both
have (scripts/tree_diff_real.py), a request the real side cannot express
or the simulator refuses is counted apart with its reason, and each
group is explained by a difference by design (docs/rules.md 3.R) or
reported UNEXPLAINED.

Exit status: 0 when no request differs, 1 when some do, 2 on error.
"""
import argparse
import json
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tree_diff_explain  # noqa: E402
import tree_diff_real  # noqa: E402

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
# the fallback of code that has no simple path
NO_SIMPLE = "no_simple_path"
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
    # a refused request has no outcome keys to compare: its error is all;
    # nor has one that oopsed the code (tree-diff.sh records the report)
    if "error" in a or "error" in b:
        return ["error"] if a.get("error") != b.get("error") else []
    if "oops" in a or "oops" in b:
        return ["oops"] if a.get("oops") != b.get("oops") else []
    keys = [k for k in a if k not in IGNORED]
    keys += [k for k in b if k not in IGNORED and k not in a]
    # code without a simple path has no reason to fall back: "why
    # generic" differs for every request, which the path key shows
    if NO_SIMPLE in (a.get("fallback"), b.get("fallback")):
        keys = [k for k in keys if k != "fallback"]
    return [k for k in keys if a.get(k) != b.get(k)]


def expressible(o):
    return not ("error" in o and NOT_EXPRESSIBLE.search(str(o["error"])))


def real_refusal(a, b):
    """Why a simulator-vs-real pair is not compared, or None: what the
    real side cannot express, or what either side refuses; by kind (the
    reason up to its first ": ", so that "engine seed: 7" counts with
    "engine seed: 9")."""
    if "unsupported" in b:
        return "real cannot express: " + str(b["unsupported"]).split(": ")[0]
    if "error" in a:
        return "simulator refuses"
    if "error" in b:
        return "real refuses: " + str(b["error"])
    return None


def compare(reqs, out_a, out_b, real=False):
    lines = sorted(set(out_a) | set(out_b))
    res = {"compared": 0, "identical": 0, "different": 0,
           "not_expressible": 0, "missing": 0}
    why_not = {}
    groups = {}
    for n in lines:
        a, b = out_a.get(n), out_b.get(n)
        if a is None or b is None:
            res["missing"] += 1
            continue
        if real:
            a, b = tree_diff_real.project(a), tree_diff_real.project(b)
            out_a[n], out_b[n] = a, b
            why = real_refusal(a, b)
            if why:
                why_not[why] = why_not.get(why, 0) + 1
                res["not_expressible"] += 1
                continue
        elif not expressible(a) or not expressible(b):
            res["not_expressible"] += 1
            continue
        res["compared"] += 1
        keys = diff_keys(a, b)
        if not keys:
            res["identical"] += 1
            continue
        res["different"] += 1
        how = tuple(change(k, a.get(k), b.get(k)) for k in keys)
        g = groups.setdefault(how, {"count": 0, "best": None,
                                    "members": []})
        g["count"] += 1
        g["members"].append((n, keys))
        text = reqs.get(n, "")
        if g["best"] is None or len(text) < len(g["best"][1]):
            g["best"] = (n, text, a, b)
    if real:
        res["not_expressible_why"] = dict(sorted(
            why_not.items(), key=lambda kv: (-kv[1], kv[0])))
    res["groups"] = []
    for how, g in sorted(groups.items(), key=lambda kv: (-kv[1]["count"],
                                                         kv[0])):
        n, text, a, b = g["best"]
        res["groups"].append({
            "changes": list(how), "count": g["count"], "line": n,
            "reproducer": "iomapsim run " + text,
            "a": {k: v for k, v in a.items() if k not in IGNORED},
            "b": {k: v for k, v in b.items() if k not in IGNORED},
            "members": g["members"],
        })
    return res


def explain_groups(res, reqs, case):
    """Each group's "explanation": {"by": the explanations that account
    for every changed key of every request in it, each with how many of
    its requests it accounts for, most first}; or None, and
    "unexplained": how many of its requests nothing accounts for, the
    first of them and the keys left, and "partly": the explanations that
    hold for the others.  @case(n, request, keys): the explanations that
    hold for request line @n and the keys they leave, ([...], set)."""
    parsed = {}
    for g in res["groups"]:
        uses, left_over = {}, []
        for n, keys in g["members"]:
            text = reqs.get(n, "")
            if text not in parsed:
                parsed[text] = tree_diff_explain.Request(text)
            used, left = case(n, parsed[text], keys)
            if left:
                left_over.append((n, sorted(left)))
                continue
            for e in used:
                uses[e.name] = (uses.get(e.name, (0, e))[0] + 1, e)
        by = [dict(e.as_dict(), requests=u) for u, e in
              sorted(uses.values(), key=lambda v: (-v[0], v[1].name))]
        if left_over:
            g["explanation"] = None
            g["unexplained"] = {"requests": len(left_over),
                                "line": left_over[0][0],
                                "keys": left_over[0][1], "partly": by}
        else:
            g["explanation"] = {"by": by}
    res["explained"] = sum(1 for g in res["groups"] if g["explanation"])
    res["unexplained"] = len(res["groups"]) - res["explained"]


def explain(res, reqs, out_a, out_b, fa, fb):
    """explain_groups() with the release changes between two builds of
    features @fa and @fb: tree_diff_explain.py."""
    explain_groups(res, reqs, lambda n, req, keys:
                   tree_diff_explain.explain_case(fa, fb, req, out_a[n],
                                                  out_b[n], keys))


def explain_real(res, reqs, out_a, out_b, fs):
    """explain_groups() with the differences by design between the
    simulator (A) and a real kernel on @fs (B): tree_diff_real.py."""
    explain_groups(res, reqs, lambda n, req, keys:
                   tree_diff_real.explain_case(fs, req, out_a[n],
                                               out_b[n], keys))


def print_text(res, name_a, name_b, f):
    w = max(len("{:,}".format(res["compared"])), 1)
    f.write("tree-diff: A = %s\n           B = %s\n" % (name_a, name_b))
    f.write("requests compared  %*s\n" % (w, "{:,}".format(res["compared"])))
    f.write("  identical        %*s\n" % (w, "{:,}".format(res["identical"])))
    f.write("  different        %*s\n" % (w, "{:,}".format(res["different"])))
    if "not_expressible_why" in res:
        f.write("not expressible    %*s   (the real side cannot express "
                "it, or a side refuses it)\n" %
                (w, "{:,}".format(res["not_expressible"])))
        for why, n in list(res["not_expressible_why"].items())[:8]:
            f.write("  %*s  %s\n" % (w + 14, "{:,}".format(n), why))
        if len(res["not_expressible_why"]) > 8:
            f.write("  %*s  (%d more reasons: --json lists them)\n" % (
                w + 14, "", len(res["not_expressible_why"]) - 8))
    else:
        f.write("not expressible    %*s   (an option one build's iomap "
                "lacks)\n" % (w, "{:,}".format(res["not_expressible"])))
    if res["missing"]:
        f.write("missing outcomes   %*s   (a batch stopped early)\n" %
                (w, "{:,}".format(res["missing"])))
    if not res["groups"]:
        f.write("no difference\n")
        return
    if "explained" in res:
        f.write("explained %d, unexplained %d\n" % (res["explained"],
                                                   res["unexplained"]))
    f.write("\n%d group(s) of differences, largest first; each with its "
            "shortest request (input line N), runnable against either build:\n"
            % len(res["groups"]))
    for g in res["groups"]:
        f.write("\n%s: %s requests\n" % (", ".join(g["changes"]),
                                         "{:,}".format(g["count"])))
        f.write("  line %d: %s\n" % (g["line"], g["reproducer"]))
        f.write("  A: %s\n" % json.dumps(g["a"], separators=(",", ":")))
        f.write("  B: %s\n" % json.dumps(g["b"], separators=(",", ":")))
        if "explanation" not in g:
            continue
        u = g.get("unexplained")
        by = u["partly"] if u else g["explanation"]["by"]
        for e in by:
            f.write("  why: %s (%s; %s)%s\n" % (
                e["why"], e["rules"], e["upstream"],
                "" if e["requests"] == g["count"] else
                " [%s of the requests]" % "{:,}".format(e["requests"])))
        if u:
            f.write("  UNEXPLAINED: a finding, or an explanation missing "
                    "(%s of %s requests; line %d: %s)\n" % (
                        "{:,}".format(u["requests"]),
                        "{:,}".format(g["count"]), u["line"],
                        ", ".join(u["keys"])))


def md_counts(res, name_a, name_b, f):
    f.write("- A: %s\n- B: %s\n" % (name_a, name_b))
    f.write("- requests compared %s: identical %s, different %s; not "
            "expressible %s\n" % tuple("{:,}".format(res[k]) for k in (
                "compared", "identical", "different", "not_expressible")))
    if "explained" in res:
        f.write("- %d group(s): explained %d, unexplained %d\n" % (
            len(res["groups"]), res["explained"], res["unexplained"]))


def md_why(e):
    return "%s (%s; %s)" % (e["why"], e["rules"], e["upstream"])


def print_markdown(res, name_a, name_b, f):
    """Each group: its changes and count, its shortest request, the keys
    that differ in it on either side, and why."""
    md_counts(res, name_a, name_b, f)
    for i, g in enumerate(res["groups"], 1):
        f.write("\n%d. **%s**: %s request%s  \n" % (
            i, ", ".join(g["changes"]), "{:,}".format(g["count"]),
            "" if g["count"] == 1 else "s"))
        f.write("   `%s` (line %d)  \n" % (g["reproducer"], g["line"]))
        keys = diff_keys(g["a"], g["b"])
        for side in ("a", "b"):
            f.write("   %s: `%s`%s\n" % (side.upper(), " ".join(
                "%s=%s" % (k, json.dumps(g[side].get(k))) for k in keys),
                "  " if side == "a" or "explanation" in g else ""))
        if "explanation" not in g:
            continue
        u = g.get("unexplained")
        for e in (u["partly"] if u else g["explanation"]["by"]):
            part = "" if e["requests"] == g["count"] else \
                " [%s of the requests]" % "{:,}".format(e["requests"])
            f.write("   why: %s%s  \n" % (md_why(e), part))
        if u:
            f.write("   **UNEXPLAINED** (%s of the requests; line %d: %s)"
                    "  \n" % ("{:,}".format(u["requests"]), u["line"],
                                ", ".join(u["keys"])))


def print_summary(res, name_a, name_b, f):
    """The counts, and a table of the release changes that explain the
    groups: how many groups and requests each accounts for."""
    md_counts(res, name_a, name_b, f)
    if "explained" not in res:
        return
    rows = {}
    for g in res["groups"]:
        for e in (g["explanation"] or {}).get("by", []):
            r = rows.setdefault(e["id"], [0, 0, e])
            r[0] += 1
            r[1] += e["requests"]
    if rows:
        f.write("\n| change | rules | upstream | groups | requests |\n"
                "|---|---|---|---|---|\n")
    for groups, reqs, e in sorted(rows.values(), key=lambda r: -r[1]):
        f.write("| %s | %s | %s | %d | %s |\n" % (
            e["why"], e["rules"], e["upstream"], groups, "{:,}".format(reqs)))
    for g in res["groups"]:
        if g["explanation"] is None:
            f.write("\nUNEXPLAINED: **%s** (%s requests): `%s`\n" % (
                ", ".join(g["changes"]), "{:,}".format(g["count"]),
                g["reproducer"]))


def main():
    ap = argparse.ArgumentParser()
    out = ap.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true",
                     help="one JSON object instead of the text report")
    out.add_argument("--markdown", action="store_true",
                     help="the report in Markdown")
    out.add_argument("--summary", action="store_true",
                     help="Markdown: the counts and the explaining changes")
    ap.add_argument("--name-a", default="A")
    ap.add_argument("--name-b", default="B")
    ap.add_argument("--features-a", metavar="WORDS",
                    help="build A's features (`iomapsim --version`)")
    ap.add_argument("--features-b", metavar="WORDS",
                    help="build B's features")
    ap.add_argument("--real", metavar="FS", choices=("xfs", "ext4"),
                    help="OUT_B is a real kernel's on FS (real-batch)")
    ap.add_argument("requests")
    ap.add_argument("out_a")
    ap.add_argument("out_b")
    args = ap.parse_args()
    if (args.features_a is None) != (args.features_b is None):
        print("tree-diff: --features-a and --features-b go together",
              file=sys.stderr)
        return 2
    if args.real and args.features_a is not None:
        print("tree-diff: --real compares with a kernel, not two builds' "
              "features", file=sys.stderr)
        return 2
    try:
        fa = tree_diff_explain.parse_features(args.features_a)
        fb = tree_diff_explain.parse_features(args.features_b)
    except ValueError as e:
        print("tree-diff: %s" % e, file=sys.stderr)
        return 2
    try:
        reqs = load_requests(args.requests)
        out_a, out_b = load_outcomes(args.out_a), load_outcomes(args.out_b)
        res = compare(reqs, out_a, out_b, real=bool(args.real))
        if args.real:
            explain_real(res, reqs, out_a, out_b, args.real)
        elif fa is not None:
            explain(res, reqs, out_a, out_b, fa, fb)
    except OSError as e:
        print("tree-diff: %s" % e, file=sys.stderr)
        return 2
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    if res["missing"]:
        print("tree-diff: %d request(s) have an outcome from one build only"
              % res["missing"], file=sys.stderr)
    for g in res["groups"]:
        del g["members"]
    if args.json:
        res = dict(res, a=args.name_a, b=args.name_b)
        if fa is not None:
            res.update(features_a=fa, features_b=fb)
        if args.real:
            res.update(real=args.real)
        json.dump(res, sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif args.markdown:
        print_markdown(res, args.name_a, args.name_b, sys.stdout)
    elif args.summary:
        print_summary(res, args.name_a, args.name_b, sys.stdout)
    else:
        print_text(res, args.name_a, args.name_b, sys.stdout)
    if res["missing"]:
        return 2
    return 1 if res["different"] else 0


if __name__ == "__main__":
    sys.exit(main())
