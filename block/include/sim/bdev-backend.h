/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulator's backend interface, underneath struct block_device: a
 * backend (ram, null, O_DIRECT file through io_uring, fault wrapper, a
 * test's own device) receives each submitted bio through ->submit and
 * reports its end, exactly once and from any thread, with
 * blksim_complete(); the block layer then runs bio_endio() in simulated
 * hard-IRQ context as the completion policy says.  None of this is
 * kernel API: the kernel's side of struct block_device is
 * <linux/blkdev.h>; the built-in backends' constructors are <sim/bdev.h>.
 *
 * NOTE FOR BACKENDS (interface contract, owned by the block core):
 *  - Set a device up with blksim_bdev_init() (name, size, limits, ops,
 *    private) rather than filling the fields by hand, and call
 *    blksim_bdev_exit() from ->destroy before freeing it.  The init adds
 *    BLK_FEAT_NOWAIT and BLK_FEAT_POLL, as blk-mq does for a queue with
 *    poll queues: without them REQ_NOWAIT / REQ_POLLED bios end with
 *    BLK_STS_NOTSUPP, as in the kernel.  Clear them afterwards to model a
 *    device without (tests of that path do).
 *  - ->submit sees only bios that passed the kernel's submission checks
 *    (end of device, logical-block alignment, op support, flush
 *    filtering: REQ_PREFLUSH/REQ_FUA are stripped when the device has no
 *    BLK_FEAT_WRITE_CACHE, and an empty flush then never reaches it).
 *  - End every bio exactly once with blksim_complete(); never call
 *    bio_endio() or ->bi_end_io yourself.  After blksim_complete() the
 *    bio is no longer yours (bi_next is reused for the polled list).
 *  - A polled bio (REQ_POLLED) is not completed by "interrupt": it waits
 *    until a task polls it (bio_poll(), iocb_bio_iopoll()); ->poll is
 *    called first so a backend with a real completion queue (io_uring)
 *    can reap it.
 *  - bd_sim_queue_depth (0 = unlimited) makes the block layer hold the
 *    submitter (or fail REQ_NOWAIT with BLK_STS_AGAIN) while that many
 *    bios are in flight; a backend with its own tag limit can instead
 *    end a REQ_NOWAIT bio with BLK_STS_AGAIN itself.
 *
 * The simulator's fields of struct block_device (bd_ops, bd_private,
 * bd_sim_*) belong to the block core; blksim_bdev_init() readies them.
 * bd_sim_blk_mq: behave like a blk-mq device, whose plugged bios wait in
 * the plug until it is flushed; false (the default) is a bio-based
 * driver, which plugging does not delay.
 */
#ifndef _SIM_BDEV_BACKEND_H
#define _SIM_BDEV_BACKEND_H

#include <linux/bio.h>
#include <linux/blkdev.h>

struct blksim_bdev_spin;

/*
 * A per-submitter completion context (<sim/bdev.h>,
 * blksim_bdev_submitter_*()): each op is called by the submitting thread,
 * on the device that has the ops, with the contract written there.
 */
struct blksim_bdev_submitter_ops {
	int (*fd)(struct block_device *bdev);
	unsigned int (*outstanding)(struct block_device *bdev);
	int (*reap)(struct block_device *bdev, bool wait);
	int (*wait)(struct block_device *bdev, struct blksim_bdev_spin *spin);
	int (*defer)(struct block_device *bdev, bool on);
};

struct blksim_bdev_ops {
	const char *name;
	/*
	 * Start @bio (op, sector, data in bi_io_vec from bi_iter).  The
	 * backend must end it with blksim_complete() exactly once, now or
	 * later, from any thread.
	 */
	void (*submit)(struct block_device *bdev, struct bio *bio);
	/* Make volatile writes durable (REQ_PREFLUSH, fsync); 0 or -errno. */
	int (*flush)(struct block_device *bdev);
	/* Reap completions of polled bios (REQ_POLLED); returns how many. */
	int (*poll)(struct block_device *bdev);
	void (*destroy)(struct block_device *bdev);
	/*
	 * Optional: a context in which a submitting thread takes the
	 * completions of its own bios (the file backend's per-thread
	 * rings).  NULL: the device has none.
	 */
	const struct blksim_bdev_submitter_ops *submitter;
	/*
	 * Optional, for a wrapper: the device it hands its bios on to, in
	 * the submitter's context, so that the submitter context of that
	 * device is the wrapper's too.
	 */
	struct block_device *(*lower)(struct block_device *bdev);
};

/* How blksim_complete() delivers a bio's end (simulator policy). */
enum blksim_completion {
	/*
	 * Post a hard-IRQ event: the engine runs bio_endio() later (IRQ,
	 * DEFERRED or RANDOM order, see <sim/engine.h>), or an interrupt
	 * thread does in the threaded engine.
	 */
	BLKSIM_COMPLETE_IRQ = 0,
	/*
	 * Run bio_endio() in hard-IRQ context right now on the completing
	 * thread: a backend that completes inside ->submit then gives the
	 * "completion during submit_bio()" case.
	 */
	BLKSIM_COMPLETE_INLINE,
};

/* Backend -> block layer: @bio is done with @status. */
void blksim_complete(struct bio *bio, blk_status_t status);

/* For backends: @bio's submitter sleeps in submit_bio_wait() for it. */
bool blksim_bio_submitter_sleeps(const struct bio *bio);

/*
 * Fill @bdev: zeroes it, names it, sets the size in 512-byte sectors and
 * the limits (NULL or zero fields: the kernel's defaults, 512-byte
 * blocks), adds BLK_FEAT_NOWAIT | BLK_FEAT_POLL, and readies the
 * simulator state (completion policy from blksim_default_completion).
 */
void blksim_bdev_init(struct block_device *bdev, const char *name,
		       sector_t nr_sectors, const struct queue_limits *lim,
		       const struct blksim_bdev_ops *ops, void *private);
/* Undo blksim_bdev_init(); warns if bios are still in flight. */
void blksim_bdev_exit(struct block_device *bdev);
/* The limits blksim_bdev_init() uses for fields left at zero. */
void blksim_default_limits(struct queue_limits *lim);
/*
 * A device that writes [@unit_min, @unit_max] bytes (powers of two, at
 * least a logical block) untorn: BLK_FEAT_ATOMIC_WRITES and the
 * atomic_write_* limits; @unit_max 0 takes atomic writes away.
 */
void blksim_set_atomic_write_limits(struct block_device *bdev,
				     unsigned int unit_min,
				     unsigned int unit_max);

extern enum blksim_completion blksim_default_completion;
void blksim_set_completion(struct block_device *bdev,
			    enum blksim_completion how);
/* Bios submitted to @bdev's backend and not yet ended by it. */
int blksim_inflight(struct block_device *bdev);
/* Polled bios the backend ended that no one has polled yet. */
unsigned int blksim_polled_pending(struct block_device *bdev);

#endif /* _SIM_BDEV_BACKEND_H */
