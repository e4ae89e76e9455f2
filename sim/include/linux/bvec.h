/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bio_vec and bvec_iter (include/linux/bvec.h).  They live with the sim
 * layer because iov_iter (ITER_BVEC) needs them below the block layer, as
 * lib/iov_iter.c does in the kernel.
 */
#ifndef _LINUX_BVEC_H
#define _LINUX_BVEC_H

#include <linux/kernel.h>
#include <linux/mm.h>

struct bio_vec {
	struct page *bv_page;
	unsigned int bv_len;
	unsigned int bv_offset;
};

struct bvec_iter {
	sector_t bi_sector;
	unsigned int bi_size;
	unsigned int bi_idx;
	unsigned int bi_bvec_done;
};

static inline void bvec_set_page(struct bio_vec *bv, struct page *page,
				 unsigned int len, unsigned int offset)
{
	bv->bv_page = page;
	bv->bv_len = len;
	bv->bv_offset = offset;
}

static inline void bvec_set_folio(struct bio_vec *bv, struct folio *folio,
				  unsigned int len, unsigned int offset)
{
	bvec_set_page(bv, folio_page(folio, 0), len, offset);
}

static inline void bvec_set_virt(struct bio_vec *bv, void *vaddr,
				 unsigned int len)
{
	bvec_set_page(bv, virt_to_page(vaddr), len, offset_in_page(vaddr));
}

static inline void *bvec_virt(const struct bio_vec *bv)
{
	return (char *)page_address(bv->bv_page) + bv->bv_offset;
}

/*
 * Walking a bvec table with a bvec_iter (added for the block layer).
 * "mp" (multi-page) helpers describe a whole table entry from the
 * iterator's position; the plain ones cut it at page boundaries, which is
 * what bio_for_each_segment() hands out.  struct page is opaque here, so
 * pages are stepped with nth_page(), never with pointer arithmetic.
 */
struct bvec_iter_all {
	struct bio_vec bv;
	int idx;
	unsigned int done;
};

#define __bvec_iter_bvec(bvec, iter) (&(bvec)[(iter).bi_idx])

#define mp_bvec_iter_page(bvec, iter) (__bvec_iter_bvec((bvec), (iter))->bv_page)
#define mp_bvec_iter_len(bvec, iter)                      \
	min((iter).bi_size,                               \
	    __bvec_iter_bvec((bvec), (iter))->bv_len - (iter).bi_bvec_done)
#define mp_bvec_iter_offset(bvec, iter) \
	(__bvec_iter_bvec((bvec), (iter))->bv_offset + (iter).bi_bvec_done)
#define mp_bvec_iter_page_idx(bvec, iter) \
	(mp_bvec_iter_offset((bvec), (iter)) / PAGE_SIZE)
#define mp_bvec_iter_bvec(bvec, iter)                                 \
	((struct bio_vec){                                            \
		.bv_page = mp_bvec_iter_page((bvec), (iter)),         \
		.bv_len = mp_bvec_iter_len((bvec), (iter)),           \
		.bv_offset = mp_bvec_iter_offset((bvec), (iter)),     \
	})

#define bvec_iter_offset(bvec, iter) \
	(mp_bvec_iter_offset((bvec), (iter)) % PAGE_SIZE)
#define bvec_iter_len(bvec, iter)                              \
	min_t(unsigned int, mp_bvec_iter_len((bvec), (iter)),  \
	      PAGE_SIZE - bvec_iter_offset((bvec), (iter)))
#define bvec_iter_page(bvec, iter)                     \
	nth_page(mp_bvec_iter_page((bvec), (iter)),    \
		 mp_bvec_iter_page_idx((bvec), (iter)))
#define bvec_iter_bvec(bvec, iter)                               \
	((struct bio_vec){                                       \
		.bv_page = bvec_iter_page((bvec), (iter)),       \
		.bv_len = bvec_iter_len((bvec), (iter)),         \
		.bv_offset = bvec_iter_offset((bvec), (iter)),   \
	})

static inline bool bvec_iter_advance(const struct bio_vec *bv,
				     struct bvec_iter *iter, unsigned int bytes)
{
	unsigned int idx = iter->bi_idx;

	if (WARN_ONCE(bytes > iter->bi_size,
		      "Attempted to advance past end of bvec iter\n")) {
		iter->bi_size = 0;
		return false;
	}
	iter->bi_size -= bytes;
	bytes += iter->bi_bvec_done;
	while (bytes && bytes >= bv[idx].bv_len) {
		bytes -= bv[idx].bv_len;
		idx++;
	}
	iter->bi_idx = idx;
	iter->bi_bvec_done = bytes;
	return true;
}

/* Advance by @bytes that do not cross the current entry's end. */
static inline void bvec_iter_advance_single(const struct bio_vec *bv,
					    struct bvec_iter *iter,
					    unsigned int bytes)
{
	unsigned int done = iter->bi_bvec_done + bytes;

	if (done == bv[iter->bi_idx].bv_len) {
		done = 0;
		iter->bi_idx++;
	}
	iter->bi_bvec_done = done;
	iter->bi_size -= bytes;
}

#define for_each_bvec(bvl, bio_vec, iter, start)                        \
	for (iter = (start);                                            \
	     (iter).bi_size && ((bvl = bvec_iter_bvec((bio_vec), (iter))), 1); \
	     bvec_iter_advance_single((bio_vec), &(iter), (bvl).bv_len))

#define for_each_mp_bvec(bvl, bio_vec, iter, start)                        \
	for (iter = (start);                                               \
	     (iter).bi_size && ((bvl = mp_bvec_iter_bvec((bio_vec), (iter))), 1); \
	     bvec_iter_advance_single((bio_vec), &(iter), (bvl).bv_len))

/* for iterating one bio from start to end */
#define BVEC_ITER_ALL_INIT                                              \
	(struct bvec_iter)                                              \
	{                                                               \
		.bi_sector = 0, .bi_size = UINT_MAX, .bi_idx = 0,       \
		.bi_bvec_done = 0,                                      \
	}

static inline struct bio_vec *bvec_init_iter_all(struct bvec_iter_all *iter_all)
{
	iter_all->done = 0;
	iter_all->idx = 0;
	return &iter_all->bv;
}

/* Next single-page piece of table entry @bvec. */
static inline void bvec_advance(const struct bio_vec *bvec,
				struct bvec_iter_all *iter_all)
{
	struct bio_vec *bv = &iter_all->bv;

	if (iter_all->done) {
		bv->bv_page = nth_page(bv->bv_page, 1);
		bv->bv_offset = 0;
	} else {
		bv->bv_page = nth_page(bvec->bv_page,
				       bvec->bv_offset >> PAGE_SHIFT);
		bv->bv_offset = bvec->bv_offset & ~PAGE_MASK;
	}
	bv->bv_len = min_t(unsigned int, PAGE_SIZE - bv->bv_offset,
			   bvec->bv_len - iter_all->done);
	iter_all->done += bv->bv_len;
	if (iter_all->done == bvec->bv_len) {
		iter_all->idx++;
		iter_all->done = 0;
	}
}

static inline phys_addr_t bvec_phys(const struct bio_vec *bvec)
{
	return (phys_addr_t)(unsigned long)page_address(bvec->bv_page) +
	       bvec->bv_offset;
}

#endif /* _LINUX_BVEC_H */
