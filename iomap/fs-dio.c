// SPDX-License-Identifier: GPL-2.0-only
/*
 * The file system side of direct I/O (<sim/iomap_fs.h>): the call-site
 * logic of ext4's and XFS's ->read_iter/->write_iter for the iomap API
 * generation this build links (the embedded copy is (a); a kernel tree
 * found by cmake/kernel-tree.cmake is (a) or (b)).  The only file outside
 * the kernel sources that knows which one it is.
 */
#include <linux/fs.h>
#include <linux/iomap.h>
#include <linux/uio.h>
#include <sim/iomap.h>
#include <sim/iomap_fs.h>

#ifndef IOMAPSIM_KSRC_GEN_b
#include <sim/fs_dio.h>

char iomap_sim_generation(void)
{
	return 'a';
}

static struct iomap_ops fs_iomap_ops(const struct sim_iomap_fs_ops *fs)
{
#ifndef IOMAPSIM_KSRC
	/* the proposal's ->iomap_next in struct iomap_ops: embedded only */
	if (!fs->begin)
		return (struct iomap_ops){ .iomap_next = fs->next };
#endif
	return (struct iomap_ops){
		.iomap_begin = fs->begin,
		.iomap_end = fs->end,
	};
}

/*
 * (a): iomap_dio_rw() offers the request to the simple path itself; a
 * file system that keeps a request off it (simple=0, per call or per
 * mount) calls __iomap_dio_rw() and iomap_dio_complete() instead, as
 * btrfs does (<sim/fs_dio.h>).
 */
ssize_t sim_iomap_dio_rw(struct kiocb *iocb, struct iov_iter *iter,
		const struct sim_iomap_fs_ops *fs,
		const struct iomap_dio_ops *dops, unsigned int dio_flags,
		void *private, size_t done_before)
{
	const struct iomap_ops ops = fs_iomap_ops(fs);
	ssize_t ret;

	if (sim_fs_dio_offer(iocb, iter, dops, &dio_flags, done_before,
			     IOMAP_SIM_OFFER_RW))
		ret = iomap_dio_rw(iocb, iter, &ops, dops, dio_flags, private,
				   done_before);
	else
		ret = sim_fs_dio_generic(iocb, iter, &ops, dops, dio_flags,
					 private, done_before);
	/* the call returned: the observer keeps no pointer into it */
	iomap_dio_sim_offer_end();
	return ret;
}

int sim_iomap_iter(struct iomap_iter *iter, const struct sim_iomap_fs_ops *fs)
{
	const struct iomap_ops ops = fs_iomap_ops(fs);

	return iomap_iter(iter, &ops);
}

#else /* generation (b) */

char iomap_sim_generation(void)
{
	return 'b';
}

/*
 * What the file system itself checks before it calls the simple read:
 * that it would call iomap_dio_rw() with no dio ops, flags, residual or
 * private data.  Everything else is the tree's iomap_dio_read_simple() to
 * decide.  (The observer's mirror knows every condition but private data,
 * which no file system here passes.)
 */
static bool fs_simple_call(struct iov_iter *iter,
		const struct iomap_dio_ops *dops, unsigned int kflags,
		void *private, size_t done_before)
{
	return !dops && !private && !done_before &&
	       iov_iter_rw(iter) == READ && !kflags;
}

/*
 * (b): a read the file system would send to iomap_dio_rw() with no dio
 * ops, flags, residual or private data is first offered to
 * iomap_dio_read_simple() (XFS's xfs_file_dio_read(), ext4's
 * ext4_dio_read_iter()); -ENOTBLK from it, or any other request, goes to
 * iomap_dio_rw() with the file system's ->iomap_next.  The observer is
 * told the offer; what ran it learns from the tree's own tracepoint and
 * the file system's ->iomap_begin (iomap/trace.c).
 */
ssize_t sim_iomap_dio_rw(struct kiocb *iocb, struct iov_iter *iter,
		const struct sim_iomap_fs_ops *fs,
		const struct iomap_dio_ops *dops, unsigned int dio_flags,
		void *private, size_t done_before)
{
	/* the simulator's and the proposal's bits are no kernel flags */
	unsigned int kflags = dio_flags &
		~(IOMAP_DIO_SIM_NO_SIMPLE | IOMAP_DIO_NO_IOMAP_END);
	struct super_block *sb = file_inode(iocb->ki_filp)->i_sb;
	/*
	 * simple=0, per call or per mount (the mount's control file may set
	 * it while requests run); the pool is the tree's initcall
	 */
	bool simple = !(dio_flags & IOMAP_DIO_SIM_NO_SIMPLE) &&
		      !(__atomic_load_n(&sb->s_iflags, __ATOMIC_RELAXED) &
			SB_I_SIM_NO_SIMPLE_DIO) &&
		      !iomap_sim_dio_init();
	ssize_t ret = -ENOTBLK;

	iomap_dio_sim_offer(iocb, iter, dops, kflags, done_before,
			    simple ? IOMAP_SIM_OFFER_READ_SIMPLE :
				     IOMAP_SIM_OFFER_NONE);
	if (simple && fs_simple_call(iter, dops, kflags, private, done_before))
		ret = iomap_dio_read_simple(iocb, iter, fs->begin);
	if (ret == -ENOTBLK)
		ret = iomap_dio_rw(iocb, iter, fs->next, dops, kflags,
				   private, done_before);
	iomap_dio_sim_offer_end();
	return ret;
}

int sim_iomap_iter(struct iomap_iter *iter, const struct sim_iomap_fs_ops *fs)
{
	return iomap_iter(iter, fs->next);
}

#endif
