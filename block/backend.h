/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the backends (backend-*.c) share; not an interface for other
 * layers, which use <sim/bdev.h>.
 */
#ifndef _BLOCK_BACKEND_H
#define _BLOCK_BACKEND_H

#include <pthread.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <sim/bdev.h>
#include <sim/engine.h>
#include <sim/stats.h>
#include "err-host.h"

/*
 * Every backend's device starts with this: the block_device the layers
 * above see, and the counters blksim_bdev_get_counters() reports.
 */
struct blksim_backend {
	struct block_device bdev;
	struct blksim_bdev_counters cnt;
	/* a wrapper's (fault, log-writes) device underneath; else NULL */
	struct block_device *lower;
};

static inline struct blksim_backend *to_backend(struct block_device *bdev)
{
	return container_of(bdev, struct blksim_backend, bdev);
}

extern const struct blksim_bdev_ops blksim_ram_ops;
extern const struct blksim_bdev_ops blksim_null_ops;
extern const struct blksim_bdev_ops blksim_file_ops;
extern const struct blksim_bdev_ops blksim_fault_ops;
extern const struct blksim_bdev_ops blksim_logw_ops;

/* Live bios inside the backends; back to zero when all have ended. */
extern struct sim_stat bdev_inflight;

bool blksim_backend_ours(struct block_device *bdev);

/*
 * Fill in @be's block_device (blksim_bdev_init(): @lim is copied, zero
 * fields get the kernel's defaults); bd_private is @be.
 */
void blksim_backend_init(struct blksim_backend *be, const struct blksim_bdev_ops *ops,
		      const char *name, sector_t nr_sectors,
		      const struct queue_limits *lim, bool read_only);
/*
 * A wrapper's device: the same device as @lower to the layers above (its
 * name, size, limits and read-only flag), passing its bios on to @lower,
 * which it owns from now on.
 */
void blksim_backend_wrap_init(struct blksim_backend *be,
			   const struct blksim_bdev_ops *ops,
			   struct block_device *lower);
/* Before freeing: blksim_bdev_exit(), and a wrapper's lower device gone. */
void blksim_backend_exit(struct blksim_backend *be);
/* A wrapper's ->poll: its polled bios are the lower device's to reap. */
int blksim_backend_lower_poll(struct block_device *bdev);

/* Count @bio in the per-device counters (no gauge). */
void blksim_backend_account(struct blksim_backend *be, struct bio *bio);
/* A backend takes @bio: counted, and held in the bdev_inflight gauge. */
void blksim_backend_start(struct blksim_backend *be, struct bio *bio);
/*
 * End a bio taken with blksim_backend_start(): count the outcome, drop it
 * from the gauge, hand it to the block layer.  @bio may be gone after.
 */
void blksim_backend_end(struct blksim_backend *be, struct bio *bio,
		     blk_status_t status);

/*
 * The checks the block layer makes before a driver sees a bio (end of
 * device, logical-block alignment), repeated so a backend never touches
 * memory outside its device whatever reaches it.  BLK_STS_OK or the
 * status the kernel would end the bio with.
 */
blk_status_t blksim_backend_check(struct block_device *bdev, struct bio *bio);

/* Byte offset of @bio on its device. */
static inline u64 blksim_bio_pos(const struct bio *bio)
{
	return (u64)bio->bi_iter.bi_sector << SECTOR_SHIFT;
}

/*
 * Data movement through the bio's segments, always from bi_iter (a
 * no-copy bio's table is the caller's and starts mid-way).
 */
void blksim_bio_copy_to_buf(struct bio *bio, void *buf);
void blksim_bio_copy_from_buf(struct bio *bio, const void *buf);
void blksim_bio_zero_fill(struct bio *bio);

/*
 * A delay line for the threaded engine: entries run their callback on
 * one timer thread (in @ctx) when their deadline passes, earliest first.
 */
struct blksim_bdev_timer_entry {
	struct blksim_bdev_timer_entry *next;
	u64 deadline_ns; /* CLOCK_MONOTONIC */
	void (*fn)(struct blksim_bdev_timer_entry *e);
};

struct blksim_bdev_timer {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct blksim_bdev_timer_entry *head, *tail;
	pthread_t thread;
	bool started;
	bool stopping;
	enum sim_context ctx;
	char comm[16];
};

void blksim_bdev_timer_init(struct blksim_bdev_timer *t, const char *comm,
			 enum sim_context ctx);
/* Run @e->fn(@e) @delay_ns from now (starts the thread on first use). */
int blksim_bdev_timer_add(struct blksim_bdev_timer *t,
		       struct blksim_bdev_timer_entry *e, u64 delay_ns);
/* Run what is queued at its time, then stop the thread. */
void blksim_bdev_timer_stop(struct blksim_bdev_timer *t);
u64 blksim_now_ns(void);

/* What a backend does with a bio whose delay has passed. */
typedef void (*blksim_backend_bio_fn)(struct blksim_backend *be, struct bio *bio,
				   blk_status_t status);
/*
 * Threaded engine: call @fn(@be, @bio, @status) on @t's thread @delay_ns
 * from now, with the gauge @pending up by one until just before.  False
 * when no timer can be had (no memory, no thread): the caller goes on
 * at once rather than lose the bio.
 */
bool blksim_backend_defer(struct blksim_backend *be, struct blksim_bdev_timer *t,
		       u64 delay_ns, struct sim_stat *pending, struct bio *bio,
		       blk_status_t status, blksim_backend_bio_fn fn);

/* Does the current engine want real time (threads) rather than events? */
static inline bool blksim_backend_threaded(void)
{
	return sim_engine_running() &&
	       sim_engine_kind() == SIM_ENGINE_THREADED;
}

/*
 * The queue limits of a memory-backed device (ram, null) from its options:
 * the geometry checked, a zero one given its default (512-byte sectors,
 * physical = logical, 512-byte DMA alignment), the other limits zero for
 * blksim_backend_init() to fill in.  0, or -EINVAL with a line in @err.
 */
int blksim_backend_mem_limits(struct queue_limits *lim, const char *kind,
			   u64 size, unsigned int lbs, unsigned int pbs,
			   unsigned int dma_alignment, unsigned int max_sectors,
			   bool write_cache, bool fua, bool no_poll, char *err,
			   size_t errlen);

#endif /* _BLOCK_BACKEND_H */
