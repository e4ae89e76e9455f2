/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the simulator records about direct I/O requests (docs/architecture.md,
 * principle 6), without changing the shape of the kernel functions in
 * iomap/direct-io.c: the hooks there are the kernel's tracepoints
 * (trace_iomap_dio_rw_begin, trace_iomap_dio_complete, ...) and the file
 * system's own callbacks; nothing in the kernel file reports its path.
 *
 * Counters (sim stats; counted while SIM_WATCH_COUNT is set, the default,
 * <sim/trace.h>):
 *   iomap_simple_hits              simple-path I/Os completed
 *   iomap_simple_fallback_<reason> requests that went to the generic path,
 *                                  by the first reason that applied
 *   iomap_simple_why_mismatch      reason mirror contradicted the observed
 *                                  path (with an observer installed)
 *   iomap_dio_generic              requests entering __iomap_dio_rw
 *   iomap_dio_queued               -EIOCBQUEUED returns (both paths)
 *   iomap_dio_punted               completions run on s_dio_done_wq
 *   iomap_dio_inline_comp          completions run in bio completion context
 *   iomap_dio_submitter_comp       completions run by the submitting task
 *
 * Per request (struct iomap_dio_obs): a caller that wants the details of
 * one request installs an observer around it; the hooks fill it in from
 * whatever context they run in.  One observed request at a time.
 */
#ifndef _SIM_IOMAP_H
#define _SIM_IOMAP_H

#include <linux/init.h>
#include <linux/types.h>
#include <sim/trace.h>

struct bio_set;
struct inode;
struct iomap;
struct iomap_dio_ops;
struct iov_iter;
struct kiocb;

/*
 * Sim only, not a kernel flag: keep this call off the simple path (the
 * per-call form of the cover letter's simple=0).  Chosen far from both the
 * public flags and the private ones in direct-io.c.
 */
#define IOMAPSIM_DIO_NO_SIMPLE		(1 << 16)

/*
 * Sim only: a super block whose s_iflags has this bit keeps every request
 * off the simple path (the per-mount form of simple=0).
 */
#define SB_I_SIM_NO_SIMPLE_DIO		(1UL << 30)

/*
 * The simple path's bio_set, which the kernel sets up at boot
 * (fs_initcall(iomap_dio_init)): set up here on first use, by the
 * simulator's run of the initcalls, and torn down (its per-CPU cache
 * drained) so that a test can end with nothing allocated.  Either API
 * generation, embedded or a kernel tree.
 */
static inline int iomapsim_dio_init(void)
{
	return sim_do_initcalls();
}
void iomapsim_dio_exit(void);
/*
 * That bio_set (the static in direct-io.c, either copy); NULL where the
 * code has no simple path.
 */
struct bio_set *iomapsim_simple_pool(void);
/* Undo the direct-io.c's fs_initcall (the pool, a zero page it took). */
void iomapsim_dio_initcall_undo(void);
/* Undo ioend.c's fs_initcall (iomap_ioend_bioset); IOMAPSIM_IOEND_DIRECT. */
void iomapsim_ioend_initcall_undo(void);

/*
 * Which iomap code this build runs, as the value of `iomapsim run`'s
 * "code" key: "embedded", or the kernel tree's path and the sha256 of each
 * file compiled from it (-DIOMAPSIM_KERNEL_TREE), as JSON.
 */
const char *iomapsim_code_json(void);
/* The same in one line of words, for --version and the mount's stats. */
const char *iomapsim_code_text(void);

/*
 * Why a request did not complete on the simple path, in the order the
 * checks are made: the file system not offering the simple path
 * (disabled), iomap_dio_simple_supported()'s
 * conditions, then the mapping gate and the page-pinning check inside
 * iomap_dio_simple().  The string names are the `iomapsim run` contract.
 */
enum iomap_simple_reason {
	IOMAP_SIMPLE_OK = 0,
	IOMAP_SIMPLE_DISABLED,
	IOMAP_SIMPLE_DOPS,
	IOMAP_SIMPLE_DONE_BEFORE,
	IOMAP_SIMPLE_WRITE,
	IOMAP_SIMPLE_EMPTY,
	IOMAP_SIMPLE_TOO_LARGE,
	IOMAP_SIMPLE_DIO_FLAGS,
	IOMAP_SIMPLE_BEYOND_EOF,
	IOMAP_SIMPLE_ENCRYPTED,
	IOMAP_SIMPLE_NOT_MAPPED,
	IOMAP_SIMPLE_EXTENT_SHORT,
	IOMAP_SIMPLE_INTEGRITY,
	IOMAP_SIMPLE_SHORT_PIN,
	/* the iomap code linked in has no simple path */
	IOMAP_SIMPLE_ABSENT,
	/*
	 * the file system passes private data, which
	 * iomap_dio_read_simple() cannot carry
	 */
	IOMAP_SIMPLE_PRIVATE,
	IOMAP_SIMPLE_NR_REASONS
};

/* "disabled", "dops", ...; NULL for IOMAP_SIMPLE_OK. */
const char *iomap_simple_reason_name(enum iomap_simple_reason r);

/*
 * The first condition that keeps the request off the simple path before
 * any I/O is attempted (iomap_dio_simple_supported()'s checks in its
 * order), or IOMAP_SIMPLE_OK.  Explanation only: which path ran is
 * observed, and where this mirror disagrees with the observation the
 * request is flagged (iomap_dio_obs::why_mismatch,
 * iomap_simple_why_mismatch).
 */
enum iomap_simple_reason iomap_dio_simple_why(struct kiocb *iocb,
		struct iov_iter *iter, const struct iomap_dio_ops *dops,
		unsigned int dio_flags, size_t done_before);

