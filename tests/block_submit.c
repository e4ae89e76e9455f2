// SPDX-License-Identifier: GPL-2.0-only
/*
 * Submission and completion: the status table, submit_bio_wait(), the
 * completion policies and contexts, exactly-once bio_endio(), chaining,
 * REQ_NOWAIT and the queue depth, polling, plugging, the submission
 * checks (end of device, alignment, flush filtering), traces.
 */
#include <string.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/workqueue.h>
#include <sim/engine.h>
#include <sim/report.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "block_backend.h"
#include "block_testdev.h"
#include "harness.h"

/* What an end_io saw. */
struct rec {
	int calls;
	enum sim_context ctx;
	int cpu;
	struct task_struct *task;
	blk_status_t status;
	int order;
};

static int end_order;

static void rec_end_io(struct bio *bio)
{
	struct rec *r = bio->bi_private;

	r->calls++;
	r->ctx = sim_ctx;
	r->cpu = raw_smp_processor_id();
	r->task = current;
	r->status = bio->bi_status;
	r->order = ++end_order;
}

/* Records, then drops the submitter's reference as most end_ios do. */
static void rec_put_end_io(struct bio *bio)
{
	rec_end_io(bio);
	bio_put(bio);
}

/*
 * A bio of @len bytes at @sector over @buf (NULL: no data) whose end is
 * recorded in @r and which puts itself; mk_kept_bio() for a test that
 * keeps the bio.
 */
static struct bio *mk_bio(struct testdev *td, blk_opf_t opf, sector_t sector,
			  void *buf, unsigned int len, struct rec *r)
{
	struct bio *bio = bio_alloc(&td->bdev, buf ? 1 : 0, opf, GFP_KERNEL);

	bio->bi_iter.bi_sector = sector;
	if (buf)
		__bio_add_page(bio, virt_to_page(buf), len,
			       offset_in_page(buf));
	bio->bi_end_io = rec_put_end_io;
	bio->bi_private = r;
	return bio;
}

/* The same without data, at sector 0, kept: its end_io only records. */
static struct bio *mk_kept_bio(struct testdev *td, blk_opf_t opf, struct rec *r)
{
	struct bio *bio = mk_bio(td, opf, 0, NULL, 0, r);

	bio->bi_end_io = rec_end_io;
	return bio;
}

/* covers B-23 */
START_TEST(test_status_to_errno_table)
{
	static const struct {
		blk_status_t sts;
		int err;
	} t[] = {
		{ BLK_STS_OK, 0 },
		{ BLK_STS_NOTSUPP, -EOPNOTSUPP },
		{ BLK_STS_TIMEOUT, -ETIMEDOUT },
		{ BLK_STS_NOSPC, -ENOSPC },
		{ BLK_STS_TRANSPORT, -ENOLINK },
		{ BLK_STS_TARGET, -EREMOTEIO },
		{ BLK_STS_RESV_CONFLICT, -EBADE },
		{ BLK_STS_MEDIUM, -ENODATA },
		{ BLK_STS_PROTECTION, -EILSEQ },
		{ BLK_STS_RESOURCE, -ENOMEM },
		{ BLK_STS_IOERR, -EIO },
		{ BLK_STS_DM_REQUEUE, -EREMCHG },
		{ BLK_STS_AGAIN, -EAGAIN },
		{ BLK_STS_DEV_RESOURCE, -EBUSY },
		{ BLK_STS_ZONE_OPEN_RESOURCE, -ETOOMANYREFS },
		{ BLK_STS_ZONE_ACTIVE_RESOURCE, -EOVERFLOW },
		{ BLK_STS_OFFLINE, -ENODEV },
		{ BLK_STS_DURATION_LIMIT, -ETIME },
		{ BLK_STS_INVAL, -EINVAL },
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(t); i++) {
		ck_assert_msg(t[i].sts == i + (i >= 18),
			      "status %u has value %u", i, t[i].sts);
		ck_assert_msg(blk_status_to_errno(t[i].sts) == t[i].err,
			      "status %u: errno %d, want %d", t[i].sts,
			      blk_status_to_errno(t[i].sts), t[i].err);
		/* and back (the errnos are distinct) */
		ck_assert_uint_eq(errno_to_blk_status(t[i].err), t[i].sts);
	}
	ck_assert_uint_eq(errno_to_blk_status(-E2BIG), BLK_STS_IOERR);
	ck_assert_str_eq(blk_status_to_str(BLK_STS_AGAIN), "nonblocking retry");
}
END_TEST

/* covers B-23: an index past the table warns and is -EIO */
START_TEST(test_status_out_of_range)
{
	sim_test_expect_warnings(2);
	ck_assert_int_eq(blk_status_to_errno((blk_status_t)20), -EIO);
	ck_assert_int_eq(blk_status_to_errno((blk_status_t)255), -EIO);
	ck_assert_int_eq(sim_warnings(), 2);
}
END_TEST

