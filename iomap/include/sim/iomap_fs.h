/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How a file system calls iomap direct I/O, one interface whatever the
 * iomap code linked in offers (iomap/fs-dio.c, <sim/iomap_features.h>).
 * testfs, simfs, the request runner, the fuzz targets and the benchmarks
 * call iomap through this header only, so that the same file system runs
 * on the embedded iomap/direct-io.c or on a kernel tree's
 * fs/iomap/direct-io.c (-DIOMAPSIM_KERNEL_TREE):
 *
 *  - the mapping API: a struct iomap_ops {iomap_begin, iomap_end}, or an
 *    iomap_iter_next_fn ->iomap_next that runs begin and end itself;
 *  - the simple read path: none, tried inside iomap_dio_rw() (the
 *    baseline), or the inline iomap_dio_read_simple(iocb, iter, begin)
 *    that the file system calls before iomap_dio_rw(), as ext4 and XFS do
 *    in the VFS tree.
 *
 * The simple=0 switch (SB_I_SIM_NO_SIMPLE_DIO, IOMAPSIM_DIO_NO_SIMPLE) is
 * the file system's own choice: with the simple path inside
 * iomap_dio_rw() it calls __iomap_dio_rw() and iomap_dio_complete()
 * instead, as btrfs does; with iomap_dio_read_simple() it just does not
 * call it.  Either way it tells the observer what it offered
 * (iomapsim_dio_offer()), and which path ran is observed from the iomap
 * code's own tracepoint (iomap/trace.c).
 */
#ifndef _SIM_IOMAP_FS_H
#define _SIM_IOMAP_FS_H

#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/iomap.h>
#include <sim/iomap.h>
#include <sim/iomap_features.h>

/* A file system's mapping callbacks, the kernel's signatures. */
typedef int (*iomapsim_begin_fn)(struct inode *inode, loff_t pos,
		loff_t length, unsigned int flags, struct iomap *iomap,
		struct iomap *srcmap);
typedef int (*iomapsim_end_fn)(struct inode *inode, loff_t pos,
		loff_t length, ssize_t written, unsigned int flags,
		struct iomap *iomap);

#if IOMAPSIM_MAPPING_NEXT_FN || IOMAPSIM_PROPOSAL
typedef iomap_iter_next_fn iomapsim_next_fn;
/* begin and end as one ->iomap_next (DEFINE_IOMAP_ITER_NEXT_END) */
#define IOMAPSIM_DEFINE_IOMAP_NEXT_END(name, begin, end)			\
	static DEFINE_IOMAP_ITER_NEXT_END(name, begin, end)
#define IOMAPSIM_DEFINE_IOMAP_NEXT(name, begin)				\
	static DEFINE_IOMAP_ITER_NEXT(name, begin)
#else
/*
 * No ->iomap_next in this code: struct iomap_ops carries begin and end
 * (fs-dio.c), and iomap never calls a file system's next function.
 */
typedef int (*iomapsim_next_fn)(const struct iomap_iter *iter,
		struct iomap *iomap, struct iomap *srcmap);
#define IOMAPSIM_DEFINE_IOMAP_NEXT_END(name, begin, end)			\
	static int name(const struct iomap_iter *iter,			\
			struct iomap *iomap, struct iomap *srcmap)	\
	{								\
		WARN_ON_ONCE(1);					\
		return -EOPNOTSUPP;					\
	}
#define IOMAPSIM_DEFINE_IOMAP_NEXT(name, begin)				\
	IOMAPSIM_DEFINE_IOMAP_NEXT_END(name, begin, NULL)
#endif

struct iomapsim_fs_ops {
	iomapsim_begin_fn begin;	/* NULL only for a next-only walk */
	iomapsim_end_fn end;		/* optional */
	/*
	 * begin and end as one ->iomap_next: what a tree of
	 * iomap_iter_next_fn iterates with.  With struct iomap_ops it is
	 * used only when @begin is NULL, through the embedded copy's
	 * proposal struct iomap_ops::iomap_next.
	 */
	iomapsim_next_fn next;
};

/*
 * Flags of include/linux/iomap.h the code linked in may lack, as 0 for
 * the file system side: setting one does nothing, and a request that
 * asks for it is refused by the runner (iomapsim_missing()) before it
 * runs.
 */
#ifndef IOMAP_F_ATOMIC_BIO
#define IOMAP_F_ATOMIC_BIO		0
#endif
#ifndef IOMAP_ATOMIC
#define IOMAP_ATOMIC			0
#endif
#ifndef IOMAP_F_INTEGRITY
#define IOMAP_F_INTEGRITY		0
#endif
#ifndef IOMAP_DIO_FSBLOCK_ALIGNED
#define IOMAP_DIO_FSBLOCK_ALIGNED	0
#endif
#ifndef IOMAP_DIO_BOUNCE
#define IOMAP_DIO_BOUNCE		0
#endif
#ifndef IOMAP_DIO_NO_IOMAP_END
/* the proposal flag (N-12): requests that carry it still parse and run */
#define IOMAP_DIO_NO_IOMAP_END		0
#endif

/*
 * A file system's direct read or write (@iter a destination for a read),
 * as its ->read_iter/->write_iter would call iomap with this code.
 */
ssize_t iomapsim_dio_rw(struct kiocb *iocb, struct iov_iter *iter,
		const struct iomapsim_fs_ops *fs,
		const struct iomap_dio_ops *dops, unsigned int dio_flags,
		void *private, size_t done_before);

/* One step of iomap_iter() over @fs's mappings (for tests). */
int iomapsim_iter(struct iomap_iter *iter, const struct iomapsim_fs_ops *fs);
/*
 * Report @count bytes of the current mapping done: iomap_iter_advance(),
 * or ->processed in code that has no iomap_iter_advance().
 */
int iomapsim_iter_advance(struct iomap_iter *iter, u64 count);
/* The iterator's last step's status (->status, or ->processed). */
int iomapsim_iter_status(const struct iomap_iter *iter);

#endif /* _SIM_IOMAP_FS_H */
