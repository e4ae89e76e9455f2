// SPDX-License-Identifier: GPL-2.0-only
/*
 * Splitting a bio to the queue limits at submission (block/blk-merge.c and
 * the inline helpers of block/blk.h): the step where the block layer, not
 * iomap, refuses a user buffer the device cannot DMA to (B-29, B-30).
 *
 * Followed from the baseline tree:
 *  - __bio_split_to_limits(): READ and WRITE bios go through bio_split_rw()
 *    unless bio_may_need_split() says the bio is one segment that every
 *    driver takes (a single bvec ending within max_fast_segment_size): that
 *    fast path checks nothing, so a small bio in one page is not refused
 *    for its alignment.
 *  - bio_split_rw() = bio_submit_split(bio_split_rw_at(bio, lim, ...,
 *    get_max_io_size() bytes)), and bio_split_rw_at() is bio_split_io_at()
 *    with the length mask lim->dma_alignment: every bvec's offset AND
 *    length must clear the DMA alignment mask, or -EINVAL.  So segments of
 *    100 + 3996 bytes fail although the total is aligned (B-30); the
 *    length mask iomap hands bio_iov_iter_get_pages() only trims the total.
 *  - the split itself: max_sectors (rounded to the physical block),
 *    max_segments, max_segment_size; a REQ_ATOMIC bio that needs it is
 *    -EINVAL, a REQ_NOWAIT one -EAGAIN; a split bio is no longer polled.
 *  - bio_submit_split(): an error ends the bio at once with
 *    errno_to_blk_status() (BLK_STS_INVAL, BLK_STS_AGAIN), in the
 *    submitter's context; a split submits the remainder with
 *    submit_bio_noacct() and goes on with the front part, chained to it.
 *
 * The simulator has no virtual boundaries, chunk sectors, zones or
 * integrity, so those parts of the kernel's code are absent; its split
 * bios come from one bio_set instead of one per disk.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/init.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "blk.h"

DEFINE_SIM_STAT(blk_stat_split, "bio_split");
DEFINE_SIM_STAT(blk_stat_split_error, "bio_split_error");

/* disk->bio_split in the kernel: clones only, no bvecs, no cache. */
static struct bio_set blk_split_bio_set;

/*
 * The kernel sets disk->bio_split up with each disk; the one set here is
 * set up with the block layer, at boot.  It takes nothing of init_bio()
 * (no bvec pool; its bio slab is found or made by size), so where it
 * falls in the level does not matter.
 */
static int __init blk_split_init(void)
{
	if (bioset_init(&blk_split_bio_set, BIO_POOL_SIZE, 0, 0))
		BUG();
	return 0;
}
subsys_initcall(blk_split_init);

/* Bios ever allocated for splits (observers tell them from others'). */
long blksim_split_allocs(void)
{
	return atomic_long_read(&blk_split_bio_set.sim_allocs);
}

/**
 * bio_split - split a bio
 * @bio:	bio to split
 * @sectors:	number of sectors to split from the front of @bio
 * @gfp:	gfp mask
 * @bs:		bio set to allocate from
 *
 * Allocates and returns a new bio which represents @sectors from the start
 * of @bio, and updates @bio to represent the remaining sectors.  The new
 * bio points to @bio's bi_io_vec; @bio must outlive it.
 */
struct bio *bio_split(struct bio *bio, int sectors, gfp_t gfp,
		      struct bio_set *bs)
{
	struct bio *split;

	if (WARN_ON_ONCE(sectors <= 0))
		return ERR_PTR(-EINVAL);
	if (WARN_ON_ONCE((unsigned int)sectors >= bio_sectors(bio)))
		return ERR_PTR(-EINVAL);
	/* atomic writes cannot be split */
	if (bio->bi_opf & REQ_ATOMIC)
		return ERR_PTR(-EINVAL);

	split = bio_alloc_clone(bio->bi_bdev, bio, gfp, bs);
	if (!split)
		return ERR_PTR(-ENOMEM);

