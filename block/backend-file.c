// SPDX-License-Identifier: GPL-2.0-only
/*
 * The file backend: a regular file or a block device (NVMe namespace,
 * loop device) opened with O_DIRECT and driven asynchronously through
 * io_uring, so the bios of the simulated stack become real direct I/O.
 *
 * Each bio takes one of queue_depth preallocated requests (the device's
 * tags): the request holds the iovecs built from the bio's segments, an
 * aligned bounce buffer when a segment breaks the O_DIRECT memory
 * alignment, and the phase it is in.  A bio with REQ_PREFLUSH is an
 * fdatasync first and its write second; REQ_FUA is RWF_DSYNC on the write;
 * REQ_OP_FLUSH is an fdatasync.  With every tag taken, a submitter sleeps
 * for one (task context only: might_sleep() says so from an interrupt),
 * and a REQ_NOWAIT bio ends with BLK_STS_AGAIN instead, as blk-mq does
 * when no tag is free.
 *
 * Completions come back by engine:
 *  threaded      - a reaper thread per device, in hard-IRQ context, waits
 *                  for CQEs and ends bios as they finish.  With
 *                  submitter_polls, a thread that polls the device gets
 *                  a ring of its own for its plain reads and ends them
 *                  itself when it polls (backend-file-ring.c);
 *  deterministic - the device is an engine source.  Real I/O finishes in
 *                  an order nothing here controls, so a poll waits for
 *                  every bio in flight at that moment (even when asked not
 *                  to wait) and hands them all over in submission order:
 *                  which bios complete together then depends only on what
 *                  was submitted, and a seed replays.  The engine's policy
 *                  orders their completions from there.
 *
 * Host calls (liburing, statx, libblkid) are in block/host/.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bio.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include "backend-file.h"

DEFINE_SIM_STAT(bdev_file_rwf_dsync, "bdev_file_rwf_dsync");
DEFINE_SIM_STAT(bdev_file_fdatasync, "bdev_file_fdatasync");
DEFINE_SIM_STAT(bdev_file_bounce, "bdev_file_bounce");
DEFINE_SIM_STAT(bdev_file_qd_wait, "bdev_file_qd_wait");
DEFINE_SIM_STAT(bdev_file_nowait_again, "bdev_file_nowait_again");
DEFINE_SIM_STAT(bdev_file_short, "bdev_file_short");
DEFINE_SIM_STAT(bdev_file_retry, "bdev_file_retry");
/* Bounce buffers allocated and not yet freed. */
DEFINE_SIM_GAUGE(bdev_file_bounce_live, "bdev_file_bounce_live");

/* ---- tags ------------------------------------------------------------ */

static struct bfile_rq *bfile_get_rq(struct bfile_dev *dev)
{
	struct bfile_rq *rq;

	pthread_mutex_lock(&dev->lock);
	rq = dev->free;
	if (rq) {
		dev->free = rq->next_free;
		dev->inflight++;
		rq->alone = dev->inflight == 1;
		if (dev->inflight > dev->be.cnt.max_inflight)
			__atomic_store_n(&dev->be.cnt.max_inflight,
					 dev->inflight, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&dev->lock);
	return rq;
}

static void bfile_put_rq(struct bfile_dev *dev, struct bfile_rq *rq)
{
	rq->bio = NULL;
	pthread_mutex_lock(&dev->lock);
	rq->next_free = dev->free;
	dev->free = rq;
	dev->inflight--;
	pthread_mutex_unlock(&dev->lock);
	wake_up(&dev->tag_wait);
}

/* ---- building and issuing a request ---------------------------------- */

static void bfile_free_bounce(struct bfile_rq *rq)
{
	if (rq->bounce) {
		free(rq->bounce);
		rq->bounce = NULL;
		sim_stat_dec(&bdev_file_bounce_live);
	}
}

/*
 * iovecs from the bio's segments (through bi_iter: a no-copy bio's table
 * is the caller's and may start mid-way), merging what is contiguous.
 * O_DIRECT wants every iovec's address and length aligned to the
 * target's memory alignment; if one is not, or there are too many, the
 * data goes through one aligned buffer instead of failing the bio.
 */
static blk_status_t bfile_map(struct bfile_dev *dev, struct bfile_rq *rq,
			      struct bio *bio)
{
	unsigned long mask = dev->t.dio_mem_align - 1;
	bool bounce = false;
	struct bvec_iter iter;
	struct bio_vec bv;
	unsigned int n = 0;