/* covers B-22: REQ_SYNC, the data, the errno of the status, no put */
START_TEST(test_submit_bio_wait)
{
	struct testdev *td = td_create(1 << 20, 0);
	char *buf = td_buf(PAGE_SIZE);
	long live = td_stat("bio_live");
	struct bio *bio;

	memset(buf, 0x5a, PAGE_SIZE);
	bio = mk_bio(td, REQ_OP_WRITE, 8, buf, PAGE_SIZE, NULL);
	ck_assert_int_eq(submit_bio_wait(bio), 0);
	ck_assert(td->last_opf & REQ_SYNC);
	ck_assert_int_eq(td->data[8 * 512], 0x5a);
	ck_assert_int_eq(td_stat("bio_live"), live + 1);
	bio_put(bio);

	td->status = BLK_STS_MEDIUM;
	memset(buf, 0, PAGE_SIZE);
	bio = mk_bio(td, REQ_OP_READ, 8, buf, PAGE_SIZE, NULL);
	ck_assert_int_eq(submit_bio_wait(bio), -ENODATA);
	ck_assert_uint_eq(bio->bi_status, BLK_STS_MEDIUM);
	bio_put(bio);

	/* an asynchronous device: the wait runs its interrupt */
	td->mode = TD_ASYNC;
	td->status = BLK_STS_OK;
	bio = mk_bio(td, REQ_OP_READ, 8, buf, PAGE_SIZE, NULL);
	ck_assert_int_eq(submit_bio_wait(bio), 0);
	ck_assert_int_eq(buf[0], 0x5a);
	bio_put(bio);
	free(buf);
	td_destroy(td);
}
END_TEST

/* INLINE: the end_io runs inside submit_bio(), in hard-IRQ context */
START_TEST(test_completion_inline)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct rec r = { 0 };

	blksim_set_completion(&td->bdev, BLKSIM_COMPLETE_INLINE);
	submit_bio(mk_bio(td, REQ_OP_READ, 0, NULL, 0, &r));
	ck_assert_int_eq(r.calls, 1);
	ck_assert_int_eq(r.ctx, SIM_CTX_HARDIRQ);
	ck_assert_int_eq(sim_engine_pending(), 0);
	ck_assert_int_eq(td_stat("bio_complete_inline"), 1);
	/* the end_io's put, in hard-IRQ context, went to the IRQ list */
	ck_assert_int_eq(td_stat("bio_cache_put_irq"), 1);
	td_destroy(td);
}
END_TEST

/* IRQ: the end_io waits for the engine, then runs in hard-IRQ context */
START_TEST(test_completion_irq)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct rec r = { 0 };
	struct bio *bio;

	sim_task_set_cpu(2);
	bio = mk_bio(td, REQ_OP_READ, 0, NULL, 0, &r);
	submit_bio(bio);
	ck_assert_int_eq(r.calls, 0);
	ck_assert_int_eq(sim_engine_pending(), 1);
	sim_task_set_cpu(0);
	sim_engine_drain();
	ck_assert_int_eq(r.calls, 1);
	ck_assert_int_eq(r.ctx, SIM_CTX_HARDIRQ);
	ck_assert_int_eq(r.cpu, 2); /* where it was submitted */
	ck_assert_int_eq(td_stat("bio_complete_irq"), 1);
	ck_assert_int_eq(td_stat("bio_cache_put_irq"), 1);
	td_destroy(td);
}
END_TEST

/* DEFERRED policy: completions run newest first */
START_TEST(test_completion_deferred_order)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct rec r[3] = { 0 };

	end_order = 0;
	sim_engine_set_policy(SIM_SCHED_DEFERRED);
	for (int i = 0; i < 3; i++) {
		submit_bio(mk_bio(td, REQ_OP_READ, i, NULL, 0, &r[i]));
	}
	sim_engine_drain();
	ck_assert_int_eq(r[2].order, 1);
	ck_assert_int_eq(r[1].order, 2);
	ck_assert_int_eq(r[0].order, 3);
	td_destroy(td);
}
END_TEST

/* covers B-24: a second bio_endio() is reported, the end_io runs once */
START_TEST(test_double_endio)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct rec r = { 0 };
	struct bio *bio = mk_kept_bio(td, REQ_OP_READ, &r);

	submit_bio(bio);
	sim_engine_drain();
	ck_assert_int_eq(r.calls, 1);
	sim_test_expect_warnings(1);
	bio_endio(bio); /* a driver completing twice */
	ck_assert_int_eq(r.calls, 1);
	ck_assert_int_eq(td_stat("bio_double_endio"), 1);
	ck_assert_int_eq(sim_warnings(), 1);
	bio_put(bio);
	td_destroy(td);
}
END_TEST

/* the parent's end_io waits for its chained child; errors propagate */
START_TEST(test_chain)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct rec r = { 0 };
	long live = td_stat("bio_live");
	struct bio *parent, *child;

	parent = mk_kept_bio(td, REQ_OP_READ, &r);
	child = bio_alloc(&td->bdev, 0, REQ_OP_READ, GFP_KERNEL);
	bio_chain(child, parent);
	ck_assert(bio_flagged(parent, BIO_CHAIN));

	td->mode = TD_HOLD;
	submit_bio(child);
	submit_bio(parent);
	td_release(td, BLK_STS_OK); /* the child */
	td_release(td, BLK_STS_OK); /* the parent... */
	sim_engine_step();
	ck_assert_int_eq(r.calls, 0);
	sim_engine_drain();
	ck_assert_int_eq(r.calls, 1);
	ck_assert_int_eq(td_stat("bio_live"), live + 1); /* child freed */
	bio_put(parent);

	/* a failed child fails the parent */
	r.calls = 0;
	parent = mk_kept_bio(td, REQ_OP_READ, &r);
	child = bio_alloc(&td->bdev, 0, REQ_OP_READ, GFP_KERNEL);
	bio_chain(child, parent);
	submit_bio(parent);
	submit_bio(child);
	td_release(td, BLK_STS_OK);
	td_release(td, BLK_STS_TIMEOUT);
	sim_engine_drain();
	ck_assert_int_eq(r.calls, 1);
	ck_assert_uint_eq(r.status, BLK_STS_TIMEOUT);
	bio_put(parent);
	td_destroy(td);
}
END_TEST

