/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "internal.h" of a kernel tree's fs/iomap/ sources in kernel-source mode: the
 * embedded copy's fs/iomap/internal.h (iomap/internal.h), what the
 * kernel's header chain brings in that ours does not (slab, cache line
 * alignment, workqueues), and the call
 * adapters for block-layer functions whose signature the tree has and the
 * simulated block layer has in its baseline form.
 */
#ifndef _IOMAP_KSRC_INTERNAL_H
#define _IOMAP_KSRC_INTERNAL_H

#include <linux/cache.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "../../../internal.h"

/*
 * The DMA-mask-checking form: bio_iov_iter_get_pages(bio, iter,
 * dma_alignment_mask, len_align_mask) (block/bio-pages.c).
 */
#define bio_iov_iter_get_pages(bio, iter, dma_mask, len_mask) \
	bio_iov_iter_get_pages_dma(bio, iter, dma_mask, len_mask)

/*
 * bio_iov_iter_bounce(bio, iter, maxlen, alignment): the bounced length
 * is a multiple of @alignment.
 */
#define bio_iov_iter_bounce(bio, iter, maxlen, alignment) \
	bio_iov_iter_bounce(bio, iter, round_down((size_t)(maxlen), (alignment)))

#endif
