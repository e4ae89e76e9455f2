// SPDX-License-Identifier: GPL-2.0-only
/*
 * bio allocation, reference counting and completion (block/bio.c):
 * bio_sets and the slabs behind them, bvec tables, bio_init/bio_reset,
 * chaining, bio_endio() and submit_bio_wait().  The per-CPU alloc cache
 * is in bio-cache.c, pages (bio_add_page, bio_iov_iter_get_pages, the
 * dirty-page helpers) in bio-pages.c.
 *
 * Simulator additions, kept out of the kernel's control flow: every bio a
 * bio_set hands out is counted (gauge "bio_live", per-set sim_live) until
 * its last bio_put(), and a bio's lifecycle state catches a second
 * bio_endio() or bio_put() (stats "bio_double_endio", "bio_double_put",
 * plus a WARN so a test fails unless it expects the bug).
 */
#include <stdio.h>
#include <string.h>
#include <linux/init.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <sim/bdev.h>
#include <sim/bio.h>
#include <sim/engine.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "blk.h"

DEFINE_SIM_GAUGE(bio_stat_live, "bio_live");
DEFINE_SIM_STAT(bio_stat_alloc, "bio_alloc");
DEFINE_SIM_STAT(bio_stat_alloc_failed, "bio_alloc_failed");
DEFINE_SIM_STAT(bio_stat_put, "bio_put");
DEFINE_SIM_STAT(bio_stat_free, "bio_free");
DEFINE_SIM_STAT(bio_stat_endio, "bio_endio");
DEFINE_SIM_STAT(bio_stat_double_endio, "bio_double_endio");
DEFINE_SIM_STAT(bio_stat_double_put, "bio_double_put");
DEFINE_SIM_STAT(bio_stat_bvec_table, "bio_bvec_table");

bool blksim_bio_percpu_cache_default = true;

static u32 blksim_bio_next_id;

static struct biovec_slab {
	int nr_vecs;
	char *name;
	struct kmem_cache *slab;
} bvec_slabs[] = {
	{ .nr_vecs = 16, .name = "biovec-16" },
	{ .nr_vecs = 64, .name = "biovec-64" },
	{ .nr_vecs = 128, .name = "biovec-128" },
	{ .nr_vecs = BIO_MAX_VECS, .name = "biovec-max" },
};

static struct biovec_slab *biovec_slab(unsigned short nr_vecs)
{
	switch (nr_vecs) {
	/* smaller bios use inline vecs */
	case 5 ... 16:
		return &bvec_slabs[0];
	case 17 ... 64:
		return &bvec_slabs[1];
	case 65 ... 128:
		return &bvec_slabs[2];
	case 129 ... BIO_MAX_VECS:
		return &bvec_slabs[3];
	default:
		BUG();
		return NULL;
	}
}

/*
 * fs_bio_set is the bio_set containing bio and iovec memory pools used by
 * IO code that does not need private memory pools.
 */
struct bio_set fs_bio_set;

/*
 * Bio slabs are shared between bio_sets of equal object size (front_pad +
 * bio + back_pad), as the kernel does with its xarray keyed by size; a
 * short list does here.
 */
struct bio_slab {
	struct kmem_cache *slab;
	unsigned int slab_ref;
	unsigned int slab_size;
	char name[16];
	struct bio_slab *next;
};
static DEFINE_MUTEX(bio_slab_lock);
static struct bio_slab *bio_slabs;

static struct bio_slab *create_bio_slab(unsigned int size)
{
	struct bio_slab *bslab = kzalloc(sizeof(*bslab), GFP_KERNEL);

	if (!bslab)
		return NULL;

	snprintf(bslab->name, sizeof(bslab->name), "bio-%u", size);
	/*
	 * Cache-line aligned objects: a wrapper whose bio member is
	 * ____cacheline_aligned then has its bio on a line of its own
	 * (B-12, S-34).
	 */
	bslab->slab = kmem_cache_create(bslab->name, size, ARCH_KMALLOC_MINALIGN,
					SLAB_HWCACHE_ALIGN | SLAB_TYPESAFE_BY_RCU,
					NULL);
	if (!bslab->slab) {
		kfree(bslab);
		return NULL;
	}
	bslab->slab_ref = 1;
	bslab->slab_size = size;
	bslab->next = bio_slabs;
	bio_slabs = bslab;
	return bslab;
}

