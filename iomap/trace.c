// SPDX-License-Identifier: GPL-2.0-only
/*
 * The iomap tracepoints (trace.h) and what they feed: the trace ring, the
 * iomap counters and the per-request observer (<sim/iomap.h>).
 *
 * Submission-side facts (was the simple path tried, why did it give up)
 * are kept per task, since iomap_dio_rw() and everything it calls before
 * returning run in the calling task; completion-side facts go to the
 * installed observer from whatever context completes the request.
 */
#include <string.h>
#include <linux/bio.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/iomap.h>
#include <linux/sched.h>
#include <sim/iomap.h>
#include <sim/iomap_fs.h>
#include <sim/iomap_features.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "trace.h"

DEFINE_SIM_STAT(stat_simple_hits, "iomap_simple_hits");
DEFINE_SIM_STAT(stat_generic, "iomap_dio_generic");
DEFINE_SIM_STAT(stat_queued, "iomap_dio_queued");
DEFINE_SIM_STAT(stat_punted, "iomap_dio_punted");
DEFINE_SIM_STAT(stat_inline_comp, "iomap_dio_inline_comp");
DEFINE_SIM_STAT(stat_submitter_comp, "iomap_dio_submitter_comp");
DEFINE_SIM_STAT(stat_ioend_comp, "iomap_dio_ioend_comp");
DEFINE_SIM_STAT(stat_ioend_bvecs, "iomap_ioend_bvecs");
DEFINE_SIM_STAT(stat_fb_disabled, "iomap_simple_fallback_disabled");
DEFINE_SIM_STAT(stat_fb_dops, "iomap_simple_fallback_dops");
DEFINE_SIM_STAT(stat_fb_done_before, "iomap_simple_fallback_done_before");
DEFINE_SIM_STAT(stat_fb_write, "iomap_simple_fallback_write");
DEFINE_SIM_STAT(stat_fb_empty, "iomap_simple_fallback_empty");
DEFINE_SIM_STAT(stat_fb_too_large, "iomap_simple_fallback_too_large");
DEFINE_SIM_STAT(stat_fb_dio_flags, "iomap_simple_fallback_dio_flags");
DEFINE_SIM_STAT(stat_fb_beyond_eof, "iomap_simple_fallback_beyond_eof");
DEFINE_SIM_STAT(stat_fb_encrypted, "iomap_simple_fallback_encrypted");
DEFINE_SIM_STAT(stat_fb_not_mapped, "iomap_simple_fallback_not_mapped");
DEFINE_SIM_STAT(stat_fb_extent_short, "iomap_simple_fallback_extent_short");
DEFINE_SIM_STAT(stat_fb_integrity, "iomap_simple_fallback_integrity");
DEFINE_SIM_STAT(stat_fb_short_pin, "iomap_simple_fallback_short_pin");
DEFINE_SIM_STAT(stat_fb_absent, "iomap_simple_fallback_no_simple_path");
DEFINE_SIM_STAT(stat_fb_private, "iomap_simple_fallback_private");
DEFINE_SIM_STAT(stat_why_mismatch, "iomap_simple_why_mismatch");

static struct sim_stat *const fallback_stat[IOMAP_SIMPLE_NR_REASONS] = {
	[IOMAP_SIMPLE_DISABLED] = &stat_fb_disabled,
	[IOMAP_SIMPLE_DOPS] = &stat_fb_dops,
	[IOMAP_SIMPLE_DONE_BEFORE] = &stat_fb_done_before,
	[IOMAP_SIMPLE_WRITE] = &stat_fb_write,
	[IOMAP_SIMPLE_EMPTY] = &stat_fb_empty,
	[IOMAP_SIMPLE_TOO_LARGE] = &stat_fb_too_large,
	[IOMAP_SIMPLE_DIO_FLAGS] = &stat_fb_dio_flags,
	[IOMAP_SIMPLE_BEYOND_EOF] = &stat_fb_beyond_eof,
	[IOMAP_SIMPLE_ENCRYPTED] = &stat_fb_encrypted,
	[IOMAP_SIMPLE_NOT_MAPPED] = &stat_fb_not_mapped,
	[IOMAP_SIMPLE_EXTENT_SHORT] = &stat_fb_extent_short,
	[IOMAP_SIMPLE_INTEGRITY] = &stat_fb_integrity,
	[IOMAP_SIMPLE_SHORT_PIN] = &stat_fb_short_pin,
	[IOMAP_SIMPLE_ABSENT] = &stat_fb_absent,
	[IOMAP_SIMPLE_PRIVATE] = &stat_fb_private,
};

