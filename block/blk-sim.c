// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulator's block device (<sim/bdev.h>, <sim/bdev-backend.h>): what a
 * driver and its hardware would decide, kept out of blk-core.c, which
 * holds only the kernel's submission, plugging and polling code.  Here:
 * a device's queue limits and setup, the completion policy
 * (blksim_complete(): inline, by interrupt, parked for polling), the tag
 * set and what "would block" means (B-25), the submission engine that
 * blk-core.c's __submit_bio_noacct_mq() hands each bio to, the reaping of
 * polled bios, and the engine's hook that flushes a sleeping task's plug.
 *
 * What "would block" means here (B-25): a device with bd_sim_queue_depth
 * set has that many tags; a bio that finds none sleeps for one, or with
 * REQ_NOWAIT ends with BLK_STS_AGAIN.  bd_sim_wouldblock forces the next
 * REQ_NOWAIT bios to find none.
 *
 * Polled bios (REQ_POLLED, B-24, B-26) are never completed by interrupt:
 * the backend's end parks them on the device until a task polls, and
 * their ->bi_end_io then runs in that task.
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

DEFINE_SIM_STAT(blk_stat_submit, "bio_submit");
DEFINE_SIM_STAT(blk_stat_submit_bytes, "bio_submit_bytes");
DEFINE_SIM_STAT(blk_stat_complete_inline, "bio_complete_inline");
DEFINE_SIM_STAT(blk_stat_complete_irq, "bio_complete_irq");
DEFINE_SIM_STAT(blk_stat_complete_polled, "bio_complete_polled");
DEFINE_SIM_STAT(blk_stat_wouldblock, "bio_wouldblock");
DEFINE_SIM_STAT(blk_stat_tag_waits, "bio_tag_waits");
DEFINE_SIM_STAT(blk_stat_plugged, "bio_plugged");
DEFINE_SIM_GAUGE(blk_stat_inflight, "bio_inflight");
enum blksim_completion blksim_default_completion = BLKSIM_COMPLETE_IRQ;

/* ---- devices ------------------------------------------------------- */

void blksim_default_limits(struct queue_limits *lim)
{
	*lim = (struct queue_limits){
		.logical_block_size = SECTOR_SIZE,
		.physical_block_size = SECTOR_SIZE,
		.io_min = SECTOR_SIZE,
		.max_hw_sectors = BLK_DEF_MAX_SECTORS_CAP,
		.max_sectors = BLK_DEF_MAX_SECTORS_CAP,
		.max_segments = BLK_MAX_SEGMENTS,
		.max_segment_size = BLK_MAX_SEGMENT_SIZE,
		.dma_alignment = SECTOR_SIZE - 1,
	};
}

/*
 * As blk_validate_atomic_write_limits(): no feature, no limits; else the
 * unit bounds are the hardware's, within the largest atomic write.
 */
static void blksim_validate_atomic_write_limits(struct queue_limits *lim)
{
	if (!(lim->features & BLK_FEAT_ATOMIC_WRITES) ||
	    !lim->atomic_write_hw_unit_min ||
	    lim->atomic_write_hw_unit_min < lim->logical_block_size ||
	    lim->atomic_write_hw_unit_max < lim->atomic_write_hw_unit_min) {
		lim->features &= ~BLK_FEAT_ATOMIC_WRITES;
		lim->atomic_write_max_sectors = 0;
		lim->atomic_write_boundary_sectors = 0;
		lim->atomic_write_unit_min = 0;
		lim->atomic_write_unit_max = 0;
		return;
	}
	lim->atomic_write_max_sectors = lim->atomic_write_hw_max >>
					SECTOR_SHIFT;
	lim->atomic_write_boundary_sectors = lim->atomic_write_hw_boundary >>
					     SECTOR_SHIFT;
	lim->atomic_write_unit_min = lim->atomic_write_hw_unit_min;
	lim->atomic_write_unit_max = min(lim->atomic_write_hw_unit_max,
					 lim->atomic_write_hw_max);
}

