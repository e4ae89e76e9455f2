# SPDX-License-Identifier: GPL-2.0-only
"""What scripts/tree_diff_explain.py (release changes between two
builds) and scripts/tree_diff_real.py (differences by design between the
simulator and a real kernel) do alike with their explanations: account
for the keys of one differing request, and print the verdict on it when
run as a command."""


def account(keys, a, b, claimed):
    """@claimed: (explanation, the keys it accounts for) for each
    explanation that holds for a request whose outcomes @a and @b differ
    in @keys: ([explanation], the keys none accounts for)."""
    left = set(keys)
    used = []
    mismatch = "mismatch" in (a.get("data"), b.get("data"))
    for e, mine in claimed:
        if mismatch:
            # data read back wrong is never the side effect of a release
            # change nor a difference by design: it stays unexplained, a
            # finding
            mine = mine - {"data"}
        if mine:
            used.append(e)
            left -= mine
    return used, left


def verdict(used, left, keys, source):
    """Print a "why" line for each explanation @used (@source(e): the
    kernel change or function behind it) and "UNEXPLAINED" with the
    @keys @left; the exit status: 0 when everything is accounted for."""
    for e in used:
        print("why: %s (%s; %s)" % (e.why, e.rules, source(e)))
    if left or not keys:
        print("UNEXPLAINED: %s" % (", ".join(sorted(left)) or
                                   "no key differs"))
        return 1
    return 0
