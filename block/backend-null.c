// SPDX-License-Identifier: GPL-2.0-only
/*
 * The null backend, after null_blk: no storage; reads return zeroes,
 * writes and flushes succeed and change nothing.  For benchmarks of the
 * layers above, so it does as little as it can.
 *
 * irqmode NONE ends each bio inside ->submit.  irqmode TIMER gives it
 * completion_nsec of latency: in the threaded engine a timer thread ends
 * it (in hard-IRQ context, as null_blk's hrtimer does); the deterministic
 * engine has no clock, so the bio is ended at once and the engine's
 * policy decides when its completion runs.
 */
#include <errno.h>
#include <linux/bio.h>
#include <linux/slab.h>
#include "backend.h"

/* Bios waiting on the timer (libc memory: this is the device's). */
DEFINE_SIM_GAUGE(bdev_null_timer_pending, "bdev_null_timer_pending");

struct null_dev {
	struct blksim_backend be;
	enum blksim_null_irqmode irqmode;
	u64 completion_nsec;
	struct blksim_bdev_timer timer;
};

static struct null_dev *to_null(struct block_device *bdev)
{
	return container_of(to_backend(bdev), struct null_dev, be);
}

static void null_submit(struct block_device *bdev, struct bio *bio)
{
	struct null_dev *nd = to_null(bdev);
	blk_status_t status;

	blksim_backend_start(&nd->be, bio);
	status = blksim_backend_check(bdev, bio);
	if (status == BLK_STS_OK) {
		switch (bio_op(bio)) {
		case REQ_OP_READ:
			blksim_bio_zero_fill(bio);
			break;
		case REQ_OP_WRITE:
		case REQ_OP_FLUSH:
			break;
		default:
			status = BLK_STS_NOTSUPP;
			break;
		}
	}

	if (nd->irqmode == BLKSIM_NULL_IRQ_TIMER && blksim_backend_threaded() &&
	    blksim_backend_defer(&nd->be, &nd->timer, nd->completion_nsec,
			      &bdev_null_timer_pending, bio, status,
			      blksim_backend_end))
		return;
	/* no timer, or none to be had: end it now rather than lose it */
	blksim_backend_end(&nd->be, bio, status);
}

static int null_flush(struct block_device *bdev)
{
	__atomic_fetch_add(&to_null(bdev)->be.cnt.flush_calls, 1,
			   __ATOMIC_RELAXED);
	return 0;
}

static int null_poll(struct block_device *bdev)
{
	/* completions are driven by the timer, never by polling */
	return 0;
}

static void null_destroy(struct block_device *bdev)
{
	struct null_dev *nd = to_null(bdev);

	/* ends what is still on the timer, at its time */
	blksim_bdev_timer_stop(&nd->timer);
	blksim_backend_exit(&nd->be);
	kfree(nd);
}

const struct blksim_bdev_ops blksim_null_ops = {
	.name = "null",
	.submit = null_submit,
	.flush = null_flush,
	.poll = null_poll,
	.destroy = null_destroy,
};

struct block_device *blksim_bdev_null_create(const struct blksim_null_opts *opts,
					  char *err, size_t errlen)
{
	struct blksim_null_opts o = opts ? *opts : (struct blksim_null_opts){ 0 };
	struct queue_limits lim;
	struct null_dev *nd;
	int rc;

	if (!o.name)
		o.name = "nullb0";
	if (!o.size)
		o.size = 250ull << 30;
	rc = blksim_backend_mem_limits(&lim, "null", o.size, o.logical_block_size,
				    o.physical_block_size, o.dma_alignment,
				    o.max_sectors, o.write_cache, o.fua,
				    o.no_poll, err, errlen);
	if (rc)
		return ERR_PTR(rc);
	if (o.irqmode != BLKSIM_NULL_IRQ_NONE && o.irqmode != BLKSIM_NULL_IRQ_TIMER) {
		blksim_bdev_err(err, errlen,
			     "null: irqmode %d is not 0 (none) or 2 (timer)",
			     (int)o.irqmode);
		return ERR_PTR(-EINVAL);
	}

	nd = kzalloc(sizeof(*nd), GFP_KERNEL);
	if (!nd) {
		blksim_bdev_err(err, errlen, "null: out of memory");
		return ERR_PTR(-ENOMEM);
	}
	nd->irqmode = o.irqmode;
	nd->completion_nsec = o.completion_nsec;
	blksim_bdev_timer_init(&nd->timer, "nullb-timer", SIM_CTX_HARDIRQ);

	blksim_backend_init(&nd->be, &blksim_null_ops, o.name,
			 o.size >> SECTOR_SHIFT, &lim, false);
	return &nd->be.bdev;
}
