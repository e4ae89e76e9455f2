// SPDX-License-Identifier: GPL-2.0-only
/*
 * Submission and completion (block/blk-core.c, with the parts of
 * block/blk-mq.c a bio meets on its way to a driver): the status/errno
 * table, submit_bio() and its checks, plugging and polling.  Kernel-shaped
 * code only: what the simulated device decides (queue limits, tags, the
 * completion policy, the submission engine a bio is handed to, the
 * reaping of polled bios) is in blk-sim.c.
 */
#include <sched.h>
#include <string.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <sim/engine.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "blk.h"

DEFINE_SIM_STAT(blk_stat_submit_error, "bio_submit_error");
DEFINE_SIM_STAT(blk_stat_unplug, "blk_unplug");
DEFINE_SIM_STAT(blk_stat_poll_calls, "bio_poll_calls");


/*
 * The kernel's field is "errno"; libc makes that a macro, hence "err".
 */
static const struct {
	int err;
	const char *name;
} blk_errors[] = {
	[BLK_STS_OK] = { 0, "" },
	[BLK_STS_NOTSUPP] = { -EOPNOTSUPP, "operation not supported" },
	[BLK_STS_TIMEOUT] = { -ETIMEDOUT, "timeout" },
	[BLK_STS_NOSPC] = { -ENOSPC, "critical space allocation" },
	[BLK_STS_TRANSPORT] = { -ENOLINK, "recoverable transport" },
	[BLK_STS_TARGET] = { -EREMOTEIO, "critical target" },
	[BLK_STS_RESV_CONFLICT] = { -EBADE, "reservation conflict" },
	[BLK_STS_MEDIUM] = { -ENODATA, "critical medium" },
	[BLK_STS_PROTECTION] = { -EILSEQ, "protection" },
	[BLK_STS_RESOURCE] = { -ENOMEM, "kernel resource" },
	[BLK_STS_DEV_RESOURCE] = { -EBUSY, "device resource" },
	[BLK_STS_AGAIN] = { -EAGAIN, "nonblocking retry" },
	[BLK_STS_OFFLINE] = { -ENODEV, "device offline" },

	/* device mapper special case, should not leak out: */
	[BLK_STS_DM_REQUEUE] = { -EREMCHG, "dm internal retry" },

	/* zone device specific errors */
	[BLK_STS_ZONE_OPEN_RESOURCE] = { -ETOOMANYREFS, "open zones exceeded" },
	[BLK_STS_ZONE_ACTIVE_RESOURCE] = { -EOVERFLOW, "active zones exceeded" },

	/* Command duration limit device-side timeout */
	[BLK_STS_DURATION_LIMIT] = { -ETIME, "duration limit exceeded" },

	[BLK_STS_INVAL] = { -EINVAL, "invalid" },

	/* everything else not covered above: */
	[BLK_STS_IOERR] = { -EIO, "I/O" },
};

blk_status_t errno_to_blk_status(int error)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(blk_errors); i++) {
		if (blk_errors[i].err == error)
			return (__force blk_status_t)i;
	}

	return BLK_STS_IOERR;
}

int blk_status_to_errno(blk_status_t status)
{
	unsigned int idx = (__force unsigned int)status;

	if (WARN_ON_ONCE(idx >= ARRAY_SIZE(blk_errors)))
		return -EIO;
	return blk_errors[idx].err;
}

const char *blk_status_to_str(blk_status_t status)
{
	unsigned int idx = (__force unsigned int)status;

	if (WARN_ON_ONCE(idx >= ARRAY_SIZE(blk_errors)))
		return "<null>";
	return blk_errors[idx].name;
}