/*
 * Why iomap_dio_simple() would refuse @iomap for [@pos, @pos + @count):
 * the mapping gate's first failing condition, or, when the gate passes,
 * IOMAP_SIMPLE_SHORT_PIN (the only other -ENOTBLK it produces).
 */
enum iomap_simple_reason iomap_dio_simple_gate_why(const struct iomap *iomap,
		loff_t pos, size_t count);

/*
 * ---- file system side ----
 * Whether a request is offered to the simple path is the file system's
 * choice of entry in iomapsim_dio_rw() (iomap/fs-dio.c): iomap_dio_rw()
 * or __iomap_dio_rw() where the simple path is inside iomap_dio_rw()
 * (<sim/fs_dio.h>), whether to call iomap_dio_read_simple() first where
 * the file system calls it.
 * The file system tells the observer what it offered, and its
 * ->iomap_begin tells it each mapping it returns: a mapping asked for
 * before __iomap_dio_rw() began is the simple path's.  Both are a few
 * stores into task-local state.
 */
enum iomapsim_offer {
	IOMAPSIM_OFFER_NONE,	/* simple off: __iomap_dio_rw() directly */
	IOMAPSIM_OFFER_RW,	/* iomap_dio_rw() (or iomap_dio_rw_next()) */
	IOMAPSIM_OFFER_NO_END,	/* iomap_dio_rw_begin(): NO_IOMAP_END only */
	/*
	 * iomap_dio_read_simple() first, called only for a request with no
	 * iomap_dio_rw() flags (fs-dio.c).
	 */
	IOMAPSIM_OFFER_READ_SIMPLE,
	/* iomap_dio_rw(): the iomap code has no simple path */
	IOMAPSIM_OFFER_ABSENT,
	/* iomap_dio_rw(): its private data keeps it off the simple read */
	IOMAPSIM_OFFER_PRIVATE,
};

void __iomapsim_dio_offer(struct kiocb *iocb, struct iov_iter *iter,
		const struct iomap_dio_ops *dops, unsigned int dio_flags,
		size_t done_before, enum iomapsim_offer offer);
void __iomapsim_dio_offer_end(void);
void __iomapsim_dio_mapped(struct inode *inode, const struct iomap *iomap,
		int ret);

/*
 * Like the tracepoints, one branch when nobody watches (sim_watched()):
 * then nothing is recorded, and a request whose offer was not recorded is
 * not explained (no fallback counted), since nobody was there to see it.
 */
static inline void iomapsim_dio_offer(struct kiocb *iocb,
		struct iov_iter *iter, const struct iomap_dio_ops *dops,
		unsigned int dio_flags, size_t done_before,
		enum iomapsim_offer offer)
{
	if (sim_watched())
		__iomapsim_dio_offer(iocb, iter, dops, dio_flags, done_before,
				      offer);
}

/* The call into iomap returned: the request's pointers are not kept. */
static inline void iomapsim_dio_offer_end(void)
{
	if (sim_watched())
		__iomapsim_dio_offer_end();
}

/* From ->iomap_begin: the mapping returned, or the error (@ret). */
static inline void iomapsim_dio_mapped(struct inode *inode,
		const struct iomap *iomap, int ret)
{
	if (sim_watched())
		__iomapsim_dio_mapped(inode, iomap, ret);
}

/* Where a request's completion work ran (docs/rules.md 4, item 8). */
enum iomap_dio_comp_ctx {
	IOMAP_DIO_COMP_NONE = 0,	/* nothing completed */
	IOMAP_DIO_COMP_SUBMITTER,	/* the calling task */
	IOMAP_DIO_COMP_END_IO,		/* bio completion context */
	IOMAP_DIO_COMP_WORKQUEUE,	/* an s_dio_done_wq worker */
	IOMAP_DIO_COMP_IOEND_WORKER,	/* the fs's ioend worker (G-54) */
};

/* "submitter", "end_io", "workqueue", "ioend_worker"; NULL for NONE. */
const char *iomap_dio_comp_ctx_name(enum iomap_dio_comp_ctx c);

/*
 * The calling task is a worker running iomap_finish_ioends() (ioend.c):
 * what it completes, it completes in IOEND-WORKER.  For an issuer that
 * classifies its own ki_complete.
 */
bool iomapsim_in_ioend_worker(void);

struct iomap_dio_obs {
	/* submission side, filled in the calling task */
	bool simple_tried;	/* the simple path asked for a mapping */
	bool simple_submitting;	/* it got past its checks to the bio */
	bool generic;		/* __iomap_dio_rw() ran */
	enum iomap_simple_reason fallback; /* why generic, if it ran */
	bool why_mismatch;	/* the reason mirror contradicts the path */
	bool queued;		/* -EIOCBQUEUED was returned */
	/* completion side, filled where the completion ran */
	enum iomap_dio_comp_ctx completion;
	int completions;	/* completion helper runs (must be <= 1) */
	int punted;		/* completions that ran on s_dio_done_wq */
	long complete_ret;	/* what the completion helper returned */
	int complete_error;	/* the error it recorded */
	/* set by an issuer around bio_poll(), see iomap_dio_obs_polling() */
	bool polling;
};

/* Observe requests into @obs (zeroed here) until iomap_dio_obs_stop(). */
void iomap_dio_obs_start(struct iomap_dio_obs *obs);
void iomap_dio_obs_stop(void);
/*
 * An issuer that reaps polled bios itself calls this around the poll, so a
 * completion run from the poll counts as bio completion context rather
 * than the submitting task.
 */
void iomap_dio_obs_polling(bool on);

#endif /* _SIM_IOMAP_H */
