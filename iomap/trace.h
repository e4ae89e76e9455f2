/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The iomap tracepoints used by iter.c and direct-io.c (fs/iomap/trace.h),
 * as calls into the simulator's trace ring and the request observer
 * (<sim/iomap.h>).  Same names and arguments as the kernel's, so the call
 * sites read as in the kernel; the few that need to know which path they
 * fire on take the caller's function name by macro.
 *
 * Private to iomap/: only iter.c, direct-io.c and trace.c include it (and,
 * in kernel-source mode, a tree's fs/iomap files, through iomap/ksrc/fs).
 *
 * Cost when tracing is off (sim_trace_enable(false), the kernel's disabled
 * static key): the pure trace events (iomap_iter, _dstmap, _srcmap,
 * _invalidate_fail) are one predictable branch on sim_tracing(),
 * inline at the call site, with no call.  The three that also feed the
 * simulator's counters and the request observer (dio_rw_begin, _queued,
 * _complete) are one branch on sim_watch (<sim/trace.h>): they call out
 * only while the ring records, an observer is installed or the counters
 * count.
 */
#ifndef _IOMAP_TRACE_H
#define _IOMAP_TRACE_H

#include <linux/iomap.h>
#include <sim/iomap.h>
#include <sim/iomap_features.h>
#include <sim/trace.h>

#ifndef _RET_IP_
#define _RET_IP_ ((unsigned long)__builtin_return_address(0))
#endif

static inline void trace_iomap_iter(const struct iomap_iter *iter,
		const void *ops, unsigned long caller)
{
#if IOMAPSIM_ITER_STATUS
	sim_trace("iomap_iter", "ino 0x%lx pos 0x%llx length 0x%llx status %d flags 0x%x",
		  iter->inode->i_ino, (unsigned long long)iter->pos,
		  (unsigned long long)iter->len, iter->status, iter->flags);
#else
	sim_trace("iomap_iter", "ino 0x%lx pos 0x%llx length 0x%llx processed %lld flags 0x%x",
		  iter->inode->i_ino, (unsigned long long)iter->pos,
		  (unsigned long long)iter->len, (long long)iter->processed,
		  iter->flags);
#endif
}

void __trace_iomap_map(const char *event, struct inode *inode,
		const struct iomap *iomap);
#define trace_iomap_iter_dstmap(inode, iomap)				\
	do {								\
		if (sim_tracing())					\
			__trace_iomap_map("iomap_iter_dstmap", inode,	\
					  iomap);			\
	} while (0)
#define trace_iomap_iter_srcmap(inode, iomap)				\
	do {								\
		if (sim_tracing())					\
			__trace_iomap_map("iomap_iter_srcmap", inode,	\
					  iomap);			\
	} while (0)

/*
 * Fired at the top of __iomap_dio_rw() and, in the simple path, once it is
 * committed to building its bio: @func tells the two apart.
 */
void __trace_iomap_dio_rw_begin(struct kiocb *iocb, struct iov_iter *iter,
		unsigned int dio_flags, size_t done_before, const char *func);
#define trace_iomap_dio_rw_begin(iocb, iter, dio_flags, done_before)	\
	do {								\
		if (sim_watched())					\
			__trace_iomap_dio_rw_begin(iocb, iter, dio_flags, \
						   done_before, __func__); \
	} while (0)

void __trace_iomap_dio_rw_queued(struct inode *inode, loff_t offset,
		u64 length);
#define trace_iomap_dio_rw_queued(inode, offset, length)		\
	do {								\
		if (sim_watched())					\
			__trace_iomap_dio_rw_queued(inode, offset, length); \
	} while (0)
/* Fired by iomap_dio_complete() and iomap_dio_simple_complete(). */
void __trace_iomap_dio_complete(struct kiocb *iocb, int error, ssize_t ret,
		const char *func);
#define trace_iomap_dio_complete(iocb, error, ret)			\
	do {								\
		if (sim_watched())					\
			__trace_iomap_dio_complete(iocb, error, ret,	\
						   __func__);		\
	} while (0)
/*
 * Code without trace_iomap_dio_complete() (trees before it) is seen
 * completing a dio where its iomap_dio_complete() calls inode_dio_end()
 * (iomap/ksrc/fs/iomap/ksrc-compat.h): where, not what it returned.
 */
void __iomapsim_dio_ended(struct inode *inode);
#define iomapsim_dio_ended(inode)					\
	do {								\
		if (sim_watched())					\
			__iomapsim_dio_ended(inode);			\
	} while (0)

void __trace_iomap_dio_invalidate_fail(struct inode *inode, loff_t offset,
		u64 length);
#define trace_iomap_dio_invalidate_fail(inode, offset, length)		\
	do {								\
		if (sim_tracing())					\
			__trace_iomap_dio_invalidate_fail(inode, offset, \
							  length);	\
	} while (0)

/*
 * (sim) ioend.c brackets iomap_finish_ioends() with these: a dio that
 * iomap_finish_ioend_direct() completes there, in the file system's ioend
 * worker, is seen completing in IOEND-WORKER (G-54, docs/rules.md 4 item
 * 8).  The kernel has no tracepoint at that place; the marker is the work
 * item that runs the call, so a completion nested in it by a sleep (the
 * deterministic engine runs other events then) is not mistaken for it.
 */
struct work_struct *iomapsim_ioend_enter(void);
void iomapsim_ioend_exit(struct work_struct *prev);
/*
 * (sim) What iomap_finish_ioend_direct() returned, the bvecs of the bio
 * (G-54), summed in iomap_ioend_bvecs: the count the worker yields by.
 */
u32 iomapsim_ioend_bvecs(u32 vecs);

#endif /* _IOMAP_TRACE_H */