static const char *const reason_names[IOMAP_SIMPLE_NR_REASONS] = {
	[IOMAP_SIMPLE_OK] = NULL,
	[IOMAP_SIMPLE_DISABLED] = "disabled",
	[IOMAP_SIMPLE_DOPS] = "dops",
	[IOMAP_SIMPLE_DONE_BEFORE] = "done_before",
	[IOMAP_SIMPLE_WRITE] = "write",
	[IOMAP_SIMPLE_EMPTY] = "empty",
	[IOMAP_SIMPLE_TOO_LARGE] = "too_large",
	[IOMAP_SIMPLE_DIO_FLAGS] = "dio_flags",
	[IOMAP_SIMPLE_BEYOND_EOF] = "beyond_eof",
	[IOMAP_SIMPLE_ENCRYPTED] = "encrypted",
	[IOMAP_SIMPLE_NOT_MAPPED] = "not_mapped",
	[IOMAP_SIMPLE_EXTENT_SHORT] = "extent_short",
	[IOMAP_SIMPLE_INTEGRITY] = "integrity",
	[IOMAP_SIMPLE_SHORT_PIN] = "short_pin",
	[IOMAP_SIMPLE_ABSENT] = "no_simple_path",
	[IOMAP_SIMPLE_PRIVATE] = "private",
};

const char *iomap_simple_reason_name(enum iomap_simple_reason r)
{
	if ((unsigned int)r >= IOMAP_SIMPLE_NR_REASONS)
		return "?";
	return reason_names[r];
}

const char *iomap_dio_comp_ctx_name(enum iomap_dio_comp_ctx c)
{
	switch (c) {
	case IOMAP_DIO_COMP_SUBMITTER:
		return "submitter";
	case IOMAP_DIO_COMP_END_IO:
		return "end_io";
	case IOMAP_DIO_COMP_WORKQUEUE:
		return "workqueue";
	case IOMAP_DIO_COMP_IOEND_WORKER:
		return "ioend_worker";
	default:
		return NULL;
	}
}

/*
 * The simple path's pool is set up on first use; taking the simulated
 * kernel down (each test's teardown) takes it down again, so that it
 * does not count as that test's leak (the block layer does the same for
 * its per-CPU caches).
 */
sim_exitcall(iomapsim_dio_exit);

/*
 * The kernel's fs_initcall(iomap_dio_init) of either direct-io.c sets the
 * simple path's pool up; the simulator's boot (sim_do_initcalls(), from
 * iomapsim_dio_init()) runs it on first use, and the teardown takes it
 * down again.
 */
void iomapsim_dio_exit(void)
{
	iomapsim_dio_initcall_undo();
#if IOMAPSIM_IOEND_DIRECT
	iomapsim_ioend_initcall_undo();
#endif
	sim_initcalls_reset();
}

/* ---- the observer ------------------------------------------------------ */

static struct iomap_dio_obs *obs_cur;

static struct iomap_dio_obs *obs_get(void)
{
	return __atomic_load_n(&obs_cur, __ATOMIC_ACQUIRE);
}

void iomap_dio_obs_start(struct iomap_dio_obs *obs)
{
	memset(obs, 0, sizeof(*obs));
	__atomic_store_n(&obs_cur, obs, __ATOMIC_RELEASE);
	sim_watch_set(SIM_WATCH_OBSERVER, true);
}

void iomap_dio_obs_stop(void)
{
	__atomic_store_n(&obs_cur, NULL, __ATOMIC_RELEASE);
	sim_watch_set(SIM_WATCH_OBSERVER, false);
}

