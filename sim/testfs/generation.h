/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the tests expect of the iomap API generation this build links
 * (<sim/iomap_fs.h>): one table per generation of the SEMANTICS rules its
 * kernel code changed, each with the upstream change, and the few facts
 * the fuzzer's oracles need.  A difference between generations is data
 * here, not code in the test bodies.
 *
 * The embedded copy is the baseline, generation (a): its table is empty.
 * For generation (b) (the VFS tree), each entry is either
 *  - CHANGED: the named tests still run and assert the baseline; on this
 *    tree they must fail with exactly @expect (the failure message, or a
 *    part of it), which the harness then reports as the rule's change.
 *    A listed test that passes is itself a failure (the tree
 *    went back to the baseline, or the table is stale), and so is any
 *    other failure: a user's patched tree shows its behaviour changes
 *    there;
 *  - NA: the tests exercise something the tree does not have (the
 *    proposal entry points, the embedded copy's private functions) and
 *    are not run.
 */
#ifndef _IOMAPSIM_GENERATION_H
#define _IOMAPSIM_GENERATION_H

#include <linux/types.h>

enum gen_change_kind {
	GEN_CHANGED,
	GEN_NA,
	/*
	 * As CHANGED, but not a rule the tree changed on purpose: a bug in
	 * the tree's code that the test finds, reported with its reproducer
	 * (@upstream); listed so that the rest of the suite keeps running.
	 */
	GEN_BUG,
};

struct gen_change {
	const char *rule;	/* SEMANTICS rule ID(s) */
	enum gen_change_kind kind;
	const char *suite;	/* test program */
	const char *tcase;	/* Check test case */
	const char *tests;	/* NA: space-separated test names, or "*" */
	const char *expect;	/* CHANGED: the failure it must give */
	/*
	 * CHANGED loop tests: the baseline still holds in some iterations
	 * (Check's log does not say which), so a pass is no staleness; one
	 * iteration must fail as @expect says.
	 */
	bool some_iterations;
	const char *baseline;	/* what the baseline does */
	const char *tree;	/* what this generation does */
	const char *upstream;	/* the upstream change */
};

struct iomapsim_generation {
	char id;		/* 'a' or 'b' */
	const char *name;
	/* S-03: an empty read is answered by the simple read path (0) */
	bool empty_read_simple;
	/* S-05, S-08: IOMAP_DIO_* flags that keep a read off the simple path */
	unsigned int simple_refuses_flags;
	/* S-16, S-24, S-38: the simple path calls ->iomap_end */
	bool simple_calls_end;
	/* B-29: memory off dma_alignment fails before any bio is submitted */
	bool dma_checked_at_build;
	/*
	 * A write to an IOMAP_F_INTEGRITY mapping generates protection
	 * information, which needs a device with an integrity profile (the
	 * simulated ones have none; fuzz/README.md, K7)
	 */
	bool integrity_write_needs_profile;
	/*
	 * S-19: the simple path returns bio_iov_iter_get_pages()'s -EINVAL
	 * for memory off dma_alignment with the iterator past the aligned
	 * segments it extracted (the generic path re-expands it)
	 */
	bool simple_einval_moves_iter;
	/* N-06..N-14: the proposal entry points exist */
	bool proposal_apis;
	const struct gen_change *changes;
	unsigned int nr_changes;
};

/* The generation linked into this program. */
const struct iomapsim_generation *iomapsim_generation(void);

#endif /* _IOMAPSIM_GENERATION_H */
