#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Why the simulator on a tree and the kernel built from that tree answer
the same request differently (scripts/tree-diff.sh --real).

The simulator's side is `iomapsim batch` in kernel-source mode on the
tree; the kernel's is tests/real/real-batch.c inside a UML kernel, on
XFS or ext4.  They share the outcome keys of OUTCOME_KEYS; a request the
real side cannot express answers {"unsupported": why} and is counted
apart, as is one the simulator refuses ({"error": ...}).

Each explanation here is a difference by design: the real file system or
block layer decides the request, and testfs or the simulated block layer
does not play that part.  Each has a rule in docs/rules.md section 3.R
and the kernel function that decides it; findings (docs/findings/) that
a kernel carries are named as such.  A difference nothing here accounts
for stays UNEXPLAINED; data read back wrong is never accounted for.
As a command it explains one request:

    tree_diff_real.py --fs xfs --request 'iomapsim run ...' SIM REAL
    tree_diff_real.py --list
"""
import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tree_diff_explain import Request  # noqa: E402
from tree_diff_verdict import account, verdict  # noqa: E402

# what real-batch.c prints and the simulator prints alike
OUTCOME_KEYS = ("ret", "ki_pos", "iter_count", "data")

EAGAIN, EFAULT, EINVAL, EOPNOTSUPP = 11, 14, 22, 95


def project(o):
    """An outcome line cut to the keys both sides have; markers kept."""
    out = {k: o[k] for k in ("line", "error", "unsupported") if k in o}
    if "error" in o or "unsupported" in o:
        return out
    out.update({k: o.get(k) for k in OUTCOME_KEYS})
    return out


def no_transfer(o):
    return o.get("ret", 0) <= 0


class RealExplanation:
    """@fs: the file system it holds on (None: both); @applies(req, sim,
    real, keys); @claims: the keys it accounts for."""

    def __init__(self, name, fs, applies, claims, why, rules, decided_by):
        self.name, self.fs, self.applies = name, fs, applies
        self.claims, self.why = claims, why
        self.rules, self.decided_by = rules, decided_by

    def as_dict(self):
        # "upstream" is where tree-diff-report.py prints the source of a
        # change; here it is the kernel function that decides it
        return {"id": self.name, "why": self.why, "rules": self.rules,
                "upstream": self.decided_by}


R = RealExplanation
ALL = set(OUTCOME_KEYS)


def _nowait_write(req, sim, real, keys):
    # refused before iomap: where iomap itself said EAGAIN (a mapping
    # that needs allocation under IOMAP_NOWAIT) both sides agree on ret
    return (req.write and "NOWAIT" in req.iocb and
            real.get("ret") == -EAGAIN and no_transfer(real) and
            sim.get("ret") != -EAGAIN)


def _xfs_misaligned_first(req, sim, real, keys):
    # XFS checks the position and length against the logical block
    # before anything else; testfs leaves that to iomap, after its
    # ->iomap_begin refused a NOWAIT write that needs allocation
    return (req.write and "NOWAIT" in req.iocb and
            (req.pos | req.len) % req.lbs != 0 and
            real.get("ret") == -EINVAL and sim.get("ret") == -EAGAIN)


def available(req):
    """The bytes a read of @req can return: up to EOF."""
    return max(0, min(req.len, req.size - req.pos))


def _polled_unpollable(req, sim, real, keys):
    # the simulated device refuses polled bios only with --no-poll; ubd
    # never polls, and 6.1 completes such a bio by interrupt.  A read
    # that comes back short of EOF is finding 0005's, not this.
    if req.write:
        whole = real.get("ret") == req.len
    else:
        whole = real.get("ret") == available(req)
    return (req.has("no-poll") and "HIPRI" in req.iocb and
            sim.get("ret") == -EOPNOTSUPP and whole and
            real.get("data") in ("ok", "zero", "n/a"))


def _polled_refused_by_kernel(req, sim, real, keys):
    # the other way round: the request's simulated device polls (no
    # --no-poll), ubd does not, and a kernel from 6.12 on ends the polled
    # bio with BLK_STS_NOTSUPP (__submit_bio()); io_uring's __io_read()
    # turns that EOPNOTSUPP into EAGAIN for a non-blocking attempt, which
    # RWF_NOWAIT returns as it is
    want = -EAGAIN if "NOWAIT" in req.iocb else -EOPNOTSUPP
    return (not req.has("no-poll") and "HIPRI" in req.iocb and
            req.is_async and real.get("ret") == want and
            no_transfer(real) and sim.get("ret", -1) >= 0)


def _iopoll_short_read(req, sim, real, keys):
    # finding 0005: a polled read that iomap completed short in the
    # submitter is retried from io-wq, and the retry's 0 reaches the CQE
    # without the bytes of the first attempt
    return (not req.write and req.is_async and "HIPRI" in req.iocb and
            real.get("ret") == 0 and available(req) > 0 and
            (sim.get("ret") == available(req) or
             sim.get("ret") == -EOPNOTSUPP))


def _write_returned_zero(req, sim, real, keys):
    # finding 0001: a sub-block write whose source cannot be pinned ends
    # with the tail zeroing's 0 instead of -EFAULT
    return (req.write and req.fault("unmapped") and req.len > 0 and
            real.get("ret") == 0)


def _iter_unseen(req, sim, real, keys):
    # both failed alike; only the iterator differs, and the real side's
    # figure is the one it derives from ret
    return (keys == {"iter_count"} and sim.get("ret", 0) < 0 and
            sim.get("ret") == real.get("ret") and
            real.get("iter_count") == req.len)


def _merged_segments(req, sim, real, keys):
    # a segment that goes on where the one before ended in memory
    # (iovec:K pieces, or L,L without @OFF) joins its bvec in the kernel
    it = str(req.last("iter", "ubuf"))
    return (it.startswith("iovec:") and "@" not in it.split(",", 1)[-1]
            and sim.get("ret") == -EINVAL and real.get("ret", -1) >= 0)


def _ext4_buffered_after_short(req, sim, real, keys):
    return (req.write and req.fault("unmapped") and
            real.get("ret") == -EFAULT and sim.get("ret", -1) >= 0 and
            sim.get("ret") < req.len)


def _ext4_nowait_refused(req, sim, real, keys):
    return _nowait_write(req, sim, real, keys)


EXPLANATIONS = [
    R("xfs-nowait-timestamps", "xfs", _nowait_write, ALL,
      "XFS refuses an RWF_NOWAIT write with EAGAIN before iomap when the "
      "timestamps need a transaction, before the segments are checked; "
      "testfs keeps no timestamps",
      "R-02", "xfs_file_write_checks() -> kiocb_modified()"),
    R("xfs-misaligned-before-nowait", "xfs", _xfs_misaligned_first, ALL,
      "XFS refuses a direct write whose position or length is off the "
      "logical block with EINVAL before anything else; testfs leaves "
      "that check to iomap, and its ->iomap_begin first refuses an "
      "RWF_NOWAIT write that needs allocation with EAGAIN",
      "R-07", "xfs_file_dio_write() (bt_logical_sectormask)"),
    R("ext4-nowait-would-block", "ext4", _ext4_nowait_refused, ALL,
      "ext4 refuses an RWF_NOWAIT direct write with EAGAIN before iomap "
      "where it would block: past EOF, (6.1) not a pure overwrite of "
      "written blocks, or security bits not known to be clear",
      "R-04", "ext4_dio_write_checks() -> ext4_overwrite_io(), "
      "IS_NOSEC()"),
    R("ext4-buffered-after-short", "ext4", _ext4_buffered_after_short, ALL,
      "ext4 finishes a short direct write with a buffered one, which "
      "faults on the unreadable source: EFAULT where iomap's answer is 0 "
      "or a short count (hides findings 0001 and 0002)",
      "R-03", "ext4_dio_write_iter() -> ext4_buffered_write_iter()"),
    R("polled-on-unpollable-queue", None, _polled_unpollable, ALL,
      "a polled request on a queue without poll queues: 6.1 clears "
      "REQ_POLLED and the bio completes by interrupt; the simulated block "
      "layer ends it with BLK_STS_NOTSUPP as later trees do (ubd has no "
      "poll queues: only --no-poll asks the simulator the same)",
      "R-05, B-26", "submit_bio_noacct() -> bio_clear_polled()"),
    R("polled-refused-by-kernel", None, _polled_refused_by_kernel, ALL,
      "a polled request the simulated device takes (no --no-poll) on ubd, "
      "which has no poll queues: from 6.12 the kernel ends the bio with "
      "BLK_STS_NOTSUPP, EOPNOTSUPP to the caller, or EAGAIN through "
      "io_uring's __io_read() for an RWF_NOWAIT read",
      "R-05, B-26", "__submit_bio() (BLK_FEAT_POLL), __io_read()"),
    R("segments-merged", None, _merged_segments, ALL,
      "segments that follow each other in memory join one bvec in the "
      "kernel and pass the block layer's length check; the simulated "
      "block layer gives each segment bvecs of its own",
      "R-01, B-30", "bio_iov_add_page() -> bvec_try_merge_page()"),
    R("finding-0005-iopoll-short-read", None, _iopoll_short_read, ALL,
      "FINDING the kernel carries "
      "(docs/findings/0005-iopoll-partial-read-loses-bytes.md): "
      "a polled io_uring read completed short at "
      "EOF in the submitter is retried from io-wq, and the CQE gets the "
      "retry's 0 without the bytes read",
      "finding 0005, G-48a", "io_read() -> io_complete_rw_iopoll() (no "
      "io_fixup_rw_res())"),
    R("finding-0001-tail-zeroing", None, _write_returned_zero, ALL,
      "FINDING the kernel carries "
      "(docs/findings/0001-tail-zeroing-replaces-error.md): "
      "a write whose source cannot be pinned "
      "returns the tail zeroing's 0 instead of -EFAULT",
      "finding 0001, G-38, K10", "iomap_dio_bio_iter() (ret = "
      "iomap_dio_zero())"),
    R("iterator-not-seen", None, _iter_unseen, {"iter_count"},
      "user space sees no iterator: the real side's iter_count is len - "
      "max(ret, 0); a request that failed after some mappings went out "
      "leaves the kernel's iterator past them, as the simulator shows "
      "(only a read past EOF is reverted)",
      "R-06", "__iomap_dio_rw() (iov_iter_revert() for reads only)"),
]


def explain_case(fs, req, sim, real, keys):
    """The explanations that hold for one differing request and the keys
    they leave unaccounted for: ([RealExplanation], set)."""
    if isinstance(req, str):
        req = Request(req)
    return account(keys, sim, real,
                   ((e, set(keys) & set(e.claims)) for e in EXPLANATIONS
                    if (not e.fs or e.fs == fs) and
                    e.applies(req, sim, real, set(keys))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true",
                    help="print every explanation and exit")
    ap.add_argument("--fs", choices=("xfs", "ext4"))
    ap.add_argument("--request", help="the `iomapsim run` line")
    ap.add_argument("sim", nargs="?", help="the simulator's outcome (JSON)")
    ap.add_argument("real", nargs="?", help="real-batch's outcome (JSON)")
    args = ap.parse_args()
    if args.list:
        for e in EXPLANATIONS:
            print("%s%s: %s (%s; %s)" % (e.name, " [%s]" % e.fs if e.fs
                                         else "", e.why, e.rules,
                                         e.decided_by))
        return 0
    if not (args.fs and args.request and args.real):
        ap.error("want --fs, --request and the two outcomes (JSON)")
    try:
        sim = project(json.loads(args.sim))
        real = project(json.loads(args.real))
    except ValueError as e:
        print("tree_diff_real: %s" % e, file=sys.stderr)
        return 2
    keys = [k for k in OUTCOME_KEYS if sim.get(k) != real.get(k)]
    used, left = explain_case(args.fs, args.request, sim, real, keys)
    return verdict(used, left, keys, lambda e: e.decided_by)


if __name__ == "__main__":
    sys.exit(main())
