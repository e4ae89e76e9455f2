/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * struct bio helpers and struct bio_set (include/linux/bio.h): the
 * kernel's interface only.  The simulator's entry points (blksim_bio_*,
 * blksim_bioset_*: the B-03 switch, cache inspection, the teardown drain)
 * are in <sim/bio.h>.
 */
#ifndef _LINUX_BIO_H
#define _LINUX_BIO_H

#include <linux/blk_types.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/spinlock.h>
#include <linux/uio.h>
#include <linux/workqueue.h>

#define BIO_MAX_VECS 256U
/* bvecs kept right after the bio (the bioset's back_pad), B-06 */
#define BIO_INLINE_VECS 4
#define BIO_POOL_SIZE 2

struct queue_limits;

static inline unsigned int bio_max_segs(unsigned int nr_segs)
{
	return min(nr_segs, BIO_MAX_VECS);
}

#define bio_iter_iovec(bio, iter) bvec_iter_bvec((bio)->bi_io_vec, (iter))

#define bio_iter_page(bio, iter) bvec_iter_page((bio)->bi_io_vec, (iter))
#define bio_iter_len(bio, iter) bvec_iter_len((bio)->bi_io_vec, (iter))
#define bio_iter_offset(bio, iter) bvec_iter_offset((bio)->bi_io_vec, (iter))

#define bvec_iter_sectors(iter) ((iter).bi_size >> 9)
#define bvec_iter_end_sector(iter) ((iter).bi_sector + bvec_iter_sectors((iter)))

#define bio_sectors(bio) bvec_iter_sectors((bio)->bi_iter)
#define bio_end_sector(bio) bvec_iter_end_sector((bio)->bi_iter)

/*
 * Return the data direction, READ or WRITE.
 */
#define bio_data_dir(bio) (op_is_write(bio_op(bio)) ? WRITE : READ)

static inline bool bio_flagged(const struct bio *bio, unsigned int bit)
{
	return bio->bi_flags & (1U << bit);
}

static inline void bio_set_flag(struct bio *bio, unsigned int bit)
{
	bio->bi_flags |= (1U << bit);
}

static inline void bio_clear_flag(struct bio *bio, unsigned int bit)
{
	bio->bi_flags &= ~(1U << bit);
}

/*
 * Check whether this bio carries any data or not.  A NULL bio is allowed.
 */
static inline bool bio_has_data(struct bio *bio)
{
	if (bio && bio->bi_iter.bi_size && bio_op(bio) != REQ_OP_DISCARD &&
	    bio_op(bio) != REQ_OP_SECURE_ERASE &&
	    bio_op(bio) != REQ_OP_WRITE_ZEROES)
		return true;
	return false;
}

static inline bool bio_no_advance_iter(const struct bio *bio)
{
	return bio_op(bio) == REQ_OP_DISCARD ||
	       bio_op(bio) == REQ_OP_SECURE_ERASE ||
	       bio_op(bio) == REQ_OP_WRITE_ZEROES;
}

static inline void bio_advance_iter(const struct bio *bio,
				    struct bvec_iter *iter, unsigned int bytes)
{
	iter->bi_sector += bytes >> 9;

	if (bio_no_advance_iter(bio))
		iter->bi_size -= bytes;
	else
		bvec_iter_advance(bio->bi_io_vec, iter, bytes);
}

/* @bytes should be less or equal to bvec[i->bi_idx].bv_len */
static inline void bio_advance_iter_single(const struct bio *bio,
					   struct bvec_iter *iter,
					   unsigned int bytes)
{
	iter->bi_sector += bytes >> 9;

	if (bio_no_advance_iter(bio))
		iter->bi_size -= bytes;
	else
		bvec_iter_advance_single(bio->bi_io_vec, iter, bytes);
}

void __bio_advance(struct bio *bio, unsigned int bytes);

/*
 * Advance the bio's own iterator by @nbytes (it must have at least that
 * much left); the data and the bvec table stay where they are.
 */
