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

#endif /* _LINUX_BVEC_H */