static inline unsigned int bs_bio_slab_size(struct bio_set *bs)
{
	return bs->front_pad + sizeof(struct bio) + bs->back_pad;
}

static struct kmem_cache *bio_find_or_create_slab(struct bio_set *bs)
{
	unsigned int size = bs_bio_slab_size(bs);
	struct bio_slab *bslab;

	mutex_lock(&bio_slab_lock);
	for (bslab = bio_slabs; bslab; bslab = bslab->next)
		if (bslab->slab_size == size)
			break;
	if (bslab)
		bslab->slab_ref++;
	else
		bslab = create_bio_slab(size);
	mutex_unlock(&bio_slab_lock);

	return bslab ? bslab->slab : NULL;
}

static void bio_put_slab(struct bio_set *bs)
{
	unsigned int slab_size = bs_bio_slab_size(bs);
	struct bio_slab **pp, *bslab = NULL;

	mutex_lock(&bio_slab_lock);
	for (pp = &bio_slabs; *pp; pp = &(*pp)->next) {
		if ((*pp)->slab_size == slab_size) {
			bslab = *pp;
			break;
		}
	}
	if (WARN(!bslab, "bio: unable to find slab!\n"))
		goto out;
	WARN_ON_ONCE(bslab->slab != bs->bio_slab);
	WARN_ON(!bslab->slab_ref);
	if (--bslab->slab_ref)
		goto out;

	*pp = bslab->next;
	kmem_cache_destroy(bslab->slab);
	kfree(bslab);
out:
	mutex_unlock(&bio_slab_lock);
}

void bvec_free(mempool_t *pool, struct bio_vec *bv, unsigned short nr_vecs)
{
	BUG_ON(nr_vecs > BIO_MAX_VECS);

	if (nr_vecs == BIO_MAX_VECS)
		mempool_free(bv, pool);
	else if (nr_vecs > BIO_INLINE_VECS)
		kmem_cache_free(biovec_slab(nr_vecs)->slab, bv);
}

/*
 * Make the first allocation restricted and don't dump info on allocation
 * failures, since we'll fall back to the mempool in case of failure.
 */
static inline gfp_t bvec_alloc_gfp(gfp_t gfp)
{
	return (gfp & ~(__GFP_DIRECT_RECLAIM | __GFP_IO)) | __GFP_NOMEMALLOC |
	       __GFP_NORETRY | __GFP_NOWARN;
}

struct bio_vec *bvec_alloc(mempool_t *pool, unsigned short *nr_vecs,
			   gfp_t gfp_mask)
{
	struct biovec_slab *bvs = biovec_slab(*nr_vecs);

	if (WARN_ON_ONCE(!bvs))
		return NULL;

	/*
	 * Upgrade the nr_vecs request to take full advantage of the
	 * allocation.  bvec_free() relies on it to find the slab.
	 */
	*nr_vecs = bvs->nr_vecs;
	sim_stat_inc(&bio_stat_bvec_table);

	/*
	 * Try a slab allocation first for all smaller allocations.  If that
	 * fails and __GFP_DIRECT_RECLAIM is set retry with the mempool, which
	 * holds BIO_MAX_VECS tables.
	 */
	if (*nr_vecs < BIO_MAX_VECS) {
		struct bio_vec *bvl;

		bvl = kmem_cache_alloc(bvs->slab, bvec_alloc_gfp(gfp_mask));
		if (likely(bvl) || !(gfp_mask & __GFP_DIRECT_RECLAIM))
			return bvl;
		*nr_vecs = BIO_MAX_VECS;
	}

	return mempool_alloc(pool, gfp_mask);
}

void bio_uninit(struct bio *bio)
{
	/* No cgroup, integrity or crypt context to drop here. */
}

