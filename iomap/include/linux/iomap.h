/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The direct I/O half of include/linux/iomap.h, as in the tree the simple
 * dio path series applies to (docs/rules.md 1.9-1.12, 2.2-2.5): mapping
 * types and flags, struct iomap, the iterator, struct iomap_ops and
 * struct iomap_dio_ops, the public IOMAP_DIO_* flags and the entry points.
 *
 * Two things here are not in that tree, both marked "proposal" or "sim":
 *  - the ->iomap_next() conversion discussed in the v6 3/3 review
 *    (N-06..N-14): struct iomap_ops::iomap_next,
 *    IOMAP_DIO_NO_IOMAP_END and the iomap_dio_rw_next()/iomap_dio_rw_begin()
 *    entry points (iomap/direct-io-next.c), so the two styles can be run
 *    and compared side by side;
 *  - the simulator's switch for the simple path (the cover letter's
 *    simple=0), per super block and per call: <sim/iomap.h>.
 */
#ifndef LINUX_IOMAP_H
#define LINUX_IOMAP_H 1

#include <linux/atomic.h>
#include <linux/blk_types.h>
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/types.h>
#include <linux/uio.h>

struct address_space;
struct bio;
struct bio_set;
struct folio_batch;
struct inode;
struct iomap_dio;
struct iomap_iter;
struct iov_iter;
struct kiocb;

/*
 * Types of block ranges for iomap mappings:
 */
#define IOMAP_HOLE	0	/* no blocks allocated, need allocation */
#define IOMAP_DELALLOC	1	/* delayed allocation blocks */
#define IOMAP_MAPPED	2	/* blocks allocated at @addr */
#define IOMAP_UNWRITTEN	3	/* blocks allocated at @addr, unwritten */
#define IOMAP_INLINE	4	/* data inline in the inode */

/*
 * Flags reported by the file system from iomap_begin (see the kernel
 * header for the long descriptions):
 *
 * IOMAP_F_NEW: freshly allocated blocks, sub-block writes must zero around
 * the data.  IOMAP_F_DIRTY: uncommitted metadata, so no FUA write-through.
 * IOMAP_F_SHARED: shared (COW) blocks.  IOMAP_F_ANON_WRITE: no target
 * sector yet, the submit_io hook assigns one.  IOMAP_F_ATOMIC_BIO: issue
 * the write as a single REQ_ATOMIC bio.  IOMAP_F_INTEGRITY: the file
 * system handles integrity metadata (keeps a request off the simple path).
 */
#define IOMAP_F_NEW		(1U << 0)
#define IOMAP_F_DIRTY		(1U << 1)
#define IOMAP_F_SHARED		(1U << 2)
#define IOMAP_F_MERGED		(1U << 3)
#define IOMAP_F_BUFFER_HEAD	(1U << 4)
#define IOMAP_F_XATTR		(1U << 5)
#define IOMAP_F_BOUNDARY	(1U << 6)
#define IOMAP_F_ANON_WRITE	(1U << 7)
#define IOMAP_F_ATOMIC_BIO	(1U << 8)
/* The simulator models CONFIG_BLK_DEV_INTEGRITY=y. */
#define IOMAP_F_INTEGRITY	(1U << 9)

/* Flag reserved for file system specific usage */
#define IOMAP_F_PRIVATE		(1U << 12)

/*
 * Flags set by the core iomap code during operations:
 * IOMAP_F_FOLIO_BATCH: a folio batch is attached (buffered paths only).
 * IOMAP_F_SIZE_CHANGED: i_size changed by this write (for ->iomap_end).
 * IOMAP_F_STALE: the mapping is no longer valid and must be remapped.
 */
#define IOMAP_F_FOLIO_BATCH	(1U << 13)
#define IOMAP_F_SIZE_CHANGED	(1U << 14)
#define IOMAP_F_STALE		(1U << 15)

/*
 * Magic value for addr:
 */
#define IOMAP_NULL_ADDR -1ULL	/* addr is not valid */