/* Fill the zero fields of @lim as blk_validate_limits() would. */
static void blksim_validate_limits(struct queue_limits *lim)
{
	if (!lim->logical_block_size)
		lim->logical_block_size = SECTOR_SIZE;
	if (lim->physical_block_size < lim->logical_block_size)
		lim->physical_block_size = lim->logical_block_size;
	if (lim->io_min < lim->physical_block_size)
		lim->io_min = lim->physical_block_size;
	if (!lim->max_hw_sectors)
		lim->max_hw_sectors = BLK_DEF_MAX_SECTORS_CAP;
	if (!lim->max_sectors)
		lim->max_sectors = min_t(unsigned int, lim->max_hw_sectors,
					 BLK_DEF_MAX_SECTORS_CAP);
	if (!lim->max_segments)
		lim->max_segments = BLK_MAX_SEGMENTS;
	if (!lim->max_segment_size)
		lim->max_segment_size = BLK_MAX_SEGMENT_SIZE;
	/*
	 * blk_validate_limits(): a driver that says nothing gets 512-byte
	 * aligned buffers; one may ask for less (NVMe: 3) or more, up to a
	 * page.
	 */
	if (!lim->dma_alignment)
		lim->dma_alignment = SECTOR_SIZE - 1;
	if (WARN_ON_ONCE(lim->dma_alignment > PAGE_SIZE))
		lim->dma_alignment = PAGE_SIZE - 1;
	/* no segment boundary mask here: the segment size, at most a page */
	lim->max_fast_segment_size = min_t(unsigned int,
					   lim->max_segment_size, PAGE_SIZE);
	blksim_validate_atomic_write_limits(lim);
}

void blksim_set_atomic_write_limits(struct block_device *bdev,
				     unsigned int unit_min,
				     unsigned int unit_max)
{
	struct queue_limits *lim = &bdev->bd_queue->limits;

	lim->features |= BLK_FEAT_ATOMIC_WRITES;
	lim->atomic_write_hw_unit_min = unit_max ? unit_min : 0;
	lim->atomic_write_hw_unit_max = unit_max;
	lim->atomic_write_hw_max = unit_max;
	lim->atomic_write_hw_boundary = 0;
	blksim_validate_atomic_write_limits(lim);
}

/*
 * A polled bio is only ever found by polling.  When its submitter sleeps
 * instead (a sync waiter on an async, IOCB_HIPRI kiocb: FORCE_WAIT, or an
 * issuer that never polls), the kernel's request timeout fires after
 * 30 seconds and nvme_timeout() polls the completion queue itself ("I/O
 * tag completed after timeout, completion polled").  The deterministic
 * engine has no clock, so the timeout fires when nothing else can run:
 * the device's completion source then queues this work on system_wq (the
 * kernel's timeout work runs on kblockd), which ends every parked bio.
 */
DEFINE_SIM_STAT(blk_stat_poll_timeout, "bio_poll_timeout");

static void blksim_poll_timeout_work(struct work_struct *work)
{
	struct block_device *bdev = container_of(work, struct block_device,
						 bd_sim_timeout_work);
	struct bio *bio;
	int n = 0;

	for (;;) {
		spin_lock(&bdev->bd_sim_poll_lock);
		bio = bdev->bd_sim_polled;
		spin_unlock(&bdev->bd_sim_poll_lock);
		if (!bio)
			break;
		n += blksim_reap_polled(bdev, bio->bi_cookie);
	}
	if (n) {
		sim_stat_add(&blk_stat_poll_timeout, n);
		pr_warn("%s: %d polled I/O(s) timed out, completion polled\n",
			bdev->bd_name, n);
	}
}

static long blksim_timeout_inflight(struct sim_source *src)
{
	struct block_device *bdev = container_of(src, struct block_device,
						 bd_sim_timeout_src);

	return READ_ONCE(bdev->bd_sim_nr_polled);
}

static int blksim_timeout_poll(struct sim_source *src, bool wait)
{
	struct block_device *bdev = container_of(src, struct block_device,
						 bd_sim_timeout_src);

	/* only a wait that nothing else can end lets the timeout expire */
	if (!wait || !READ_ONCE(bdev->bd_sim_nr_polled))
		return 0;
	return queue_work(system_wq, &bdev->bd_sim_timeout_work) ? 1 : 0;
}

