// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers every backend uses: filling in the block_device and its limits,
 * per-device counters, the block layer's own bio checks repeated at the
 * device, data copies through a bio's segments, and the timer thread
 * that gives latency to the threaded engine.
 */
#include <sys/prctl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <sim/engine.h>
#include <sim/stats.h>
#include "backend.h"

DEFINE_SIM_GAUGE(bdev_inflight, "bdev_inflight");

bool blksim_backend_ours(struct block_device *bdev)
{
	const struct blksim_bdev_ops *ops = bdev ? bdev->bd_ops : NULL;

	return ops == &blksim_ram_ops || ops == &blksim_null_ops ||
	       ops == &blksim_file_ops || ops == &blksim_fault_ops ||
	       ops == &blksim_logw_ops;
}

void blksim_backend_init(struct blksim_backend *be, const struct blksim_bdev_ops *ops,
		      const char *name, sector_t nr_sectors,
		      const struct queue_limits *lim, bool read_only)
{
	/* the block core fills in the defaults and its own state */
	blksim_bdev_init(&be->bdev, name, nr_sectors, lim, ops, be);
	/* a backend made without poll queues says so in its features */
	if (lim && !(lim->features & BLK_FEAT_POLL))
		be->bdev.bd_queue->limits.features &= ~BLK_FEAT_POLL;
	be->bdev.bd_read_only = read_only;
	memset(&be->cnt, 0, sizeof(be->cnt));
	be->lower = NULL;
}

void blksim_backend_wrap_init(struct blksim_backend *be,
			   const struct blksim_bdev_ops *ops,
			   struct block_device *lower)
{
	blksim_backend_init(be, ops, lower->bd_name, bdev_nr_sectors(lower),
			 &lower->bd_queue->limits, bdev_read_only(lower));
	be->lower = lower;
}

void blksim_backend_exit(struct blksim_backend *be)
{
	blksim_bdev_exit(&be->bdev);
	blksim_bdev_destroy(be->lower);
}

int blksim_backend_lower_poll(struct block_device *bdev)
{
	struct block_device *lower = to_backend(bdev)->lower;

	return lower->bd_ops->poll(lower);
}

/* the simulator's device counters: a locked add only where threads meet */
static void cnt_add(u64 *c, u64 n)
{
	if (sim_engine_threaded())
		__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
	else
		__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n,
				 __ATOMIC_RELAXED);
}

void blksim_backend_account(struct blksim_backend *be, struct bio *bio)
{
	struct blksim_bdev_counters *c = &be->cnt;

	switch (bio_op(bio)) {
	case REQ_OP_READ:
		cnt_add(&c->read_bios, 1);
		cnt_add(&c->read_bytes, bio->bi_iter.bi_size);
		break;
	case REQ_OP_WRITE:
		/* an empty REQ_PREFLUSH write is how bios ask for a flush */
		if (!bio->bi_iter.bi_size && (bio->bi_opf & REQ_PREFLUSH)) {
			cnt_add(&c->flush_bios, 1);
			break;
		}
		cnt_add(&c->write_bios, 1);
		cnt_add(&c->write_bytes, bio->bi_iter.bi_size);
		if (bio->bi_opf & REQ_FUA)
			cnt_add(&c->fua_bios, 1);
		break;
	case REQ_OP_FLUSH:
		cnt_add(&c->flush_bios, 1);
		break;
	default:
		break;
	}
	if (bio->bi_opf & REQ_PREFLUSH)
		cnt_add(&c->preflush_bios, 1);
	if (bio->bi_opf & REQ_NOWAIT)
		cnt_add(&c->nowait_bios, 1);
	if (bio->bi_opf & REQ_POLLED)
		cnt_add(&c->polled_bios, 1);
}

void blksim_backend_start(struct blksim_backend *be, struct bio *bio)
{
	blksim_backend_account(be, bio);
	sim_stat_inc(&bdev_inflight);
}

void blksim_backend_end(struct blksim_backend *be, struct bio *bio,
		     blk_status_t status)
{
	if (status != BLK_STS_OK)
		cnt_add(&be->cnt.error_bios, 1);
	if (status == BLK_STS_AGAIN)
		cnt_add(&be->cnt.again_bios, 1);
	sim_stat_dec(&bdev_inflight);
	blksim_complete(bio, status);
}

bool blksim_bdev_get_counters(struct block_device *bdev,
			   struct blksim_bdev_counters *out)
{
	struct blksim_bdev_counters *c;

	if (!blksim_backend_ours(bdev))
		return false;
	c = &to_backend(bdev)->cnt;
#define RD(f) (out->f = __atomic_load_n(&c->f, __ATOMIC_RELAXED))
	RD(read_bios);
	RD(read_bytes);
	RD(write_bios);
	RD(write_bytes);
	RD(flush_bios);
	RD(flush_calls);
	RD(preflush_bios);
	RD(fua_bios);
	RD(nowait_bios);
	RD(polled_bios);
	RD(error_bios);
	RD(again_bios);
	RD(bounced_bios);
	RD(qd_waits);
	RD(max_inflight);
#undef RD
	return true;
}