/* covers B-25: REQ_NOWAIT at the queue depth ends with BLK_STS_AGAIN */
START_TEST(test_nowait_queue_full)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct rec a = { 0 }, b = { 0 };

	td->mode = TD_HOLD;
	td->bdev.bd_sim_queue_depth = 1;
	submit_bio(mk_bio(td, REQ_OP_READ, 0, NULL, 0, &a));
	ck_assert_int_eq(blksim_inflight(&td->bdev), 1);

	submit_bio(mk_bio(td, REQ_OP_READ | REQ_NOWAIT, 8, NULL, 0, &b));
	/* refused at once, in the submitter, never reaching the device */
	ck_assert_int_eq(b.calls, 1);
	ck_assert_uint_eq(b.status, BLK_STS_AGAIN);
	ck_assert_int_eq(b.ctx, SIM_CTX_TASK);
	ck_assert_int_eq(blk_status_to_errno(b.status), -EAGAIN);
	ck_assert_int_eq(td->submits, 1);
	ck_assert_int_eq(td_stat("bio_wouldblock"), 1);

	td_release(td, BLK_STS_OK);
	sim_engine_drain();
	ck_assert_int_eq(a.calls, 1);
	ck_assert_int_eq(blksim_inflight(&td->bdev), 0);
	td_destroy(td);
}
END_TEST

/* covers B-25: forced "no tag" for the next REQ_NOWAIT bio only */
START_TEST(test_nowait_forced)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct rec r[3] = { 0 };

	atomic_set(&td->bdev.bd_sim_wouldblock, 1);
	submit_bio(mk_bio(td, REQ_OP_READ, 0, NULL, 0, &r[0]));
	submit_bio(mk_bio(td, REQ_OP_READ | REQ_NOWAIT, 0, NULL, 0, &r[1]));
	submit_bio(mk_bio(td, REQ_OP_READ | REQ_NOWAIT, 0, NULL, 0, &r[2]));
	sim_engine_drain();
	ck_assert_uint_eq(r[0].status, BLK_STS_OK);
	ck_assert_uint_eq(r[1].status, BLK_STS_AGAIN);
	ck_assert_uint_eq(r[2].status, BLK_STS_OK);
	ck_assert_int_eq(td->submits, 2);
	td_destroy(td);
}
END_TEST

/*
 * A read with @flag to a device whose limits lack @feature is not
 * supported: ended at once with BLK_STS_NOTSUPP, never submitted.
 */
static void check_unsupported(unsigned int feature, blk_opf_t flag)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct rec r = { 0 };

	td->bdev.bd_queue->limits.features &= ~feature;
	submit_bio(mk_bio(td, REQ_OP_READ | flag, 0, NULL, 0, &r));
	ck_assert_int_eq(r.calls, 1);
	ck_assert_uint_eq(r.status, BLK_STS_NOTSUPP);
	ck_assert_int_eq(td->submits, 0);
	td_destroy(td);
}

/* REQ_NOWAIT on a device without BLK_FEAT_NOWAIT: not supported */
START_TEST(test_nowait_unsupported)
{
	check_unsupported(BLK_FEAT_NOWAIT, REQ_NOWAIT);
}
END_TEST

/* without REQ_NOWAIT a full queue makes the submitter wait for a tag */
START_TEST(test_queue_depth_waits)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct rec a = { 0 }, b = { 0 };

	td->mode = TD_ASYNC;
	td->bdev.bd_sim_queue_depth = 1;
	submit_bio(mk_bio(td, REQ_OP_READ, 0, NULL, 0, &a));
	submit_bio(mk_bio(td, REQ_OP_READ, 8, NULL, 0, &b));
	/* the second waited: the first's interrupt ran meanwhile */
	ck_assert_int_eq(td_stat("bio_tag_waits"), 1);
	ck_assert_int_eq(td->submits, 2);
	sim_engine_drain();
	ck_assert_int_eq(a.calls, 1);
	ck_assert_int_eq(b.calls, 1);
	ck_assert_uint_eq(b.status, BLK_STS_OK);
	td_destroy(td);
}
END_TEST