/* Counters the hooks feed, while someone wants them counted. */
static inline void count(struct sim_stat *s)
{
	if (sim_watch_counting())
		sim_stat_inc(s);
}

void iomap_dio_obs_polling(bool on)
{
	struct iomap_dio_obs *obs = obs_get();

	if (obs)
		WRITE_ONCE(obs->polling, on);
}

/* ---- why the simple path was not taken --------------------------------- */

/*
 * What the current task's file system offered its last direct I/O and
 * what was then seen of the simple path, matched to the request by kiocb,
 * position and count so that a file system calling __iomap_dio_rw()
 * directly is not mistaken for a fallback.  Filled by the file system
 * side (iomapsim_dio_offer(), iomapsim_dio_mapped()) and by the kernel's
 * tracepoints; nothing here is told by the iomap code which path it took.
 */
struct simple_attempt {
	struct kiocb *iocb;
	struct iov_iter *iter;
	const struct iomap_dio_ops *dops;
	loff_t pos;
	size_t count;
	enum iomapsim_offer offer;
	unsigned int dio_flags;
	size_t done_before;
	bool valid;
	unsigned int epoch;	/* sim_watch_epoch() at the offer */
	bool begun;		/* the fs was asked for a mapping */
	bool mapped;		/* ... and returned one: map_* below */
	bool checked;		/* the mirror was compared already */
	u16 map_type;
	u16 map_flags;
	loff_t map_offset;
	u64 map_length;
};

static __thread struct simple_attempt attempt;

/*
 * The offer recorded for the request now running: not one from before a
 * time nobody watched, whose end (and pointers) went unrecorded.
 */
static bool attempt_valid(void)
{
	return attempt.valid && attempt.epoch == sim_watch_epoch();
}

/*
 * A mirror of iomap_dio_simple_supported(), condition by condition in its
 * order, splitting its combined tests so that each gets a name.  It only
 * explains: whether the simple path was tried is observed (the file system
 * asked for a mapping before __iomap_dio_rw() began, or the request ended
 * without __iomap_dio_rw()), and a mirror that disagrees with what was
 * observed is reported (iomap_dio_obs::why_mismatch).
 */
enum iomap_simple_reason iomap_dio_simple_why(struct kiocb *iocb,
		struct iov_iter *iter, const struct iomap_dio_ops *dops,
		unsigned int dio_flags, size_t done_before)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	size_t count = iov_iter_count(iter);

	if (dops)
		return IOMAP_SIMPLE_DOPS;
	if (done_before)
		return IOMAP_SIMPLE_DONE_BEFORE;
	if (iov_iter_rw(iter) != READ)
		return IOMAP_SIMPLE_WRITE;
	if (!count)
		return IOMAP_SIMPLE_EMPTY;
	if (count > inode->i_sb->s_blocksize)
		return IOMAP_SIMPLE_TOO_LARGE;
	if (dio_flags & (IOMAP_DIO_FORCE_WAIT | IOMAP_DIO_PARTIAL |
			 IOMAP_DIO_BOUNCE))
		return IOMAP_SIMPLE_DIO_FLAGS;
	/* unsigned, as the kernel's expression is (loff_t + size_t) */
	if ((u64)(iocb->ki_pos + count) > (u64)i_size_read(inode))
		return IOMAP_SIMPLE_BEYOND_EOF;
	if (IS_ENCRYPTED(inode))
		return IOMAP_SIMPLE_ENCRYPTED;
	return IOMAP_SIMPLE_OK;
}

enum iomap_simple_reason iomap_dio_simple_gate_why(const struct iomap *iomap,
		loff_t pos, size_t count)
{
	if (iomap->type != IOMAP_MAPPED)
		return IOMAP_SIMPLE_NOT_MAPPED;
	if (iomap->offset + iomap->length < (u64)(pos + count))
		return IOMAP_SIMPLE_EXTENT_SHORT;
	if (iomap->flags & IOMAP_F_INTEGRITY)
		return IOMAP_SIMPLE_INTEGRITY;
	return IOMAP_SIMPLE_SHORT_PIN;
}