void blksim_bdev_init(struct block_device *bdev, const char *name,
		       sector_t nr_sectors, const struct queue_limits *lim,
		       const struct blksim_bdev_ops *ops, void *private)
{
	memset(bdev, 0, sizeof(*bdev));
	snprintf(bdev->bd_name, sizeof(bdev->bd_name), "%s",
		 name ? name : "sim");
	bdev->bd_nr_sectors = nr_sectors;
	bdev->bd_queue = &bdev->bd_queue_storage;
	if (lim)
		bdev->bd_queue->limits = *lim;
	else
		blksim_default_limits(&bdev->bd_queue->limits);
	blksim_validate_limits(&bdev->bd_queue->limits);
	/* blk-mq queues can always be asked not to wait, and poll */
	bdev->bd_queue->limits.features |= BLK_FEAT_NOWAIT | BLK_FEAT_POLL;
	bdev->bd_ops = ops;
	bdev->bd_private = private;

	bdev->bd_sim_completion = blksim_default_completion;
	atomic_set(&bdev->bd_sim_inflight, 0);
	atomic_set(&bdev->bd_sim_wouldblock, 0);
	init_waitqueue_head(&bdev->bd_sim_tag_wait);
	spin_lock_init(&bdev->bd_sim_poll_lock);
	INIT_WORK(&bdev->bd_sim_timeout_work, blksim_poll_timeout_work);
	bdev->bd_sim_timeout_src.poll = blksim_timeout_poll;
	bdev->bd_sim_timeout_src.inflight = blksim_timeout_inflight;
	bdev->bd_sim_magic = BLKSIM_BDEV_MAGIC;
}

void blksim_bdev_exit(struct block_device *bdev)
{
	if (bdev->bd_sim_magic != BLKSIM_BDEV_MAGIC)
		return;
	if (atomic_read(&bdev->bd_sim_inflight) || bdev->bd_sim_polled) {
		pr_err("%s: going away with %d bio(s) in flight, %u unpolled\n",
		       bdev->bd_name, atomic_read(&bdev->bd_sim_inflight),
		       bdev->bd_sim_nr_polled);
		WARN_ON_ONCE(1);
	}
	sim_engine_remove_source(&bdev->bd_sim_timeout_src);
	sim_waitqueue_destroy(&bdev->bd_sim_tag_wait);
	bdev->bd_sim_magic = 0;
}

void blksim_set_completion(struct block_device *bdev,
			    enum blksim_completion how)
{
	WRITE_ONCE(bdev->bd_sim_completion, how);
}

int blksim_inflight(struct block_device *bdev)
{
	return atomic_read(&bdev->bd_sim_inflight);
}

unsigned int blksim_polled_pending(struct block_device *bdev)
{
	unsigned int n;

	spin_lock(&bdev->bd_sim_poll_lock);
	n = bdev->bd_sim_nr_polled;
	spin_unlock(&bdev->bd_sim_poll_lock);
	return n;
}

/* ---- completion ---------------------------------------------------- */

static void blksim_end_io_event(struct sim_event *ev)
{
	struct bio *bio = container_of(ev, struct bio, bi_sim_ev);

	bio_endio(bio);
}

/* A tag comes back: the bio no longer counts against the queue depth. */
static void blksim_put_tag(struct block_device *bdev, struct bio *bio)
{
	if (!bio->bi_sim_inflight)
		return;
	bio->bi_sim_inflight = false;
	atomic_dec(&bdev->bd_sim_inflight);
	sim_stat_dec(&blk_stat_inflight);
	if (bdev->bd_sim_queue_depth)
		wake_up(&bdev->bd_sim_tag_wait);
}

/**
 * blksim_complete - a backend ends @bio
 * @bio: the bio it got through ->submit
 * @status: BLK_STS_OK or the error
 *
 * An error status is recorded in bi_status (a success does not clear an
 * error set earlier, as req_bio_endio() does not).  Then, as the device's
 * completion policy says, bio_endio() runs now in hard-IRQ context on this
 * thread (INLINE) or as a hard-IRQ event of the engine (IRQ).  A polled
 * bio waits on the device instead, for bio_poll().
 */