struct iomap {
	u64			addr;	/* disk offset of mapping, bytes */
	loff_t			offset;	/* file offset of mapping, bytes */
	u64			length;	/* length of mapping, bytes */
	u16			type;	/* type of mapping */
	u16			flags;	/* flags for mapping */
	struct block_device	*bdev;	/* block device for I/O */
	struct dax_device	*dax_dev; /* dax_dev for dax operations */
	void			*inline_data;
	void			*private; /* filesystem private */
	u64			validity_cookie; /* used with .iomap_valid() */
};

/* G-41: the device sector of file position @pos inside @iomap. */
static inline sector_t iomap_sector(const struct iomap *iomap, loff_t pos)
{
	if (iomap->flags & IOMAP_F_ANON_WRITE)
		return U64_MAX; /* invalid */
	return (iomap->addr + pos - iomap->offset) >> SECTOR_SHIFT;
}

/*
 * Returns the inline data pointer for logical offset @pos.
 */
static inline void *iomap_inline_data(const struct iomap *iomap, loff_t pos)
{
	return (char *)iomap->inline_data + pos - iomap->offset;
}

/*
 * Flags for iomap_begin / iomap_end.  No flag implies a read.
 */
#define IOMAP_WRITE		(1 << 0) /* writing, must allocate blocks */
#define IOMAP_ZERO		(1 << 1) /* zeroing operation, may skip holes */
#define IOMAP_REPORT		(1 << 2) /* report extent status, e.g. FIEMAP */
#define IOMAP_FAULT		(1 << 3) /* mapping for page fault */
#define IOMAP_DIRECT		(1 << 4) /* direct I/O */
#define IOMAP_NOWAIT		(1 << 5) /* do not block */
#define IOMAP_OVERWRITE_ONLY	(1 << 6) /* only pure overwrites allowed */
#define IOMAP_UNSHARE		(1 << 7) /* unshare_file_range */
#define IOMAP_DAX		(1 << 8) /* DAX mapping */
#define IOMAP_ATOMIC		(1 << 9) /* torn-write protection */
#define IOMAP_DONTCACHE		(1 << 10)

/*
 * Return the existing mapping at pos, or reserve space starting at pos for
 * up to length, as long as it can be done as a single mapping.  The actual
 * length is returned in iomap->length.
 */
typedef int (*iomap_iter_begin_fn)(struct inode *inode, loff_t pos,
		loff_t length, unsigned flags, struct iomap *iomap,
		struct iomap *srcmap);

/*
 * Commit and/or unreserve space previously allocated by the begin method.
 * Written is the length of the successful write which needs committing;
 * the rest needs to be unreserved.  Written may be zero.
 */
typedef int (*iomap_iter_end_fn)(struct inode *inode, loff_t pos,
		loff_t length, ssize_t written, unsigned flags,
		struct iomap *iomap);

/*
 * Proposal (N-06): finish the previous mapping if there is one and produce
 * the next.  Returns 1 to continue iterating, 0 when the range is fully
 * consumed, or a negative errno.
 */
typedef int (*iomap_iter_next_fn)(const struct iomap_iter *iter,
		struct iomap *iomap, struct iomap *srcmap);

struct iomap_ops {
	/* see iomap_iter_begin_fn */
	int (*iomap_begin)(struct inode *inode, loff_t pos, loff_t length,
			unsigned flags, struct iomap *iomap,
			struct iomap *srcmap);

	/* see iomap_iter_end_fn */
	int (*iomap_end)(struct inode *inode, loff_t pos, loff_t length,
			ssize_t written, unsigned flags, struct iomap *iomap);

	/*
	 * Proposal, not in the baseline tree: when set, iomap_iter() gets
	 * every mapping from this single callback instead of the begin/end
	 * pair (one revision of the ->iomap_next() series carried it in
	 * struct iomap_ops exactly like this).  Lets the generic path run
	 * unchanged under the proposal's entry points.
	 */
	iomap_iter_next_fn iomap_next;
};

/**
 * struct iomap_iter - Iterate through a range of a file
 * @inode: Set at the start of the iteration and should not change.
 * @pos: The current file position we are operating on.  It is updated by
 *	calls to iomap_iter_advance().  Treat as read-only in the body.
 * @len: The remaining length of the file segment we're operating on.
 *	It is updated at the same time as @pos.
 * @iter_start_pos: @pos when the current mapping was obtained, so that
 *	progress is @pos - @iter_start_pos.
 * @status: Status of the most recent iteration: zero on success or a
 *	negative errno.
 * @flags: Zero or more of the iomap_begin flags above.
 * @iomap: Map describing the I/O iteration
 * @srcmap: Source map for COW operations
 * @fbatch: folio batch (buffered paths only; always NULL for direct I/O)
 */
