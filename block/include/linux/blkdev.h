/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * struct block_device and its queue limits, the bdev_* and queue_*
 * helpers, plugging and polling (include/linux/blkdev.h).  What the
 * simulator puts underneath (struct blksim_bdev_ops, blksim_complete(),
 * blksim_bdev_init(), the completion policy) is its backend interface,
 * <sim/bdev-backend.h>.
 */
#ifndef _LINUX_BLKDEV_H
#define _LINUX_BLKDEV_H

#include <linux/bio.h>
#include <linux/blk_types.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <sim/engine.h>

struct kiocb;

#define BDEVNAME_SIZE 32
#define SECTOR_SHIFT 9
#define SECTOR_SIZE (1 << SECTOR_SHIFT)

/* queue_limits.features */
#define BLK_FEAT_WRITE_CACHE (1u << 0)
#define BLK_FEAT_FUA (1u << 1)
#define BLK_FEAT_ROTATIONAL (1u << 2)
#define BLK_FEAT_POLL (1u << 5)
#define BLK_FEAT_NOWAIT (1u << 7)
#define BLK_FEAT_ATOMIC_WRITES (1u << 16)

/* Kernel defaults (block/blk-settings.c) for limits left at zero. */
#define BLK_MAX_SEGMENTS 128
#define BLK_MAX_SEGMENT_SIZE 65536
#define BLK_DEF_MAX_SECTORS_CAP 2560
/* Requests a plug holds before it flushes itself (blk-mq). */
#define BLK_MAX_REQUEST_COUNT 32

struct queue_limits {
	unsigned int features;
	unsigned int logical_block_size;
	unsigned int physical_block_size;
	unsigned int io_min;
	unsigned int io_opt;
	unsigned int max_sectors;
	unsigned int max_hw_sectors;
	unsigned short max_segments;
	unsigned int max_segment_size;
	/* one bvec ending within this needs no split (blk_validate_limits) */
	unsigned int max_fast_segment_size;
	unsigned int dma_alignment; /* a mask: 511 means 512-byte aligned */
	/*
	 * Atomic writes (REQ_ATOMIC): the driver sets the hw_ fields (bytes)
	 * and BLK_FEAT_ATOMIC_WRITES; blksim_set_atomic_write_limits()
	 * (<sim/bdev-backend.h>) derives the others as
	 * blk_validate_atomic_write_limits() does.
	 */
	unsigned int atomic_write_hw_max;
	unsigned int atomic_write_max_sectors;
	unsigned int atomic_write_hw_boundary;
	unsigned int atomic_write_boundary_sectors;
	unsigned int atomic_write_hw_unit_min;
	unsigned int atomic_write_unit_min;
	unsigned int atomic_write_hw_unit_max;
	unsigned int atomic_write_unit_max;
};

struct request_queue {
	struct queue_limits limits;
};

/* The backend interface: <sim/bdev-backend.h>. */
struct blksim_bdev_ops;

struct block_device {
	char bd_name[BDEVNAME_SIZE];
	sector_t bd_nr_sectors;
	bool bd_read_only;
	bool bd_ro_warned;
	struct request_queue *bd_queue;
	struct request_queue bd_queue_storage;
	const struct blksim_bdev_ops *bd_ops;
	void *bd_private;

	/*
	 * (sim) Simulator state, set up by blksim_bdev_init(): see
	 * <sim/bdev-backend.h>.
	 */
	u32 bd_sim_magic;
	bool bd_sim_blk_mq;
	unsigned int bd_sim_completion; /* enum blksim_completion */
	unsigned int bd_sim_queue_depth; /* 0: unlimited */
	atomic_t bd_sim_inflight;
	atomic_t bd_sim_wouldblock; /* next N REQ_NOWAIT bios: "no tag" */
	wait_queue_head_t bd_sim_tag_wait;
	spinlock_t bd_sim_poll_lock;
	struct bio *bd_sim_polled; /* ended polled bios, until polled */
	unsigned int bd_sim_nr_polled;
	/*
	 * The request timeout for polled bios nobody polls: the
	 * deterministic engine fires it when nothing else can run (see
	 * blksim_poll_timeout_work()).
	 */
	struct sim_source bd_sim_timeout_src;
	struct work_struct bd_sim_timeout_work;
};

static inline struct request_queue *bdev_get_queue(struct block_device *bdev)
{
	return bdev->bd_queue;
}

static inline unsigned int
queue_logical_block_size(const struct request_queue *q)
{
	return q->limits.logical_block_size;
}

static inline unsigned int queue_max_sectors(const struct request_queue *q)
{
	return q->limits.max_sectors;
}

/*
 * The mask a user buffer's address (each bvec's offset) must clear for
 * direct I/O: 511 unless the driver asked for less or more (B-29).
 */
static inline unsigned int queue_dma_alignment(const struct request_queue *q)
{
	return q->limits.dma_alignment;
}

static inline unsigned int
queue_atomic_write_unit_max_bytes(const struct request_queue *q)
{
	return q->limits.atomic_write_unit_max;
}

static inline unsigned int
queue_atomic_write_unit_min_bytes(const struct request_queue *q)
{
	return q->limits.atomic_write_unit_min;
}

static inline unsigned int
queue_atomic_write_max_bytes(const struct request_queue *q)
{
	return q->limits.atomic_write_max_sectors << SECTOR_SHIFT;
}

static inline bool bdev_can_atomic_write(struct block_device *bdev)
{
	const struct queue_limits *lim = &bdev->bd_queue->limits;

	return (lim->features & BLK_FEAT_ATOMIC_WRITES) &&
	       lim->atomic_write_unit_min;
}