/* covers B-24, B-26: a polled bio ends only when polled, in the poller */
START_TEST(test_polled_bio)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct rec r = { 0 };
	struct bio *bio = mk_kept_bio(td, REQ_OP_READ | REQ_POLLED, &r);

	submit_bio(bio);
	ck_assert_uint_ne(bio->bi_cookie, BLK_QC_T_NONE);
	/* the device is done, but no interrupt ends a polled bio */
	sim_engine_settle();
	ck_assert_int_eq(r.calls, 0);
	ck_assert_uint_eq(blksim_polled_pending(&td->bdev), 1);

	ck_assert_int_eq(bio_poll(bio, NULL, 0), 1);
	ck_assert_int_eq(r.calls, 1);
	ck_assert_int_eq(r.ctx, SIM_CTX_TASK);
	ck_assert_ptr_eq(r.task, current);
	ck_assert_int_ge(td->polls, 1);
	ck_assert_uint_eq(blksim_polled_pending(&td->bdev), 0);
	ck_assert_int_eq(td_stat("bio_complete_polled"), 1);
	/* polling again finds nothing */
	ck_assert_int_eq(bio_poll(bio, NULL, BLK_POLL_ONESHOT), 0);
	bio_put(bio);
	td_destroy(td);
}
END_TEST

/*
 * A polled bio that nobody polls ends only when the request times out and
 * the timeout handler polls for it (nvme_timeout): in the deterministic
 * engine, when nothing else can run; in a worker, not in interrupt context.
 */
START_TEST(test_polled_bio_unpolled_times_out)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct rec r = { 0 };
	struct bio *bio = mk_kept_bio(td, REQ_OP_READ | REQ_POLLED, &r);

	submit_bio(bio);
	ck_assert_int_eq(r.calls, 0);
	sim_engine_drain(); /* nothing else left: the timeout fires */
	ck_assert_int_eq(r.calls, 1);
	ck_assert_int_eq(r.ctx, SIM_CTX_TASK);
	ck_assert(r.task->flags & PF_WQ_WORKER);
	ck_assert_int_eq(td_stat("bio_poll_timeout"), 1);
	ck_assert_uint_eq(blksim_polled_pending(&td->bdev), 0);
	bio_put(bio);
	td_destroy(td);
}
END_TEST

/* covers B-26, K-13: iocb_bio_iopoll() polls the bio in ki->private */
START_TEST(test_iocb_bio_iopoll)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct rec r = { 0 };
	struct kiocb kiocb = { 0 };
	struct bio *bio = mk_kept_bio(td, REQ_OP_READ | REQ_POLLED, &r);

	td->mode = TD_ASYNC; /* the device's "completion" is an event */
	kiocb.private = bio;
	submit_bio(bio);
	ck_assert_int_eq(r.calls, 0);
	/* the poll lets the device's event run, then reaps the bio */
	ck_assert_int_eq(iocb_bio_iopoll(&kiocb, NULL, 0), 1);
	ck_assert_int_eq(r.calls, 1);
	ck_assert_int_eq(r.ctx, SIM_CTX_TASK);
	kiocb.private = NULL;
	ck_assert_int_eq(iocb_bio_iopoll(&kiocb, NULL, 0), 0);
	bio_put(bio);
	td_destroy(td);
}
END_TEST

/*
 * covers B-26: kiocb->private may outlive its bio (an early error ended
 * and freed it while the dio's other bios are in flight).  The bio slabs
 * are SLAB_TYPESAFE_BY_RCU, so the stale pointer still reads as a freed
 * bio: a poll through it finds nothing to reap (no cookie), touches no
 * freed memory (ASan), and the memory is the next bio handed out.
 */
START_TEST(test_iocb_bio_iopoll_stale_bio)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct rec ra = { 0 }, rb = { 0 };
	struct kiocb kiocb = { 0 };
	struct bio_set bs; /* front_pad as iomap's dio bio_set has */
	struct bio *a, *b, *c;

	ck_assert_int_eq(bioset_init(&bs, 2, 64, 0), 0);
	a = bio_alloc_bioset(&td->bdev, 0, REQ_OP_READ | REQ_POLLED, GFP_KERNEL,
			     &bs);
	a->bi_end_io = rec_end_io;
	a->bi_private = &ra;
	submit_bio(a);
	b = bio_alloc_bioset(&td->bdev, 0, REQ_OP_READ | REQ_POLLED, GFP_KERNEL,
			     &bs);
	b->bi_end_io = rec_put_end_io;
	b->bi_private = &rb;
	kiocb.private = b;
	bio_io_error(b); /* ends and frees it */
	ck_assert_int_eq(rb.calls, 1);
	ck_assert(sim_slab_typesafe_freed((char *)b - bs.front_pad));
	ck_assert_int_eq(iocb_bio_iopoll(&kiocb, NULL, BLK_POLL_ONESHOT), 0);
	ck_assert_int_eq(ra.calls, 0);
	c = bio_alloc_bioset(&td->bdev, 0, REQ_OP_READ, GFP_KERNEL, &bs);
	ck_assert_ptr_eq(c, b);
	ck_assert(!sim_slab_typesafe_freed((char *)c - bs.front_pad));
	bio_put(c);
	ck_assert_int_eq(bio_poll(a, NULL, 0), 1);
	ck_assert_int_eq(ra.calls, 1);
	bio_put(a);
	bioset_exit(&bs);
	td_destroy(td);
}
END_TEST

/* a polled bio to a device that cannot poll is not supported */
START_TEST(test_polled_unsupported)
{
	check_unsupported(BLK_FEAT_POLL, REQ_POLLED);
}
END_TEST

