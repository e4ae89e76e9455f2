/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The file system's side of the simple-path switch (the cover letter's
 * simple=0) in API generation (a): iomap/fs-dio.c's sim_iomap_dio_rw()
 * and testfs's proposal modes (embedded copy only) use it.
 *
 * The switch is not inside the iomap code: a file system that does not
 * want a request on the simple path calls __iomap_dio_rw() and
 * iomap_dio_complete() itself, as btrfs does, instead of iomap_dio_rw(),
 * which offers the request to the simple path first.  (In generation (b)
 * the same choice is whether to call iomap_dio_read_simple() before
 * iomap_dio_rw(), fs-dio.c.)  The file system tells the observer what it
 * offered (<sim/iomap.h>), so a fallback can be explained; which path ran
 * is observed, never inferred from this choice.
 */
#ifndef _SIM_FS_DIO_H
#define _SIM_FS_DIO_H

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/iomap.h>
#include <sim/iomap.h>

/*
 * Does the file system offer this request to the simple path?  Strips
 * IOMAP_DIO_SIM_NO_SIMPLE from *@dio_flags and tells the observer.  The
 * simple path's bio_set is the kernel's fs_initcall; here its first use
 * sets it up, and a pool that cannot be had means no simple path.
 */
static inline bool sim_fs_dio_offer(struct kiocb *iocb, struct iov_iter *iter,
		const struct iomap_dio_ops *dops, unsigned int *dio_flags,
		size_t done_before, enum iomap_sim_offer offer)
{
	struct super_block *sb = file_inode(iocb->ki_filp)->i_sb;

	if ((*dio_flags & IOMAP_DIO_SIM_NO_SIMPLE) ||
	    (__atomic_load_n(&sb->s_iflags, __ATOMIC_RELAXED) &
	     SB_I_SIM_NO_SIMPLE_DIO) ||
	    iomap_sim_dio_init())
		offer = IOMAP_SIM_OFFER_NONE;
	*dio_flags &= ~IOMAP_DIO_SIM_NO_SIMPLE;
	iomap_dio_sim_offer(iocb, iter, dops, *dio_flags, done_before, offer);
	return offer != IOMAP_SIM_OFFER_NONE;
}

/* The generic path alone: what iomap_dio_rw() does after the simple one. */
static inline ssize_t sim_fs_dio_generic(struct kiocb *iocb,
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

#endif /* _SIM_FS_DIO_H */