struct iomap_iter {
	struct inode *inode;
	loff_t pos;
	u64 len;
	loff_t iter_start_pos;
	int status;
	unsigned flags;
	struct iomap iomap;
	struct iomap srcmap;
	struct folio_batch *fbatch;
	void *private;
};

int iomap_iter(struct iomap_iter *iter, const struct iomap_ops *ops);
int iomap_iter_advance(struct iomap_iter *iter, u64 count);

/**
 * iomap_length_trim - trimmed length of the current iomap iteration
 * @iter: iteration structure
 * @pos: File position to trim from.
 * @len: Length of the mapping to trim to.
 */
static inline u64 iomap_length_trim(const struct iomap_iter *iter, loff_t pos,
		u64 len)
{
	u64 end = iter->iomap.offset + iter->iomap.length;

	if (iter->srcmap.type != IOMAP_HOLE)
		end = min(end, iter->srcmap.offset + iter->srcmap.length);
	return min(len, end - pos);
}

/**
 * iomap_length - length of the current iomap iteration (G-41)
 * @iter: iteration structure
 */
static inline u64 iomap_length(const struct iomap_iter *iter)
{
	return iomap_length_trim(iter, iter->pos, iter->len);
}

/**
 * iomap_iter_advance_full - advance by the full length of current map
 */
static inline int iomap_iter_advance_full(struct iomap_iter *iter)
{
	return iomap_iter_advance(iter, iomap_length(iter));
}

/**
 * iomap_iter_srcmap - return the source map for the current iteration
 */
static inline const struct iomap *iomap_iter_srcmap(const struct iomap_iter *i)
{
	if (i->srcmap.type != IOMAP_HOLE)
		return &i->srcmap;
	return &i->iomap;
}

int iomap_iter_continue(const struct iomap_iter *iter, struct iomap *iomap,
		struct iomap *srcmap, int ret);

/**
 * iomap_iter_next - finish the previous mapping and produce the next one
 * @iter: iteration structure
 * @iomap: mapping to finish and then repopulate
 * @srcmap: source mapping to finish and then repopulate
 * @begin: produces a mapping for the current position
 * @end: optional, finishes the previous mapping
 *
 * The common body of iomap_iter() (N-01..N-03) and of a proposal-style
 * ->iomap_next() callback (the thread's "iomap_process", N-07, in the
 * shape of "iomap: inline iomap_iter_advance and hoist the zero-length
 * guard": the first-call test is done here so the
 * out-of-line iomap_iter_continue() only runs once a mapping exists).
 * Always inline so constant @begin/@end become direct calls.
 *
 * Returns 1 to continue iterating, 0 once the range is fully consumed, or a
 * negative errno.
 */
static __always_inline int iomap_iter_next(const struct iomap_iter *iter,
		struct iomap *iomap, struct iomap *srcmap,
		iomap_iter_begin_fn begin, iomap_iter_end_fn end)
{
	int ret = 0;

	if (iomap->length) {
		if (end) {
			/*
			 * Report how far the body got in this mapping, and
			 * the length of the mapping as the body saw it.
			 */
			ssize_t advanced = iter->pos - iter->iter_start_pos;
			loff_t len;

			len = iomap_length_trim(iter, iter->iter_start_pos,
					iter->len + advanced);
			ret = end(iter->inode, iter->iter_start_pos, len,
					advanced, iter->flags, iomap);
		}
		ret = iomap_iter_continue(iter, iomap, srcmap, ret);
		if (ret <= 0)
			return ret;
	}

	ret = begin(iter->inode, iter->pos, iter->len, iter->flags, iomap,
			srcmap);
	return ret < 0 ? ret : 1;
}

#define DEFINE_IOMAP_ITER_NEXT_END(name, begin_fn, end_fn)		\
int name(const struct iomap_iter *iter, struct iomap *iomap,		\
		struct iomap *srcmap)					\
{									\
	return iomap_iter_next(iter, iomap, srcmap, begin_fn, end_fn);	\
}