/* What the mirror says about the attempt's request, with @dio_flags. */
static enum iomap_simple_reason attempt_why(unsigned int dio_flags,
		size_t done_before)
{
	enum iomap_simple_reason why;

	switch (attempt.offer) {
	case IOMAPSIM_OFFER_NONE:
		return IOMAP_SIMPLE_DISABLED;
	case IOMAPSIM_OFFER_ABSENT:
		return IOMAP_SIMPLE_ABSENT;
	case IOMAPSIM_OFFER_NO_END:
		/* iomap_dio_rw_begin() offers only NO_IOMAP_END requests */
		if (!(dio_flags & IOMAP_DIO_NO_IOMAP_END))
			return IOMAP_SIMPLE_DIO_FLAGS;
		break;
	default:
		break;
	}
	why = iomap_dio_simple_why(attempt.iocb, attempt.iter, attempt.dops,
				   dio_flags, done_before);
	/*
	 * The file system calls iomap_dio_read_simple() only for a request
	 * it would give iomap_dio_rw() no flags or private data (fs-dio.c).
	 */
	if (why == IOMAP_SIMPLE_DOPS || why == IOMAP_SIMPLE_DONE_BEFORE ||
	    why == IOMAP_SIMPLE_WRITE)
		return why;
	if (attempt.offer == IOMAPSIM_OFFER_PRIVATE)
		return IOMAP_SIMPLE_PRIVATE;
	if (attempt.offer == IOMAPSIM_OFFER_READ_SIMPLE && dio_flags)
		return IOMAP_SIMPLE_DIO_FLAGS;
	return why;
}

static void why_mismatch(const char *what, enum iomap_simple_reason why)
{
	struct iomap_dio_obs *obs = obs_get();

	count(&stat_why_mismatch);
	sim_trace("iomap_dio_simple_why_mismatch", "pos 0x%llx count 0x%zx %s, mirror says %s",
		  (unsigned long long)attempt.pos, attempt.count, what,
		  iomap_simple_reason_name(why) ?: "eligible");
	if (obs)
		obs->why_mismatch = true;
}

void __iomapsim_dio_offer(struct kiocb *iocb, struct iov_iter *iter,
		const struct iomap_dio_ops *dops, unsigned int dio_flags,
		size_t done_before, enum iomapsim_offer offer)
{
	attempt.iocb = iocb;
	attempt.iter = iter;
	attempt.dops = dops;
	attempt.pos = iocb->ki_pos;
	attempt.count = iov_iter_count(iter);
	attempt.offer = offer;
	attempt.dio_flags = dio_flags;
	attempt.done_before = done_before;
	attempt.valid = true;
	attempt.epoch = sim_watch_epoch();
	attempt.begun = false;
	attempt.mapped = false;
	attempt.checked = false;
}

void __iomapsim_dio_offer_end(void)
{
	attempt.valid = false;
}

void __iomapsim_dio_mapped(struct inode *inode, const struct iomap *iomap,
		int ret)
{
	struct iomap_dio_obs *obs;
	enum iomap_simple_reason why;

	/*
	 * only the first mapping of a request __iomap_dio_rw() has not
	 * begun, in code that has a simple path
	 */
	if (!attempt_valid() || attempt.begun ||
	    attempt.offer == IOMAPSIM_OFFER_ABSENT ||
	    file_inode(attempt.iocb->ki_filp) != inode)
		return;
	attempt.begun = true;
	if (!ret) {
		attempt.mapped = true;
		attempt.map_type = iomap->type;
		attempt.map_flags = iomap->flags;
		attempt.map_offset = iomap->offset;
		attempt.map_length = iomap->length;
	}
	obs = obs_get();
	if (obs)
		obs->simple_tried = true;
	/*
	 * The simple path asked for a mapping: the request must have been
	 * eligible.  The request is still untouched here (nothing pinned,
	 * ki_pos unmoved), so the mirror sees it as the kernel's check did.
	 * Worked out only for an observer: the mount needs no second check.
	 */
	if (obs) {
		attempt.checked = true;
		why = attempt_why(attempt.dio_flags, attempt.done_before);
		if (why != IOMAP_SIMPLE_OK)
			why_mismatch("simple path tried", why);
	}
}