	split->bi_iter.bi_size = sectors << SECTOR_SHIFT;
	bio_advance(bio, split->bi_iter.bi_size);
	return split;
}

/* The largest piece of one bvec that fits in a segment at @paddr. */
static inline unsigned int get_max_segment_size(const struct queue_limits *lim,
						phys_addr_t paddr,
						unsigned int len)
{
	(void)paddr; /* no segment boundary mask on simulated queues */
	return min(len, lim->max_segment_size);
}

/*
 * Count the segments @bv needs, adding to *@nsegs and *@bytes as long as
 * @max_segs and @max_bytes allow; true if @bv does not fit whole.
 */
static bool bvec_split_segs(const struct queue_limits *lim,
			    const struct bio_vec *bv, unsigned int *nsegs,
			    unsigned int *bytes, unsigned int max_segs,
			    unsigned int max_bytes)
{
	unsigned int max_len = max_bytes - *bytes;
	unsigned int len = min(bv->bv_len, max_len);
	unsigned int total_len = 0;
	unsigned int seg_size = 0;

	while (len && *nsegs < max_segs) {
		seg_size = get_max_segment_size(lim, bvec_phys(bv) + total_len,
						len);
		(*nsegs)++;
		total_len += seg_size;
		len -= seg_size;
	}

	*bytes += total_len;

	/* tell the caller to split the bvec if it is too big to fit */
	return len > 0 || bv->bv_len > max_len;
}

/* The unit a split must keep: the logical block size. */
static inline unsigned int bio_split_alignment(struct bio *bio,
					       const struct queue_limits *lim)
{
	(void)bio;
	return lim->logical_block_size;
}

/**
 * bio_split_io_at - check if and where to split a bio
 * @bio:  [in] bio to be split
 * @lim:  [in] queue limits to split based on
 * @segs: [out] number of segments in the bio with the first half of the sectors
 * @max_bytes: [in] maximum number of bytes per bio
 * @len_align_mask: [in] length alignment mask for each vector
 *
 * Find out if @bio needs to be split to fit the queue limits in @lim and a
 * maximum size of @max_bytes.  Returns a negative error number if @bio
 * can't be split, 0 if the bio doesn't have to be split, or a positive
 * sector offset if @bio needs to be split.
 */
int bio_split_io_at(struct bio *bio, const struct queue_limits *lim,
		    unsigned int *segs, unsigned int max_bytes,
		    unsigned int len_align_mask)
{
	struct bio_vec bv, bvprv, *bvprvp = NULL;
	unsigned int nsegs = 0, bytes = 0;
	struct bvec_iter iter;

	bio_for_each_bvec(bv, bio, iter) {
		/* B-29, B-30: the device cannot DMA to this piece */
		if (bv.bv_offset & lim->dma_alignment ||
		    bv.bv_len & len_align_mask)
			return -EINVAL;

		if (nsegs < lim->max_segments &&
		    bytes + bv.bv_len <= max_bytes &&
		    bv.bv_offset + bv.bv_len <= lim->max_fast_segment_size) {
			nsegs++;
			bytes += bv.bv_len;
		} else {
			if (bvec_split_segs(lim, &bv, &nsegs, &bytes,
					    lim->max_segments, max_bytes))
				goto split;
		}

		bvprv = bv;
		bvprvp = &bvprv;
	}
	(void)bvprvp; /* the kernel's gap check needs a virt boundary */

	*segs = nsegs;
	return 0;
split:
	if (bio->bi_opf & REQ_ATOMIC)
		return -EINVAL;

	/*
	 * We can't sanely support splitting for a REQ_NOWAIT bio.  End it
	 * with EAGAIN if splitting is required and return an error pointer.
	 */
	if (bio->bi_opf & REQ_NOWAIT)
		return -EAGAIN;

	*segs = nsegs;

	/*
	 * Individual bvecs might not be logical block aligned.  Round down
	 * the split size so that each bio is properly block size aligned,
	 * even if we do not use the full hardware limits.  A zero result
	 * means the bio cannot be split into a valid I/O (too many
	 * discontiguous vectors for max_segments).
	 */
	bytes = ALIGN_DOWN(bytes, bio_split_alignment(bio, lim));
	if (!bytes)
		return -EINVAL;

	/*
	 * Bio splitting may cause subtle trouble such as hang when doing
	 * sync iopoll in direct IO routine.  Given performance gain of
	 * iopoll for big IO can be trivial, disable iopoll when split needed.
	 */
	bio_clear_polled(bio);
	return bytes >> SECTOR_SHIFT;
}