static inline unsigned int bdev_logical_block_size(struct block_device *bdev)
{
	return bdev->bd_queue->limits.logical_block_size;
}

static inline unsigned int bdev_physical_block_size(struct block_device *bdev)
{
	return bdev->bd_queue->limits.physical_block_size;
}

static inline unsigned int bdev_io_min(struct block_device *bdev)
{
	return bdev->bd_queue->limits.io_min;
}

static inline unsigned int bdev_io_opt(struct block_device *bdev)
{
	return bdev->bd_queue->limits.io_opt;
}

static inline unsigned int bdev_dma_alignment(struct block_device *bdev)
{
	return queue_dma_alignment(bdev_get_queue(bdev));
}

/* log2 of a (power-of-two) block size */
static inline unsigned int blksize_bits(unsigned int size)
{
	return 31 - __builtin_clz(size);
}

/*
 * The user memory of a direct I/O request fits the device: each segment
 * starts on dma_alignment and is a multiple of the logical block size.
 * Trees up to 6.15 check it up front in iomap_dio_bio_iter(); later ones
 * while the bio is built (bio_iov_iter_get_pages() with a DMA mask).
 */
static inline bool bdev_iter_is_aligned(struct block_device *bdev,
					struct iov_iter *iter)
{
	return iov_iter_is_aligned(iter, bdev_dma_alignment(bdev),
				   bdev_logical_block_size(bdev) - 1);
}

static inline unsigned int bdev_max_segments(struct block_device *bdev)
{
	return bdev->bd_queue->limits.max_segments;
}

static inline bool bdev_write_cache(struct block_device *bdev)
{
	return bdev->bd_queue->limits.features & BLK_FEAT_WRITE_CACHE;
}

static inline bool bdev_fua(struct block_device *bdev)
{
	return bdev->bd_queue->limits.features & BLK_FEAT_FUA;
}

static inline bool bdev_nowait(struct block_device *bdev)
{
	return bdev->bd_queue->limits.features & BLK_FEAT_NOWAIT;
}

static inline bool bdev_nonrot(struct block_device *bdev)
{
	return !(bdev->bd_queue->limits.features & BLK_FEAT_ROTATIONAL);
}

static inline sector_t bdev_nr_sectors(struct block_device *bdev)
{
	return bdev->bd_nr_sectors;
}

static inline loff_t bdev_nr_bytes(struct block_device *bdev)
{
	return (loff_t)bdev_nr_sectors(bdev) << SECTOR_SHIFT;
}

static inline bool bdev_read_only(struct block_device *bdev)
{
	return bdev->bd_read_only;
}

int blk_status_to_errno(blk_status_t status);
blk_status_t errno_to_blk_status(int error);
const char *blk_status_to_str(blk_status_t status);
/* Helper to convert REQ_OP_XXX to its string format XXX */
const char *blk_op_str(enum req_op op);

void submit_bio_noacct(struct bio *bio);
int blkdev_issue_flush(struct block_device *bdev);

/*
 * blk_plug permits building a queue of related requests by holding the
 * I/O fragments for a short period.  Only blk-mq devices
 * (bd_sim_blk_mq) hold their bios in the plug; bio-based ones pass
 * through.
 */
struct blk_plug {
	struct bio_list sim_bios;	/* held bios, in submission order */
	unsigned short nr_ios;	/* expected number of I/Os (hint) */
	unsigned short rq_count; /* held bios */
	bool multiple_queues;	/* held bios for more than one bdev */
	struct task_struct *sim_owner;	/* the task whose plug this is */
	/*
	 * Another task's plug this thread was holding: in the deterministic
	 * engine a work item runs as its worker inside a task's sleep, on
	 * the same OS thread, and its plug must not lose the task's.
	 */
	struct blk_plug *sim_prev;
};

void blk_start_plug(struct blk_plug *plug);
void blk_start_plug_nr_ios(struct blk_plug *plug, unsigned short nr_ios);
void blk_finish_plug(struct blk_plug *plug);
void __blk_flush_plug(struct blk_plug *plug, bool from_schedule);

/*
 * The calling task's active plug (the kernel's current->plug), NULL when
 * none.  The scheduler flushes it before the task sleeps; the simulator's
 * sleeping points in the block layer (submit_bio_wait(), bio_poll())
 * do the same.
 */
struct blk_plug *blksim_current_plug(void);

static inline void blk_flush_plug(struct blk_plug *plug, bool async)
{
	if (plug)
		__blk_flush_plug(plug, async);
}

/* Batch of polled completions (only the callback is used here). */
struct io_comp_batch {
	struct request *req_list;
	bool need_ts;
	void (*complete)(struct io_comp_batch *iob);
};

#define BLK_POLL_ONESHOT (1 << 0)
int bio_poll(struct bio *bio, struct io_comp_batch *iob, unsigned int flags);
int iocb_bio_iopoll(struct kiocb *kiocb, struct io_comp_batch *iob,
		    unsigned int flags);

/*
 * A task waiting for its own I/O (the sync DIO waiter): the completion
 * wakes it, or, if the waiter is polling in its own context, just marks it
 * runnable.
 */
static inline void blk_wake_io_task(struct task_struct *waiter)
{
	if (waiter == current)
		__set_current_state(TASK_RUNNING);
	else
		wake_up_process(waiter);
}

static inline void blk_io_schedule(void)
{
	io_schedule();
}

#endif /* _LINUX_BLKDEV_H */
