/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The file system's side of the simple-path switch (simple=0):
 * iomap/fs-dio.c's iomapsim_dio_rw() and testfs's proposal modes
 * (embedded copy only) use it.
 *
 * The switch is not inside the iomap code.  Where the simple path is
 * tried inside iomap_dio_rw(), a file system that does not want a request
 * on it calls __iomap_dio_rw() and iomap_dio_complete() itself, as btrfs
 * does.  Where the file system calls iomap_dio_read_simple() itself, the
 * same choice is whether to call it before iomap_dio_rw() (fs-dio.c).  The file system tells the observer what it
 * offered (<sim/iomap.h>), so a fallback can be explained; which path ran
 * is observed, never inferred from this choice.
 */
#ifndef _SIM_FS_DIO_H
#define _SIM_FS_DIO_H

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/iomap.h>
#include <sim/iomap.h>
#include <sim/iomap_features.h>

/*
 * Does the file system want the simple path for this request?  Not with
 * simple=0, per call or per mount (the mount's control file may set it
 * while requests run).  The simple path's bio_set is the kernel's
 * fs_initcall; here its first use sets it up, and a pool that cannot be
 * had means no simple path.
 */
static inline bool iomapsim_fs_wants_simple(struct kiocb *iocb,
		unsigned int dio_flags)
{
	struct super_block *sb = file_inode(iocb->ki_filp)->i_sb;

	return !(dio_flags & IOMAPSIM_DIO_NO_SIMPLE) &&
	       !(__atomic_load_n(&sb->s_iflags, __ATOMIC_RELAXED) &
		 SB_I_SIM_NO_SIMPLE_DIO) &&
	       !iomapsim_dio_init();
}

#if !IOMAPSIM_MAPPING_NEXT_FN
/*
 * With the simple path inside iomap_dio_rw(): does the file system offer
 * this request to it?  Strips IOMAPSIM_DIO_NO_SIMPLE from *@dio_flags and
 * tells the observer.
 */
static inline bool iomapsim_fs_dio_offer(struct kiocb *iocb, struct iov_iter *iter,
		const struct iomap_dio_ops *dops, unsigned int *dio_flags,
		size_t done_before, enum iomapsim_offer offer)
{
	if (!iomapsim_fs_wants_simple(iocb, *dio_flags))
		offer = IOMAPSIM_OFFER_NONE;
	*dio_flags &= ~IOMAPSIM_DIO_NO_SIMPLE;
	iomapsim_dio_offer(iocb, iter, dops, *dio_flags, done_before, offer);
	return offer != IOMAPSIM_OFFER_NONE;
}

/* The generic path alone: what iomap_dio_rw() does after the simple one. */
static inline ssize_t iomapsim_fs_dio_generic(struct kiocb *iocb,
		struct iov_iter *iter, const struct iomap_ops *ops,
		const struct iomap_dio_ops *dops, unsigned int dio_flags,
		void *private, size_t done_before)
{
	struct iomap_dio *dio;

	dio = __iomap_dio_rw(iocb, iter, ops, dops, dio_flags, private,
			     done_before);
	if (IS_ERR_OR_NULL(dio))
		return PTR_ERR_OR_ZERO(dio);
	return iomap_dio_complete(dio);
}
#endif

#endif /* _SIM_FS_DIO_H */
