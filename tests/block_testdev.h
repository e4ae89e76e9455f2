/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tiny test-local block device for the block-core suites: memory-backed
 * (libc memory, so it is not a kernel allocation the harness tracks), it
 * copies each bio's data and ends it with a chosen status, either inside
 * ->submit, from a hard-IRQ event it posts itself ("async"), or not at
 * all until the test releases it ("hold").  It exists to unit-test the
 * block layer; the real backends have their own suites.
 */
#ifndef _TESTS_BLOCK_TESTDEV_H
#define _TESTS_BLOCK_TESTDEV_H

#include <stdlib.h>
#include <string.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/mm.h>
#include <sim/bdev-backend.h>
#include <sim/engine.h>
#include <sim/stats.h>
#include "harness.h"

#define TD_MAX_HELD 64

enum td_mode {
	TD_INLINE = 0, /* blksim_complete() inside ->submit */
	TD_ASYNC, /* from a hard-IRQ event the device posts */
	TD_HOLD, /* when the test calls td_release() */
};

struct td_async {
	struct sim_event ev;
	struct bio *bio;
	struct testdev *td;
};

struct testdev {
	struct block_device bdev;
	char *data;
	size_t size;
	enum td_mode mode;
	blk_status_t status; /* what bios end with */
	struct bio *held[TD_MAX_HELD];
	int nr_held;
	struct td_async async[TD_MAX_HELD];
	int nr_async;
	int submits;
	int polls;
	blk_opf_t last_opf;
	unsigned int last_size;
};

static __maybe_unused void td_copy(struct testdev *td, struct bio *bio)
{
	struct bvec_iter iter;
	struct bio_vec bv;
	size_t pos = (size_t)bio->bi_iter.bi_sector << SECTOR_SHIFT;

	bio_for_each_segment(bv, bio, iter)
	{
		if (op_is_write(bio_op(bio)))
			memcpy(td->data + pos, bvec_virt(&bv), bv.bv_len);
		else
			memcpy(bvec_virt(&bv), td->data + pos, bv.bv_len);
		pos += bv.bv_len;
	}
}

static __maybe_unused void td_async_end(struct sim_event *ev)
{
	struct td_async *a = container_of(ev, struct td_async, ev);

	blksim_complete(a->bio, a->td->status);
}

static __maybe_unused void td_submit(struct block_device *bdev, struct bio *bio)
{
	struct testdev *td = bdev->bd_private;

	td->submits++;
	td->last_opf = bio->bi_opf;
	td->last_size = bio->bi_iter.bi_size;
	if (bio_has_data(bio))
		td_copy(td, bio);

	switch (td->mode) {
	case TD_INLINE:
		blksim_complete(bio, td->status);
		break;
	case TD_ASYNC: {
		struct td_async *a = &td->async[td->nr_async++ % TD_MAX_HELD];

		memset(a, 0, sizeof(*a));
		a->bio = bio;
		a->td = td;
		a->ev.fn = td_async_end;
		a->ev.ctx = SIM_CTX_HARDIRQ;
		a->ev.cpu = -1;
		sim_event_post(&a->ev);
		break;
	}
	case TD_HOLD:
		ck_assert_int_lt(td->nr_held, TD_MAX_HELD);
		td->held[td->nr_held++] = bio;
		break;
	}
}

static __maybe_unused int td_poll(struct block_device *bdev)
{
	struct testdev *td = bdev->bd_private;

	td->polls++;
	return 0;
}

static const struct blksim_bdev_ops td_ops __maybe_unused = {
	.name = "testdev",
	.submit = td_submit,
	.poll = td_poll,
};

/* A device of @size bytes with @lbs-byte logical blocks (0: 512). */
static inline struct testdev *td_create(size_t size, unsigned int lbs)
{
	struct testdev *td = calloc(1, sizeof(*td));
	struct queue_limits lim = { .logical_block_size = lbs };

	ck_assert_ptr_nonnull(td);
	td->size = size;
	td->data = calloc(1, size);
	ck_assert_ptr_nonnull(td->data);
	blksim_bdev_init(&td->bdev, "td0", size >> SECTOR_SHIFT, &lim, &td_ops,
			 td);
	return td;
}

/* End the oldest held bio with @status. */
static inline void td_release(struct testdev *td, blk_status_t status)
{
	struct bio *bio;

	ck_assert_int_gt(td->nr_held, 0);
	bio = td->held[0];
	memmove(td->held, td->held + 1, --td->nr_held * sizeof(td->held[0]));
	blksim_complete(bio, status);
}

static inline void td_destroy(struct testdev *td)
{
	blksim_bdev_exit(&td->bdev);
	free(td->data);
	free(td);
}

/* Page-aligned libc memory, as a user buffer would be. */
static inline void *td_buf(size_t size)
{
	void *p = aligned_alloc(PAGE_SIZE, ALIGN(size, PAGE_SIZE));

	ck_assert_ptr_nonnull(p);
	memset(p, 0, ALIGN(size, PAGE_SIZE));
	return p;
}

static inline long td_stat(const char *name)
{
	long v = sim_stat_get(name);

	ck_assert_msg(v >= 0, "no counter named %s", name);
	return v;
}

/* Run @fn(@arg) now on this thread in context @ctx (an "interrupt"). */
struct td_call {
	struct sim_event ev;
	void (*fn)(void *arg);
	void *arg;
};

static __maybe_unused void td_call_ev(struct sim_event *ev)
{
	struct td_call *c = container_of(ev, struct td_call, ev);

	c->fn(c->arg);
}

static inline void td_run_in(enum sim_context ctx, void (*fn)(void *arg),
			     void *arg)
{
	struct td_call c = { .fn = fn, .arg = arg };

	c.ev.fn = td_call_ev;
	c.ev.ctx = ctx;
	c.ev.cpu = -1;
	sim_event_run_now(&c.ev, ctx);
}

#endif /* _TESTS_BLOCK_TESTDEV_H */
