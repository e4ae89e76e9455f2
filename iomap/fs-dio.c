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

/* (a): iomap_dio_rw() offers the request to the simple path itself. */
ssize_t sim_iomap_dio_rw(struct kiocb *iocb, struct iov_iter *iter,
		const struct sim_iomap_fs_ops *fs,
		const struct iomap_dio_ops *dops, unsigned int dio_flags,
		void *private, size_t done_before)
{
	const struct iomap_ops ops = fs_iomap_ops(fs);

	return iomap_dio_rw(iocb, iter, &ops, dops, dio_flags, private,
			    done_before);
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
 * The mapping the file system's begin gave iomap_dio_read_simple(), so
 * that a -ENOTBLK after it can be given its reason (the mapping gate or a
 * short pin): the inline helper takes any begin function, and this one
 * records what it returns.  Per task, like the request it serves.
 */
static __thread iomap_iter_begin_fn simple_begin_fn;
static __thread struct {
	bool mapped;
	struct iomap iomap;
} simple_map;

static __thread bool simple_begin_called;

static int simple_begin(struct inode *inode, loff_t pos, loff_t length,
		unsigned flags, struct iomap *iomap, struct iomap *srcmap)
{
	int ret = simple_begin_fn(inode, pos, length, flags, iomap, srcmap);

	simple_begin_called = true;
	simple_map.mapped = !ret;
	if (!ret)
		simple_map.iomap = *iomap;
	return ret;
}

/*
 * What the file system itself checks before it calls the simple read:
 * its simple=0 switch, and that it would call iomap_dio_rw() with no dio
 * ops, flags, residual or private data.  Everything else is the tree's
 * iomap_dio_read_simple() to decide.
 */
static enum iomap_simple_reason fs_simple_gate(struct kiocb *iocb,
		struct iov_iter *iter, const struct iomap_dio_ops *dops,
		unsigned int dio_flags, unsigned int kflags, void *private,
		size_t done_before)
{
	struct inode *inode = file_inode(iocb->ki_filp);

	if ((inode->i_sb->s_iflags & SB_I_SIM_NO_SIMPLE_DIO) ||
	    (dio_flags & IOMAP_DIO_SIM_NO_SIMPLE))
		return IOMAP_SIMPLE_DISABLED;
	if (dops || private)
		return IOMAP_SIMPLE_DOPS;
	if (done_before)
		return IOMAP_SIMPLE_DONE_BEFORE;
	if (iov_iter_rw(iter) != READ)
		return IOMAP_SIMPLE_WRITE;
	if (kflags)
		return IOMAP_SIMPLE_DIO_FLAGS;
	/* the pool the tree's fs_initcall sets up */
	if (iomap_sim_dio_init())
		return IOMAP_SIMPLE_DISABLED;
	return IOMAP_SIMPLE_OK;
}

/*
 * (b): a read the file system would send to iomap_dio_rw() with no dio
 * ops, flags, residual or private data is first offered to
 * iomap_dio_read_simple() (XFS's xfs_file_dio_read(), ext4's
 * ext4_dio_read_iter()); -ENOTBLK from it, or any other request, goes to
 * iomap_dio_rw() with the file system's ->iomap_next.
 */
ssize_t sim_iomap_dio_rw(struct kiocb *iocb, struct iov_iter *iter,
		const struct sim_iomap_fs_ops *fs,
		const struct iomap_dio_ops *dops, unsigned int dio_flags,
		void *private, size_t done_before)
{
	/* the simulator's and the proposal's bits are no kernel flags */
	unsigned int kflags = dio_flags &
		~(IOMAP_DIO_SIM_NO_SIMPLE | IOMAP_DIO_NO_IOMAP_END);
	enum iomap_simple_reason why;
	loff_t pos = iocb->ki_pos;
	size_t count = iov_iter_count(iter);
	ssize_t ret;

	why = fs_simple_gate(iocb, iter, dops, dio_flags, kflags, private,
			     done_before);
	iomap_dio_simple_skipped(iocb, iter, why);
	if (why == IOMAP_SIMPLE_OK) {
		simple_begin_fn = fs->begin;
		simple_begin_called = false;
		simple_map.mapped = false;
		ret = iomap_dio_read_simple(iocb, iter, simple_begin);
		if (ret != -ENOTBLK)
			return ret;
		if (simple_map.mapped) {
			/* the mapping gate, or a short pin */
			iomap_dio_simple_refused(file_inode(iocb->ki_filp),
						 pos, &simple_map.iomap,
						 count);
		} else if (!simple_begin_called) {
			/* the inline helper's own size and encryption checks */
			why = iomap_dio_simple_why(iocb, iter, dops, 0, 0);
			iomap_dio_simple_skipped(iocb, iter, why);
		}
	}
	return iomap_dio_rw(iocb, iter, fs->next, dops, kflags, private,
			    done_before);
}

int sim_iomap_iter(struct iomap_iter *iter, const struct sim_iomap_fs_ops *fs)
{
	return iomap_iter(iter, fs->next);
}

/*
 * What stands for the embedded copy's iomap_dio_simple_supported() here:
 * the file system's own checks and the inline helper's before it maps.
 */
bool iomap_dio_simple_supported_sim(struct kiocb *iocb, struct iov_iter *iter,
		const struct iomap_dio_ops *dops, unsigned int dio_flags,
		size_t done_before)
{
	unsigned int kflags = dio_flags &
		~(IOMAP_DIO_SIM_NO_SIMPLE | IOMAP_DIO_NO_IOMAP_END);

	return fs_simple_gate(iocb, iter, dops, dio_flags, kflags, NULL,
			      done_before) == IOMAP_SIMPLE_OK &&
	       iomap_dio_simple_why(iocb, iter, dops, 0, 0) ==
			IOMAP_SIMPLE_OK;
}

#endif