void blksim_bdev_reset_counters(struct block_device *bdev)
{
	struct blksim_bdev_counters zero = { 0 };
	u64 *dst, *src = (u64 *)&zero;

	if (!blksim_backend_ours(bdev))
		return;
	dst = (u64 *)&to_backend(bdev)->cnt;
	/* all fields are u64: store each one atomically */
	for (size_t i = 0; i < sizeof(zero) / sizeof(u64); i++)
		__atomic_store_n(&dst[i], src[i], __ATOMIC_RELAXED);
}

void blksim_bdev_destroy(struct block_device *bdev)
{
	if (IS_ERR_OR_NULL(bdev))
		return;
	bdev->bd_ops->destroy(bdev);
}

blk_status_t blksim_backend_check(struct block_device *bdev, struct bio *bio)
{
	unsigned int mask = bdev_logical_block_size(bdev) - 1;
	u64 nr = bio_sectors(bio);

	/* bio_unaligned() in blk-mq: the kernel ends it with an I/O error */
	if ((bio->bi_iter.bi_size & mask) || (blksim_bio_pos(bio) & mask))
		return BLK_STS_IOERR;
	/* bio_check_eod(): "attempt to access beyond end of device" */
	if (nr && (bio->bi_iter.bi_sector > bdev_nr_sectors(bdev) ||
		   nr > bdev_nr_sectors(bdev) - bio->bi_iter.bi_sector))
		return BLK_STS_IOERR;
	return BLK_STS_OK;
}

void blksim_bio_copy_to_buf(struct bio *bio, void *buf)
{
	struct bvec_iter iter;
	struct bio_vec bv;
	char *p = buf;

	bio_for_each_segment(bv, bio, iter) {
		memcpy(p, bvec_virt(&bv), bv.bv_len);
		p += bv.bv_len;
	}
}

void blksim_bio_copy_from_buf(struct bio *bio, const void *buf)
{
	struct bvec_iter iter;
	struct bio_vec bv;
	const char *p = buf;

	bio_for_each_segment(bv, bio, iter) {
		memcpy(bvec_virt(&bv), p, bv.bv_len);
		p += bv.bv_len;
	}
}

void blksim_bio_zero_fill(struct bio *bio)
{
	struct bvec_iter iter;
	struct bio_vec bv;

	bio_for_each_segment(bv, bio, iter)
		memset(bvec_virt(&bv), 0, bv.bv_len);
}

/* ---- timer thread --------------------------------------------------- */

u64 blksim_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

void blksim_bdev_timer_init(struct blksim_bdev_timer *t, const char *comm,
			 enum sim_context ctx)
{
	pthread_condattr_t ca;

	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	pthread_condattr_init(&ca);
	/* deadlines are monotonic: a wall-clock step must not stretch them */
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->cond, &ca);
	pthread_condattr_destroy(&ca);
	t->ctx = ctx;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