/* ---- the kernel's tracepoints ------------------------------------------ */

void __trace_iomap_map(const char *event, struct inode *inode,
		const struct iomap *iomap)
{
	sim_trace(event, "ino 0x%lx offset 0x%llx length 0x%llx type %u flags 0x%x addr 0x%llx",
		  inode->i_ino, (unsigned long long)iomap->offset,
		  (unsigned long long)iomap->length, iomap->type, iomap->flags,
		  (unsigned long long)iomap->addr);
}

void __trace_iomap_dio_rw_begin(struct kiocb *iocb, struct iov_iter *iter,
		unsigned int dio_flags, size_t done_before, const char *func)
{
	struct iomap_dio_obs *obs = obs_get();
	bool generic = !strcmp(func, "__iomap_dio_rw");

	sim_trace("iomap_dio_rw_begin", "ino 0x%lx size 0x%llx offset 0x%llx length 0x%zx ki_flags 0x%x dio_flags 0x%x done_before 0x%zx path %s",
		  file_inode(iocb->ki_filp)->i_ino,
		  (unsigned long long)i_size_read(file_inode(iocb->ki_filp)),
		  (unsigned long long)iocb->ki_pos, iov_iter_count(iter),
		  iocb->ki_flags, dio_flags, done_before,
		  generic ? "generic" : "simple");

	if (!generic) {
		if (obs) {
			obs->simple_submitting = true;
			obs->simple_tried = true;
		}
		if (obs && attempt_valid() && !attempt.checked &&
		    attempt.iocb == iocb) {
			enum iomap_simple_reason why;

			attempt.checked = true;
			why = attempt_why(attempt.dio_flags,
					  attempt.done_before);
			if (why != IOMAP_SIMPLE_OK)
				why_mismatch("simple path submitting", why);
		}
		return;
	}

	count(&stat_generic);
	if (attempt_valid() && attempt.iocb == iocb &&
	    attempt.pos == iocb->ki_pos &&
	    attempt.count == iov_iter_count(iter)) {
		enum iomap_simple_reason why = attempt_why(dio_flags,
							   done_before);

		if (why != IOMAP_SIMPLE_OK) {
			/* the mirror's reason, if the simple path agreed */
			if (attempt.begun && !attempt.checked)
				why_mismatch("simple path tried", why);
		} else if (!attempt.begun) {
			why_mismatch("simple path not tried", why);
			why = IOMAP_SIMPLE_DISABLED;
		} else if (attempt.mapped) {
			/*
			 * Tried and given up: the mapping the file system
			 * returned says why, or, when it passes the gate,
			 * the pages could not all be pinned.
			 */
			const struct iomap map = {
				.type = attempt.map_type,
				.flags = attempt.map_flags,
				.offset = attempt.map_offset,
				.length = attempt.map_length,
			};

			why = iomap_dio_simple_gate_why(&map, attempt.pos,
							attempt.count);
		} else {
			/* ->iomap_begin refused to map it for this path */
			why = IOMAP_SIMPLE_NOT_MAPPED;
		}
		count(fallback_stat[why]);
		if (obs)
			obs->fallback = why;
	}
	attempt.valid = false;
	if (obs)
		obs->generic = true;
}

void __trace_iomap_dio_rw_queued(struct inode *inode, loff_t offset,
		u64 length)
{
	struct iomap_dio_obs *obs = obs_get();

	sim_trace("iomap_dio_rw_queued", "ino 0x%lx offset 0x%llx length 0x%llx",
		  inode->i_ino, (unsigned long long)offset,
		  (unsigned long long)length);
	count(&stat_queued);
	if (obs)
		obs->queued = true;
}

/* The work item running iomap_finish_ioends() on this thread, if any. */
static __thread struct work_struct *ioend_work;

struct work_struct *iomapsim_ioend_enter(void)
{
	struct work_struct *prev = ioend_work;