/*
 * Submit a bio of @n pieces of @len bytes, piece i at @buf + @off +
 * i * @stride, and return the status its end_io saw (once, and, for
 * a refused one, in the submitter).
 */
static blk_status_t try_vecs(struct testdev *td, blk_opf_t opf, char *buf,
			     unsigned int n, unsigned int off, unsigned int len,
			     unsigned int stride)
{
	struct bio *bio = bio_alloc(&td->bdev, n, opf, GFP_KERNEL);
	struct rec r = { 0 };
	unsigned int i;

	for (i = 0; i < n; i++) {
		char *p = buf + off + i * stride;

		__bio_add_page(bio, virt_to_page(p), len, offset_in_page(p));
	}
	bio->bi_end_io = rec_put_end_io;
	bio->bi_private = &r;
	submit_bio(bio);
	ck_assert_int_eq(r.calls, 1);
	/* a refused bio ends in the submitter, before any device */
	if (r.status != BLK_STS_OK) {
		ck_assert_int_eq(r.ctx, SIM_CTX_TASK);
		ck_assert_ptr_eq(r.task, current);
	}
	return r.status;
}

/*
 * covers B-29, B-30: the split to the queue limits refuses a bvec whose
 * offset or length breaks dma_alignment; the bio ends at once with
 * BLK_STS_INVAL in the submitter's context and never reaches the device.
 * The fast path (one bvec within a page) checks nothing.
 */
START_TEST(test_split_dma_alignment)
{
	struct testdev *td = td_create(1 << 20, 0);
	char *buf = td_buf(4 * PAGE_SIZE);

	blksim_set_completion(&td->bdev, BLKSIM_COMPLETE_INLINE);
	ck_assert_uint_eq(bdev_dma_alignment(&td->bdev), 511);
	/* offset 8, two bvecs; aligned offsets but lengths of 256 */
	ck_assert_uint_eq(try_vecs(td, REQ_OP_READ, buf, 2, 8, 512, PAGE_SIZE),
			  BLK_STS_INVAL);
	ck_assert_uint_eq(try_vecs(td, REQ_OP_WRITE, buf, 2, 0, 256, PAGE_SIZE),
			  BLK_STS_INVAL);
	ck_assert_int_eq(td->submits, 0);
	/* one bvec inside a page: the fast path, no check */
	ck_assert_uint_eq(try_vecs(td, REQ_OP_READ, buf, 1, 8, 512, 0),
			  BLK_STS_OK);
	ck_assert_int_eq(td->submits, 1);
	/* a mask-3 device takes offset 4 in two bvecs, not offset 2 */
	td->bdev.bd_queue->limits.dma_alignment = 3;
	ck_assert_uint_eq(try_vecs(td, REQ_OP_READ, buf, 2, 4, 512, PAGE_SIZE),
			  BLK_STS_OK);
	ck_assert_uint_eq(try_vecs(td, REQ_OP_READ, buf, 2, 2, 512, PAGE_SIZE),
			  BLK_STS_INVAL);
	ck_assert_int_eq(td->submits, 2);

	/*
	 * The split itself: more segments than max_segments make a front
	 * bio chained to the rest; the device sees the front first, the
	 * end_io runs once for the whole.
	 */
	td->bdev.bd_queue->limits.max_segments = 3;
	ck_assert_uint_eq(try_vecs(td, REQ_OP_READ, buf, 4, 0, PAGE_SIZE,
				   PAGE_SIZE),
			  BLK_STS_OK);
	ck_assert_int_eq(td->submits, 4);
	ck_assert_uint_eq(td->last_size, PAGE_SIZE); /* the rest, last */
	/* a REQ_NOWAIT bio that would need a split: BLK_STS_AGAIN */
	ck_assert_uint_eq(try_vecs(td, REQ_OP_READ | REQ_NOWAIT, buf, 4, 0,
				   PAGE_SIZE, PAGE_SIZE),
			  BLK_STS_AGAIN);
	/* 3 segments of 8 bytes hold no whole 512-byte block: -EINVAL */
	ck_assert_uint_eq(try_vecs(td, REQ_OP_READ, buf, 64, 0, 8, 16),
			  BLK_STS_INVAL);
	ck_assert_int_eq(td->submits, 4);
	free(buf);
	td_destroy(td);
}
END_TEST

/* a blk-mq device holds plugged bios until the plug is finished */
START_TEST(test_plug_mq_holds)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct rec r[3] = { 0 };
	struct blk_plug plug;

	td->bdev.bd_sim_blk_mq = true;
	blksim_set_completion(&td->bdev, BLKSIM_COMPLETE_INLINE);
	blk_start_plug(&plug);
	ck_assert_ptr_eq(blksim_current_plug(), &plug);
	for (int i = 0; i < 3; i++)
		submit_bio(mk_bio(td, REQ_OP_READ, i * 8, NULL, 0, &r[i]));
	ck_assert_int_eq(td->submits, 0);
	ck_assert_int_eq(r[0].calls, 0);
	blk_finish_plug(&plug);
	ck_assert_ptr_null(blksim_current_plug());
	ck_assert_int_eq(td->submits, 3);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(r[i].calls, 1);
	ck_assert_int_eq(td_stat("blk_unplug"), 1);
	td_destroy(td);
}
END_TEST

