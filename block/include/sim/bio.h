/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulator's own view of bios and bio_sets, beside the kernel's
 * <linux/bio.h>: the B-03 switch, what a bio_set has handed out and
 * cached, draining the per-CPU caches, a bio's allocation number.  Kept
 * out of <linux/bio.h>, which holds only the kernel's interface.
 */
#ifndef _SIM_BIO_H
#define _SIM_BIO_H

#include <linux/bio.h>

/*
 * "block: enable per-cpu bio cache by default" (B-03): true (the
 * default) makes bio_alloc_bioset() add REQ_ALLOC_CACHE itself, so every
 * bioset with BIOSET_PERCPU_CACHE uses its cache for nr_vecs <= 4; false
 * gives the older rule where only callers passing REQ_ALLOC_CACHE
 * (io_uring, block-device DIO) use it (B-03).
 */
extern bool blksim_bio_percpu_cache_default;

/* Bios of @bs handed out and not yet put. */
long blksim_bioset_live(struct bio_set *bs);

/* Bios waiting in @cpu's cache of @bs, on the task and the IRQ list. */
void blksim_bioset_cache_count(struct bio_set *bs, int cpu, unsigned int *nr,
			    unsigned int *nr_irq);

/*
 * Return every cached bio of every bioset to its pool, as CPU hot-unplug
 * does (bio_cpu_dead()).  The test harness runs it at teardown so cached
 * bios do not show up as leaked allocations; call it before comparing
 * allocation counts.
 */
void blksim_bio_drain_caches(void);

/* Sequence number of @bio's allocation, for traces and tests. */
static inline u32 blksim_bio_id(const struct bio *bio)
{
	return bio->bi_sim_id;
}

#endif /* _SIM_BIO_H */