static inline void bio_advance(struct bio *bio, unsigned int nbytes)
{
	if (!nbytes)
		return;
	__bio_advance(bio, nbytes);
}

#define __bio_for_each_segment(bvl, bio, iter, start)                     \
	for (iter = (start);                                              \
	     (iter).bi_size && ((bvl = bio_iter_iovec((bio), (iter))), 1); \
	     bio_advance_iter_single((bio), &(iter), (bvl).bv_len))

#define bio_for_each_segment(bvl, bio, iter) \
	__bio_for_each_segment(bvl, bio, iter, (bio)->bi_iter)

#define __bio_for_each_bvec(bvl, bio, iter, start)                          \
	for (iter = (start);                                                \
	     (iter).bi_size &&                                              \
	     ((bvl = mp_bvec_iter_bvec((bio)->bi_io_vec, (iter))), 1);      \
	     bio_advance_iter_single((bio), &(iter), (bvl).bv_len))

/* iterate over multi-page bvec */
#define bio_for_each_bvec(bvl, bio, iter) \
	__bio_for_each_bvec(bvl, bio, iter, (bio)->bi_iter)

#define bio_iter_last(bvec, iter) ((iter).bi_size == (bvec).bv_len)

static inline bool bio_next_segment(const struct bio *bio,
				    struct bvec_iter_all *iter)
{
	if (iter->idx >= bio->bi_vcnt)
		return false;

	bvec_advance(&bio->bi_io_vec[iter->idx], iter);
	return true;
}

/*
 * Every single-page piece of the bio's own table, from its start: only
 * for the bio's owner (not for cloned or no-copy bios).
 */
#define bio_for_each_segment_all(bvl, bio, iter) \
	for (bvl = bvec_init_iter_all(&iter); bio_next_segment((bio), &iter);)

static inline struct bio_vec *bio_first_bvec_all(struct bio *bio)
{
	WARN_ON_ONCE(bio_flagged(bio, BIO_CLONED));
	return bio->bi_io_vec;
}

static inline struct page *bio_first_page_all(struct bio *bio)
{
	return bio_first_bvec_all(bio)->bv_page;
}

static inline struct folio *bio_first_folio_all(struct bio *bio)
{
	return page_folio(bio_first_page_all(bio));
}

static inline struct bio_vec *bio_last_bvec_all(struct bio *bio)
{
	WARN_ON_ONCE(bio_flagged(bio, BIO_CLONED));
	return &bio->bi_io_vec[bio->bi_vcnt - 1];
}

static inline struct page *bio_page(struct bio *bio)
{
	return bio_iter_page(bio, bio->bi_iter);
}

static inline unsigned int bio_offset(struct bio *bio)
{
	return bio_iter_offset(bio, bio->bi_iter);
}

static inline void *bio_data(struct bio *bio)
{
	if (bio_has_data(bio))
		return page_address(bio_page(bio)) + bio_offset(bio);
	return NULL;
}

/**
 * struct folio_iter - State for iterating all folios in a bio.
 * @folio: The current folio we're iterating.  NULL after the last folio.
 * @offset: The byte offset within the current folio.
 * @length: The number of bytes in this iteration (will not cross folio
 *	boundary).
 */
struct folio_iter {
	struct folio *folio;
	size_t offset;
	size_t length;
	/* private: for use by the iterator */
	struct folio *_next;
	size_t _seg_count;
	int _i;
};

static inline struct folio *blksim_folio_next(struct folio *folio)
{
	return page_folio(nth_page(folio_page(folio, 0),
				   folio_nr_pages(folio)));
}

/*
 * Folios are single pages in the simulator, and a bvec may start in a
 * later page than its bv_page (bv_offset >= PAGE_SIZE): start from the
 * page that holds the first byte.
 */
