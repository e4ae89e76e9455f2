/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the iomap code linked into this build offers, feature by feature:
 * the embedded copy, or a kernel tree probed at configure time
 * (cmake/ksrc/features.cmake writes <sim/iomap_probed.h> for it).  The file
 * system side (iomap/fs-dio.c), the shims and the tests adapt to these,
 * never to a tree's name or version.
 */
#ifndef _SIM_IOMAP_FEATURES_H
#define _SIM_IOMAP_FEATURES_H

#include <linux/iomap.h>

/* IOMAPSIM_SIMPLE_PATH: where a small direct read takes the simple path */
#define IOMAPSIM_SIMPLE_NONE		0	/* nowhere: 6.1, 6.12, mainline */
#define IOMAPSIM_SIMPLE_IN_DIO_RW	1	/* tried inside iomap_dio_rw() */
#define IOMAPSIM_SIMPLE_FS_CALLED	2	/* iomap_dio_read_simple() */

/* IOMAPSIM_ZERO_PAGE: what iomap_dio_zero() writes sub-block zeroes from */
#define IOMAPSIM_ZERO_PAGE0		0	/* ZERO_PAGE(0), one page */
#define IOMAPSIM_ZERO_PAGE_64K		1	/* its own 64 KiB page */
#define IOMAPSIM_ZERO_LARGEST_FOLIO	2	/* largest_zero_folio() */

#include <sim/iomap_probed.h>

/* flags of include/linux/iomap.h that arrived release by release */
#ifdef IOMAP_F_ATOMIC_BIO
#define IOMAPSIM_ATOMIC 1
#else
#define IOMAPSIM_ATOMIC 0
#endif
#ifdef IOMAP_DIO_FSBLOCK_ALIGNED
#define IOMAPSIM_FSBLOCK_ALIGNED 1
#else
#define IOMAPSIM_FSBLOCK_ALIGNED 0
#endif
#ifdef IOMAP_DIO_BOUNCE
#define IOMAPSIM_BOUNCE 1
#else
#define IOMAPSIM_BOUNCE 0
#endif
#if defined(IOMAP_F_INTEGRITY)
#define IOMAPSIM_F_INTEGRITY 1
#else
#define IOMAPSIM_F_INTEGRITY 0
#endif

/*
 * ---- what follows from them: the behaviour facts the file system side
 * and the fuzzer's oracles (fuzz/fuzz_dio.c) need ----
 */

/* S-03: an empty read is answered by the simple read path (0) */
#define IOMAPSIM_EMPTY_READ_SIMPLE					\
	(IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_FS_CALLED)

/*
 * S-05, S-08: the IOMAP_DIO_* flags that keep a read off the simple path.
 * iomap_dio_read_simple() takes no dio_flags: the file system calls it
 * only where it would pass none (iomap/fs-dio.c).
 */
#if IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_FS_CALLED
#define IOMAPSIM_SIMPLE_REFUSES_FLAGS	(~0U)
#else
#define IOMAPSIM_SIMPLE_REFUSES_FLAGS					\
	(IOMAP_DIO_FORCE_WAIT | IOMAP_DIO_PARTIAL | IOMAPSIM_DIO_BOUNCE_FLAG)
#endif
#ifdef IOMAP_DIO_BOUNCE
#define IOMAPSIM_DIO_BOUNCE_FLAG	IOMAP_DIO_BOUNCE
#else
#define IOMAPSIM_DIO_BOUNCE_FLAG	0
#endif

/* S-16, S-24, S-38: the simple path calls ->iomap_end */
#define IOMAPSIM_SIMPLE_CALLS_END					\
	(IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_IN_DIO_RW)

/*
 * B-29: memory off dma_alignment is refused while the bio is built
 * (bio_iov_iter_get_pages() with a DMA mask), before any bio is submitted.
 */
#define IOMAPSIM_DMA_CHECKED_AT_BUILD	(IOMAPSIM_GET_PAGES_ARGS == 4)

/*
 * S-19: the simple path returns bio_iov_iter_get_pages()'s -EINVAL for
 * memory off dma_alignment with the iterator past the aligned segments it
 * extracted (the generic path re-expands it).
 */
#define IOMAPSIM_SIMPLE_EINVAL_MOVES_ITER				\
	(IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_FS_CALLED &&		\
	 IOMAPSIM_DMA_CHECKED_AT_BUILD)

/*
 * A write to an IOMAP_F_INTEGRITY mapping generates protection
 * information (fs_bio_integrity_generate()), which needs a device with an
 * integrity profile; the simulated ones have none (K7).
 */
#define IOMAPSIM_INTEGRITY_WRITE_NEEDS_PROFILE	IOMAPSIM_FS_INTEGRITY

#endif /* _SIM_IOMAP_FEATURES_H */