void blksim_complete(struct bio *bio, blk_status_t status)
{
	struct block_device *bdev = bio->bi_bdev;
	struct sim_event *ev = &bio->bi_sim_ev;

	if (unlikely(status))
		bio->bi_status = status;
	blksim_put_tag(bdev, bio);

	if (bio->bi_opf & REQ_POLLED) {
		spin_lock(&bdev->bd_sim_poll_lock);
		bio->bi_next = bdev->bd_sim_polled;
		bdev->bd_sim_polled = bio;
		/*
		 * The timeout source is on the engine's list only while bios
		 * are parked: the engine asks every source each time it runs
		 * out of events, and a fuzzer keeps dozens of devices.
		 */
		if (!bdev->bd_sim_nr_polled++)
			sim_engine_add_source(&bdev->bd_sim_timeout_src);
		spin_unlock(&bdev->bd_sim_poll_lock);
		return;
	}

	memset(ev, 0, sizeof(*ev));
	ev->fn = blksim_end_io_event;
	ev->ctx = SIM_CTX_HARDIRQ;
	ev->cpu = bio->bi_sim_submit_cpu;
	if (READ_ONCE(bdev->bd_sim_completion) == BLKSIM_COMPLETE_INLINE) {
		sim_stat_inc(&blk_stat_complete_inline);
		sim_event_run_now(ev, SIM_CTX_HARDIRQ);
	} else {
		sim_stat_inc(&blk_stat_complete_irq);
		sim_event_post(ev);
	}
}


/* The device-side part of submission: a tag, then the driver. */
void blksim_issue(struct bio *bio)
{
	struct block_device *bdev = bio->bi_bdev;

	sim_stat_inc(&blk_stat_submit);
	sim_stat_add(&blk_stat_submit_bytes, bio->bi_iter.bi_size);
	bdev->bd_ops->submit(bdev, bio);
}

/*
 * Get a tag: a bio counts as in flight from here until the backend ends
 * it.  Returns false when a REQ_NOWAIT bio would have to wait.
 */
static bool blksim_get_tag(struct block_device *bdev, struct bio *bio)
{
	unsigned int depth = READ_ONCE(bdev->bd_sim_queue_depth);

	if (bio->bi_opf & REQ_NOWAIT) {
		int forced = atomic_read(&bdev->bd_sim_wouldblock);

		while (forced > 0) {
			if (atomic_try_cmpxchg(&bdev->bd_sim_wouldblock,
					       &forced, forced - 1))
				return false;
		}
		if (depth &&
		    (unsigned int)atomic_read(&bdev->bd_sim_inflight) >= depth)
			return false;
	} else if (depth &&
		   (unsigned int)atomic_read(&bdev->bd_sim_inflight) >= depth) {
		sim_stat_inc(&blk_stat_tag_waits);
		/* the scheduler flushes our plug before we sleep */
		blk_flush_plug(blksim_current_plug(), true);
		wait_event(bdev->bd_sim_tag_wait,
			   (unsigned int)atomic_read(&bdev->bd_sim_inflight) <
				   READ_ONCE(bdev->bd_sim_queue_depth));
	}
	atomic_inc(&bdev->bd_sim_inflight);
	sim_stat_inc(&blk_stat_inflight);
	bio->bi_sim_inflight = true;
	return true;
}

/* A logical block that the bio does not cover whole: an I/O error. */
static bool bio_unaligned(const struct bio *bio, struct request_queue *q)
{
	unsigned int bs = queue_logical_block_size(q);

	if (bio->bi_iter.bi_size & (bs - 1))
		return true;
	if ((bio->bi_iter.bi_sector << SECTOR_SHIFT) & (bs - 1))
		return true;
	return false;
}

/*
 * blk_mq_submit_bio(), as far as a bio goes in the simulator: the checks
 * made with the queue entered, a tag, the plug, the driver.
 */