/* a bio-based device is not delayed by a plug */
START_TEST(test_plug_bio_based_passes)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct rec r = { 0 };
	struct blk_plug plug;

	blksim_set_completion(&td->bdev, BLKSIM_COMPLETE_INLINE);
	blk_start_plug(&plug);
	submit_bio(mk_bio(td, REQ_OP_READ, 0, NULL, 0, &r));
	ck_assert_int_eq(td->submits, 1);
	ck_assert_int_eq(r.calls, 1);
	blk_finish_plug(&plug);
	ck_assert_int_eq(td_stat("bio_plugged"), 0);
	td_destroy(td);
}
END_TEST

/* a plug flushes itself at BLK_MAX_REQUEST_COUNT; nested plugs are one */
START_TEST(test_plug_limit_and_nesting)
{
	struct testdev *td = td_create(1 << 20, 0);
	static struct rec r[BLK_MAX_REQUEST_COUNT + 1];
	struct blk_plug plug, inner;

	memset(r, 0, sizeof(r));
	td->bdev.bd_sim_blk_mq = true;
	blk_start_plug(&plug);
	blk_start_plug(&inner); /* nested: ignored */
	ck_assert_ptr_eq(blksim_current_plug(), &plug);
	for (int i = 0; i < BLK_MAX_REQUEST_COUNT - 1; i++)
		submit_bio(mk_bio(td, REQ_OP_READ, 0, NULL, 0, &r[i]));
	ck_assert_int_eq(td->submits, 0);
	submit_bio(mk_bio(td, REQ_OP_READ, 0, NULL, 0,
			  &r[BLK_MAX_REQUEST_COUNT - 1]));
	ck_assert_int_eq(td->submits, BLK_MAX_REQUEST_COUNT);
	submit_bio(
		mk_bio(td, REQ_OP_READ, 0, NULL, 0, &r[BLK_MAX_REQUEST_COUNT]));
	blk_finish_plug(&inner); /* not the task's plug: no flush */
	ck_assert_int_eq(td->submits, BLK_MAX_REQUEST_COUNT);
	blk_finish_plug(&plug);
	ck_assert_int_eq(td->submits, BLK_MAX_REQUEST_COUNT + 1);
	sim_engine_drain();
	for (int i = 0; i <= BLK_MAX_REQUEST_COUNT; i++)
		ck_assert_int_eq(r[i].calls, 1);
	td_destroy(td);
}
END_TEST

/* submit_bio_wait() inside a plug does not wait for its own held bio */
START_TEST(test_plug_wait_flushes)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct blk_plug plug;
	struct bio *bio;

	td->bdev.bd_sim_blk_mq = true;
	blk_start_plug(&plug);
	bio = bio_alloc(&td->bdev, 0, REQ_OP_READ, GFP_KERNEL);
	ck_assert_int_eq(submit_bio_wait(bio), 0);
	ck_assert_int_eq(td->submits, 1);
	blk_finish_plug(&plug);
	bio_put(bio);
	td_destroy(td);
}
END_TEST

struct plug_work {
	struct work_struct work;
	struct testdev *td;
	struct rec r;
	bool saw_task_plug;
};

static void plug_work_fn(struct work_struct *work)
{
	struct plug_work *pw = container_of(work, struct plug_work, work);
	struct blk_plug plug;

	/* the sleeping task's plug is not this worker's */
	pw->saw_task_plug = blksim_current_plug() != NULL;
	blk_start_plug(&plug);
	submit_bio(mk_bio(pw->td, REQ_OP_READ, 0, NULL, 0, &pw->r));
	blk_finish_plug(&plug);
}

/*
 * A work item that plugs while a plugged task sleeps (one OS thread in
 * the deterministic engine) does not see the task's plug; the sleep itself
 * flushes what the task's plug held (sched_submit_work), and the plug
 * stays the task's.
 */
START_TEST(test_plug_worker_inside_task_sleep)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct plug_work pw = { .td = td };
	struct rec a = { 0 }, b = { 0 };
	struct blk_plug plug;

	td->bdev.bd_sim_blk_mq = true;
	INIT_WORK(&pw.work, plug_work_fn);
	blk_start_plug(&plug);
	submit_bio(mk_bio(td, REQ_OP_READ, 0, NULL, 0, &a));
	schedule_work(&pw.work);
	ck_assert_int_eq(td->submits, 0); /* held by the plug */
	flush_work(&pw.work); /* sleeps: the worker runs meanwhile */
	ck_assert(!pw.saw_task_plug);
	/* the task's bio (flushed on sleep) and the worker's */
	ck_assert_int_eq(td->submits, 2);
	ck_assert_ptr_eq(blksim_current_plug(), &plug);
	submit_bio(mk_bio(td, REQ_OP_READ, 0, NULL, 0, &b));
	ck_assert_int_eq(td->submits, 2);
	blk_finish_plug(&plug);
	ck_assert_int_eq(td->submits, 3);
	sim_engine_drain();
	ck_assert_int_eq(a.calls + b.calls + pw.r.calls, 3);
	td_destroy(td);
}
END_TEST