static inline void bio_first_folio(struct folio_iter *fi, struct bio *bio,
				   int i)
{
	struct bio_vec *bvec = bio_first_bvec_all(bio) + i;
	struct page *page;

	if (unlikely(i >= bio->bi_vcnt)) {
		fi->folio = NULL;
		return;
	}

	page = nth_page(bvec->bv_page, bvec->bv_offset >> PAGE_SHIFT);
	fi->folio = page_folio(page);
	fi->offset = bvec->bv_offset & ~PAGE_MASK;
	fi->_seg_count = bvec->bv_len;
	fi->length = min(folio_size(fi->folio) - fi->offset, fi->_seg_count);
	fi->_next = blksim_folio_next(fi->folio);
	fi->_i = i;
}

static inline void bio_next_folio(struct folio_iter *fi, struct bio *bio)
{
	fi->_seg_count -= fi->length;
	if (fi->_seg_count) {
		fi->folio = fi->_next;
		fi->offset = 0;
		fi->length = min(folio_size(fi->folio), fi->_seg_count);
		fi->_next = blksim_folio_next(fi->folio);
	} else {
		bio_first_folio(fi, bio, fi->_i + 1);
	}
}

/**
 * bio_for_each_folio_all - Iterate over each folio in a bio.
 * @fi: struct folio_iter which is updated for each folio.
 * @bio: struct bio to iterate over.
 */
#define bio_for_each_folio_all(fi, bio) \
	for (bio_first_folio(&fi, bio, 0); fi.folio; bio_next_folio(&fi, bio))

/*
 * bio_set: a mempool of bios (with front_pad bytes before each for the
 * caller's wrapper, B-12), a mempool of BIO_MAX_VECS bvec tables, and an
 * optional per-CPU cache of freed bios (B-03).
 */
struct bio_alloc_cache;

struct bio_set {
	struct kmem_cache *bio_slab;
	unsigned int front_pad;

	/*
	 * per-cpu bio alloc cache
	 */
	struct bio_alloc_cache *cache;

	mempool_t bio_pool;
	mempool_t bvec_pool;

	unsigned int back_pad;
	/*
	 * Deadlock avoidance for stacking block drivers: see comments in
	 * bio_alloc_bioset() for details.  (Accepted, never needed here:
	 * nothing allocates under submit_bio_noacct().)
	 */
	spinlock_t rescue_lock;
	struct bio *rescue_list;
	struct work_struct rescue_work;
	struct workqueue_struct *rescue_workqueue;

	/*
	 * Simulator only: bios handed out and not yet put (the per-set
	 * leak count bioset_exit() reports), and the list of biosets with
	 * a per-CPU cache, which the teardown drain walks; bios ever handed
	 * out, so an observer can tell which set a request's bios came from.
	 */
	atomic_long_t sim_live;
	atomic_long_t sim_allocs;
	struct bio_set *sim_next;
};

enum {
	BIOSET_NEED_BVECS = (1 << 0),
	BIOSET_NEED_RESCUER = (1 << 1),
	BIOSET_PERCPU_CACHE = (1 << 2),
};

extern struct bio_set fs_bio_set;

int bioset_init(struct bio_set *bs, unsigned int pool_size,
		unsigned int front_pad, int flags);
void bioset_exit(struct bio_set *bs);
int biovec_init_pool(mempool_t *pool, int pool_entries);

static inline bool bioset_initialized(struct bio_set *bs)
{
	return bs->bio_slab != NULL;
}

struct bio *bio_alloc_bioset(struct block_device *bdev,
			     unsigned short nr_vecs, blk_opf_t opf,
			     gfp_t gfp_mask, struct bio_set *bs);
struct bio *bio_kmalloc(unsigned short nr_vecs, gfp_t gfp_mask);
void bio_put(struct bio *bio);

struct bio *bio_alloc_clone(struct block_device *bdev, struct bio *bio_src,
			    gfp_t gfp, struct bio_set *bs);
int bio_init_clone(struct block_device *bdev, struct bio *bio,
		   struct bio *bio_src, gfp_t gfp);

static inline struct bio *bio_alloc(struct block_device *bdev,
				    unsigned short nr_vecs, blk_opf_t opf,
				    gfp_t gfp_mask)
{
	return bio_alloc_bioset(bdev, nr_vecs, opf, gfp_mask, &fs_bio_set);
}