void bio_free(struct bio *bio)
{
	struct bio_set *bs = bio->bi_pool;
	void *p = bio;

	if (WARN_ON_ONCE(!bs))
		return;

	bio->bi_sim_state = BLKSIM_BIO_FREED;
	bio_uninit(bio);
	bvec_free(&bs->bvec_pool, bio->bi_io_vec, bio->bi_max_vecs);
	mempool_free(p - bs->front_pad, &bs->bio_pool);
	sim_stat_inc(&bio_stat_free);
}

/*
 * Users of this function have their own bio allocation.  Subsequently,
 * they must remember to pair any call to bio_init() with bio_uninit()
 * when IO has completed, or when the bio is released.
 */
void bio_init(struct bio *bio, struct block_device *bdev,
	      struct bio_vec *table, unsigned short max_vecs, blk_opf_t opf)
{
	bio->bi_next = NULL;
	bio->bi_bdev = bdev;
	bio->bi_opf = opf;
	bio->bi_flags = 0;
	bio->bi_ioprio = 0;
	bio->bi_write_hint = 0;
	bio->bi_write_stream = 0;
	bio->bi_status = 0;
	bio->bi_iter.bi_sector = 0;
	bio->bi_iter.bi_size = 0;
	bio->bi_iter.bi_idx = 0;
	bio->bi_iter.bi_bvec_done = 0;
	bio->bi_end_io = NULL;
	bio->bi_private = NULL;
	bio->bi_vcnt = 0;

	atomic_set(&bio->__bi_remaining, 1);
	atomic_set(&bio->__bi_cnt, 1);
	bio->bi_cookie = BLK_QC_T_NONE;

	bio->bi_max_vecs = max_vecs;
	bio->bi_io_vec = table;
	bio->bi_pool = NULL;

	bio->bi_sim_state = BLKSIM_BIO_LIVE;
	bio->bi_sim_inflight = false;
	bio->bi_sim_alloc_cpu = -1;
	bio->bi_sim_submit_cpu = -1;
	bio->bi_sim_id = 0;
}

/**
 * bio_reset - reinitialize a bio
 * @bio:	bio to reset
 * @bdev:	block device to use the bio for
 * @opf:	operation and flags for bio
 *
 * After calling bio_reset(), @bio will be in the same state as a freshly
 * allocated bio returned by bio_alloc_bioset() - the only fields that are
 * preserved are the ones that are initialized by bio_alloc_bioset().
 */
void bio_reset(struct bio *bio, struct block_device *bdev, blk_opf_t opf)
{
	bio_uninit(bio);
	memset(bio, 0, BIO_RESET_BYTES);
	atomic_set(&bio->__bi_remaining, 1);
	bio->bi_bdev = bdev;
	bio->bi_opf = opf;
	/* a reset bio may end again */
	bio->bi_sim_state = BLKSIM_BIO_LIVE;
	bio->bi_sim_inflight = false;
}

static struct bio *__bio_chain_endio(struct bio *bio)
{
	struct bio *parent = bio->bi_private;

	if (bio->bi_status && !parent->bi_status)
		parent->bi_status = bio->bi_status;
	bio_put(bio);
	return parent;
}

static void bio_chain_endio(struct bio *bio)
{
	bio_endio(__bio_chain_endio(bio));
}

/**
 * bio_chain - chain bio completions
 * @bio: the target bio
 * @parent: the parent bio of @bio
 *
 * The caller won't have a bi_end_io called when @bio completes - instead,
 * @parent's bi_end_io won't be called until both @parent and @bio have
 * completed; the chained bio will also be freed when it completes.
 *
 * The caller must not set bi_private or bi_end_io in @bio.
 */
void bio_chain(struct bio *bio, struct bio *parent)
{
	BUG_ON(bio->bi_private || bio->bi_end_io);

	bio->bi_private = parent;
	bio->bi_end_io = bio_chain_endio;
	bio_inc_remaining(parent);
}

/*
 * If @prev is non-NULL, chain it to @new and submit it.  Returns @new.
 */