static void *timer_thread(void *arg)
{
	struct blksim_bdev_timer *t = arg;

	/*
	 * A device latency of microseconds: without this the kernel may
	 * fire each wake-up up to 50 us late (the default timer slack).
	 */
	prctl(PR_SET_TIMERSLACK, 1000UL);
	pthread_mutex_lock(&t->lock);
	for (;;) {
		struct blksim_bdev_timer_entry *e = t->head;
		struct timespec ts;
		u64 now;

		if (!e) {
			if (t->stopping)
				break;
			pthread_cond_wait(&t->cond, &t->lock);
			continue;
		}
		now = blksim_now_ns();
		if (e->deadline_ns > now) {
			ts.tv_sec = (time_t)(e->deadline_ns / 1000000000ull);
			ts.tv_nsec = (long)(e->deadline_ns % 1000000000ull);
			pthread_cond_timedwait(&t->cond, &t->lock, &ts);
			continue;
		}
		t->head = e->next;
		if (!t->head)
			t->tail = NULL;
		/* the callback may end a bio: never with our lock held */
		pthread_mutex_unlock(&t->lock);
		e->fn(e);
		pthread_mutex_lock(&t->lock);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

int blksim_bdev_timer_add(struct blksim_bdev_timer *t,
		       struct blksim_bdev_timer_entry *e, u64 delay_ns)
{
	struct blksim_bdev_timer_entry **pp;
	int ret = 0;

	e->deadline_ns = blksim_now_ns() + delay_ns;
	pthread_mutex_lock(&t->lock);
	if (!t->started) {
		ret = sim_thread_create(&t->thread, t->comm, -1, t->ctx,
					timer_thread, t);
		if (ret) {
			pthread_mutex_unlock(&t->lock);
			return ret;
		}
		t->started = true;
	}
	/*
	 * Sorted by deadline, equal deadlines in arrival order.  With one
	 * latency per device deadlines only grow, so try the tail first.
	 */
	if (t->head && t->tail->deadline_ns <= e->deadline_ns) {
		pp = &t->tail->next;
	} else {
		for (pp = &t->head;
		     *pp && (*pp)->deadline_ns <= e->deadline_ns;
		     pp = &(*pp)->next)
			;
	}
	e->next = *pp;
	*pp = e;
	if (!e->next)
		t->tail = e;
	pthread_cond_signal(&t->cond);
	pthread_mutex_unlock(&t->lock);
	return ret;
}

void blksim_bdev_timer_stop(struct blksim_bdev_timer *t)
{
	bool started;

	pthread_mutex_lock(&t->lock);
	t->stopping = true;
	started = t->started;
	pthread_cond_signal(&t->cond);
	pthread_mutex_unlock(&t->lock);
	if (started)
		pthread_join(t->thread, NULL);
	t->started = false;
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
}

/* A bio on a backend's timer (libc memory: this is the device's). */
struct blksim_backend_deferred {
	struct blksim_bdev_timer_entry te;
	struct blksim_backend *be;
	struct bio *bio;
	blk_status_t status;
	struct sim_stat *pending;
	blksim_backend_bio_fn fn;
};

static void blksim_backend_deferred_fn(struct blksim_bdev_timer_entry *te)
{
	struct blksim_backend_deferred *d =
		container_of(te, struct blksim_backend_deferred, te);
	struct blksim_backend_deferred copy = *d;

	free(d);
	/* before the bio goes on: its waiter may check the gauge once woken */
	sim_stat_dec(copy.pending);
	copy.fn(copy.be, copy.bio, copy.status);
}

bool blksim_backend_defer(struct blksim_backend *be, struct blksim_bdev_timer *t,
		       u64 delay_ns, struct sim_stat *pending, struct bio *bio,
		       blk_status_t status, blksim_backend_bio_fn fn)
{
	struct blksim_backend_deferred *d = malloc(sizeof(*d));

	if (!d)
		return false;
	*d = (struct blksim_backend_deferred){
		.te.fn = blksim_backend_deferred_fn,
		.be = be,
		.bio = bio,
		.status = status,
		.pending = pending,
		.fn = fn,
	};
	sim_stat_inc(pending);
	if (!blksim_bdev_timer_add(t, &d->te, delay_ns))
		return true;
	sim_stat_dec(pending);
	free(d);
	return false;
}

/*
 * The geometry every memory-backed device is made with: fill in the
 * defaults (512-byte sectors, physical = logical, 512-byte DMA alignment)
 * and check what the caller chose, with a one-line reason on error.
 */
static int blksim_backend_check_geometry(const char *kind, u64 size,
				      unsigned int *lbs, unsigned int *pbs,
				      unsigned int *dma_alignment, char *err,
				      size_t errlen)
{
	if (!*lbs)
		*lbs = SECTOR_SIZE;
	if (!*pbs)
		*pbs = *lbs;
	if (!*dma_alignment)
		*dma_alignment = SECTOR_SIZE - 1;

	if (!is_power_of_2(*lbs) || *lbs < SECTOR_SIZE || *lbs > 4096) {
		blksim_bdev_err(err, errlen,
			     "%s: logical block size %u is not a power of two from 512 to 4096",
			     kind, *lbs);
		return -EINVAL;
	}
	if (!is_power_of_2(*pbs) || *pbs < *lbs) {
		blksim_bdev_err(err, errlen,
			     "%s: physical block size %u is not a power of two >= the logical block size %u",
			     kind, *pbs, *lbs);
		return -EINVAL;
	}
	if (size % *lbs) {
		blksim_bdev_err(err, errlen,
			     "%s: size %llu is not a multiple of the logical block size %u",
			     kind, (unsigned long long)size, *lbs);
		return -EINVAL;
	}
	if (!is_power_of_2(*dma_alignment + 1ull)) {
		blksim_bdev_err(err, errlen,
			     "%s: dma_alignment %#x is not a mask (2^n - 1)",
			     kind, *dma_alignment);
		return -EINVAL;
	}
	return 0;
}

int blksim_backend_mem_limits(struct queue_limits *lim, const char *kind,
			   u64 size, unsigned int lbs, unsigned int pbs,
			   unsigned int dma_alignment, unsigned int max_sectors,
			   bool write_cache, bool fua, bool no_poll, char *err,
			   size_t errlen)
{
	int rc;

	rc = blksim_backend_check_geometry(kind, size, &lbs, &pbs, &dma_alignment,
					err, errlen);
	if (rc)
		return rc;
	*lim = (struct queue_limits){
		.logical_block_size = lbs,
		.physical_block_size = pbs,
		.max_hw_sectors = max_sectors,
		.max_sectors = max_sectors,
		.dma_alignment = dma_alignment,
		/* ->submit never sleeps: REQ_NOWAIT and polling are fine */
		.features = BLK_FEAT_NOWAIT | (no_poll ? 0 : BLK_FEAT_POLL),
	};
	if (write_cache)
		lim->features |= BLK_FEAT_WRITE_CACHE;
	if (fua)
		lim->features |= BLK_FEAT_FUA;
	return 0;
}