/* beyond the end of the device: an I/O error, the device never sees it */
START_TEST(test_beyond_eod)
{
	struct testdev *td = td_create(1 << 20, 0);
	char *buf = td_buf(PAGE_SIZE);
	struct rec r = { 0 };

	submit_bio(mk_bio(td, REQ_OP_READ, (1 << 20) / 512 - 4, buf, PAGE_SIZE,
			  &r));
	ck_assert_int_eq(r.calls, 1);
	ck_assert_uint_eq(r.status, BLK_STS_IOERR);
	ck_assert_int_eq(td->submits, 0);
	/* the last 4 KiB are fine */
	submit_bio(mk_bio(td, REQ_OP_READ, (1 << 20) / 512 - 8, buf, PAGE_SIZE,
			  &r));
	sim_engine_drain();
	ck_assert_uint_eq(r.status, BLK_STS_OK);
	free(buf);
	td_destroy(td);
}
END_TEST

/* sizes and sectors must be multiples of the logical block size */
START_TEST(test_unaligned_to_logical_block)
{
	struct testdev *td = td_create(1 << 20, 4096);
	char *buf = td_buf(PAGE_SIZE);
	struct rec r = { 0 };

	submit_bio(mk_bio(td, REQ_OP_READ, 0, buf, 512, &r));
	ck_assert_uint_eq(r.status, BLK_STS_IOERR);
	submit_bio(mk_bio(td, REQ_OP_READ, 1, buf, 4096, &r));
	ck_assert_uint_eq(r.status, BLK_STS_IOERR);
	ck_assert_int_eq(td->submits, 0);
	submit_bio(mk_bio(td, REQ_OP_READ, 8, buf, 4096, &r));
	sim_engine_drain();
	ck_assert_uint_eq(r.status, BLK_STS_OK);
	ck_assert_int_eq(td->submits, 1);
	free(buf);
	td_destroy(td);
}
END_TEST

/* without a volatile cache PREFLUSH/FUA are stripped; empty flushes end */
START_TEST(test_flush_filtering)
{
	struct testdev *td = td_create(1 << 20, 0);
	char *buf = td_buf(PAGE_SIZE);
	struct rec r = { 0 };

	submit_bio(mk_bio(td, REQ_OP_WRITE | REQ_PREFLUSH | REQ_FUA, 0, buf,
			  PAGE_SIZE, &r));
	ck_assert_int_eq(td->submits, 1);
	ck_assert(!(td->last_opf & (REQ_PREFLUSH | REQ_FUA)));
	submit_bio(mk_bio(td, REQ_OP_WRITE | REQ_PREFLUSH, 0, NULL, 0, &r));
	ck_assert_int_eq(td->submits, 1);
	ck_assert_int_eq(blkdev_issue_flush(&td->bdev), 0);
	ck_assert_int_eq(td->submits, 1);

	/* with a write cache they reach the device */
	td->bdev.bd_queue->limits.features |= BLK_FEAT_WRITE_CACHE;
	ck_assert_int_eq(blkdev_issue_flush(&td->bdev), 0);
	ck_assert_int_eq(td->submits, 2);
	ck_assert(td->last_opf & REQ_PREFLUSH);
	ck_assert_uint_eq(td->last_size, 0);
	sim_engine_drain();
	free(buf);
	td_destroy(td);
}
END_TEST

/* REQ_ATOMIC beyond the device's atomic unit: BLK_STS_INVAL */
START_TEST(test_atomic_write_limits)
{
	struct testdev *td = td_create(1 << 20, 0);
	char *buf = td_buf(PAGE_SIZE);
	struct rec r = { 0 };

	submit_bio(
		mk_bio(td, REQ_OP_WRITE | REQ_ATOMIC, 0, buf, PAGE_SIZE, &r));
	ck_assert_uint_eq(r.status, BLK_STS_INVAL);
	ck_assert_int_eq(blk_status_to_errno(r.status), -EINVAL);
	blksim_set_atomic_write_limits(&td->bdev, 1024, PAGE_SIZE);
	ck_assert(bdev_can_atomic_write(&td->bdev));
	ck_assert_uint_eq(td->bdev.bd_queue->limits.atomic_write_max_sectors,
			  PAGE_SIZE >> SECTOR_SHIFT);
	submit_bio(
		mk_bio(td, REQ_OP_WRITE | REQ_ATOMIC, 0, buf, PAGE_SIZE, &r));
	sim_engine_drain();
	ck_assert_uint_eq(r.status, BLK_STS_OK);
	ck_assert_int_eq(td->submits, 1);
	/* not a multiple of the atomic unit's minimum */
	submit_bio(mk_bio(td, REQ_OP_WRITE | REQ_ATOMIC, 0, buf, 512, &r));
	sim_engine_drain();
	ck_assert_uint_eq(r.status, BLK_STS_INVAL);
	/* larger than its maximum */
	blksim_set_atomic_write_limits(&td->bdev, 1024, 2048);
	submit_bio(
		mk_bio(td, REQ_OP_WRITE | REQ_ATOMIC, 0, buf, PAGE_SIZE, &r));
	sim_engine_drain();
	ck_assert_uint_eq(r.status, BLK_STS_INVAL);
	/* and none at all */
	blksim_set_atomic_write_limits(&td->bdev, 0, 0);
	ck_assert(!bdev_can_atomic_write(&td->bdev));
	ck_assert_int_eq(td->submits, 1);
	free(buf);
	td_destroy(td);
}
END_TEST