	rq->pos = blksim_bio_pos(bio);
	rq->remaining = bio->bi_iter.bi_size;
	bio_for_each_segment(bv, bio, iter) {
		char *p = bvec_virt(&bv);

		if (n && (char *)rq->iov_store[n - 1].iov_base +
					 rq->iov_store[n - 1].iov_len == p) {
			rq->iov_store[n - 1].iov_len += bv.bv_len;
			continue;
		}
		if (n == BFILE_MAX_IOV) {
			bounce = true;
			break;
		}
		rq->iov_store[n].iov_base = p;
		rq->iov_store[n].iov_len = bv.bv_len;
		n++;
	}
	for (unsigned int i = 0; i < n && !bounce; i++)
		if (((unsigned long)rq->iov_store[i].iov_base |
		     rq->iov_store[i].iov_len) & mask)
			bounce = true;

	if (bounce) {
		size_t align = max_t(size_t, dev->t.dio_mem_align, 4096);

		if (posix_memalign(&rq->bounce, align, rq->remaining)) {
			rq->bounce = NULL;
			return BLK_STS_RESOURCE;
		}
		sim_stat_inc(&bdev_file_bounce_live);
		sim_stat_inc(&bdev_file_bounce);
		__atomic_fetch_add(&dev->be.cnt.bounced_bios, 1,
				   __ATOMIC_RELAXED);
		if (rq->write)
			blksim_bio_copy_to_buf(bio, rq->bounce);
		rq->iov_store[0].iov_base = rq->bounce;
		rq->iov_store[0].iov_len = rq->remaining;
		n = 1;
	}
	rq->iov = rq->iov_store;
	rq->nr_iov = n;
	return BLK_STS_OK;
}

int bfile_submit_retry(struct bfu_ring *ring)
{
	int ret;

	for (;;) {
		ret = bfu_submit(ring);
		if (ret >= 0)
			return 0;
		if (ret != -EAGAIN && ret != -EBUSY)
			return ret;
		sched_yield();
	}
}

/*
 * Put @rq's current phase on the ring.  @first: the bio's first issue,
 * which is when it joins the in-order list.
 */
static int bfile_issue(struct bfile_dev *dev, struct bfile_rq *rq,
		       bool first)
{
	uint64_t ud = (uintptr_t)rq;
	/*
	 * Once on the ring the request is the reaper's (bfile_cqe() moves
	 * a preflush on to its write): count what is issued from a copy.
	 */
	enum bfile_phase phase = rq->phase;
	bool dsync = rq->dsync;
	int ret;

	if (rq->tr)
		return bfile_thread_ring_issue(dev, rq, first);
	__atomic_store_n(&rq->issues, rq->issues + 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&dev->lock);
	if (phase == BFILE_FLUSH)
		ret = bfu_prep_fdatasync(dev->ring, dev->t.fd, ud);
	else
		ret = bfu_prep_rw(dev->ring, dev->t.fd, rq->write, rq->iov,
				  rq->nr_iov, rq->pos, rq->dsync, ud);
	if (!ret)
		ret = bfile_submit_retry(dev->ring);
	if (!ret && first && !dev->threaded) {
		unsigned int tail = (dev->order_head + dev->order_n) %
				    dev->depth;

		dev->order[tail] = rq;
		dev->order_n++;
	}
	pthread_mutex_unlock(&dev->lock);
	if (ret)
		return ret;
	if (phase == BFILE_FLUSH)
		sim_stat_inc(&bdev_file_fdatasync);
	else if (dsync)
		sim_stat_inc(&bdev_file_rwf_dsync);
	return 0;
}

/* ---- completion ------------------------------------------------------ */

bool bfile_cqe(struct bfile_dev *dev, struct bfile_rq *rq, int res)
{
	(void)__atomic_load_n(&rq->issues, __ATOMIC_ACQUIRE);
	if (res == -EAGAIN && !rq->nowait) {
		/* io_uring gave up on a blocking retry: ours to make */
		sim_stat_inc(&bdev_file_retry);
		goto reissue;
	}
	if (res < 0) {
		rq->status = errno_to_blk_status(res);
		return true;
	}
	if (rq->phase == BFILE_FLUSH) {
		if (!rq->remaining)
			return true;
		rq->phase = BFILE_RW;
		goto reissue;
	}
	if (res == 0) {
		/* nothing moved: past the end of a file that shrank */
		rq->status = BLK_STS_IOERR;
		return true;
	}
	if ((size_t)res < rq->remaining) {
		size_t n = (size_t)res;

		sim_stat_inc(&bdev_file_short);
		rq->pos += n;
		rq->remaining -= n;
		while (n) {
			if (n >= rq->iov->iov_len) {
				n -= rq->iov->iov_len;
				rq->iov++;
				rq->nr_iov--;
			} else {
				rq->iov->iov_base = (char *)rq->iov->iov_base + n;
				rq->iov->iov_len -= n;
				n = 0;
			}
		}
		goto reissue;
	}
	rq->status = BLK_STS_OK;
	return true;

reissue:
	if (bfile_issue(dev, rq, false)) {
		rq->status = BLK_STS_IOERR;
		return true;
	}
	return false;
}

void bfile_finish(struct bfile_dev *dev, struct bfile_rq *rq)
{
	struct bio *bio = rq->bio;
	blk_status_t status = rq->status;
	struct bfile_thread_ring *tr = rq->tr;

	if (rq->bounce && !rq->write && status == BLK_STS_OK)
		blksim_bio_copy_from_buf(bio, rq->bounce);
	bfile_free_bounce(rq);
	rq->tr = NULL;
	bfile_put_rq(dev, rq);
	blksim_backend_end(&dev->be, bio, status);
	/* last: the owner's poll returns once this reaches zero */
	if (tr)
		__atomic_fetch_sub(&tr->outstanding, 1, __ATOMIC_RELEASE);
}

static u64 bfile_now_ms(void)
{
	return blksim_now_ns() / 1000000;
}

static void *bfile_reaper(void *arg)
{
	struct bfile_dev *dev = arg;
	u64 last_sweep = 0;

	for (;;) {
		struct bfile_rq *rq;
		uint64_t ud;
		int res, ret;

		if (__atomic_load_n(&dev->nr_thread_rings, __ATOMIC_RELAXED)) {
			/* on time even when the shared ring keeps it busy */
			u64 now = bfile_now_ms();

			if (now - last_sweep >= BLKSIM_BDEV_FILE_SWEEP_MS) {
				bfile_thread_ring_sweep(dev);
				last_sweep = now;
			}
			ret = bfu_reap_timeout(dev->ring,
					       BLKSIM_BDEV_FILE_SWEEP_MS, &ud,
					       &res);
			if (ret == -ETIME)
				continue;
		} else {
			ret = bfu_reap(dev->ring, true, &ud, &res);
		}
		if (ret) {
			pr_err("%s: io_uring wait: error %d, reaper stops\n",
			       dev->be.bdev.bd_name, ret);
			break;
		}
		if (!ud) /* the NOP destroy sends */
			break;
		rq = (struct bfile_rq *)(unsigned long)ud;
		if (bfile_cqe(dev, rq, res))
			bfile_finish(dev, rq);
	}
	return NULL;
}

/*
 * Deterministic engine: end the oldest bio in flight, reaping (and
 * waiting for) CQEs until it is finished.  Returns bios ended (0 or 1).
 */
static int bfile_deliver_one(struct bfile_dev *dev)
{
	struct bfile_rq *head;

	pthread_mutex_lock(&dev->cq_lock);
	pthread_mutex_lock(&dev->lock);
	head = dev->order_n ? dev->order[dev->order_head] : NULL;
	pthread_mutex_unlock(&dev->lock);
	if (!head) {
		pthread_mutex_unlock(&dev->cq_lock);
		return 0;
	}
	while (!head->done) {
		struct bfile_rq *rq;
		uint64_t ud;
		int res;

		if (bfu_reap(dev->ring, true, &ud, &res)) {
			/* the ring broke: fail the bio rather than hang */
			head->status = BLK_STS_IOERR;
			break;
		}
		rq = (struct bfile_rq *)(unsigned long)ud;
		if (rq && bfile_cqe(dev, rq, res))
			rq->done = true;
	}
	pthread_mutex_lock(&dev->lock);
	dev->order_head = (dev->order_head + 1) % dev->depth;
	dev->order_n--;
	pthread_mutex_unlock(&dev->lock);
	pthread_mutex_unlock(&dev->cq_lock);
	head->done = false;
	bfile_finish(dev, head);
	return 1;
}

/*
 * Deterministic engine: end every bio that was in flight on entry, in
 * submission order (those their completions submit wait for next time).
 */
static int bfile_deliver_all(struct bfile_dev *dev)
{
	unsigned int n;
	int done = 0;

	pthread_mutex_lock(&dev->lock);
	n = dev->order_n;
	pthread_mutex_unlock(&dev->lock);
	while (n--)
		done += bfile_deliver_one(dev);
	return done;
}

static int bfile_src_poll(struct sim_source *src, bool wait)
{
	return bfile_deliver_all(container_of(src, struct bfile_dev, src));
}

static long bfile_src_inflight(struct sim_source *src)
{
	struct bfile_dev *dev = container_of(src, struct bfile_dev, src);
	long n;

	pthread_mutex_lock(&dev->lock);
	n = dev->order_n;
	pthread_mutex_unlock(&dev->lock);
	return n;
}

/* ---- the backend ----------------------------------------------------- */

/* Task context, no lock held, interrupts on: sleeping is allowed. */
static bool bfile_task_may_sleep(void)
{
	return in_task() && !in_atomic() && !irqs_disabled();
}

static void bfile_submit(struct block_device *bdev, struct bio *bio)
{
	struct bfile_dev *dev = to_bfile(bdev);
	blk_status_t status;
	struct bfile_rq *rq;
	enum req_op op = bio_op(bio);

	blksim_backend_start(&dev->be, bio);
	status = blksim_backend_check(bdev, bio);
	if (status == BLK_STS_OK && op != REQ_OP_READ &&
	    op != REQ_OP_WRITE && op != REQ_OP_FLUSH)
		status = BLK_STS_NOTSUPP;
	/* the fd is O_RDONLY: the write would come back EBADF */
	if (status == BLK_STS_OK && op == REQ_OP_WRITE &&
	    bio->bi_iter.bi_size && bdev_read_only(bdev))
		status = BLK_STS_IOERR;
	if (status != BLK_STS_OK) {
		blksim_backend_end(&dev->be, bio, status);
		return;
	}

	rq = bfile_get_rq(dev);
	if (!rq) {
		if (bio->bi_opf & REQ_NOWAIT) {
			sim_stat_inc(&bdev_file_nowait_again);
			blksim_backend_end(&dev->be, bio, BLK_STS_AGAIN);
			return;
		}
		if (!bfile_task_may_sleep()) {
			/*
			 * Sleeping for a tag here is the bug might_sleep()
			 * reports; sleeping for real would also hang when
			 * this is our own reaper (an end_io resubmitting
			 * with inline completion).  Report, then refuse.
			 */
			might_sleep();
			blksim_backend_end(&dev->be, bio, BLK_STS_AGAIN);
			return;
		}
		sim_stat_inc(&bdev_file_qd_wait);
		__atomic_fetch_add(&dev->be.cnt.qd_waits, 1, __ATOMIC_RELAXED);
		/* a tag this thread deferred must not wait for its sleep */
		bfile_thread_ring_flush_mine(dev);
		wait_event(dev->tag_wait, (rq = bfile_get_rq(dev)) != NULL);
	}

	rq->bio = bio;
	/* a thread ring's owner polls for it in task context */
	if (dev->submitter_polls && bfile_task_may_sleep())
		bfile_thread_ring_attach(dev, rq, bio);
	rq->done = false;
	rq->status = BLK_STS_OK;
	rq->write = op == REQ_OP_WRITE;
	rq->dsync = rq->write && (bio->bi_opf & REQ_FUA);
	rq->nowait = bio->bi_opf & REQ_NOWAIT;
	rq->phase = (op == REQ_OP_FLUSH || (bio->bi_opf & REQ_PREFLUSH)) ?
			    BFILE_FLUSH :
			    BFILE_RW;
	rq->remaining = 0;
	rq->nr_iov = 0;
	if (op != REQ_OP_FLUSH)
		status = bfile_map(dev, rq, bio);
	if (status == BLK_STS_OK && rq->phase == BFILE_RW && !rq->remaining)
		goto done; /* an empty read or write: nothing to move */
	if (status == BLK_STS_OK && bfile_issue(dev, rq, true))
		status = BLK_STS_IOERR;
	if (status == BLK_STS_OK)
		return;
done:
	rq->status = status;
	bfile_finish(dev, rq);
}

static int bfile_flush(struct block_device *bdev)
{
	struct bfile_dev *dev = to_bfile(bdev);

	might_sleep();
	__atomic_fetch_add(&dev->be.cnt.flush_calls, 1, __ATOMIC_RELAXED);
	sim_stat_inc(&bdev_file_fdatasync);
	return bfh_fdatasync(dev->t.fd);
}

static int bfile_poll(struct block_device *bdev)
{
	struct bfile_dev *dev = to_bfile(bdev);

	/*
	 * threaded: the reaper ends every bio on the shared ring as its
	 * CQE arrives; the caller's own ring is the caller's to reap
	 */
	if (dev->threaded) {
		struct blksim_bdev_spin spin = { 0 };

		return dev->submitter_polls ?
			       bfile_thread_ring_poll(dev, &spin) : 0;
	}
	return bfile_deliver_all(dev);
}

static void bfile_free(struct bfile_dev *dev)
{
	bfu_ring_destroy(dev->ring);
	bfh_close(&dev->t);
	kfree(dev->order);
	kfree(dev->rqs);
	sim_waitqueue_destroy(&dev->tag_wait);
	pthread_mutex_destroy(&dev->cq_lock);
	pthread_mutex_destroy(&dev->lock);
	kfree(dev);
}

static unsigned int bfile_inflight(struct bfile_dev *dev)
{
	unsigned int n;

	pthread_mutex_lock(&dev->lock);
	n = dev->inflight;
	pthread_mutex_unlock(&dev->lock);
	return n;
}

static void bfile_destroy(struct block_device *bdev)
{
	struct bfile_dev *dev = to_bfile(bdev);

	/* the owner should have waited for its bios; end them anyway */
	WARN_ON_ONCE(bfile_inflight(dev));
	if (dev->reaper_started) {
		wait_event(dev->tag_wait, bfile_inflight(dev) == 0);
		pthread_mutex_lock(&dev->lock);
		if (!bfu_prep_nop(dev->ring, 0))
			bfile_submit_retry(dev->ring);
		pthread_mutex_unlock(&dev->lock);
		pthread_join(dev->reaper, NULL);
	}
	bfile_thread_ring_detach_all(dev);
	while (bfile_deliver_one(dev))
		;
	if (dev->src_added)
		sim_engine_remove_source(&dev->src);
	blksim_backend_exit(&dev->be);
	bfile_free(dev);
}

const struct blksim_bdev_ops blksim_file_ops = {
	.name = "file",
	.submit = bfile_submit,
	.flush = bfile_flush,
	.poll = bfile_poll,
	.destroy = bfile_destroy,
	.submitter = &bfile_submitter_ops,
};

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/*
 * The logical block size: @lbs if given, else the device's (at least its
 * O_DIRECT alignment); it and the size must suit each other and O_DIRECT.
 */
static int bfile_pick_lbs(struct bfile_dev *dev, const char *path,
			  unsigned int lbs, unsigned int *out,
			  char *err, size_t errlen)
{
	if (!lbs)
		lbs = max(dev->t.is_blockdev ? dev->t.logical_block_size : 0,
			  max(dev->t.dio_offset_align, (unsigned int)SECTOR_SIZE));
	if (!is_power_of_2(lbs) || lbs < SECTOR_SIZE || lbs > 4096 ||
	    lbs < dev->t.dio_offset_align ||
	    lbs < dev->t.logical_block_size) {
		blksim_bdev_err(err, errlen,
			     "%s: logical block size %u: need a power of two from 512 to 4096, at least the device's O_DIRECT alignment %u",
			     path, lbs,
			     max(dev->t.dio_offset_align,
				 dev->t.logical_block_size));
		return -EINVAL;
	}
	if (dev->t.size < BLKSIM_BDEV_FILE_MIN_SIZE) {
		blksim_bdev_err(err, errlen,
			     "%s: too small: %llu bytes, at least %llu needed",
			     path, (unsigned long long)dev->t.size,
			     BLKSIM_BDEV_FILE_MIN_SIZE);
		return -EINVAL;
	}
	if (dev->t.size % lbs) {
		blksim_bdev_err(err, errlen,
			     "%s: size %llu is not a multiple of the logical block size %u",
			     path, (unsigned long long)dev->t.size, lbs);
		return -EINVAL;
	}
	*out = lbs;
	return 0;
}

/* The ring and the request tags, all on the free list. */
static int bfile_alloc_ring(struct bfile_dev *dev, const char *path,
			    char *err, size_t errlen)
{
	int ret;

	/* one spare entry: destroy's NOP to stop the reaper */
	ret = bfu_ring_create(dev->depth + 1, 0, &dev->ring);
	if (ret) {
		blksim_bdev_err(err, errlen, "%s: io_uring_queue_init: %s", path,
			     strerror(-ret));
		return ret;
	}
	dev->rqs = kcalloc(dev->depth, sizeof(*dev->rqs), GFP_KERNEL);
	dev->order = kcalloc(dev->depth, sizeof(*dev->order), GFP_KERNEL);
	if (!dev->rqs || !dev->order) {
		blksim_bdev_err(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	for (unsigned int i = dev->depth; i-- > 0;) {
		dev->rqs[i].dev = dev;
		dev->rqs[i].next_free = dev->free;
		dev->free = &dev->rqs[i];
	}
	return 0;
}

/* The queue limits: the device's own, as the host reports them. */
static void bfile_limits(struct bfile_dev *dev, const struct blksim_file_opts *o,
			 unsigned int lbs, struct queue_limits *lim)
{
	lim->logical_block_size = lbs;
	lim->physical_block_size = dev->t.is_blockdev ?
		dev->t.physical_block_size : dev->t.blksize;
	if (!is_power_of_2(lim->physical_block_size) ||
	    lim->physical_block_size > 65536)
		lim->physical_block_size = lbs;
	lim->io_min = dev->t.io_min;
	lim->io_opt = dev->t.io_opt;
	lim->max_sectors = dev->t.max_sectors;
	lim->max_hw_sectors = dev->t.max_hw_sectors;
	lim->max_segments = (unsigned short)min(dev->t.max_segments, 65535u);
	lim->max_segment_size = dev->t.max_segment_size;
	lim->dma_alignment = dev->t.dio_mem_align - 1;
	lim->features = BLK_FEAT_NOWAIT | (o->no_poll ? 0 : BLK_FEAT_POLL);
	if (dev->t.write_cache)
		lim->features |= BLK_FEAT_WRITE_CACHE;
	if (dev->t.fua)
		lim->features |= BLK_FEAT_FUA;
	if (dev->t.rotational)
		lim->features |= BLK_FEAT_ROTATIONAL;
}

/* completions: a reaper thread, or the deterministic engine's source */
static int bfile_start_completions(struct bfile_dev *dev,
				   const struct blksim_file_opts *o,
				   const char *path, char *err, size_t errlen)
{
	dev->threaded = blksim_backend_threaded();
	dev->poll_us = o->poll_us;
	/* the reaper's sweep needs a wait with a timeout */
	dev->submitter_polls = dev->threaded && o->submitter_polls &&
			       bfu_has_ext_arg(dev->ring);
	if (dev->threaded) {
		char comm[16];
		int ret;

		snprintf(comm, sizeof(comm), "%.10s-cq", o->name);
		ret = sim_thread_create(&dev->reaper, comm, -1,
					SIM_CTX_HARDIRQ, bfile_reaper, dev);
		if (ret) {
			blksim_bdev_err(err, errlen,
				     "%s: cannot start the reaper thread",
				     path);
			return ret;
		}
		dev->reaper_started = true;
	} else {
		dev->src.poll = bfile_src_poll;
		dev->src.inflight = bfile_src_inflight;
		sim_engine_add_source(&dev->src);
		dev->src_added = true;
	}
	return 0;
}

struct block_device *blksim_bdev_file_open(const char *path,
					const struct blksim_file_opts *opts,
					char *err, size_t errlen)
{
	struct blksim_file_opts o = opts ? *opts : (struct blksim_file_opts){ 0 };
	struct queue_limits lim = { 0 };
	struct bfile_dev *dev;
	unsigned int lbs;
	int ret;

	if (!path || !*path) {
		blksim_bdev_err(err, errlen, "file: no path given");
		return ERR_PTR(-EINVAL);
	}
	if (!o.queue_depth)
		o.queue_depth = BLKSIM_BDEV_FILE_DEF_QD;
	if (o.queue_depth > BLKSIM_BDEV_FILE_MAX_QD) {
		blksim_bdev_err(err, errlen, "%s: queue depth %u is above %u",
			     path, o.queue_depth, BLKSIM_BDEV_FILE_MAX_QD);
		return ERR_PTR(-EINVAL);
	}
	if (!o.name)
		o.name = base_name(path);

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev) {
		blksim_bdev_err(err, errlen, "%s: out of memory", path);
		return ERR_PTR(-ENOMEM);
	}
	pthread_mutex_init(&dev->lock, NULL);
	pthread_mutex_init(&dev->cq_lock, NULL);
	init_waitqueue_head(&dev->tag_wait);
	dev->t.fd = -1;
	dev->depth = o.queue_depth;

	ret = bfh_open(path, o.read_only, &dev->t, err, errlen);
	if (ret)
		goto fail;
	ret = bfile_pick_lbs(dev, path, o.logical_block_size, &lbs, err,
			     errlen);
	if (ret)
		goto fail;
	ret = bfile_alloc_ring(dev, path, err, errlen);
	if (ret)
		goto fail;
	bfile_limits(dev, &o, lbs, &lim);
	blksim_backend_init(&dev->be, &blksim_file_ops, o.name,
			 dev->t.size >> SECTOR_SHIFT, &lim, o.read_only);
	ret = bfile_start_completions(dev, &o, path, err, errlen);
	if (ret)
		goto fail;
	return &dev->be.bdev;

fail:
	bfile_free(dev);
	return ERR_PTR(ret);
}

bool blksim_bdev_file_info(struct block_device *bdev, struct blksim_file_info *out)
{
	struct bfile_dev *dev;

	if (!bdev || bdev->bd_ops != &blksim_file_ops)
		return false;
	dev = to_bfile(bdev);
	memset(out, 0, sizeof(*out));
	out->is_blockdev = dev->t.is_blockdev;
	out->from_blkid = dev->t.from_blkid;
	out->from_statx = dev->t.from_statx;
	out->probed = dev->t.probed;
	out->dio_mem_align = dev->t.dio_mem_align;
	out->dio_offset_align = dev->t.dio_offset_align;
	out->queue_depth = dev->depth;
	out->size = dev->t.size;
	return true;
}