#define DEFINE_IOMAP_ITER_NEXT(name, begin_fn)				\
	DEFINE_IOMAP_ITER_NEXT_END(name, begin_fn, NULL)

/*
 * Flags for direct I/O ->end_io:
 */
#define IOMAP_DIO_UNWRITTEN	(1 << 0)	/* covers unwritten extent(s) */
#define IOMAP_DIO_COW		(1 << 1)	/* covers COW extent(s) */

struct iomap_dio_ops {
	int (*end_io)(struct kiocb *iocb, ssize_t size, int error,
		      unsigned flags);
	void (*submit_io)(const struct iomap_iter *iter, struct bio *bio,
			  loff_t file_offset);

	/*
	 * Filesystems wishing to attach private information to a direct io
	 * bio must provide a ->submit_io method that attaches the additional
	 * information to the bio and changes the ->bi_end_io callback to a
	 * custom function.  This function should, at a minimum, perform any
	 * relevant post-processing of the bio and end with a call to
	 * iomap_dio_bio_end_io.
	 */
	struct bio_set *bio_set;
};

/*
 * Wait for the I/O to complete in iomap_dio_rw even if the kiocb is not
 * synchronous.
 */
#define IOMAP_DIO_FORCE_WAIT	(1 << 0)

/*
 * Do not allocate blocks or zero partial blocks, but instead fall back to
 * the caller by returning -EAGAIN.
 */
#define IOMAP_DIO_OVERWRITE_ONLY	(1 << 1)

/*
 * When a page fault occurs, return a partial synchronous result and allow
 * the caller to retry the rest of the operation after dealing with the
 * page fault.
 */
#define IOMAP_DIO_PARTIAL		(1 << 2)

/*
 * Ensure each bio is aligned to fs block size.
 */
#define IOMAP_DIO_FSBLOCK_ALIGNED	(1 << 3)

/*
 * Bounce buffer instead of using zero copy access.
 */
#define IOMAP_DIO_BOUNCE		(1 << 4)

/*
 * Proposal (N-12): the caller's ->iomap_next() has no end work and the I/O
 * uses no folio batch, so the simple path may skip the finishing
 * iomap_iter().  Ignored by the generic path and by the baseline
 * iomap_dio_rw().
 */
#define IOMAP_DIO_NO_IOMAP_END		(1 << 5)

/* The simulator's simple=0 switches are in <sim/iomap.h>. */

ssize_t iomap_dio_rw(struct kiocb *iocb, struct iov_iter *iter,
		const struct iomap_ops *ops, const struct iomap_dio_ops *dops,
		unsigned int dio_flags, void *private, size_t done_before);
struct iomap_dio *__iomap_dio_rw(struct kiocb *iocb, struct iov_iter *iter,
		const struct iomap_ops *ops, const struct iomap_dio_ops *dops,
		unsigned int dio_flags, void *private, size_t done_before);
ssize_t iomap_dio_complete(struct iomap_dio *dio);
void iomap_dio_bio_end_io(struct bio *bio);

/*
 * Proposal entry points (v6 3/3 review), next to the baseline ones:
 *
 * iomap_dio_rw_next() - the ->iomap_next form: the simple path gets its
 *	mapping with iomap_iter(..., iomap_next) and finishes it with one
 *	more iomap_iter() (N-08..N-10), skipped under IOMAP_DIO_NO_IOMAP_END
 *	(N-12).
 * iomap_dio_rw_begin() - the variant of N-13: the simple path is only
 *	tried under IOMAP_DIO_NO_IOMAP_END and calls the raw @iomap_begin
 *	directly; everything else goes through @iomap_next.
 */
ssize_t iomap_dio_rw_next(struct kiocb *iocb, struct iov_iter *iter,
		iomap_iter_next_fn iomap_next, const struct iomap_dio_ops *dops,
		unsigned int dio_flags, void *private, size_t done_before);
ssize_t iomap_dio_rw_begin(struct kiocb *iocb, struct iov_iter *iter,
		iomap_iter_begin_fn iomap_begin, iomap_iter_next_fn iomap_next,
		const struct iomap_dio_ops *dops, unsigned int dio_flags,
		void *private, size_t done_before);

#include <sim/iomap.h>

#endif /* LINUX_IOMAP_H */