struct bio *bio_chain_and_submit(struct bio *prev, struct bio *new)
{
	if (prev) {
		bio_chain(prev, new);
		submit_bio(prev);
	}
	return new;
}

struct bio *blk_next_bio(struct bio *bio, struct block_device *bdev,
			 unsigned int nr_pages, blk_opf_t opf, gfp_t gfp)
{
	return bio_chain_and_submit(bio, bio_alloc(bdev, nr_pages, opf, gfp));
}

void blksim_bio_account_alloc(struct bio *bio, struct bio_set *bs)
{
	/* the simulator's own per-set counts: see sim_counter_add() */
	sim_counter_add(&bs->sim_live.counter, 1);
	sim_counter_add(&bs->sim_allocs.counter, 1);
	sim_stat_inc(&bio_stat_live);
	sim_stat_inc(&bio_stat_alloc);
	bio->bi_sim_alloc_cpu = (short)raw_smp_processor_id();
	if (sim_engine_threaded())
		bio->bi_sim_id = __atomic_add_fetch(&blksim_bio_next_id, 1,
						    __ATOMIC_RELAXED);
	else
		bio->bi_sim_id = ++blksim_bio_next_id;
}

static void blksim_bio_account_put(struct bio *bio)
{
	struct bio_set *bs = bio->bi_pool;

	bio->bi_sim_state = BLKSIM_BIO_FREED;
	sim_stat_inc(&bio_stat_put);
	if (bs) {
		sim_counter_add(&bs->sim_live.counter, -1);
		sim_stat_dec(&bio_stat_live);
	}
}

long blksim_bioset_live(struct bio_set *bs)
{
	return atomic_long_read(&bs->sim_live);
}

/*
 * The kernel's mempool_is_saturated(): every reserve element is home,
 * so the allocation just made did not come from the reserve.
 */
static inline bool bio_pool_saturated(mempool_t *pool)
{
	return __atomic_load_n(&pool->curr_nr, __ATOMIC_RELAXED) >=
	       pool->min_nr;
}

/**
 * bio_alloc_bioset - allocate a bio for I/O
 * @bdev:	block device to allocate the bio for (can be %NULL)
 * @nr_vecs:	number of bvecs to pre-allocate
 * @opf:	operation and flags for bio
 * @gfp_mask:	the GFP_* mask given to the slab allocator
 * @bs:		the bio_set to allocate from.
 *
 * Allocate a bio from the mempools in @bs.  With __GFP_DIRECT_RECLAIM the
 * allocation cannot fail (mempool guarantee, B-05); callers must then
 * submit each bio before allocating the next from the same pool.
 *
 * The kernel retries through a rescuer workqueue when it runs beneath
 * submit_bio_noacct() with bios queued on current->bio_list; submission
 * here never recurses, so that list is always empty.
 *
 * Returns: Pointer to new bio on success, NULL on failure.
 */
