/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the embedded copy (iomap/direct-io.c, iter.c, include/linux/iomap.h)
 * offers, in the terms cmake/ksrc/features.cmake probes a kernel tree for;
 * in kernel-source mode a generated header of this name, in the build
 * tree, comes first on the include path.  Read through
 * <sim/iomap_features.h>.
 */
#ifndef _SIM_IOMAP_PROBED_H
#define _SIM_IOMAP_PROBED_H

/* the v6 series' iomap_dio_simple(), tried inside iomap_dio_rw() */
#define IOMAPSIM_SIMPLE_PATH IOMAPSIM_SIMPLE_IN_DIO_RW
/* struct iomap_ops {iomap_begin, iomap_end}, plus the proposal's next */
#define IOMAPSIM_MAPPING_NEXT_FN 0
#define IOMAPSIM_ITER_STATUS 1
#define IOMAPSIM_GET_PAGES_ARGS 3
#define IOMAPSIM_DIO_CALLER_COMP 0
#define IOMAPSIM_DIO_INLINE_COMP 0
#define IOMAPSIM_DIO_COMP_WORK 1
#define IOMAPSIM_ZERO_PAGE IOMAPSIM_ZERO_LARGEST_FOLIO
#define IOMAPSIM_FS_INTEGRITY 0
#define IOMAPSIM_CRYPTO_SUBMIT 0
#define IOMAPSIM_KMALLOC_OBJ 0
#define IOMAPSIM_IOEND_DIRECT 0
#define IOMAPSIM_DIO_TRACE 1
/* fserror_report_io() on a failed dio (G-55) */
#define IOMAPSIM_FSERROR 1
/* bdev_iter_is_aligned() before any bio: the block layer checks instead */
#define IOMAPSIM_DMA_CHECKED_UPFRONT 0
/* iomap_inline_data_valid(): inline data within one page (G-22) */
#define IOMAPSIM_INLINE_ONE_PAGE 0
/* iomap_dio_bio_opflags(): read bios are REQ_OP_READ alone (G-24) */
#define IOMAPSIM_BIO_OPFLAGS_HELPER 0
/* kiocb_invalidate_pages() before a write (G-15, K-09) */
#define IOMAPSIM_KIOCB_INVALIDATE 1
/* FUA also where the device has no volatile write cache (G-26) */
#define IOMAPSIM_FUA_NO_CACHE 1
/* iomap_dio_zero() returns an error, which its callers keep (G-30, G-38) */
#define IOMAPSIM_ZERO_RETURNS_INT 1
/* a bio holds a reference to each page it did not pin (get_page()) */
#define IOMAPSIM_BIO_PAGE_REFS 0
/* "iomap: always run error completions in user context" (G-51) */
#define IOMAPSIM_ERROR_PUNT 1
/* "iomap: allocate s_dio_done_wq for async reads as well" (G-17) */
#define IOMAPSIM_READ_WQ 1
/* an atomic write's short bio is put with its pages pinned (0007) */
#define IOMAPSIM_ATOMIC_PUT_PINNED 0
/* WRITE_THROUGH cleared only for an IOMAP_MAPPED, not new, mapping (0008) */
#define IOMAPSIM_FUA_MAPPED_ONLY 0
/* iomap_dio_rw_next(), iomap_dio_rw_begin(), IOMAP_DIO_NO_IOMAP_END */
#define IOMAPSIM_PROPOSAL 1

#endif /* _SIM_IOMAP_PROBED_H */
