#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Why two iomap builds answer the same request differently.

scripts/tree-diff-report.py groups the requests whose outcomes differ
between two builds (two kernel trees, or a tree and the embedded copy).
This module holds what is known about those differences: a list of
explanations, each a behaviour change between releases with

  - the features of the two builds it needs (the words of `iomapsim
    --version`'s "features:" list, cmake/ksrc/features.cmake): one build
    must look like the code before the change, the other like the code
    after it, in either order;
  - a predicate on one differing request: its options (the reproducer),
    the outcome keys that changed and how; it must be specific enough
    that a new kind of difference stays unexplained;
  - the outcome keys the change accounts for (a request is explained
    when the explanations that hold for it account for every changed
    key);
  - a one-line why, the rule IDs (docs/rules.md) and the upstream change
    (its commit subject where one is known, else the code change).

tests/harness/expect.c names the same changes for the unit suites; the
two agree.  A difference nothing here accounts for is reported
UNEXPLAINED: a finding, or an explanation missing; data read back wrong
is never accounted for.  docs/releases.md is what the fixture trees
show.  Used by tree-diff-report.py (--features-a/--features-b); as a
command it explains one request:

    tree_diff_explain.py --features-a WORDS --features-b WORDS \\
        --request 'iomapsim run ...' A_OUTCOME_JSON B_OUTCOME_JSON
    tree_diff_explain.py --list     # every explanation, one per line
"""
import argparse
import json
import shlex
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from tree_diff_verdict import account, verdict  # noqa: E402

# ---- the builds' features ------------------------------------------------


def parse_features(text):
    """'simple=none mapping=iomap_ops ... caller_comp' (or a whole
    `iomapsim --version` line) -> {'simple': 'none', 'caller_comp': True}.
    A yes/no feature the line does not name is false (code.c prints only
    those that are true)."""
    if text is None:
        return None
    if "features:" in text:
        text = text.split("features:", 1)[1]
    feats = {}
    for word in text.split():
        name, eq, value = word.partition("=")
        feats[name] = value if eq else True
    if "simple" not in feats:
        raise ValueError("not a feature list (no simple=...): %r" % text)
    return feats


def on(f, name):
    return f.get(name) is True


def comp_era(f):
    """The completion scheme of a build's __iomap_dio_rw() and end_io:
    'old' (6.1: reads inline, writes on the workqueue), 'inline'
    (IOMAP_DIO_INLINE_COMP, from 6.6) or 'work' (IOMAP_DIO_COMP_WORK,
    the baseline).  The two changes stable series took back alone
    (error_punt, read_wq) are probed on their own and keyed on those
    words; the rest follow the era."""
    if on(f, "comp_work"):
        return "work"
    if on(f, "inline_comp"):
        return "inline"
    return "old"


# ---- one request ---------------------------------------------------------


# `iomapsim run`'s numeric options and their defaults, by attribute
NUMBERS = {"fs_block": ("fs-block", 4096), "lbs": ("lbs", 512),
           "size": ("size", 1048576), "pos": ("pos", 0), "len": ("len", 4096)}


class Request:
    """The options of an `iomapsim run` line, with run's defaults."""

    def __init__(self, text):
        toks = shlex.split(text)
        while toks and toks[0] in ("iomapsim", "run"):
            toks.pop(0)
        self.opts = {}
        i = 0
        while i < len(toks):
            t = toks[i]
            if not t.startswith("--"):
                i += 1
                continue
            if i + 1 < len(toks) and not toks[i + 1].startswith("--"):
                val, i = toks[i + 1], i + 2
            else:
                val, i = True, i + 1
            self.opts.setdefault(t[2:], []).append(val)
        for attr, (opt, default) in NUMBERS.items():
            setattr(self, attr, self.num(opt, default))
        self.op = self.last("op", "read")
        self.write = self.op == "write"
        self.is_async = self.has("async")
        self.iocb = self.words("iocb")
        self.dio_flags = self.words("dio-flags")

    def has(self, name):
        return name in self.opts

    def last(self, name, default=None):
        return self.opts[name][-1] if name in self.opts else default

    def num(self, name, default):
        try:
            return int(self.last(name, default))
        except (TypeError, ValueError):
            return default

    def words(self, name):
        out = set()
        for v in self.opts.get(name, []):
            if isinstance(v, str):
                out.update(w for w in v.split(",") if w)
        return out

    @property
    def faults(self):
        """[('alloc-fail', ['2']), ('begin-error', ['EIO']), ...]"""
        out = []
        for v in self.opts.get("fault", []):
            if isinstance(v, str):
                kind, _, rest = v.partition(":")
                out.append((kind, rest.split(":") if rest else []))
        return out

    def fault(self, kind):
        return any(k == kind for k, _ in self.faults)

    @property
    def maps(self):
        """[(type, offset, length, {flags})]; empty: all mapped."""
        out = []
        for v in self.opts.get("map", []):
            if not isinstance(v, str):
                continue
            p = v.split(":")
            if len(p) < 3:
                continue
            flags = set(p[3].split("+")) if len(p) > 3 else set()
            try:
                out.append((p[0], int(p[1]), int(p[2]), flags))
            except ValueError:
                continue
        return out

    def map_types(self):
        return {m[0] for m in self.maps} or {"mapped"}

    def map_flags(self):
        out = set()
        for m in self.maps:
            out |= m[3]
        return out

    def sub_block(self):
        """The range starts or ends inside a file system block."""
        return (self.pos | (self.pos + self.len)) % self.fs_block != 0

    def misaligned(self, mask):
        """Some address the transfer reaches in the user memory, or some
        length of it, breaks @mask: the buffer's offset into its page, a
        segment's offset or length, or the file range (a hole or an
        unwritten extent is zero-filled byte for byte, so the memory
        left for the next mapping starts where the range's offset
        leaves it)."""
        if (self.num("buf-offset", 0) | self.pos | self.len) & mask:
            return True
        it = str(self.last("iter", "ubuf"))
        if not it.startswith("iovec:"):
            return False
        if "," in it:
            for piece in it[6:].split(","):
                length, _, at = piece.partition("@")
                try:
                    if (int(length) | int(at or 0)) & mask:
                        return True
                except ValueError:
                    return True
            return False
        try:
            k = int(it[6:])
        except ValueError:
            return True
        return bool(k and (self.len // k) & mask)

    def lbs_misaligned(self):
        """Breaks the logical block size (the length unit)."""
        return self.misaligned(self.lbs - 1)

    def dma_misaligned(self):
        """Breaks the device's DMA alignment (--dma-alignment, 511 by
        default; B-29, B-30)."""
        return self.misaligned(self.num("dma-alignment", 511))


# ---- outcome shapes ------------------------------------------------------

# what an early return leaves: nothing went to the device, nothing queued
RESULT = {"ret", "queued", "bios", "cache_hits", "punted",
          "ki_complete_calls", "completion", "ki_pos", "iter_count",
          "i_size", "data", "bios_fs_bio_set", "bios_dops_bio_set",
          "bios_simple_pool"}
COMPLETION = {"queued", "punted", "ki_complete_calls", "completion"}

EIO, EAGAIN, ENOMEM, EINVAL, EOPNOTSUPP = 5, 11, 12, 22, 95


def no_io(o):
    """The request ended before any bio was built or queued."""
    return (not o.get("queued") and o.get("bios") == 0 and
            o.get("ki_complete_calls") == 0)


def refused(o, errno):
    return o.get("ret") == -errno and no_io(o)


# ---- the explanations ----------------------------------------------------


class Explanation:
    """@old / @new: predicates on a build's features (one build each, in
    either order); @applies(req, old, new, keys): the outcome of the
    build before the change, of the one after it, and the changed keys;
    @claims: the keys it accounts for (or a function of the request and
    the two outcomes)."""

    def __init__(self, name, old, new, applies, claims, why, rules,
                 upstream):
        self.name, self.old, self.new = name, old, new
        self.applies, self.claims = applies, claims
        self.why, self.rules, self.upstream = why, rules, upstream

    def keys_for(self, req, old, new):
        if callable(self.claims):
            return self.claims(req, old, new)
        return self.claims

    def orient(self, fa, fb):
        """The ways the two builds straddle the change: 'ab' when A can
        be the build before it and B the one after, 'ba' the other way
        round; an explanation whose outcome predicate tells the sides
        apart (@old true for every build) may hold either way."""
        return [o for o, (f_old, f_new) in (("ab", (fa, fb)),
                                             ("ba", (fb, fa)))
                if self.old(f_old) and self.new(f_new)]

    def as_dict(self):
        return {"id": self.name, "why": self.why, "rules": self.rules,
                "upstream": self.upstream}


E = Explanation

# upstream changes named by more than one explanation
ERROR_COMP = ("\"iomap: always run error completions in user context\" "
              "(in Debian's 6.12 since 6.12.63)")
WQ_READS = ("\"iomap: allocate s_dio_done_wq for async reads as well\" "
            "(in Debian's 6.12 since 6.12.69)")
KIOCB_HELPERS = ("\"iomap: use kiocb_write_and_wait and "
                 "kiocb_invalidate_pages\"")
LBS_ZERO = "\"iomap: fix iomap_dio_zero() for fs bs > system page size\""
CALLER_COMP = "\"iomap: support IOCB_DIO_CALLER_COMP\""
POLLED_NOWAIT = ("\"iomap: don't make REQ_POLLED imply REQ_NOWAIT\" (in "
                 "Debian's 6.12 since 6.12.111): iomap_dio_submit_bio() "
                 "sets REQ_POLLED where it called bio_set_polled(), which "
                 "added REQ_NOWAIT under IOCB_NOWAIT")
COMP_WORK = ("\"iomap: invert the polarity of IOMAP_DIO_INLINE_COMP\", "
             "\"iomap: support write completions from interrupt context\", "
             "\"fs, iomap: remove IOCB_DIO_CALLER_COMP\"")
UPFRONT = ("\"iomap: simplify direct io validity check\" (the \"direct-io: "
           "even more flexible io vectors\" series): "
           "bdev_iter_is_aligned() no longer runs before the first bio")
DMA_MASK = ("\"block: validate user space vectors during extraction\": "
            "bio_iov_iter_get_pages(bio, iter, dma_mask, len_mask), to "
            "which iomap_dio_bio_iter_one() and __iomap_dio_read_simple() "
            "pass bdev_dma_alignment() (the VFS tree, 2913b382)")
SIMPLE = ("\"iomap: add simple dio path for small direct I/O\" (v6, "
          "vfs-7.3.iomap)")
DECOUPLED = ("the simple read path leaves iomap_dio_rw(): the file system "
             "calls the inline iomap_dio_read_simple(iocb, iter, begin) "
             "before iomap_dio_rw(), only when it would pass no dio ops, "
             "dio_flags, residual or private data (the VFS tree, 2913b382)")
INLINE_OPFLAGS = "\"iomap: inline iomap_dio_bio_opflags()\""

# fallback reasons of a simple path that ran its begin function first
TRIED = {"not_mapped", "extent_short", "integrity", "short_pin"}


def simple_ran(o):
    """The simple path made calls for this request: it served it, or it
    fell back after its ->iomap_begin (S-38)."""
    return o.get("path") == "simple" or o.get("fallback") in TRIED


def both_generic(old, new):
    """Both builds ran the request through __iomap_dio_rw(): a change of
    the generic path, not of which path ran."""
    return old.get("path") == "generic" and new.get("path") == "generic"


def faulted(req):
    """Every injected fault counts calls (alloc-fail:N, short-pin:N,
    begin-error:E[:N], bio-error:N): where a path makes different calls,
    the Nth one is another call, or none."""
    return bool(req.faults)


def _wq_for_reads(req, old, new, keys):
    # the Nth allocation (alloc-fail:N) is the workqueue only where async
    # reads create it: that build fails before any I/O with -ENOMEM
    return (not req.write and req.is_async and req.fault("alloc-fail") and
            both_generic(old, new) and
            refused(new, ENOMEM) and not refused(old, ENOMEM))


def _error_punt(req, old, new, keys):
    # the error may be the device's or a later mapping's (begin-error):
    # either way the last reference drops in end_io with dio->error set
    return (not req.write and req.is_async and both_generic(old, new) and
            old.get("completion") == "end_io" and
            new.get("completion") == "workqueue" and
            new.get("punted", 0) > old.get("punted", 0) and
            old.get("ret") == new.get("ret") and old.get("ret", 0) < 0)


def _overwrite_only_read(req, old, new, keys):
    return (not req.write and "OVERWRITE_ONLY" in req.dio_flags and
            req.pos < req.size < req.pos + req.len and
            refused(old, EAGAIN) and old.get("completion") is None)


def _zero_returns_error(req, old, new, keys):
    # a sub-block write whose first data bio cannot be built (its pages
    # cannot be pinned, or the block layer refuses the memory while it
    # builds the bio): the mapping ends with the tail zeroing's result,
    # 0, in the build whose iomap_dio_zero() returns it (@new); the other
    # returns the error, or got further
    return (req.write and req.sub_block() and new.get("ret") == 0 and
            old.get("ret") != 0 and
            (req.fault("short-pin") or req.dma_misaligned()))


def _polled(req, polled, unpolled):
    """@polled polled the request's bio, @unpolled did not: on a queue
    without poll support the polled one fails with -EOPNOTSUPP (B-26);
    on a device that completes a bio as it is submitted (--complete
    inline) the unpolled dio completes in the submitter (G-48a) while the
    polled one is queued until it is reaped."""
    if req.has("no-poll"):
        return (polled.get("ret") == -EOPNOTSUPP and
                unpolled.get("ret") != -EOPNOTSUPP)
    # polling changes when and where the dio completes, not its I/O
    return (polled.get("ret") == unpolled.get("ret") and
            polled.get("bios") == unpolled.get("bios") and
            polled.get("path") == unpolled.get("path") and
            req.last("complete") == "inline" and
            bool(polled.get("queued")) and not unpolled.get("queued") and
            unpolled.get("completion") == "submitter")


def _poll_61_vs_inline(req, old, new, keys):
    # 6.1 polls any single-bio dio (no zeroing, no extension), writes
    # too; from 6.6 only INLINE_COMP (reads) or CALLER_COMP dios are
    # polled, reads that zero (IOMAP_F_NEW) included
    if not (req.is_async and "HIPRI" in req.iocb):
        return False
    if req.write:
        return _polled(req, old, new)
    return "new" in req.map_flags() and _polled(req, new, old)


def _poll_inline_vs_work(req, old, new, keys):
    # INLINE_COMP trees never poll a write; the baseline polls any dio
    # that needs no completion work, async pure overwrites included
    return (req.is_async and "HIPRI" in req.iocb and req.write and
            _polled(req, new, old))


def _poll_61_vs_work(req, old, new, keys):
    # both poll a pure overwrite; 6.1 also polls a write that needs
    # completion work but no zeroing or extension (shared, dirty, dsync)
    # and never a read that zeroes, which the baseline does not zero
    if not (req.is_async and "HIPRI" in req.iocb):
        return False
    return _polled(req, old, new) or _polled(req, new, old)


def _poll_claims(req, old, new):
    return RESULT if req.has("no-poll") else COMPLETION


def _polled_nowait(req, old, new, keys):
    # a polled REQ_NOWAIT bio that the block layer must split ends with
    # BLK_STS_AGAIN (B-30): -EAGAIN where the other build splits it
    return (req.is_async and {"HIPRI", "NOWAIT"} <= req.iocb and
            old.get("ret") == -EAGAIN and
            new.get("bios", 0) > old.get("bios", 0))


def _write_inline_comp(req, old, new, keys):
    return (req.write and req.is_async and
            old.get("completion") == "workqueue" and
            new.get("completion") == "end_io" and
            old.get("ret") == new.get("ret"))


def bios_allocated(o):
    return sum(o.get(k) or 0 for k in ("bios_fs_bio_set", "bios_dops_bio_set",
                                       "bios_simple_pool"))


def _upfront(req, old, new, keys):
    # refused before any bio of a mapping: bdev_iter_is_aligned() checked
    # the whole remaining iterator, every segment's address against the
    # DMA alignment and its length against the logical block size, also
    # the part a later mapping (or none: past a hole, past EOF) would
    # take; the other build got further (to its mapping loop, or its
    # simple path): a bio allocated, or another result
    reached = (new.get("completion") is not None or
               new.get("path") == "simple")
    return (refused(old, EINVAL) and not bios_allocated(old) and
            (req.lbs_misaligned() or req.dma_misaligned()) and reached and
            (new.get("ret") != -EINVAL or bios_allocated(new) > 0 or
             new.get("iter_count") != old.get("iter_count")))


def short_pin_misaligned(req, lbs):
    """A short pin (--fault short-pin:N:BYTES) that leaves a bio whose
    length breaks the logical block size: what a length mask refuses."""
    return any(k == "short-pin" and len(a) > 1 and a[1].isdigit() and
               int(a[1]) % lbs for k, a in req.faults)


def _dma_at_build(req, old, new, keys):
    # misaligned memory: the baseline lets the block layer find it when
    # it splits a submitted bio (one bvec within a page is never split,
    # so it passes, B-29); the VFS tree refuses it while building the
    # bio, before submitting it (S-19 on its simple path); a write that
    # zeroes then ends with its tail zeroing's 0 (G-38, K10).  A short
    # pin off the logical block size is refused there by the length mask
    # the same way.
    if not (req.dma_misaligned() or
            short_pin_misaligned(req, req.num("lbs", 512))):
        return False
    if new.get("ret") == -ENOMEM and refused(new, ENOMEM):
        # stopped by an allocation before any bio: not the memory
        return False
    return (new.get("iter_count", 0) > old.get("iter_count", 0) or
            new.get("ret") in (-EINVAL, 0) and
            new.get("ret") != old.get("ret"))


def _refused_past_segments(req, old, new, keys):
    # finding 0004: the block layer refuses a later IOVEC segment off the
    # DMA alignment after taking the ones before it, and iomap re-expands
    # the iterator by what it did not submit: its count exceeds what its
    # segments hold
    return (req.dma_misaligned() and new.get("iter_past_segments") is True
            and old.get("iter_past_segments") is not True)


def _refused_while_building_2(req, old, new, keys):
    # segments off the DMA alignment or the logical block size: the
    # two-argument bio_iov_iter_get_pages() of such code refuses them
    # before the bio goes out, the baseline's split refuses the bio it
    # submitted (and a write's second pass zeroes, finding 0002)
    return ((req.dma_misaligned() or req.lbs_misaligned()) and
            new.get("ret") == -EINVAL and
            new.get("bios", 0) <= old.get("bios", 0) and
            new.get("iter_count", 0) >= old.get("iter_count", 0))


def null_wq(f):
    """Error completions punted to a workqueue only writes allocate."""
    return on(f, "error_punt") and not on(f, "read_wq")


def _null_wq_oops(req, old, new, keys):
    # finding 0006: a failed async read queues its completion on the
    # super block's workqueue, which no read allocated
    return ("NULL workqueue" in str(new.get("oops", "")) and
            req.has("async") and req.last("op") == "read")


def _atomic_pins_leaked(req, old, new, keys):
    # finding 0007: an atomic write whose bio comes up short is put with
    # the pages it pinned
    return ("ATOMIC" in req.words("iocb") and
            new.get("leaks", 0) > old.get("leaks", 0))


def _dma_claims(req, old, new):
    if simple_ran(old) and simple_ran(new):
        # the simple path refuses the bio (S-19) where it fell back on a
        # short pin (S-20)
        return RESULT | {"path", "fallback"}
    return RESULT


def _read_new_no_zeroing(req, old, new, keys):
    return (not req.write and "new" in req.map_flags() and
            both_generic(old, new) and
            old.get("bios", 0) > new.get("bios", 0))


def _read_new_claims(req, old, new):
    keys = {"bios", "bios_fs_bio_set", "bios_dops_bio_set", "cache_hits"}
    if faulted(req):
        keys |= RESULT
    return keys


def _inline_one_page(req, old, new, keys):
    # G-22: an inline mapping that crosses a page warns and fails
    return ("inline" in req.map_types() and old.get("ret") == -EIO and
            old.get("warnings", 0) > new.get("warnings", 0))


def _fs_integrity(req, old, new, keys):
    # K7: fs_bio_integrity_generate() on a device without an integrity
    # profile: the tree dereferences NULL, the simulator's shim warns
    return (req.write and "integrity" in req.map_flags() and
            new.get("warnings", 0) > old.get("warnings", 0))


# ---- the simple read path ------------------------------------------------

PATH_COUNTERS = {"path", "bios", "bios_fs_bio_set", "bios_dops_bio_set",
                 "bios_simple_pool", "cache_hits", "completion", "queued",
                 "ki_complete_calls", "punted"}


def _simple_claims(req, old, new):
    """What the simple path (in @new) accounts for: the path and its
    counters; the request's result where a fault counts calls that only
    the simple path makes, or where the simple path's own rules differ
    (K9: its bio carries REQ_NOWAIT; S-19: a refused request leaves the
    iterator where the extraction left it; a stale mapping is not
    checked, so nothing warns)."""
    keys = set(PATH_COUNTERS)
    if faulted(req) and simple_ran(new):
        keys |= RESULT
    if (new.get("path") == "simple" and "NOWAIT" in req.iocb and
            new.get("ret") == -EAGAIN):
        keys |= RESULT
    if new.get("path") == "simple" and new.get("ret", 0) < 0:
        keys.add("iter_count")
    if "stale" in req.map_flags() and new.get("path") == "simple":
        keys.add("warnings")
    return keys


def _simple_added(req, old, new, keys):
    return (not req.write and simple_ran(new) and
            ("path" in keys or faulted(req)))


def _decoupled(req, old, new, keys):
    # the file system calls the simple path only for a request it would
    # send with no dio_flags (S-05, S-08, S-14): any flag, fallback
    # "dio_flags"; the other conditions keep their order, none before it
    kflags = req.dio_flags - {"NO_IOMAP_END"}
    if not req.write and kflags and new.get("fallback") == "dio_flags":
        return old.get("fallback") != "dio_flags"
    # S-03: iomap_dio_read_simple() answers an empty read itself
    return (req.len == 0 and old.get("fallback") == "empty" and
            new.get("path") == "simple" and old.get("ret") == new.get("ret"))


def _decoupled_claims(req, old, new):
    keys = PATH_COUNTERS | {"fallback"}
    if faulted(req) and simple_ran(old):
        keys |= RESULT
    if old.get("path") == "simple" and old.get("ret", 0) < 0:
        keys.add("iter_count")
    return keys


def _has_simple(f):
    return f.get("simple") not in (None, "none")


EXPLANATIONS = [
    # ---- 6.1 -> 6.12 ------------------------------------------------------
    E("wq-for-async-reads",
      lambda f: not on(f, "read_wq"), lambda f: on(f, "read_wq"),
      _wq_for_reads, RESULT,
      "an async read creates s_dio_done_wq first: the allocation the "
      "fault fails is that workqueue, -ENOMEM before any I/O",
      "G-17, G-61", WQ_READS),
    E("failed-read-punted",
      lambda f: not on(f, "error_punt"), lambda f: on(f, "error_punt"),
      _error_punt, {"punted", "completion"},
      "a failed async read is completed from s_dio_done_wq, not inline "
      "in end_io",
      "G-51, G-61", ERROR_COMP),
    E("overwrite-only-writes-only",
      lambda f: not on(f, "kiocb_invalidate"),
      lambda f: on(f, "kiocb_invalidate"),
      _overwrite_only_read, RESULT,
      "IOMAP_DIO_OVERWRITE_ONLY is checked for writes only: a read past "
      "i_size is no longer refused with -EAGAIN",
      "G-11, G-16", KIOCB_HELPERS),
    E("zeroing-replaces-error",
      lambda f: True, lambda f: on(f, "zero_returns_int"),
      _zero_returns_error, {"ret"},
      "a sub-block write whose first data bio cannot be built (no pages "
      "pinned, or memory the block layer refuses) returns 0: the tail "
      "zeroing's return value replaces the error, a bug "
      "(docs/findings/0001-tail-zeroing-replaces-error.md)",
      "G-33, G-38, K10", LBS_ZERO + ": iomap_dio_zero() returns an int, "
      "assigned to the mapping's error by the tail zeroing; Debian's "
      "6.12.118 returns void again (\"iomap: don't lose a failed direct "
      "I/O bio's error when zeroing the tail\")"),
    E("poll-inline-or-caller-comp",
      lambda f: comp_era(f) == "old",
      lambda f: comp_era(f) == "inline",
      _poll_61_vs_inline, _poll_claims,
      "IOCB_HIPRI is kept only for INLINE_COMP (reads) or CALLER_COMP "
      "dios, where it was kept for any single-bio dio: writes are no "
      "longer polled, reads that zero are",
      "G-29, G-36, G-61, B-26", CALLER_COMP),
    E("polled-bio-nowait",
      lambda f: comp_era(f) == "old", lambda f: comp_era(f) != "old",
      _polled_nowait, RESULT,
      "a polled bio no longer carries REQ_NOWAIT: the split it needs "
      "goes through instead of ending with BLK_STS_AGAIN",
      "G-37, B-25, B-30, K9", POLLED_NOWAIT),
    # ---- the completion rework (the baseline, the VFS tree) ---------------
    E("write-completes-inline",
      lambda f: comp_era(f) != "work", lambda f: comp_era(f) == "work",
      _write_inline_comp, {"punted", "completion"},
      "an async write that needs no completion work (a pure overwrite, no "
      "cached pages) completes inline in end_io instead of on "
      "s_dio_done_wq",
      "G-51, G-61", COMP_WORK),
    E("poll-without-completion-work",
      lambda f: comp_era(f) == "inline", lambda f: comp_era(f) == "work",
      _poll_inline_vs_work, _poll_claims,
      "IOCB_HIPRI is cleared only for a dio that needs completion work: "
      "an async pure overwrite is polled, where a write never was",
      "G-29, G-61, B-26", COMP_WORK),
    E("poll-single-bio-vs-completion-work",
      lambda f: comp_era(f) == "old", lambda f: comp_era(f) == "work",
      _poll_61_vs_work, _poll_claims,
      "IOCB_HIPRI is cleared for a dio that needs completion work, where "
      "6.1 cleared it only for one that zeroes or extends the file",
      "G-29, G-36, G-61, B-26", CALLER_COMP + "; " + COMP_WORK),
    # ---- the user memory --------------------------------------------------
    E("memory-checked-by-the-block-layer",
      lambda f: on(f, "dma_checked_upfront"),
      lambda f: not on(f, "dma_checked_upfront"),
      _upfront, RESULT,
      "the user memory is no longer checked up front against the logical "
      "block size: segments need only the DMA alignment, and what breaks "
      "it is refused while a bio is built or split",
      "G-23, B-29, B-30", UPFRONT),
    E("dma-checked-while-building",
      lambda f: f.get("bio_iov_iter_get_pages") == "3",
      lambda f: f.get("bio_iov_iter_get_pages") == "4",
      _dma_at_build, _dma_claims,
      "memory off the DMA alignment is refused while the bio is built "
      "(-EINVAL before that bio is submitted), where the baseline submits "
      "it and its split fails (the iterator consumed), or passes one bvec "
      "within a page unchecked",
      "B-29, S-19", DMA_MASK),
    E("dma-checked-while-building-2",
      lambda f: f.get("bio_iov_iter_get_pages") == "3",
      lambda f: (f.get("bio_iov_iter_get_pages") == "2" and
                 not on(f, "dma_checked_upfront")),
      _refused_while_building_2, RESULT,
      "the two-argument bio_iov_iter_get_pages() of code that no longer "
      "checks the memory up front refuses segments off the DMA alignment "
      "or the logical block size while it builds the bio (-EINVAL before that bio is submitted), "
      "where the baseline submits it and its split fails (the iterator "
      "consumed; a write's second pass then zeroes the block's head, "
      "finding 0002)",
      "B-29, G-30", UPFRONT),
    E("atomic-short-bio-leaks-pins",
      lambda f: not on(f, "atomic_put_pinned"),
      lambda f: on(f, "atomic_put_pinned"),
      _atomic_pins_leaked, {"leaks"},
      "an atomic write whose bio does not cover its mapping is put with "
      "its pages still pinned, a bug "
      "(docs/findings/0007-atomic-short-bio-leaks-pins.md)",
      "G-25, G-34", "bio_put() without bio_release_pages() on the "
      "REQ_ATOMIC short-bio error path"),
    E("read-error-null-workqueue",
      lambda f: not null_wq(f), null_wq,
      _null_wq_oops, {"oops"},
      "a failed async read oopses: its completion is punted to "
      "s_dio_done_wq, which only writes allocate here, a bug "
      "(docs/findings/0006-read-error-punt-null-workqueue.md)",
      "G-17, G-51", ERROR_COMP + " without " + WQ_READS),
    E("refused-bio-past-segments",
      lambda f: True,
      lambda f: f.get("bio_iov_iter_get_pages") == "4",
      _refused_past_segments, {"iter_past_segments", "iter_count"},
      "a bio refused for a later segment off the DMA alignment leaves the "
      "iterator past the segments it holds, a bug "
      "(docs/findings/0004-refused-bio-leaves-iterator-past-segments.md)",
      "I-05, B-29", DMA_MASK + ": bio_iov_iter_get_pages() does not "
      "revert what it extracted before the refused segment"),
    # ---- the mapping's flags ----------------------------------------------
    E("read-never-zeroes",
      lambda f: on(f, "bio_opflags_helper"),
      lambda f: not on(f, "bio_opflags_helper"),
      _read_new_no_zeroing, _read_new_claims,
      "IOMAP_F_NEW zeroing is decided for writes only: a read of a new "
      "mapping no longer sends a zeroing write for the rest of its block",
      "G-24, G-25, G-38", INLINE_OPFLAGS),
    E("inline-data-any-length",
      lambda f: on(f, "inline_one_page"),
      lambda f: not on(f, "inline_one_page"),
      _inline_one_page, RESULT | {"warnings"},
      "inline data may cross a page: no warning and -EIO from "
      "iomap_inline_data_valid()",
      "G-22", "\"iomap: remove over-strict inline data boundary check\""),
    E("fs-integrity-without-profile",
      lambda f: not on(f, "fs_integrity"), lambda f: on(f, "fs_integrity"),
      _fs_integrity, {"warnings"},
      "an IOMAP_F_INTEGRITY write goes through fs_bio_integrity_generate(),"
      " which needs the device's integrity profile: on a device without "
      "one the simulator's shim warns where the kernel would dereference "
      "NULL",
      "K7", "iomap_dio_bio_iter_one() calls fs_bio_integrity_generate() "
      "/ fs_bio_integrity_alloc() for IOMAP_F_INTEGRITY mappings (the VFS "
      "tree, 2913b382)"),
    # ---- the simple read path ---------------------------------------------
    E("simple-read-path",
      lambda f: not _has_simple(f), _has_simple,
      _simple_added, _simple_claims,
      "a small aligned read inside i_size takes the simple path (one bio "
      "from its own pool, no struct iomap_dio, S-01..S-38), or tries it "
      "first: the path and its counters differ, and an injected fault "
      "counts the calls it makes",
      "S-01..S-38", SIMPLE),
    E("simple-read-path-called-by-fs",
      lambda f: f.get("simple") == "iomap_dio_rw",
      lambda f: f.get("simple") == "iomap_dio_read_simple",
      _decoupled, _decoupled_claims,
      "a read with any dio_flags is not offered to the simple path: the "
      "file system calls iomap_dio_read_simple() only where it would "
      "pass dio_flags 0",
      "S-05, S-08, S-14", DECOUPLED),
]


# ---- matching ------------------------------------------------------------


def explain_case(fa, fb, req, a, b, keys, exps=None):
    """The explanations that hold for one differing request and the keys
    they leave unaccounted for: ([Explanation], set)."""
    if isinstance(req, str):
        req = Request(req)

    def claimed(e):
        mine = set()
        for o in e.orient(fa, fb):
            old, new = (a, b) if o == "ab" else (b, a)
            if e.applies(req, old, new, set(keys)):
                mine |= set(keys) & set(e.keys_for(req, old, new))
        return e, mine
    return account(keys, a, b, map(claimed, EXPLANATIONS if exps is None
                                   else exps))


def _report():
    """scripts/tree-diff-report.py, whose diff_keys() says which keys of
    two outcomes differ (its name is no module name)."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "tree-diff-report.py")
    spec = importlib.util.spec_from_file_location("tree_diff_report", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true",
                    help="print every explanation and exit")
    ap.add_argument("--features-a")
    ap.add_argument("--features-b")
    ap.add_argument("--request", help="the `iomapsim run` line")
    ap.add_argument("outcome_a", nargs="?")
    ap.add_argument("outcome_b", nargs="?")
    args = ap.parse_args()
    if args.list:
        for e in EXPLANATIONS:
            print("%s: %s (%s; %s)" % (e.name, e.why, e.rules, e.upstream))
        return 0
    if not (args.features_a and args.features_b and args.request and
            args.outcome_b):
        ap.error("want --features-a, --features-b, --request and the two "
                 "outcomes (JSON)")
    try:
        fa = parse_features(args.features_a)
        fb = parse_features(args.features_b)
        a, b = json.loads(args.outcome_a), json.loads(args.outcome_b)
    except ValueError as e:
        print("tree_diff_explain: %s" % e, file=sys.stderr)
        return 2
    keys = _report().diff_keys(a, b)
    used, left = explain_case(fa, fb, args.request, a, b, keys)
    return verdict(used, left, keys, lambda e: e.upstream)


if __name__ == "__main__":
    sys.exit(main())