static inline int bio_split_rw_at(struct bio *bio,
				  const struct queue_limits *lim,
				  unsigned int *segs, unsigned int max_bytes)
{
	return bio_split_io_at(bio, lim, segs, max_bytes, lim->dma_alignment);
}

/*
 * The most sectors one bio may carry from its start: max_sectors, cut so
 * that the next bio starts on a physical block when that leaves anything.
 */
static inline unsigned int get_max_io_size(struct bio *bio,
					   const struct queue_limits *lim)
{
	unsigned int pbs = lim->physical_block_size >> SECTOR_SHIFT;
	unsigned int lbs = lim->logical_block_size >> SECTOR_SHIFT;
	unsigned int max_sectors = lim->max_sectors, start, end;

	start = bio->bi_iter.bi_sector & (pbs - 1);
	end = (start + max_sectors) & ~(pbs - 1);
	if (end > start)
		return end - start;
	return max_sectors & ~(lbs - 1);
}

static struct bio *bio_submit_split(struct bio *bio, int split_sectors)
{
	if (unlikely(split_sectors < 0))
		goto error;

	if (split_sectors) {
		struct bio *split;

		split = bio_split(bio, split_sectors, GFP_NOIO,
				  &blk_split_bio_set);
		if (IS_ERR(split)) {
			split_sectors = PTR_ERR(split);
			goto error;
		}
		split->bi_opf |= REQ_NOMERGE;
		bio_chain(split, bio);
		sim_stat_inc(&blk_stat_split);
		sim_trace("block_split", "dev=%s sector=%llu new_sector=%llu",
			  bio->bi_bdev->bd_name,
			  (unsigned long long)split->bi_iter.bi_sector,
			  (unsigned long long)bio->bi_iter.bi_sector);
		submit_bio_noacct(bio);
		return split;
	}

	return bio;
error:
	sim_stat_inc(&blk_stat_split_error);
	bio->bi_status = errno_to_blk_status(split_sectors);
	bio_endio(bio);
	return NULL;
}

struct bio *bio_split_rw(struct bio *bio, const struct queue_limits *lim,
			 unsigned int *nr_segs)
{
	return bio_submit_split(bio,
		bio_split_rw_at(bio, lim, nr_segs,
				get_max_io_size(bio, lim) << SECTOR_SHIFT));
}

/*
 * All drivers must accept single-segment bios that are smaller than
 * PAGE_SIZE: one bvec that holds the whole bio and ends within
 * max_fast_segment_size needs no look at the limits.
 */
static inline bool bio_may_need_split(struct bio *bio,
				      const struct queue_limits *lim)
{
	const struct bio_vec *bv;

	if (!bio->bi_io_vec)
		return true;

	bv = __bvec_iter_bvec(bio->bi_io_vec, bio->bi_iter);
	if (bio->bi_iter.bi_size > bv->bv_len - bio->bi_iter.bi_bvec_done)
		return true;
	return bv->bv_len + bv->bv_offset > lim->max_fast_segment_size;
}

struct bio *__bio_split_to_limits(struct bio *bio,
				  const struct queue_limits *lim,
				  unsigned int *nr_segs)
{
	switch (bio_op(bio)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		if (bio_may_need_split(bio, lim))
			return bio_split_rw(bio, lim, nr_segs);
		*nr_segs = 1;
		return bio;
	default:
		/* flushes and driver-private ops carry no data to split */
		*nr_segs = 0;
		return bio;
	}
}