void submit_bio(struct bio *bio);

void bio_endio(struct bio *bio);

static inline void bio_io_error(struct bio *bio)
{
	bio->bi_status = BLK_STS_IOERR;
	bio_endio(bio);
}

static inline void bio_wouldblock_error(struct bio *bio)
{
	bio_set_flag(bio, BIO_QUIET);
	bio->bi_status = BLK_STS_AGAIN;
	bio_endio(bio);
}

/*
 * Calculate number of bvec segments that should be allocated to fit data
 * pointed by @iter.  If @iter is backed by bvec it's going to be reused
 * instead of allocating a new one (B-13, B-15).
 */
static inline int bio_iov_vecs_to_alloc(struct iov_iter *iter, int max_segs)
{
	if (iov_iter_is_bvec(iter))
		return 0;
	return iov_iter_npages(iter, max_segs);
}

struct request_queue;

int submit_bio_wait(struct bio *bio);

void bio_init(struct bio *bio, struct block_device *bdev,
	      struct bio_vec *table, unsigned short max_vecs, blk_opf_t opf);
void bio_uninit(struct bio *bio);
void bio_reset(struct bio *bio, struct block_device *bdev, blk_opf_t opf);
void bio_chain(struct bio *bio, struct bio *parent);
struct bio *bio_split(struct bio *bio, int sectors, gfp_t gfp,
		      struct bio_set *bs);
struct bio *bio_chain_and_submit(struct bio *prev, struct bio *new);
struct bio *blk_next_bio(struct bio *bio, struct block_device *bdev,
			 unsigned int nr_pages, blk_opf_t opf, gfp_t gfp);

/* The bvecs right behind a bio allocated with room for them. */
static inline struct bio_vec *bio_inline_vecs(struct bio *bio)
{
	return bio->bi_inline_vecs;
}

static inline void bio_init_inline(struct bio *bio, struct block_device *bdev,
				   unsigned short max_vecs, blk_opf_t opf)
{
	bio_init(bio, bdev, bio_inline_vecs(bio), max_vecs, opf);
}

int bio_add_page(struct bio *bio, struct page *page, unsigned int len,
		 unsigned int off);
bool bio_add_folio(struct bio *bio, struct folio *folio, size_t len,
		   size_t off);
void __bio_add_page(struct bio *bio, struct page *page, unsigned int len,
		    unsigned int off);
void bio_add_folio_nofail(struct bio *bio, struct folio *folio, size_t len,
			  size_t off);
void bio_add_virt_nofail(struct bio *bio, void *vaddr, unsigned int len);
int bio_iov_iter_get_pages(struct bio *bio, struct iov_iter *iter,
			   unsigned int len_align_mask);
/* newer trees' four-argument form, with the DMA alignment check */
int bio_iov_iter_get_pages_dma(struct bio *bio, struct iov_iter *iter,
			       unsigned int dma_mask,
			       unsigned int len_align_mask);
void bio_iov_bvec_set(struct bio *bio, const struct iov_iter *iter);
/*
 * Bounce buffering for IOMAP_DIO_BOUNCE (block/bio-bounce.c, from the
 * iomap work; the kernel has bio_iov_bounce_nr_vecs() inline here).
 */
int bio_iov_iter_bounce(struct bio *bio, struct iov_iter *iter,
			size_t maxlen);
/*
 * (sim) The same in whole units of @align (a power of two) for trees whose
 * iomap passes its alignment: what a page that cannot be had or a short
 * pin leaves over is given back, and none at all is -ENOMEM (write) or
 * -EFAULT (read).
 */
int bio_iov_iter_bounce_aligned(struct bio *bio, struct iov_iter *iter,
				size_t maxlen, unsigned int align);
void bio_iov_iter_unbounce(struct bio *bio, bool is_error, bool mark_dirty);
unsigned short bio_iov_bounce_nr_vecs(struct iov_iter *iter, blk_opf_t op);
void __bio_release_pages(struct bio *bio, bool mark_dirty);
void bio_set_pages_dirty(struct bio *bio);
void bio_check_pages_dirty(struct bio *bio);