#define REQ_OP_NAME(name)	\
	[REQ_OP_##name] = #name
static const char *const blk_op_name[] = {
	REQ_OP_NAME(READ),
	REQ_OP_NAME(WRITE),
	REQ_OP_NAME(FLUSH),
	REQ_OP_NAME(DISCARD),
	REQ_OP_NAME(SECURE_ERASE),
	REQ_OP_NAME(ZONE_RESET),
	REQ_OP_NAME(ZONE_RESET_ALL),
	REQ_OP_NAME(ZONE_OPEN),
	REQ_OP_NAME(ZONE_CLOSE),
	REQ_OP_NAME(ZONE_FINISH),
	REQ_OP_NAME(ZONE_APPEND),
	REQ_OP_NAME(WRITE_ZEROES),
	REQ_OP_NAME(DRV_IN),
	REQ_OP_NAME(DRV_OUT),
};
#undef REQ_OP_NAME

/**
 * blk_op_str - Return string XXX in the REQ_OP_XXX.
 * @op: REQ_OP_XXX.
 */
const char *blk_op_str(enum req_op op)
{
	const char *op_str = "UNKNOWN";

	if (op < ARRAY_SIZE(blk_op_name) && blk_op_name[op])
		op_str = blk_op_name[op];

	return op_str;
}

/* ---- submission ---------------------------------------------------- */

static __thread struct blk_plug *blksim_cur_plug;

struct blk_plug *blksim_current_plug(void)
{
	struct blk_plug *plug = blksim_cur_plug;

	/*
	 * One OS thread runs several simulated tasks in the deterministic
	 * engine (work items run as their worker): a plug belongs to the
	 * task that started it.
	 */
	if (plug && plug->sim_owner == current && in_task())
		return plug;
	return NULL;
}

/*
 * Only one submission active per task at a time: what a submission
 * submits meanwhile (the remainder of a split bio) waits on
 * current->bio_list and goes after it, so the front of a split reaches
 * the device first.
 */
static void __submit_bio_noacct_mq(struct bio *bio)
{
	struct bio_list bio_list[2] = { };

	current->bio_list = bio_list;

	do {
		blksim_submit_bio(bio);
	} while ((bio = bio_list_pop(&bio_list[0])));

	current->bio_list = NULL;
}

static void submit_bio_noacct_nocheck(struct bio *bio)
{
	sim_trace("block_bio_queue",
		  "dev=%s op=%s flags=0x%x sector=%llu size=%u",
		  bio->bi_bdev->bd_name,
		  blk_op_str(bio_op(bio)), bio->bi_opf & ~REQ_OP_MASK,
		  (unsigned long long)bio->bi_iter.bi_sector,
		  bio->bi_iter.bi_size);
	if (current->bio_list) {
		bio_list_add(&current->bio_list[0], bio);
		return;
	}
	__submit_bio_noacct_mq(bio);
}

/* Trying to write to a read-only device: warn once, let it through. */
static void bio_check_ro(struct bio *bio)
{
	struct block_device *bdev = bio->bi_bdev;

	if (op_is_write(bio_op(bio)) && bdev_read_only(bdev)) {
		if (op_is_flush(bio->bi_opf) && !bio_sectors(bio))
			return;
		if (bdev->bd_ro_warned)
			return;
		bdev->bd_ro_warned = true;
		pr_warn("Trying to write to read-only block-device %s\n",
			bdev->bd_name);
	}
}

/*
 * Check whether this bio extends beyond the end of the device.
 */
static inline int bio_check_eod(struct bio *bio)
{
	sector_t maxsector = bdev_nr_sectors(bio->bi_bdev);
	unsigned int nr_sectors = bio_sectors(bio);

	if (nr_sectors && maxsector &&
	    (nr_sectors > maxsector ||
	     bio->bi_iter.bi_sector > maxsector - nr_sectors)) {
		pr_info("%s: attempt to access beyond end of device\n"
			"%s: rw=%d, sector=%llu, nr_sectors = %u limit=%llu\n",
			bio->bi_bdev->bd_name, bio->bi_bdev->bd_name,
			bio->bi_opf, (unsigned long long)bio->bi_iter.bi_sector,
			nr_sectors, (unsigned long long)maxsector);
		return -EIO;
	}
	return 0;
}

/*
 * A REQ_ATOMIC bio must fit the device's atomic unit.  Without atomic
 * writes the limits are zero, and any size is refused.
 */
static blk_status_t blk_validate_atomic_write_op_size(struct request_queue *q,
						      struct bio *bio)
{
	if (bio->bi_iter.bi_size > queue_atomic_write_unit_max_bytes(q))
		return BLK_STS_INVAL;
	if (!queue_atomic_write_unit_min_bytes(q) ||
	    bio->bi_iter.bi_size % queue_atomic_write_unit_min_bytes(q))
		return BLK_STS_INVAL;
	return BLK_STS_OK;
}

/**
 * submit_bio_noacct - re-submit a bio to the block device layer for I/O
 * @bio:  The bio describing the location in memory and on the device.
 *
 * This is a version of submit_bio() that shall only be used for I/O that
 * is resubmitted to lower level drivers by stacking block drivers.  All
 * file systems and other upper level users of the block layer should use
 * submit_bio() instead.
 */
void submit_bio_noacct(struct bio *bio)
{
	struct block_device *bdev = bio->bi_bdev;
	struct request_queue *q = bdev_get_queue(bdev);
	blk_status_t status = BLK_STS_IOERR;

	/* a backend that skipped blksim_bdev_init() has no queue state */
	WARN_ON_ONCE(bdev->bd_sim_magic != BLKSIM_BDEV_MAGIC);

	/* (re)submission starts a new I/O: it may end once more */
	bio->bi_sim_state = BLKSIM_BIO_LIVE;

	/*
	 * For a REQ_NOWAIT based request, return -EOPNOTSUPP
	 * if queue does not support NOWAIT.
	 */
	if ((bio->bi_opf & REQ_NOWAIT) && !bdev_nowait(bdev))
		goto not_supported;

	bio_check_ro(bio);
	if (unlikely(bio_check_eod(bio)))
		goto end_io;

	/*
	 * Filter flush bio's early so that bio based drivers without flush
	 * support don't have to worry about them.
	 */
	if (op_is_flush(bio->bi_opf)) {
		if (WARN_ON_ONCE(bio_op(bio) != REQ_OP_WRITE &&
				 bio_op(bio) != REQ_OP_ZONE_APPEND))
			goto end_io;
		if (!bdev_write_cache(bdev)) {
			bio->bi_opf &= ~(REQ_PREFLUSH | REQ_FUA);
			if (!bio_sectors(bio)) {
				bio_endio(bio);
				return;
			}
		}
	}

	switch (bio_op(bio)) {
	case REQ_OP_READ:
		break;
	case REQ_OP_WRITE:
		if (bio->bi_opf & REQ_ATOMIC) {
			status = blk_validate_atomic_write_op_size(q, bio);
			if (status != BLK_STS_OK)
				goto end_io;
		}
		break;
	case REQ_OP_FLUSH:
		/*
		 * REQ_OP_FLUSH can't be submitted through bios, it is only
		 * synthetized in struct request by the flush state machine.
		 */
		goto not_supported;
	case REQ_OP_DRV_IN:
	case REQ_OP_DRV_OUT:
		break;
	default:
		/* no discard, write-zeroes or zoned limits on sim devices */
		goto not_supported;
	}

	submit_bio_noacct_nocheck(bio);
	return;

not_supported:
	status = BLK_STS_NOTSUPP;
end_io:
	sim_stat_inc(&blk_stat_submit_error);
	bio->bi_status = status;
	bio_endio(bio);
}

/**
 * submit_bio - submit a bio to the block device layer for I/O
 * @bio: The &struct bio which describes the I/O
 *
 * submit_bio() is used to submit I/O requests to block devices.  It is
 * passed a fully set up &struct bio that describes the I/O that needs to
 * be done.  The bio will be sent to the device described by the bi_bdev
 * field.
 *
 * The success/failure status of the request, along with notification of
 * completion, is delivered asynchronously through the ->bi_end_io()
 * callback in @bio.  The bio must NOT be touched by the caller until
 * ->bi_end_io() has been called.
 */
void submit_bio(struct bio *bio)
{
	submit_bio_noacct(bio);
}

/* ---- plugging ------------------------------------------------------ */

/**
 * blk_start_plug_nr_ios - initialize blk_plug and track it inside the
 *			   task_struct
 * @plug:	The &struct blk_plug that needs to be initialized
 * @nr_ios:	Number of IOs that is expected to be submitted
 *
 * blk_start_plug() indicates to the block layer an intent by the caller
 * to submit multiple I/O requests in a batch.  The block layer may use
 * this hint to defer submitting I/Os from the caller until
 * blk_finish_plug() is called.
 */
void blk_start_plug_nr_ios(struct blk_plug *plug, unsigned short nr_ios)
{
	/*
	 * If this is a nested plug, don't actually assign it.
	 */
	if (blksim_current_plug())
		return;

	bio_list_init(&plug->sim_bios);
	plug->nr_ios = min_t(unsigned short, nr_ios, BLK_MAX_REQUEST_COUNT);
	plug->rq_count = 0;
	plug->multiple_queues = false;
	plug->sim_owner = current;
	plug->sim_prev = blksim_cur_plug;

	/*
	 * Store ordering should not be needed here, since a potential
	 * preempt will imply a full memory barrier
	 */
	blksim_cur_plug = plug;
	sim_trace("block_plug", "nr_ios=%u", plug->nr_ios);
}

void blk_start_plug(struct blk_plug *plug)
{
	blk_start_plug_nr_ios(plug, 1);
}

void __blk_flush_plug(struct blk_plug *plug, bool from_schedule)
{
	struct bio *bio;

	if (bio_list_empty(&plug->sim_bios))
		return;

	sim_stat_inc(&blk_stat_unplug);
	sim_trace("block_unplug", "count=%u%s", plug->rq_count,
		  from_schedule ? " (from schedule)" : "");
	plug->rq_count = 0;
	plug->multiple_queues = false;
	while ((bio = bio_list_pop(&plug->sim_bios)))
		blksim_issue(bio);
}

/**
 * blk_finish_plug - mark the end of a batch of submitted I/O
 * @plug:	The &struct blk_plug passed to blk_start_plug()
 *
 * Indicate that a batch of I/O submissions is complete.  This function
 * must be paired with an initial call to blk_start_plug().  The intent is
 * to allow the block layer to optimize I/O submission.
 */
void blk_finish_plug(struct blk_plug *plug)
{
	if (plug == blksim_current_plug()) {
		__blk_flush_plug(plug, false);
		blksim_cur_plug = plug->sim_prev;
	}
}

/* ---- polling ------------------------------------------------------- */

/**
 * bio_poll - poll for BIO completions
 * @bio: bio to poll for
 * @iob: batches of IO
 * @flags: BLK_POLL_* flags that control the behavior
 *
 * Poll for completions on queue associated with the bio.  Returns number
 * of completed entries found.
 *
 * Note: the caller must either be the context that submitted @bio, or
 * be in a RCU critical section to prevent freeing of @bio.
 */
int bio_poll(struct bio *bio, struct io_comp_batch *iob, unsigned int flags)
{
	blk_qc_t cookie = READ_ONCE(bio->bi_cookie);
	struct block_device *bdev;
	int ret = 0, spins = 0;

	bdev = READ_ONCE(bio->bi_bdev);
	if (!bdev)
		return 0;

	if (cookie == BLK_QC_T_NONE)
		return 0;

	blk_flush_plug(blksim_current_plug(), false);

	if (!(bdev_get_queue(bdev)->limits.features & BLK_FEAT_POLL))
		return 0;

	sim_stat_inc(&blk_stat_poll_calls);
	/*
	 * blk_hctx_poll(): look until something completes; with
	 * BLK_POLL_ONESHOT only once.  Where the kernel spins until it
	 * should reschedule, the deterministic engine lets pending events
	 * run (the device's interrupts, other work) and gives up when none
	 * is left; the threaded engine spins a bounded while.
	 */
	for (;;) {
		if (bdev->bd_ops->poll)
			bdev->bd_ops->poll(bdev);
		ret = blksim_reap_polled(bdev, cookie);
		if (ret > 0 || (flags & BLK_POLL_ONESHOT))
			break;
		if (sim_engine_kind() == SIM_ENGINE_DET) {
			if (!sim_engine_step())
				break;
		} else {
			if (++spins > 1000)
				break;
			sched_yield();
		}
	}
	if (ret > 0 && iob && iob->complete)
		iob->complete(iob);
	return ret;
}


/*
 * Helper to implement file_operations.iopoll.  Requires the bio to be
 * stored in iocb->private, and cleared before freeing the bio.
 */
int iocb_bio_iopoll(struct kiocb *kiocb, struct io_comp_batch *iob,
		    unsigned int flags)
{
	struct bio *bio;
	int ret = 0;

	/*
	 * Under rcu_read_lock(), as the kernel: the bio slabs are
	 * SLAB_TYPESAFE_BY_RCU, so a stale kiocb->private (the bio was freed
	 * after a split or an early error ended it, with other bios of the
	 * dio still in flight) still points at a bio.  Freed and not yet
	 * handed out again, it holds what it held: the kernel's bio_poll()
	 * then polls the queue its bi_bdev and bi_cookie name, and so does
	 * this, from those bytes.  A bio in a per-CPU cache has no bi_bdev
	 * and the poll finds nothing, as in the kernel.
	 */
	bio = READ_ONCE(kiocb->private);
	if (bio && blksim_bio_typesafe_freed(bio)) {
		struct bio stale;

		sim_slab_typesafe_read(&stale, bio, sizeof(stale));
		ret = bio_poll(&stale, iob, flags);
	} else if (bio) {
		ret = bio_poll(bio, iob, flags);
	}

	return ret;
}

/**
 * blkdev_issue_flush - queue a flush
 * @bdev:	blockdev to issue flush for
 *
 * Issue a flush for the block device in question.
 */
int blkdev_issue_flush(struct block_device *bdev)
{
	struct bio bio;

	bio_init(&bio, bdev, NULL, 0, REQ_OP_WRITE | REQ_PREFLUSH);
	return submit_bio_wait(&bio);
}