	ioend_work = (current->flags & PF_WQ_WORKER) ? current_work() : NULL;
	return prev;
}

void iomapsim_ioend_exit(struct work_struct *prev)
{
	ioend_work = prev;
}

u32 iomapsim_ioend_bvecs(u32 vecs)
{
	if (sim_watch_counting())
		sim_stat_add(&stat_ioend_bvecs, vecs);
	return vecs;
}

bool iomapsim_in_ioend_worker(void)
{
	struct work_struct *work = current_work();

	return !in_interrupt() && (current->flags & PF_WQ_WORKER) && work &&
	       work == ioend_work;
}

/*
 * A worker is iomap's punt only when it runs the super block's
 * s_dio_done_wq, and the ioend worker only while it runs
 * iomap_finish_ioends() (G-54): a bio can also end in a worker of the
 * block layer (the request timeout's poll of a polled bio nobody polls,
 * as nvme_timeout() does), and the completion then runs where the bio
 * ended, as it does from hard IRQ.  The worker's queue, not
 * current_work()->wq: the simple path's work lives in its bio, which the
 * completion has freed by the time it is traced.
 */
static enum iomap_dio_comp_ctx comp_ctx(const struct iomap_dio_obs *obs,
					const struct super_block *sb)
{
	if (in_interrupt() || (obs && READ_ONCE(obs->polling)))
		return IOMAP_DIO_COMP_END_IO;
	if (current->flags & PF_WQ_WORKER) {
		/* compared, never followed: it may be freed by now */
		struct work_struct *work = current_work();

		if (sim_current_workqueue() == sb->s_dio_done_wq)
			return IOMAP_DIO_COMP_WORKQUEUE;
		if (work && work == ioend_work)
			return IOMAP_DIO_COMP_IOEND_WORKER;
		return IOMAP_DIO_COMP_END_IO;
	}
	return IOMAP_DIO_COMP_SUBMITTER;
}

/* Where a dio's completion helper ran, for the counters and the observer. */
static struct iomap_dio_obs *observe_completion(const struct super_block *sb)
{
	struct iomap_dio_obs *obs = obs_get();
	enum iomap_dio_comp_ctx ctx = comp_ctx(obs, sb);

	switch (ctx) {
	case IOMAP_DIO_COMP_END_IO:
		count(&stat_inline_comp);
		break;
	case IOMAP_DIO_COMP_WORKQUEUE:
		count(&stat_punted);
		break;
	case IOMAP_DIO_COMP_IOEND_WORKER:
		count(&stat_ioend_comp);
		break;
	default:
		count(&stat_submitter_comp);
		break;
	}
	if (obs) {
		obs->completion = ctx;
		obs->completions++;
		if (ctx == IOMAP_DIO_COMP_WORKQUEUE)
			obs->punted++;
	}
	return obs;
}

void __trace_iomap_dio_complete(struct kiocb *iocb, int error, ssize_t ret,
		const char *func)
{
	struct iomap_dio_obs *obs;

	sim_trace("iomap_dio_complete", "ino 0x%lx offset 0x%llx ki_flags 0x%x error %d ret %zd",
		  file_inode(iocb->ki_filp)->i_ino,
		  (unsigned long long)iocb->ki_pos, iocb->ki_flags, error, ret);

	if (!strcmp(func, "iomap_dio_simple_complete") && ret >= 0)
		count(&stat_simple_hits);
	obs = observe_completion(file_inode(iocb->ki_filp)->i_sb);
	if (obs) {
		obs->complete_ret = ret;
		obs->complete_error = error;
	}
}

void __iomapsim_dio_ended(struct inode *inode)
{
	sim_trace("iomap_dio_ended", "ino 0x%lx", inode->i_ino);
	observe_completion(inode->i_sb);
}

void __trace_iomap_dio_invalidate_fail(struct inode *inode, loff_t offset,
		u64 length)
{
	sim_trace("iomap_dio_invalidate_fail", "ino 0x%lx offset 0x%llx length 0x%llx",
		  inode->i_ino, (unsigned long long)offset,
		  (unsigned long long)length);
}