struct bio *bio_alloc_bioset(struct block_device *bdev, unsigned short nr_vecs,
			     blk_opf_t opf, gfp_t gfp_mask, struct bio_set *bs)
{
	struct bio *bio;
	void *p;

	/* should not use nobvec bioset for nr_vecs > 0 */
	if (WARN_ON_ONCE(!mempool_initialized(&bs->bvec_pool) && nr_vecs > 0))
		return NULL;

	/*
	 * B-03: bio_put() is safe in task and hard-IRQ context and bios
	 * are allocated in task context only, so every bio may use the
	 * per-CPU cache, not just those the caller marked.
	 */
	if (blksim_bio_percpu_cache_default)
		opf |= REQ_ALLOC_CACHE;

	if (opf & REQ_ALLOC_CACHE) {
		if (bs->cache && nr_vecs <= BIO_INLINE_VECS) {
			bio = bio_alloc_percpu_cache(bdev, nr_vecs, opf,
						     gfp_mask, bs);
			if (bio) {
				blksim_bio_account_alloc(bio, bs);
				sim_trace("block_bio_alloc",
					  "front_pad=%u nr_vecs=%u opf=0x%x cache=hit",
					  bs->front_pad, nr_vecs, bio->bi_opf);
				return bio;
			}
			/*
			 * No cached bio available, bio returned below marked
			 * with REQ_ALLOC_CACHE to participate in per-cpu
			 * alloc cache.
			 */
		} else {
			opf &= ~REQ_ALLOC_CACHE;
		}
	}

	p = mempool_alloc(&bs->bio_pool, gfp_mask);
	if (unlikely(!p)) {
		sim_stat_inc(&bio_stat_alloc_failed);
		return NULL;
	}
	/*
	 * A bio taken from the reserve must go back to the mempool, not to
	 * some CPU's cache where this starving bioset could not find it.
	 */
	if (!bio_pool_saturated(&bs->bio_pool))
		opf &= ~REQ_ALLOC_CACHE;

	bio = p + bs->front_pad;
	if (nr_vecs > BIO_INLINE_VECS) {
		struct bio_vec *bvl;

		bvl = bvec_alloc(&bs->bvec_pool, &nr_vecs, gfp_mask);
		if (unlikely(!bvl))
			goto err_free;

		bio_init(bio, bdev, bvl, nr_vecs, opf);
	} else if (nr_vecs) {
		bio_init(bio, bdev, bio->bi_inline_vecs, BIO_INLINE_VECS, opf);
	} else {
		bio_init(bio, bdev, NULL, 0, opf);
	}

	bio->bi_pool = bs;
	blksim_bio_account_alloc(bio, bs);
	/* front_pad tells the bio_sets apart (fs_bio_set has none) */
	sim_trace("block_bio_alloc",
		  "front_pad=%u nr_vecs=%u opf=0x%x cache=%s", bs->front_pad,
		  nr_vecs, bio->bi_opf,
		  (bio->bi_opf & REQ_ALLOC_CACHE) ? "miss" : "none");
	return bio;

err_free:
	mempool_free(p, &bs->bio_pool);
	sim_stat_inc(&bio_stat_alloc_failed);
	return NULL;
}

/**
 * bio_kmalloc - kmalloc a bio (including bvecs)
 * @nr_vecs:	number of bio_vecs to allocate
 * @gfp_mask:	the GFP_* mask given to the slab allocator
 *
 * The bio must be initialized using bio_init() before use, and freed with
 * kfree() after bio_uninit().  Not backed by a mempool: it can fail.
 */
struct bio *bio_kmalloc(unsigned short nr_vecs, gfp_t gfp_mask)
{
	if (nr_vecs > 1024 /* UIO_MAXIOV */)
		return NULL;
	return kmalloc(sizeof(struct bio) + nr_vecs * sizeof(struct bio_vec),
		       gfp_mask);
}

void zero_fill_bio_iter(struct bio *bio, struct bvec_iter start)
{
	struct bio_vec bv;
	struct bvec_iter iter;

	__bio_for_each_segment(bv, bio, iter, start)
		memset(bvec_virt(&bv), 0, bv.bv_len);
}

/**
 * bio_put - release a reference to a bio
 * @bio:   bio to release reference to
 *
 * Put a reference to a &struct bio, either one you have gotten with
 * bio_alloc, bio_get or bio_clone_*.  The last put of a bio will free it,
 * into the per-CPU cache when it carries REQ_ALLOC_CACHE (B-08).
 */
void bio_put(struct bio *bio)
{
	if (unlikely(bio_flagged(bio, BIO_REFFED))) {
		BUG_ON(!atomic_read(&bio->__bi_cnt));
		if (!atomic_dec_and_test(&bio->__bi_cnt))
			return;
	}
	if (unlikely(bio->bi_sim_state == BLKSIM_BIO_FREED)) {
		/* the kernel would free it twice */
		sim_stat_inc(&bio_stat_double_put);
		pr_err("%s: bio %u was already freed\n", __func__,
		       bio->bi_sim_id);
		WARN_ON_ONCE(1);
		return;
	}
	blksim_bio_account_put(bio);
	if (bio->bi_opf & REQ_ALLOC_CACHE) {
		/* the kernel would oops on the missing per-CPU area */
		if (WARN_ON_ONCE(!bio->bi_pool || !bio->bi_pool->cache))
			bio_free(bio);
		else
			bio_put_percpu_cache(bio);
	} else {
		bio_free(bio);
	}
}

