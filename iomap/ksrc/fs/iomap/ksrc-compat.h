/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel-source mode: what iomap/ksrc/kdirect-io.c (and the configure
 * probes, cmake/ksrc/probe-source.c) put ahead of a tree's
 * fs/iomap/direct-io.c.  The headers the file's functions come from, so
 * that a probe may redefine one of them after its declaration, and the
 * call adapters for block-layer functions whose signature changed between
 * releases, where the simulated block layer has one form.
 */
#ifndef _IOMAP_KSRC_COMPAT_H
#define _IOMAP_KSRC_COMPAT_H

#include <linux/bio.h>
#include <linux/bio-integrity.h>
#include <linux/blk-crypto.h>
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/fserror.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <sim/iomap_features.h>
#include "trace.h"

/*
 * bio_iov_iter_get_pages(), by the number of arguments the tree passes:
 *  (bio, iter)                     up to 6.13: __bio_iov_iter_get_pages()
 *                                  trims what it adds to a multiple of
 *                                  bdev_logical_block_size();
 *  (bio, iter, len_align_mask)     the baseline (block/bio-pages.c);
 *  (bio, iter, dma_mask, len_mask) with the DMA alignment check as the bio
 *                                  is built (bio_iov_iter_get_pages_dma()).
 */
static inline int bio_iov_iter_get_pages_lbs(struct bio *bio,
		struct iov_iter *iter)
{
	return bio_iov_iter_get_pages(bio, iter,
			bdev_logical_block_size(bio->bi_bdev) - 1);
}

#define __ksrc_get_pages(_1, _2, _3, _4, fn, ...) fn
#define bio_iov_iter_get_pages(...)					\
	__ksrc_get_pages(__VA_ARGS__, bio_iov_iter_get_pages_dma,	\
			 bio_iov_iter_get_pages,			\
			 bio_iov_iter_get_pages_lbs, _)(__VA_ARGS__)

/*
 * bio_iov_iter_bounce(bio, iter, maxlen, alignment) in trees that pass an
 * alignment: the bounced length is a multiple of @alignment.
 */
#define __ksrc_bounce(_1, _2, _3, _4, fn, ...) fn
#define __ksrc_bounce_aligned(bio, iter, maxlen, alignment)		\
	bio_iov_iter_bounce_aligned(bio, iter, maxlen, alignment)
#define bio_iov_iter_bounce(...)					\
	__ksrc_bounce(__VA_ARGS__, __ksrc_bounce_aligned,		\
		      bio_iov_iter_bounce, _, _)(__VA_ARGS__)

/*
 * include/linux/bio.h of trees whose iomap still calls it (6.1, and 6.12
 * before "iomap: don't make REQ_POLLED imply REQ_NOWAIT"): a polled bio,
 * and under IOCB_NOWAIT a REQ_NOWAIT one.  Later trees set REQ_POLLED
 * themselves.
 */
static inline void bio_set_polled(struct bio *bio, struct kiocb *kiocb)
{
	bio->bi_opf |= REQ_POLLED;
	if (kiocb->ki_flags & IOCB_NOWAIT)
		bio->bi_opf |= REQ_NOWAIT;
}

#if !IOMAPSIM_DIO_TRACE
/*
 * No trace_iomap_dio_complete() in this tree: its iomap_dio_complete()
 * ends every dio with inode_dio_end(), which is where the observer sees
 * the completion run (iomap/trace.c).
 */
#define inode_dio_end(i)						\
	do {								\
		struct inode *__inode = (i);				\
									\
		inode_dio_end(__inode);					\
		iomapsim_dio_ended(__inode);				\
	} while (0)
#endif

#if IOMAPSIM_BIO_PAGE_REFS
/*
 * The bio page contract of trees that get_page() a page before they add
 * it (6.1's zero page): a bio without BIO_NO_PAGE_REF holds a reference
 * to each page, which bio_release_pages() drops.  The simulated block
 * layer pins user pages (BIO_PAGE_PINNED) and holds none for kernel
 * memory; a page this code adds itself is BIO_PAGE_REFFED.
 */
#define __bio_add_page(bio, page, len, off)				\
	do {								\
		struct bio *__bio = (bio);				\
									\
		__bio_add_page(__bio, page, len, off);			\
		bio_set_flag(__bio, BIO_PAGE_REFFED);			\
	} while (0)
#endif

/*
 * Caller completion (G-52): <linux/fs.h> gives IOCB_DIO_CALLER_COMP a bit
 * of its own (1 << 22 in the trees that have it is IOCB_AIO_RW in the
 * baseline's), which the runner sets for --iocb CALLER_COMP.
 */

#endif /* _IOMAP_KSRC_COMPAT_H */