void blksim_submit_bio(struct bio *bio)
{
	struct block_device *bdev = bio->bi_bdev;
	struct request_queue *q = bdev_get_queue(bdev);
	unsigned int nr_segs;
	struct blk_plug *plug;

	/*
	 * Device reconfiguration may change logical block size or reduce
	 * the number of poll queues, so the checks for alignment and poll
	 * support have to be done with queue usage counter held.
	 */
	if (unlikely(bio_unaligned(bio, q))) {
		sim_stat_inc(&blk_stat_submit_error);
		bio_io_error(bio);
		return;
	}

	if ((bio->bi_opf & REQ_POLLED) &&
	    !(q->limits.features & BLK_FEAT_POLL)) {
		sim_stat_inc(&blk_stat_submit_error);
		bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
		return;
	}

	/*
	 * B-29, B-30: split to the limits; a bio the device cannot take
	 * (misaligned memory) has been ended here, in our context.
	 */
	bio = __bio_split_to_limits(bio, &q->limits, &nr_segs);
	if (!bio)
		return;

	if (!blksim_get_tag(bdev, bio)) {
		sim_stat_inc(&blk_stat_wouldblock);
		sim_trace("block_bio_wouldblock", "dev=%s sector=%llu",
			  bdev->bd_name,
			  (unsigned long long)bio->bi_iter.bi_sector);
		bio_wouldblock_error(bio);
		return;
	}

	/* The hardware queue this bio went to: the submitting CPU's. */
	bio->bi_sim_submit_cpu = (short)raw_smp_processor_id();
	if (bio->bi_opf & REQ_POLLED)
		bio->bi_cookie = bio->bi_sim_submit_cpu;

	plug = blksim_current_plug();
	if (plug && bdev->bd_sim_blk_mq) {
		struct bio *last = plug->sim_bios.tail;

		if (last && last->bi_bdev != bdev)
			plug->multiple_queues = true;
		bio_list_add(&plug->sim_bios, bio);
		plug->rq_count++;
		sim_stat_inc(&blk_stat_plugged);
		if (plug->rq_count >= (plug->multiple_queues ?
						2 * BLK_MAX_REQUEST_COUNT :
						BLK_MAX_REQUEST_COUNT))
			__blk_flush_plug(plug, false);
		return;
	}

	blksim_issue(bio);
}

/*
 * Take the parked bios of hardware queue @cookie off @bdev and end them
 * here, in the polling task.
 */
int blksim_reap_polled(struct block_device *bdev, blk_qc_t cookie)
{
	struct bio *bio, **pp, *done = NULL;
	int found = 0;

	spin_lock(&bdev->bd_sim_poll_lock);
	pp = &bdev->bd_sim_polled;
	while ((bio = *pp)) {
		if (bio->bi_cookie == cookie) {
			*pp = bio->bi_next;
			if (!--bdev->bd_sim_nr_polled)
				sim_engine_remove_source(
					&bdev->bd_sim_timeout_src);
			bio->bi_next = done;
			done = bio;
			found++;
		} else {
			pp = &bio->bi_next;
		}
	}
	spin_unlock(&bdev->bd_sim_poll_lock);

	/* oldest first: the list was built newest first, and so was done */
	while ((bio = done)) {
		done = bio->bi_next;
		bio->bi_next = NULL;
		sim_stat_inc(&blk_stat_complete_polled);
		bio_endio(bio);
	}
	return found;
}
/*
 * Whether @bio, read through a stale pointer, was freed to its bio_set's
 * slab: its state and bio_set read as an RCU reader may, and the slab
 * object found front_pad bytes before it.
 */
bool blksim_bio_typesafe_freed(const struct bio *bio)
{
	u8 state;
	struct bio_set *bs;

	sim_slab_typesafe_read(&state, &bio->bi_sim_state, sizeof(state));
	if (state != BLKSIM_BIO_FREED)
		return false;
	sim_slab_typesafe_read(&bs, &bio->bi_pool, sizeof(bs));
	return bs && sim_slab_typesafe_freed((const char *)bio - bs->front_pad);
}
/*
 * sched_submit_work(): a task about to sleep submits what its plug holds,
 * or a submitter waiting for its own plugged bios would wait for ever.
 */
static void blksim_sched_submit_work(void)
{
	blk_flush_plug(blksim_current_plug(), true);
}

static int __init blksim_sched_hook_init(void)
{
	sim_sched_submit_work = blksim_sched_submit_work;
	return 0;
}
subsys_initcall(blksim_sched_hook_init);