static int __bio_clone(struct bio *bio, struct bio *bio_src, gfp_t gfp)
{
	bio_set_flag(bio, BIO_CLONED);
	bio->bi_ioprio = bio_src->bi_ioprio;
	bio->bi_write_hint = bio_src->bi_write_hint;
	bio->bi_write_stream = bio_src->bi_write_stream;
	bio->bi_iter = bio_src->bi_iter;

	if (bio->bi_bdev && bio->bi_bdev == bio_src->bi_bdev &&
	    bio_flagged(bio_src, BIO_REMAPPED))
		bio_set_flag(bio, BIO_REMAPPED);
	return 0;
}

/**
 * bio_alloc_clone - clone a bio that shares the original bio's biovec
 * @bdev: block_device to clone onto
 * @bio_src: bio to clone from
 * @gfp: allocation priority
 * @bs: bio_set to allocate from
 *
 * The caller owns the returned bio, but not the data it points to, and
 * must not free @bio_src before it.
 */
struct bio *bio_alloc_clone(struct block_device *bdev, struct bio *bio_src,
			    gfp_t gfp, struct bio_set *bs)
{
	struct bio *bio;

	bio = bio_alloc_bioset(bdev, 0, bio_src->bi_opf, gfp, bs);
	if (!bio)
		return NULL;

	if (__bio_clone(bio, bio_src, gfp) < 0) {
		bio_put(bio);
		return NULL;
	}
	bio->bi_io_vec = bio_src->bi_io_vec;
	return bio;
}

int bio_init_clone(struct block_device *bdev, struct bio *bio,
		   struct bio *bio_src, gfp_t gfp)
{
	int ret;

	bio_init(bio, bdev, bio_src->bi_io_vec, 0, bio_src->bi_opf);
	ret = __bio_clone(bio, bio_src, gfp);
	if (ret)
		bio_uninit(bio);
	return ret;
}

static void submit_bio_wait_endio(struct bio *bio)
{
	complete(bio->bi_private);
}

/*
 * Whether @bio's submitter sleeps in submit_bio_wait() until it ends.
 * REQ_SYNC cannot tell: iomap_dio_bio_iter() starts every bio, reads
 * included, with REQ_SYNC | REQ_IDLE in trees since the bio_opf rework.
 */
bool blksim_bio_submitter_sleeps(const struct bio *bio)
{
	return bio->bi_end_io == submit_bio_wait_endio;
}

/**
 * submit_bio_wait - submit a bio, and wait until it completes
 * @bio: The &struct bio which describes the I/O
 *
 * Simple wrapper around submit_bio().  Returns 0 on success, or the error
 * from bio_endio() on failure (B-22).
 *
 * WARNING: Unlike to how submit_bio() is usually used, this function does
 * not result in bio reference to be consumed.  The caller must drop the
 * reference on his own.
 */
int submit_bio_wait(struct bio *bio)
{
	DECLARE_COMPLETION_ONSTACK(done);

	bio->bi_private = &done;
	bio->bi_end_io = submit_bio_wait_endio;
	bio->bi_opf |= REQ_SYNC;
	submit_bio(bio);
	/*
	 * The scheduler flushes a task's plug before it sleeps; do the same
	 * so a bio held in our own plug cannot wait for itself.
	 */
	if (!completion_done(&done))
		blk_flush_plug(blksim_current_plug(), true);
	wait_for_completion_io(&done);

	return blk_status_to_errno(bio->bi_status);
}

void __bio_advance(struct bio *bio, unsigned int bytes)
{
	bio_advance_iter(bio, &bio->bi_iter, bytes);
}