static inline void bio_release_pages(struct bio *bio, bool mark_dirty)
{
	if (bio_flagged(bio, BIO_PAGE_PINNED) ||
	    bio_flagged(bio, BIO_PAGE_REFFED))
		__bio_release_pages(bio, mark_dirty);
}

void zero_fill_bio_iter(struct bio *bio, struct bvec_iter iter);

static inline void zero_fill_bio(struct bio *bio)
{
	zero_fill_bio_iter(bio, bio->bi_iter);
}

void bio_copy_data_iter(struct bio *dst, struct bvec_iter *dst_iter,
			struct bio *src, struct bvec_iter *src_iter);
void bio_copy_data(struct bio *dst, struct bio *src);

/*
 * Get a reference on a bio: its last bio_put() frees it.
 */
static inline void bio_get(struct bio *bio)
{
	bio->bi_flags |= (1 << BIO_REFFED);
	/* the flag is seen before the raised count, as bio_put() reads them */
	smp_mb__before_atomic();
	atomic_inc(&bio->__bi_cnt);
}

static inline void bio_cnt_set(struct bio *bio, unsigned int count)
{
	if (count != 1) {
		bio->bi_flags |= (1 << BIO_REFFED);
		/* as in bio_get(): the flag before the count */
		smp_mb();
	}
	atomic_set(&bio->__bi_cnt, count);
}

/*
 * Increment chain count for the bio.  Make sure the CHAIN flag update is
 * visible before the raised count.
 */
static inline void bio_inc_remaining(struct bio *bio)
{
	bio_set_flag(bio, BIO_CHAIN);
	/* the CHAIN flag before the raised count (above) */
	smp_mb__before_atomic();
	atomic_inc(&bio->__bi_remaining);
}

/*
 * A polled bio that cannot be polled after all (the kernel's bio-based
 * drivers without ->poll_bio) goes back to interrupt completion.
 */
static inline void bio_clear_polled(struct bio *bio)
{
	bio->bi_opf &= ~REQ_POLLED;
}

/*
 * bio_list: singly linked through bi_next, as plugging and the rescuer
 * keep them.
 */
struct bio_list {
	struct bio *head;
	struct bio *tail;
};

static inline int bio_list_empty(const struct bio_list *bl)
{
	return bl->head == NULL;
}

static inline void bio_list_init(struct bio_list *bl)
{
	bl->head = bl->tail = NULL;
}

#define BIO_EMPTY_LIST { NULL, NULL }

#define bio_list_for_each(bio, bl) \
	for (bio = (bl)->head; bio; bio = bio->bi_next)

static inline unsigned int bio_list_size(const struct bio_list *bl)
{
	unsigned int sz = 0;
	struct bio *bio;

	bio_list_for_each(bio, bl)
		sz++;
	return sz;
}

static inline void bio_list_add(struct bio_list *bl, struct bio *bio)
{
	bio->bi_next = NULL;
	if (bl->tail)
		bl->tail->bi_next = bio;
	else
		bl->head = bio;
	bl->tail = bio;
}

static inline void bio_list_merge(struct bio_list *bl, struct bio_list *bl2)
{
	if (!bl2->head)
		return;
	if (bl->tail)
		bl->tail->bi_next = bl2->head;
	else
		bl->head = bl2->head;
	bl->tail = bl2->tail;
}

static inline struct bio *bio_list_peek(struct bio_list *bl)
{
	return bl->head;
}

static inline struct bio *bio_list_pop(struct bio_list *bl)
{
	struct bio *bio = bl->head;

	if (bio) {
		bl->head = bl->head->bi_next;
		if (!bl->head)
			bl->tail = NULL;
		bio->bi_next = NULL;
	}
	return bio;
}

static inline struct bio *bio_list_get(struct bio_list *bl)
{
	struct bio *bio = bl->head;

	bl->head = bl->tail = NULL;
	return bio;
}

#endif /* _LINUX_BIO_H */
