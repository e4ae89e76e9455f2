// SPDX-License-Identifier: GPL-2.0-only
/*
 * The file system side of direct I/O (<sim/iomap_fs.h>): the call-site
 * logic of ext4's and XFS's ->read_iter/->write_iter for the iomap code
 * this build links, by its features (<sim/iomap_features.h>): the mapping
 * API it takes and where its simple read path is.  The only file outside
 * the kernel sources that knows.
 */
#include <linux/fs.h>
#include <linux/iomap.h>
#include <linux/uio.h>
#include <sim/iomap.h>
#include <sim/iomap_fs.h>
#include <sim/fs_dio.h>

/* ---- the mapping API ----------------------------------------------------- */

/*
 * What iomap_iter() and iomap_dio_rw() take: ->iomap_next itself, which
 * runs begin and end (iomap_iter_next_fn), or a struct iomap_ops
 * {iomap_begin, iomap_end} passed by address.
 */
#if IOMAPSIM_MAPPING_NEXT_FN
static iomap_iter_next_fn fs_mapping(const struct iomapsim_fs_ops *fs)
{
	return fs->next;
}
#define FS_MAPPING_ARG(m) (m)
#else
static struct iomap_ops fs_mapping(const struct iomapsim_fs_ops *fs)
{
#if IOMAPSIM_PROPOSAL
	/* the proposal's ->iomap_next in struct iomap_ops: embedded only */
	if (!fs->begin)
		return (struct iomap_ops){ .iomap_next = fs->next };
#endif
	return (struct iomap_ops){
		.iomap_begin = fs->begin,
		.iomap_end = fs->end,
	};
}
#define FS_MAPPING_ARG(m) (&(m))
#endif

int iomapsim_iter(struct iomap_iter *iter, const struct iomapsim_fs_ops *fs)
{
	const __auto_type m = fs_mapping(fs);

	return iomap_iter(iter, FS_MAPPING_ARG(m));
}

/* ---- the iterator's report ----------------------------------------------- */

int iomapsim_iter_advance(struct iomap_iter *iter, u64 count)
{
#if IOMAPSIM_ITER_STATUS
	return iomap_iter_advance(iter, count);
#else
	/* iomap_iter() advances by ->processed itself */
	iter->processed = count;
	return 0;
#endif
}

int iomapsim_iter_status(const struct iomap_iter *iter)
{
#if IOMAPSIM_ITER_STATUS
	return iter->status;
#else
	return iter->processed < 0 ? iter->processed : 0;
#endif
}

/* ---- the direct I/O call ------------------------------------------------- */

#if IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_IN_DIO_RW

/*
 * iomap_dio_rw() offers the request to the simple path itself; a file
 * system that keeps a request off it (simple=0, per call or per mount)
 * calls __iomap_dio_rw() and iomap_dio_complete() instead, as btrfs does
 * (<sim/fs_dio.h>).
 */
ssize_t iomapsim_dio_rw(struct kiocb *iocb, struct iov_iter *iter,
		const struct iomapsim_fs_ops *fs,
		const struct iomap_dio_ops *dops, unsigned int dio_flags,
		void *private, size_t done_before)
{
	const __auto_type m = fs_mapping(fs);
	ssize_t ret;

	if (iomapsim_fs_dio_offer(iocb, iter, dops, &dio_flags, done_before,
			     IOMAPSIM_OFFER_RW))
		ret = iomap_dio_rw(iocb, iter, FS_MAPPING_ARG(m), dops,
				   dio_flags, private, done_before);
	else
		ret = iomapsim_fs_dio_generic(iocb, iter, FS_MAPPING_ARG(m), dops,
					 dio_flags, private, done_before);
	/* the call returned: the observer keeps no pointer into it */
	iomapsim_dio_offer_end();
	return ret;
}

#else /* the file system calls the simple read, or there is none */

#if IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_FS_CALLED
/*
 * What the file system itself checks before it calls the simple read:
 * that it would call iomap_dio_rw() with no dio ops, flags, residual or
 * private data.  Everything else is the tree's iomap_dio_read_simple() to
 * decide.  (Private data is the file system's reason alone: the observer
 * is told it as the offer, IOMAPSIM_OFFER_PRIVATE.)
 */
static bool fs_simple_call(struct iov_iter *iter,
		const struct iomap_dio_ops *dops, unsigned int kflags,
		void *private, size_t done_before)
{
	return !dops && !private && !done_before &&
	       iov_iter_rw(iter) == READ && !kflags;
}
#endif

/*
 * A read the file system would send to iomap_dio_rw() with no dio ops,
 * flags, residual or private data is first offered to the simple read,
 * where the tree has one: iomap_dio_read_simple() (XFS's
 * xfs_file_dio_read(), ext4's ext4_dio_read_iter()); -ENOTBLK from it, or
 * any other request, goes to iomap_dio_rw().  The observer is told the
 * offer (with no simple path: that there was nothing else to offer the
 * request to); what ran it learns from the tree's own tracepoint and the
 * file system's ->iomap_begin (iomap/trace.c).
 */
ssize_t iomapsim_dio_rw(struct kiocb *iocb, struct iov_iter *iter,
		const struct iomapsim_fs_ops *fs,
		const struct iomap_dio_ops *dops, unsigned int dio_flags,
		void *private, size_t done_before)
{
	const __auto_type m = fs_mapping(fs);
	/* the simulator's and the proposal's bits are no kernel flags */
	unsigned int kflags = dio_flags &
		~(IOMAPSIM_DIO_NO_SIMPLE | IOMAP_DIO_NO_IOMAP_END);
	ssize_t ret = -ENOTBLK;
#if IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_FS_CALLED
	bool simple = iomapsim_fs_wants_simple(iocb, dio_flags);

	iomapsim_dio_offer(iocb, iter, dops, kflags, done_before,
			    !simple ? IOMAPSIM_OFFER_NONE :
			    private ? IOMAPSIM_OFFER_PRIVATE :
				      IOMAPSIM_OFFER_READ_SIMPLE);
	if (simple && fs_simple_call(iter, dops, kflags, private, done_before))
		ret = iomap_dio_read_simple(iocb, iter, fs->begin);
#else
	/* the initcalls, as for a tree that has a simple path */
	if (iomapsim_dio_init())
		return -ENOMEM;
	iomapsim_dio_offer(iocb, iter, dops, kflags, done_before,
			    IOMAPSIM_OFFER_ABSENT);
#endif
	if (ret == -ENOTBLK)
		ret = iomap_dio_rw(iocb, iter, FS_MAPPING_ARG(m), dops, kflags,
				   private, done_before);
	iomapsim_dio_offer_end();
	return ret;
}
#endif