void bio_copy_data_iter(struct bio *dst, struct bvec_iter *dst_iter,
			struct bio *src, struct bvec_iter *src_iter)
{
	while (src_iter->bi_size && dst_iter->bi_size) {
		struct bio_vec src_bv = bio_iter_iovec(src, *src_iter);
		struct bio_vec dst_bv = bio_iter_iovec(dst, *dst_iter);
		unsigned int bytes = min(src_bv.bv_len, dst_bv.bv_len);

		memcpy(bvec_virt(&dst_bv), bvec_virt(&src_bv), bytes);

		bio_advance_iter_single(src, src_iter, bytes);
		bio_advance_iter_single(dst, dst_iter, bytes);
	}
}

/*
 * Copies min(src->bi_size, dst->bi_size) bytes from @src's data to
 * @dst's.
 */
void bio_copy_data(struct bio *dst, struct bio *src)
{
	struct bvec_iter src_iter = src->bi_iter;
	struct bvec_iter dst_iter = dst->bi_iter;

	bio_copy_data_iter(dst, &dst_iter, src, &src_iter);
}

static inline bool bio_remaining_done(struct bio *bio)
{
	/*
	 * If we're not chaining, then ->__bi_remaining is always 1 and
	 * we always end io on the first invocation.
	 */
	if (!bio_flagged(bio, BIO_CHAIN))
		return true;

	BUG_ON(atomic_read(&bio->__bi_remaining) <= 0);

	if (atomic_dec_and_test(&bio->__bi_remaining)) {
		bio_clear_flag(bio, BIO_CHAIN);
		return true;
	}

	return false;
}

/*
 * A bio whose end_io already ran (or that went back to its pool) ending
 * again: in the kernel the end_io runs twice, usually on freed memory.
 * Report it and do not call the end_io a second time, so the test sees
 * the first bug rather than its fallout.
 */
static bool blksim_bio_check_endio(struct bio *bio)
{
	if (likely(bio->bi_sim_state == BLKSIM_BIO_LIVE))
		return true;
	sim_stat_inc(&bio_stat_double_endio);
	pr_err("bio_endio: bio %u already %s\n", bio->bi_sim_id,
	       bio->bi_sim_state == BLKSIM_BIO_ENDED ? "ended" : "freed");
	WARN_ON_ONCE(1);
	return false;
}

/**
 * bio_endio - end I/O on a bio
 * @bio:	bio
 *
 * bio_endio() will end I/O on the whole bio.  It can be called several
 * times on a bio that has been chained using bio_chain(): ->bi_end_io()
 * is only called the last time.  Otherwise exactly once (B-24).
 */
void bio_endio(struct bio *bio)
{
again:
	if (!bio_remaining_done(bio))
		return;
	if (!blksim_bio_check_endio(bio))
		return;
	sim_stat_inc(&bio_stat_endio);

	if (bio->bi_bdev)
		sim_trace("block_bio_complete",
			  "dev=%s sector=%llu size=%u status=%u",
			  bio->bi_bdev->bd_name,
			  (unsigned long long)bio->bi_iter.bi_sector,
			  bio->bi_iter.bi_size, bio->bi_status);

	bio->bi_sim_state = BLKSIM_BIO_ENDED;

	/*
	 * Need to have a real endio function for chained bios, otherwise
	 * various corner cases will break (like stacking block devices that
	 * save/restore bi_end_io) - however, we want to avoid unbounded
	 * recursion and blowing the stack.
	 */
	if (bio->bi_end_io == bio_chain_endio) {
		bio = __bio_chain_endio(bio);
		goto again;
	}

	if (bio->bi_end_io)
		bio->bi_end_io(bio);
}

/*
 * create memory pools for biovec's in a bio_set.
 * use the global biovec slabs created for general use.
 */
int biovec_init_pool(mempool_t *pool, int pool_entries)
{
	struct biovec_slab *bp = bvec_slabs + ARRAY_SIZE(bvec_slabs) - 1;

	return mempool_init_slab_pool(pool, pool_entries, bp->slab);
}

/*
 * bioset_exit - exit a bioset initialized with bioset_init()
 *
 * May be called on a zeroed but uninitialized bioset (i.e. allocated with
 * kzalloc()).  Bios still handed out are a leak: reported, and left
 * allocated (the harness then names their allocation site).
 */