static bool trace_has(const char *what, unsigned int depth)
{
	char line[256];

	for (unsigned int i = 0; i < depth; i++)
		if (sim_trace_get(i, line, sizeof(line)) && strstr(line, what))
			return true;
	return false;
}

/* queue and complete events, without pointers */
START_TEST(test_trace_events)
{
	struct testdev *td = td_create(1 << 20, 0);
	char *buf = td_buf(PAGE_SIZE);
	struct rec r = { 0 };

	sim_trace_enable(true);
	sim_trace_reset();
	submit_bio(mk_bio(td, REQ_OP_WRITE | REQ_SYNC, 16, buf, PAGE_SIZE, &r));
	sim_engine_drain();
	ck_assert(trace_has("block_bio_queue: dev=td0 op=WRITE flags=0x800800 "
			    "sector=16 size=4096",
			    8));
	ck_assert(trace_has("block_bio_complete: dev=td0 sector=16 size=4096 "
			    "status=0",
			    8));
	ck_assert(trace_has("H0 block_bio_complete", 8));
	free(buf);
	td_destroy(td);
}
END_TEST

/* ---- threaded engine ---- */

static void setup_threaded(void)
{
	struct sim_engine_opts o = {
		.kind = SIM_ENGINE_THREADED,
		.seed = 1,
		.nr_cpus = 4,
	};

	sim_test_setup_opts(&o);
}

struct stress {
	atomic_t left;
	struct completion done;
};

static void stress_end_io(struct bio *bio)
{
	struct stress *s = bio->bi_private;

	bio_put(bio);
	if (atomic_dec_and_test(&s->left))
		complete(&s->done);
}

/*
 * Interrupt threads end bios and put them into the per-CPU caches while
 * the submitter allocates from them on every CPU in turn.
 */
START_TEST(test_threaded_completions)
{
	enum { N = 2000 };
	struct testdev *td = td_create(1 << 20, 0);
	struct stress s;

	init_completion(&s.done);
	atomic_set(&s.left, N);
	for (int i = 0; i < N; i++) {
		struct bio *bio;

		sim_task_set_cpu(i % 4);
		bio = bio_alloc(&td->bdev, 1, REQ_OP_READ, GFP_KERNEL);
		bio->bi_end_io = stress_end_io;
		bio->bi_private = &s;
		submit_bio(bio);
	}
	sim_task_set_cpu(0);
	wait_for_completion(&s.done);
	sim_engine_drain();
	ck_assert_int_eq(td_stat("bio_endio"), N);
	ck_assert_int_eq(td_stat("bio_complete_irq"), N);
	/* each put went to its CPU's IRQ list, or was freed if that was full */
	ck_assert_int_eq(
		td_stat("bio_cache_put_irq") + td_stat("bio_cache_full"), N);
	ck_assert_int_eq(td_stat("bio_cache_hit") + td_stat("bio_cache_miss"),
			 N);
	ck_assert_int_eq(blksim_inflight(&td->bdev), 0);
	td_destroy(td);
}
END_TEST

/* submit_bio_wait() from several CPUs against real interrupt threads */
START_TEST(test_threaded_submit_wait)
{
	struct testdev *td = td_create(1 << 20, 0);
	char *buf = td_buf(PAGE_SIZE);

	for (int i = 0; i < 200; i++) {
		struct bio *bio;

		sim_task_set_cpu(i % 4);
		bio = bio_alloc(&td->bdev, 1, REQ_OP_WRITE, GFP_KERNEL);
		bio->bi_iter.bi_sector = (i % 64) * 8;
		__bio_add_page(bio, virt_to_page(buf), PAGE_SIZE, 0);
		ck_assert_int_eq(submit_bio_wait(bio), 0);
		bio_put(bio);
	}
	sim_task_set_cpu(0);
	free(buf);
	td_destroy(td);
}
END_TEST

static Suite *submit_suite(void)
{
	Suite *s = sim_suite("block_submit",
			     sim_tcase_fixture("threaded", setup_threaded,
					       sim_test_teardown),
			     test_threaded_completions,
			     test_threaded_submit_wait);

	sim_suite_add(s, sim_tcase("submit"), test_status_to_errno_table,
		      test_status_out_of_range, test_submit_bio_wait,
		      test_completion_inline, test_completion_irq,
		      test_completion_deferred_order, test_double_endio,
		      test_chain, test_nowait_queue_full, test_nowait_forced,
		      test_nowait_unsupported, test_queue_depth_waits,
		      test_polled_bio, test_polled_bio_unpolled_times_out,
		      test_iocb_bio_iopoll, test_iocb_bio_iopoll_stale_bio,
		      test_polled_unsupported, test_split_dma_alignment,
		      test_plug_mq_holds, test_plug_bio_based_passes,
		      test_plug_limit_and_nesting, test_plug_wait_flushes,
		      test_plug_worker_inside_task_sleep, test_beyond_eod,
		      test_unaligned_to_logical_block, test_flush_filtering,
		      test_atomic_write_limits, test_trace_events);
	return s;
}

SIM_TEST_MAIN(submit_suite)
