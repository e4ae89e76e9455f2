// SPDX-License-Identifier: GPL-2.0-only
/*
 * The iomap iterator (fs/iomap/iter.c): walks the filesystem's mappings of
 * a file range, one mapping per loop body (N-01..N-05).
 */
#include <string.h>
#include <linux/iomap.h>
#include "trace.h"

/*
 * The kernel is built without -Wsign-compare, and this file keeps the
 * kernel's expressions (u64 mapping lengths against loff_t positions).
 */
#pragma GCC diagnostic ignored "-Wsign-compare"

/*
 * Release the iter folio batch.  Direct I/O never attaches one (only the
 * buffered write and zeroing paths do), so there is nothing to release in
 * the simulator; the helper stays so the call sites read as in the kernel.
 */
static inline void iomap_iter_clean_fbatch(const struct iomap_iter *iter,
		struct iomap *iomap)
{
	if (!iter->fbatch)
		return;
	iomap->flags &= ~IOMAP_F_FOLIO_BATCH;
}

/* Advance the current iterator position and decrement the remaining length */
int iomap_iter_advance(struct iomap_iter *iter, u64 count)
{
	if (WARN_ON_ONCE(count > iomap_length(iter)))
		return -EIO;
	iter->pos += count;
	iter->len -= count;
	return 0;
}

/* N-01: sanity checks on a fresh mapping, then start counting progress. */
static inline void iomap_iter_done(struct iomap_iter *iter)
{
	WARN_ON_ONCE(iter->iomap.offset > iter->pos);
	WARN_ON_ONCE(iter->iomap.length == 0);
	WARN_ON_ONCE(iter->iomap.offset + iter->iomap.length <= iter->pos);
	WARN_ON_ONCE(iter->iomap.flags & IOMAP_F_STALE);

	iter->iter_start_pos = iter->pos;

	trace_iomap_iter_dstmap(iter->inode, &iter->iomap);
	if (iter->srcmap.type != IOMAP_HOLE)
		trace_iomap_iter_srcmap(iter->inode, &iter->srcmap);
}

/**
 * iomap_iter_continue - decide whether iteration should continue
 * @iter: iteration structure
 * @iomap: the mapping that was just processed
 * @srcmap: the source mapping that was just processed
 * @ret: what finishing the mapping (->iomap_end) returned
 *
 * N-02/N-03: an error from finishing the mapping only counts when the body
 * made no progress; a negative status ends the walk with that status; an
 * exhausted range, or no progress on a mapping that is not stale, ends it
 * with 0.  Otherwise the mappings are cleared for the next begin and 1 is
 * returned.
 */
int iomap_iter_continue(const struct iomap_iter *iter, struct iomap *iomap,
		struct iomap *srcmap, int ret)
{
	const bool stale = iomap->flags & IOMAP_F_STALE;
	const ssize_t advanced = iter->pos - iter->iter_start_pos;

	if (ret < 0 && !advanced)
		return ret;

	if (WARN_ON_ONCE(iter->status > 0))
		/* the old return convention, where status meant "advance" */
		ret = -EIO;
	else if (iter->status < 0)
		ret = iter->status;
	else if (iter->len == 0 || (!advanced && !stale))
		ret = 0;
	else
		ret = 1;

	iomap_iter_clean_fbatch(iter, iomap);

	if (ret <= 0)
		return ret;

	memset(iomap, 0, sizeof(*iomap));
	memset(srcmap, 0, sizeof(*srcmap));
	return ret;
}

/**
 * iomap_iter - iterate over ranges in a file
 * @iter: iteration structure
 * @ops: iomap ops provided by the filesystem
 *
 * Must be called in a loop that continues as long as it returns a positive
 * value; 0 or a negative value ends the loop and the body must not run
 * again.  A body reports bytes only by advancing the iterator and errors
 * only by setting @iter->status (N-05).
 */
int iomap_iter(struct iomap_iter *iter, const struct iomap_ops *ops)
{
	int ret;

	trace_iomap_iter(iter, ops, _RET_IP_);

	/*
	 * Proposal (N-06): a filesystem converted to ->iomap_next() produces
	 * and finishes mappings in one callback; the baseline drives the
	 * begin/end pair through the same inline helper.
	 */
	if (ops->iomap_next)
		ret = ops->iomap_next(iter, &iter->iomap, &iter->srcmap);
	else
		ret = iomap_iter_next(iter, &iter->iomap, &iter->srcmap,
				ops->iomap_begin, ops->iomap_end);
	iter->status = 0;
	if (ret > 0)
		iomap_iter_done(iter);
	else if (ret < 0)
		iomap_iter_clean_fbatch(iter, &iter->iomap);

	return ret;
}