void bioset_exit(struct bio_set *bs)
{
	long live;

	bio_alloc_cache_destroy(bs);
	bs->rescue_workqueue = NULL;

	live = atomic_long_read(&bs->sim_live);
	if (live) {
		pr_err("%s: %ld bio(s) of this bio_set not freed\n", __func__,
		       live);
		WARN_ON_ONCE(1);
	}

	if (mempool_initialized(&bs->bio_pool))
		mempool_exit(&bs->bio_pool);
	if (mempool_initialized(&bs->bvec_pool))
		mempool_exit(&bs->bvec_pool);

	if (bs->bio_slab)
		bio_put_slab(bs);
	bs->bio_slab = NULL;
}

/**
 * bioset_init - Initialize a bio_set
 * @bs:		pool to initialize
 * @pool_size:	Number of bio and bio_vecs to cache in the mempool
 * @front_pad:	Number of bytes to allocate in front of the returned bio
 * @flags:	BIOSET_NEED_BVECS, BIOSET_NEED_RESCUER, BIOSET_PERCPU_CACHE
 *
 * Front pad allocation is useful for embedding the bio inside another
 * structure, to avoid allocating extra data to go with the bio.  The bio
 * must be embedded at the END of that structure always (B-12).
 * BIOSET_NEED_BVECS adds a pool of BIO_MAX_VECS bvec tables and room for
 * BIO_INLINE_VECS bvecs behind each bio.  BIOSET_NEED_RESCUER is
 * accepted; the rescuer is never needed here (see bio_alloc_bioset()).
 * BIOSET_PERCPU_CACHE adds the per-CPU bio cache.
 *
 * Unlike the kernel, which expects a zeroed @bs, any memory will do.
 */
int bioset_init(struct bio_set *bs, unsigned int pool_size,
		unsigned int front_pad, int flags)
{
	memset(bs, 0, sizeof(*bs));
	bs->front_pad = front_pad;
	if (flags & BIOSET_NEED_BVECS)
		bs->back_pad = BIO_INLINE_VECS * sizeof(struct bio_vec);
	else
		bs->back_pad = 0;

	spin_lock_init(&bs->rescue_lock);
	atomic_long_set(&bs->sim_live, 0);

	bs->bio_slab = bio_find_or_create_slab(bs);
	if (!bs->bio_slab)
		return -ENOMEM;

	if (mempool_init_slab_pool(&bs->bio_pool, pool_size, bs->bio_slab))
		goto bad;

	if ((flags & BIOSET_NEED_BVECS) &&
	    biovec_init_pool(&bs->bvec_pool, pool_size))
		goto bad;

	if ((flags & BIOSET_PERCPU_CACHE) && bio_alloc_cache_init(bs))
		goto bad;

	return 0;
bad:
	bioset_exit(bs);
	return -ENOMEM;
}

/*
 * A boot level here as in the kernel: it runs once, when the program is
 * loaded (<linux/init.h>), so fs_bio_set exists before main() and its
 * pools are not charged to whichever test allocates the first bio.
 */
static int __init init_bio(void)
{
	unsigned int i;

	BUILD_BUG_ON(BIO_FLAG_LAST > 8 * sizeof(((struct bio *)0)->bi_flags));

	for (i = 0; i < ARRAY_SIZE(bvec_slabs); i++) {
		struct biovec_slab *bvs = bvec_slabs + i;

		bvs->slab = kmem_cache_create(bvs->name,
					      bvs->nr_vecs *
						      sizeof(struct bio_vec),
					      0, SLAB_HWCACHE_ALIGN | SLAB_PANIC,
					      NULL);
		BUG_ON(!bvs->slab);
	}

	if (bioset_init(&fs_bio_set, BIO_POOL_SIZE, 0,
			BIOSET_NEED_BVECS | BIOSET_PERCPU_CACHE))
		BUG();

	return 0;
}
subsys_initcall(init_bio);

/*
 * Cached bios are not leaks: they go back to their pools when the
 * simulated kernel is taken down (at each test's teardown, before the
 * gauges are compared).
 */
sim_exitcall(blksim_bio_drain_caches);
