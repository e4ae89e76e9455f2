/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Interfaces between the files of the block core (block/blk.h): not for
 * filesystems, backends or tests.
 *
 * The files here named as the kernel's (blk-core.c, blk-merge.c, bio.c,
 * bio-*.c, <linux/...>) hold the kernel's code and nothing that is there
 * only to support the simulator, as xfsprogs' libxfs_priv.h asks of its
 * kernel files: the simulated device's policy is in blk-sim.c and the
 * backend-*.c files, its interfaces in <sim/...>, and what is left of the
 * simulator in a kernel-named file is a hook (a counter, a trace point, a
 * fault point, a context check, a call into blk-sim.c).
 */
#ifndef _BLOCK_BLK_H
#define _BLOCK_BLK_H

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <sim/bdev-backend.h>
#include <sim/stats.h>

/* blksim_bdev_init() marks a device it set up with this. */
#define BLKSIM_BDEV_MAGIC 0x62646576U /* "bdev" */

/* bio.c */
void bio_free(struct bio *bio);
void bvec_free(mempool_t *pool, struct bio_vec *bv, unsigned short nr_vecs);
struct bio_vec *bvec_alloc(mempool_t *pool, unsigned short *nr_vecs,
			   gfp_t gfp_mask);
/* Account a bio handed out by @bs (cache hit or pool). */
void blksim_bio_account_alloc(struct bio *bio, struct bio_set *bs);

extern struct sim_stat bio_stat_live;
extern struct sim_stat bio_stat_build_failed; /* bio-pages.c */

/* bio-cache.c: the per-CPU bio alloc cache (B-03, B-04, B-08, B-09) */
int bio_alloc_cache_init(struct bio_set *bs);
void bio_alloc_cache_destroy(struct bio_set *bs);
struct bio *bio_alloc_percpu_cache(struct block_device *bdev,
				   unsigned short nr_vecs, blk_opf_t opf,
				   gfp_t gfp, struct bio_set *bs);
void bio_put_percpu_cache(struct bio *bio);

/* bio-pages.c */
static inline void bio_release_page(struct bio *bio, struct page *page)
{
	if (bio_flagged(bio, BIO_PAGE_PINNED))
		unpin_user_page(page);
}

/* blk-merge.c */
struct bio *__bio_split_to_limits(struct bio *bio,
				  const struct queue_limits *lim,
				  unsigned int *nr_segs);
struct bio *bio_split_rw(struct bio *bio, const struct queue_limits *lim,
			 unsigned int *nr_segs);
int bio_split_io_at(struct bio *bio, const struct queue_limits *lim,
		    unsigned int *segs, unsigned int max_bytes,
		    unsigned int len_align_mask);

/* blk-core.c */
void blksim_bio_submitted(struct bio *bio);
extern struct sim_stat blk_stat_submit_error;

/* blk-sim.c: the simulated device behind blk-core.c's submission */
void blksim_submit_bio(struct bio *bio);
void blksim_issue(struct bio *bio);
int blksim_reap_polled(struct block_device *bdev, blk_qc_t cookie);
bool blksim_bio_typesafe_freed(const struct bio *bio);

#endif /* _BLOCK_BLK_H */
