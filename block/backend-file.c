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
 *                  itself when it polls (see "thread rings" below);
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
#include <time.h>
#include <linux/bio.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include "backend.h"
#include "file-host.h"
#include "uring-host.h"

DEFINE_SIM_STAT(bdev_file_rwf_dsync, "bdev_file_rwf_dsync");
DEFINE_SIM_STAT(bdev_file_fdatasync, "bdev_file_fdatasync");
DEFINE_SIM_STAT(bdev_file_bounce, "bdev_file_bounce");
DEFINE_SIM_STAT(bdev_file_qd_wait, "bdev_file_qd_wait");
DEFINE_SIM_STAT(bdev_file_nowait_again, "bdev_file_nowait_again");
DEFINE_SIM_STAT(bdev_file_short, "bdev_file_short");
DEFINE_SIM_STAT(bdev_file_retry, "bdev_file_retry");
/* A lone read submitted and waited for in one io_uring_enter(). */
DEFINE_SIM_STAT(bdev_file_submit_and_wait, "bdev_file_submit_and_wait");
/* ... or left so long that something else had to submit it. */
DEFINE_SIM_STAT(bdev_file_deferred_late, "bdev_file_deferred_late");
/* Completion busy-poll windows of thread-ring owners, hits, time spent. */
DEFINE_SIM_STAT(bdev_file_poll_windows, "bdev_file_poll_windows");
DEFINE_SIM_STAT(bdev_file_poll_hits, "bdev_file_poll_hits");
DEFINE_SIM_STAT(bdev_file_poll_spent_ns, "bdev_file_poll_spent_ns");
/* Bounce buffers allocated and not yet freed. */
DEFINE_SIM_GAUGE(bdev_file_bounce_live, "bdev_file_bounce_live");

/* More separate pieces than this and the bio is bounced. */
#define BFILE_MAX_IOV 256

enum bfile_phase {
	BFILE_FLUSH, /* fdatasync (REQ_OP_FLUSH, or a REQ_PREFLUSH's first) */
	BFILE_RW,    /* the read or write */
};

struct bfile_dev;
struct bfile_tring;

struct bfile_rq {
	struct bfile_dev *dev;
	struct bio *bio;
	struct bfile_tring *tr; /* the thread ring it is on, NULL: dev's */
	struct bfile_rq *next_free;
	enum bfile_phase phase;
	bool write;
	bool dsync;
	bool nowait;
	bool alone; /* nothing else was in flight when it was taken */
	bool done; /* deterministic engine: finished, not yet handed over */
	blk_status_t status;
	u64 pos;	    /* byte offset of what is left */
	size_t remaining;   /* bytes left */
	struct iovec *iov;  /* first iovec left */
	unsigned int nr_iov;
	void *bounce;
	/*
	 * Bumped (release) before each issue, read (acquire) on each CQE:
	 * the kernel orders the two, but a race detector cannot see through
	 * io_uring, so the hand-over is made explicit.
	 */
	unsigned int issues;
	struct iovec iov_store[BFILE_MAX_IOV];
};

struct bfile_dev {
	struct sim_backend be;
	struct bfh_target t;
	struct bfu_ring *ring;
	unsigned int depth;
	struct bfile_rq *rqs;

	/* tags, the ring's submission side and the in-order list */
	pthread_mutex_t lock;
	struct bfile_rq *free;
	unsigned int inflight;
	struct bfile_rq **order; /* deterministic: bios by submission */
	unsigned int order_head, order_n;
	wait_queue_head_t tag_wait;

	/* the completion side: one reaper at a time */
	pthread_mutex_t cq_lock;
	bool threaded;
	bool submitter_polls;
	unsigned int poll_us;
	struct bfile_tring *trings; /* under bfile_tr_lock */
	unsigned int nr_trings;	    /* atomic: the reaper sweeps if any */
	pthread_t reaper;
	bool reaper_started;
	struct sim_source src;
	bool src_added;
};

static struct bfile_dev *to_bfile(struct block_device *bdev)
{
	return container_of(to_backend(bdev), struct bfile_dev, be);
}

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

/* ---- thread rings ---------------------------------------------------- */

/*
 * With the shared ring, io_uring posts a read's completion from task work
 * of the thread that submitted it: the FUSE worker, by then asleep on
 * /dev/fuse, is woken for that alone, and then the reaper is woken to end
 * the bio.  A submitter that waits for its own reads on a ring of its
 * own is woken once, as a thread doing pread() would be, and ends them
 * itself, in hard-IRQ context: the polled completion of the kernel.
 *
 * A thread ring is used only by a thread that asked for it by polling,
 * and only for plain reads: submit_bio_wait() sets REQ_SYNC, and a
 * thread sleeping on such a wait would never poll for it.  Should the
 * owner sleep on something else with reads of its own in flight (a tag,
 * a forced wait), the reaper ends them in its periodic sweep: the owner's
 * task work still posts their CQEs, since io_uring wakes a sleeping
 * submitter for it.
 *
 * An owner with an event loop (the FUSE workers) need not wait for each
 * read: the ring's eventfd (sim_bdev_file_thread_fd()) tells it when
 * reads complete, and it ends them when it gets to them
 * (sim_bdev_file_thread_reap()).  Waiting, it busy-polls first
 * (sim_file_opts.poll_us) when the read went out on an idle device, or
 * as long as it says (sim_bdev_file_thread_wait()).
 *
 * Such an owner may also ask for a read that goes out on an idle device
 * to stay on its ring unsubmitted (sim_bdev_file_thread_defer()) until
 * it waits for it: then one io_uring_enter() submits it and sleeps until
 * it completes, as one pread() would.  Any reap submits it, and so does
 * the sweep should the owner never come back.
 */
#define BFILE_TR_DEPTH 16

struct bfile_tring {
	struct bfile_dev *dev;	 /* NULL once the device is gone */
	struct bfu_ring *ring;
	pthread_mutex_t sq_lock; /* owner and a sweep's reissue */
	pthread_mutex_t cq_lock;
	bool reaping;		 /* under cq_lock: the owner is polling */
	bool lone_read;		 /* atomic: one went out on an idle device */
	bool defer;		 /* owner only: a lone read waits for its wait */
	unsigned int unsubmitted; /* under sq_lock: SQEs the owner deferred */
	u64 deferred_ns;	 /* under sq_lock: when the first was */
	unsigned int outstanding; /* atomic: bios on it not yet ended */
	struct bfile_tring *next; /* dev->trings */
};

static u64 bfile_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Guards every device's trings list and each tring's ->dev. */
static pthread_mutex_t bfile_tr_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t bfile_tr_once = PTHREAD_ONCE_INIT;
static pthread_key_t bfile_tr_key;
static bool bfile_tr_once_ok;
static __thread struct bfile_tring *bfile_my_tr;

static void bfile_tr_unlink(struct bfile_tring *tr)
{
	struct bfile_dev *dev = tr->dev;

	for (struct bfile_tring **pp = &dev->trings; *pp; pp = &(*pp)->next) {
		if (*pp == tr) {
			*pp = tr->next;
			break;
		}
	}
	__atomic_store_n(&dev->nr_trings, dev->nr_trings - 1,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&tr->dev, NULL, __ATOMIC_RELAXED);
}

static void bfile_tr_free(struct bfile_tring *tr)
{
	bfu_ring_destroy(tr->ring);
	pthread_mutex_destroy(&tr->sq_lock);
	pthread_mutex_destroy(&tr->cq_lock);
	free(tr);
}

/* The owner thread exits: it polled for all it submitted. */
static void bfile_tr_exit(void *p)
{
	struct bfile_tring *tr = p;

	pthread_mutex_lock(&bfile_tr_lock);
	if (WARN_ON_ONCE(__atomic_load_n(&tr->outstanding,
					 __ATOMIC_ACQUIRE))) {
		/* leave it to the sweep; the ring must outlive its reads */
		pthread_mutex_unlock(&bfile_tr_lock);
		return;
	}
	if (tr->dev)
		bfile_tr_unlink(tr);
	pthread_mutex_unlock(&bfile_tr_lock);
	bfile_tr_free(tr);
}

static void bfile_tr_key_init(void)
{
	if (pthread_key_create(&bfile_tr_key, bfile_tr_exit))
		pr_err("file: no thread-exit hook, thread rings are off\n");
	else
		__atomic_store_n(&bfile_tr_once_ok, true, __ATOMIC_RELEASE);
}

static struct bfile_tring *bfile_tr_create(struct bfile_dev *dev)
{
	struct bfile_tring *tr;

	pthread_once(&bfile_tr_once, bfile_tr_key_init);
	if (!__atomic_load_n(&bfile_tr_once_ok, __ATOMIC_ACQUIRE))
		return NULL;
	tr = calloc(1, sizeof(*tr));
	if (!tr)
		return NULL;
	/* the owner sleeps in the ring when it waits: no IPI needed */
	if (bfu_ring_create(BFILE_TR_DEPTH, BFU_COOP_TASKRUN, &tr->ring)) {
		free(tr);
		return NULL;
	}
	pthread_mutex_init(&tr->sq_lock, NULL);
	pthread_mutex_init(&tr->cq_lock, NULL);
	if (pthread_setspecific(bfile_tr_key, tr)) {
		bfile_tr_free(tr);
		return NULL;
	}
	pthread_mutex_lock(&bfile_tr_lock);
	tr->dev = dev;
	tr->next = dev->trings;
	dev->trings = tr;
	__atomic_store_n(&dev->nr_trings, dev->nr_trings + 1,
			 __ATOMIC_RELAXED);
	pthread_mutex_unlock(&bfile_tr_lock);
	bfile_my_tr = tr;
	return tr;
}

/* The calling thread's ring for @bio, or NULL for the shared one. */
static struct bfile_tring *bfile_tr_for(struct bfile_dev *dev,
					struct bio *bio)
{
	struct bfile_tring *tr = bfile_my_tr;

	if (!tr || __atomic_load_n(&tr->dev, __ATOMIC_RELAXED) != dev)
		return NULL;
	if (bio_op(bio) != REQ_OP_READ ||
	    (bio->bi_opf & (REQ_SYNC | REQ_META | REQ_POLLED)))
		return NULL;
	if (!in_task() || in_atomic() || irqs_disabled())
		return NULL;
	/* full: the completion queue must never overflow */
	if (__atomic_load_n(&tr->outstanding, __ATOMIC_RELAXED) >=
	    BFILE_TR_DEPTH)
		return NULL;
	return tr;
}

static bool bfile_cqe(struct bfile_dev *dev, struct bfile_rq *rq, int res);
static void bfile_finish(struct bfile_dev *dev, struct bfile_rq *rq);

/* Under tr->sq_lock: submit what the ring holds; only -EAGAIN/-EBUSY retry. */
static int bfile_tr_submit(struct bfile_tring *tr)
{
	int ret;

	for (;;) {
		ret = bfu_submit(tr->ring);
		if (ret >= 0) {
			tr->unsubmitted = 0;
			return 0;
		}
		if (ret != -EAGAIN && ret != -EBUSY)
			return ret;
		sched_yield();
	}
}

/*
 * Under tr->sq_lock: submit a deferred read now, not in the call that
 * waits for it (@late: the owner is not the one doing it).
 */
static void bfile_tr_flush_locked(struct bfile_tring *tr, bool late)
{
	if (!tr->unsubmitted)
		return;
	if (late)
		sim_stat_inc(&bdev_file_deferred_late);
	if (bfile_tr_submit(tr))
		pr_err("file: cannot submit a deferred read\n");
}

static void bfile_tr_flush(struct bfile_tring *tr, bool late)
{
	pthread_mutex_lock(&tr->sq_lock);
	bfile_tr_flush_locked(tr, late);
	pthread_mutex_unlock(&tr->sq_lock);
}

struct bfile_tr_drain {
	struct sim_event ev;
	struct bfile_tring *tr;
	int done;
};

/* Under tr->cq_lock, in hard-IRQ context: end what has completed. */
static void bfile_tr_drain_ev(struct sim_event *ev)
{
	struct bfile_tr_drain *d = container_of(ev, struct bfile_tr_drain, ev);
	struct bfile_dev *dev = __atomic_load_n(&d->tr->dev, __ATOMIC_RELAXED);
	uint64_t ud;
	int res;

	while (!bfu_reap(d->tr->ring, false, &ud, &res)) {
		struct bfile_rq *rq = (struct bfile_rq *)(unsigned long)ud;

		if (bfile_cqe(dev, rq, res)) {
			bfile_finish(dev, rq);
			d->done++;
		}
	}
}

static int bfile_tr_drain(struct bfile_tring *tr)
{
	struct bfile_tr_drain d = {
		.ev = { .fn = bfile_tr_drain_ev, .ctx = SIM_CTX_HARDIRQ,
			.cpu = -1 },
		.tr = tr,
	};

	sim_event_run_now(&d.ev, SIM_CTX_HARDIRQ);
	return d.done;
}

/* The owner, not waiting: end what has completed on its ring. */
static int bfile_tr_reap_ready(struct bfile_dev *dev)
{
	struct bfile_tring *tr = bfile_my_tr;
	int done;

	if (!tr || __atomic_load_n(&tr->dev, __ATOMIC_RELAXED) != dev ||
	    !__atomic_load_n(&tr->outstanding, __ATOMIC_ACQUIRE))
		return 0;
	/*
	 * Only what is posted: the owner's next system call runs the task
	 * work that posts the rest (and cuts a sleep short for it), so an
	 * event loop need not spend one on that here.
	 */
	bfile_tr_flush(tr, false);
	pthread_mutex_lock(&tr->cq_lock);
	tr->reaping = true;
	done = bfile_tr_drain(tr);
	tr->reaping = false;
	pthread_mutex_unlock(&tr->cq_lock);
	return done;
}

/*
 * The owner: wait for and end every read on its ring, busy-polling up
 * to @spin->budget_us first (how it went is filled in).  A deferred
 * read goes out here: with no window, in the same io_uring_enter() that
 * waits for it.
 */
static int bfile_tr_wait(struct bfile_dev *dev, struct bfile_tring *tr,
			 struct sim_file_spin *spin)
{
	bool waited = false;
	int done = 0;

	spin->polled = spin->hit = false;
	spin->spent_ns = 0;
	/* waiting here, the owner needs no eventfd signal for these */
	bfu_eventfd_enable(tr->ring, false);
	/*
	 * The sweep keeps off from here: a completion it took between the
	 * kernel posting it and io_uring_enter() counting it would leave
	 * the owner waiting for one more that never comes.
	 */
	pthread_mutex_lock(&tr->cq_lock);
	tr->reaping = true;
	pthread_mutex_unlock(&tr->cq_lock);
	pthread_mutex_lock(&tr->sq_lock);
	if (tr->unsubmitted && !spin->budget_us) {
		int ret;

		do {
			ret = bfu_submit_and_wait(tr->ring);
		} while (ret == -EAGAIN || ret == -EBUSY);
		if (ret >= 0) {
			tr->unsubmitted = 0;
			waited = true;
			sim_stat_inc(&bdev_file_submit_and_wait);
		} else {
			pr_err("file: cannot submit a deferred read\n");
		}
	} else {
		bfile_tr_flush_locked(tr, false);
	}
	pthread_mutex_unlock(&tr->sq_lock);

	pthread_mutex_lock(&tr->cq_lock);
	for (;;) {
		int ret;

		done += bfile_tr_drain(tr);
		if (!__atomic_load_n(&tr->outstanding, __ATOMIC_ACQUIRE))
			break;
		pthread_mutex_unlock(&tr->cq_lock);
		if (spin->budget_us && !spin->polled && !waited) {
			u64 t0 = bfile_now_ns();

			spin->polled = true;
			spin->hit = bfu_spin_ready(tr->ring, spin->budget_us);
			spin->spent_ns = bfile_now_ns() - t0;
			sim_stat_inc(&bdev_file_poll_windows);
			sim_stat_add(&bdev_file_poll_spent_ns,
				     (long)spin->spent_ns);
			if (spin->hit)
				sim_stat_inc(&bdev_file_poll_hits);
		}
		ret = bfu_wait_ready(tr->ring, 0);
		pthread_mutex_lock(&tr->cq_lock);
		/* the sweep cannot do better on error: let it try anyway */
		if (ret < 0)
			break;
	}
	tr->reaping = false;
	pthread_mutex_unlock(&tr->cq_lock);
	bfu_eventfd_enable(tr->ring, true);
	return done;
}

/* ->poll of the owner: wait for and end every read on its ring. */
static int bfile_tr_poll(struct bfile_dev *dev, struct sim_file_spin *spin)
{
	struct bfile_tring *tr = bfile_my_tr;
	bool lone;

	if (!tr)
		tr = bfile_tr_create(dev);
	if (!tr || __atomic_load_n(&tr->dev, __ATOMIC_RELAXED) != dev)
		return 0;
	lone = __atomic_exchange_n(&tr->lone_read, false, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&tr->outstanding, __ATOMIC_ACQUIRE))
		return 0;
	if (!spin->budget_us && lone && !tr->defer)
		spin->budget_us = dev->poll_us;
	return bfile_tr_wait(dev, tr, spin);
}

/*
 * The reaper, every SIM_BDEV_FILE_SWEEP_MS while thread rings exist:
 * end the reads of owners that are not polling.  Already in hard-IRQ
 * context.
 */
static void bfile_tr_sweep(struct bfile_dev *dev)
{
	pthread_mutex_lock(&bfile_tr_lock);
	for (struct bfile_tring *tr = dev->trings; tr; tr = tr->next) {
		if (!__atomic_load_n(&tr->outstanding, __ATOMIC_ACQUIRE))
			continue;
		/* a deferred read its owner did not come back for */
		if (!pthread_mutex_trylock(&tr->sq_lock)) {
			if (tr->unsubmitted &&
			    bfile_now_ns() - tr->deferred_ns >=
				    SIM_BDEV_FILE_SWEEP_MS * 1000000ull)
				bfile_tr_flush_locked(tr, true);
			pthread_mutex_unlock(&tr->sq_lock);
		}
		if (pthread_mutex_trylock(&tr->cq_lock))
			continue; /* its owner is at it */
		if (!tr->reaping) {
			struct bfile_tr_drain d = { .tr = tr };

			bfile_tr_drain_ev(&d.ev);
		}
		pthread_mutex_unlock(&tr->cq_lock);
	}
	pthread_mutex_unlock(&bfile_tr_lock);
}

/* The device goes: its rings go with it, their owners keep the shells. */
static void bfile_tr_detach_all(struct bfile_dev *dev)
{
	pthread_mutex_lock(&bfile_tr_lock);
	while (dev->trings) {
		struct bfile_tring *tr = dev->trings;

		bfile_tr_unlink(tr);
		bfu_ring_destroy(tr->ring);
		tr->ring = NULL;
	}
	pthread_mutex_unlock(&bfile_tr_lock);
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

	rq->pos = sim_bio_pos(bio);
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
			sim_bio_copy_to_buf(bio, rq->bounce);
		rq->iov_store[0].iov_base = rq->bounce;
		rq->iov_store[0].iov_len = rq->remaining;
		n = 1;
	}
	rq->iov = rq->iov_store;
	rq->nr_iov = n;
	return BLK_STS_OK;
}

/* Submit what is queued; only a transient refusal is worth a retry. */
static int bfile_ring_submit(struct bfile_dev *dev)
{
	int ret;

	for (;;) {
		ret = bfu_submit(dev->ring);
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
	struct bfile_tring *tr = rq->tr;
	int ret;

	if (tr) {
		/*
		 * Alone on the device, from its owner, who asked: it goes
		 * out when the owner waits for it, in the same system call.
		 */
		bool defer = first && rq->alone && tr->defer &&
			     bfile_my_tr == tr;

		/* a short read or a retry stays where its owner waits */
		pthread_mutex_lock(&tr->sq_lock);
		if (phase == BFILE_FLUSH)
			ret = bfu_prep_fdatasync(tr->ring, dev->t.fd, ud);
		else
			ret = bfu_prep_rw(tr->ring, dev->t.fd, rq->write,
					  rq->iov, rq->nr_iov, rq->pos,
					  rq->dsync, ud);
		/* after the last look at @rq: no lock orders it for TSan */
		__atomic_store_n(&rq->issues, rq->issues + 1,
				 __ATOMIC_RELEASE);
		if (!ret && defer) {
			if (!tr->unsubmitted++)
				tr->deferred_ns = bfile_now_ns();
		} else if (!ret)
			ret = bfile_tr_submit(tr);
		pthread_mutex_unlock(&tr->sq_lock);
		return ret;
	}
	__atomic_store_n(&rq->issues, rq->issues + 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&dev->lock);
	if (phase == BFILE_FLUSH)
		ret = bfu_prep_fdatasync(dev->ring, dev->t.fd, ud);
	else
		ret = bfu_prep_rw(dev->ring, dev->t.fd, rq->write, rq->iov,
				  rq->nr_iov, rq->pos, rq->dsync, ud);
	if (!ret)
		ret = bfile_ring_submit(dev);
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

/*
 * One CQE for @rq.  Returns true when the bio is finished (rq->status
 * set), false when the next piece is on the ring.
 */
static bool bfile_cqe(struct bfile_dev *dev, struct bfile_rq *rq, int res)
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

/* Hand a finished bio back: free its tag first, then end it. */
static void bfile_finish(struct bfile_dev *dev, struct bfile_rq *rq)
{
	struct bio *bio = rq->bio;
	blk_status_t status = rq->status;
	struct bfile_tring *tr = rq->tr;

	if (rq->bounce && !rq->write && status == BLK_STS_OK)
		sim_bio_copy_from_buf(bio, rq->bounce);
	bfile_free_bounce(rq);
	rq->tr = NULL;
	bfile_put_rq(dev, rq);
	sim_backend_end(&dev->be, bio, status);
	/* last: the owner's poll returns once this reaches zero */
	if (tr)
		__atomic_fetch_sub(&tr->outstanding, 1, __ATOMIC_RELEASE);
}

static u64 bfile_now_ms(void)
{
	return bfile_now_ns() / 1000000;
}

static void *bfile_reaper(void *arg)
{
	struct bfile_dev *dev = arg;
	u64 last_sweep = 0;

	for (;;) {
		struct bfile_rq *rq;
		uint64_t ud;
		int res, ret;

		if (__atomic_load_n(&dev->nr_trings, __ATOMIC_RELAXED)) {
			/* on time even when the shared ring keeps it busy */
			u64 now = bfile_now_ms();

			if (now - last_sweep >= SIM_BDEV_FILE_SWEEP_MS) {
				bfile_tr_sweep(dev);
				last_sweep = now;
			}
			ret = bfu_reap_timeout(dev->ring,
					       SIM_BDEV_FILE_SWEEP_MS, &ud,
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

static void bfile_submit(struct block_device *bdev, struct bio *bio)
{
	struct bfile_dev *dev = to_bfile(bdev);
	blk_status_t status;
	struct bfile_rq *rq;
	enum req_op op = bio_op(bio);

	sim_backend_start(&dev->be, bio);
	status = sim_backend_check(bdev, bio);
	if (status == BLK_STS_OK && op != REQ_OP_READ &&
	    op != REQ_OP_WRITE && op != REQ_OP_FLUSH)
		status = BLK_STS_NOTSUPP;
	/* the fd is O_RDONLY: the write would come back EBADF */
	if (status == BLK_STS_OK && op == REQ_OP_WRITE &&
	    bio->bi_iter.bi_size && bdev_read_only(bdev))
		status = BLK_STS_IOERR;
	if (status != BLK_STS_OK) {
		sim_backend_end(&dev->be, bio, status);
		return;
	}

	rq = bfile_get_rq(dev);
	if (!rq) {
		if (bio->bi_opf & REQ_NOWAIT) {
			sim_stat_inc(&bdev_file_nowait_again);
			sim_backend_end(&dev->be, bio, BLK_STS_AGAIN);
			return;
		}
		if (!in_task() || in_atomic() || irqs_disabled()) {
			/*
			 * Sleeping for a tag here is the bug might_sleep()
			 * reports; sleeping for real would also hang when
			 * this is our own reaper (an end_io resubmitting
			 * with inline completion).  Report, then refuse.
			 */
			might_sleep();
			sim_backend_end(&dev->be, bio, BLK_STS_AGAIN);
			return;
		}
		sim_stat_inc(&bdev_file_qd_wait);
		__atomic_fetch_add(&dev->be.cnt.qd_waits, 1, __ATOMIC_RELAXED);
		/* a tag this thread deferred must not wait for its sleep */
		if (bfile_my_tr &&
		    __atomic_load_n(&bfile_my_tr->dev, __ATOMIC_RELAXED) == dev)
			bfile_tr_flush(bfile_my_tr, true);
		wait_event(dev->tag_wait, (rq = bfile_get_rq(dev)) != NULL);
	}

	rq->bio = bio;
	if (dev->submitter_polls) {
		rq->tr = bfile_tr_for(dev, bio);
		if (rq->tr) {
			__atomic_fetch_add(&rq->tr->outstanding, 1,
					   __ATOMIC_RELAXED);
			/* the device is idle but for it: worth polling for */
			if (rq->alone)
				__atomic_store_n(&rq->tr->lone_read, true,
						 __ATOMIC_RELAXED);
		}
	}
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
		struct sim_file_spin spin = { 0 };

		return dev->submitter_polls ? bfile_tr_poll(dev, &spin) : 0;
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
			bfile_ring_submit(dev);
		pthread_mutex_unlock(&dev->lock);
		pthread_join(dev->reaper, NULL);
	}
	bfile_tr_detach_all(dev);
	while (bfile_deliver_one(dev))
		;
	if (dev->src_added)
		sim_engine_remove_source(&dev->src);
	sim_backend_exit(&dev->be);
	bfile_free(dev);
}

const struct sim_bdev_ops sim_file_ops = {
	.name = "file",
	.submit = bfile_submit,
	.flush = bfile_flush,
	.poll = bfile_poll,
	.destroy = bfile_destroy,
};

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

struct block_device *sim_bdev_file_open(const char *path,
					const struct sim_file_opts *opts,
					char *err, size_t errlen)
{
	struct sim_file_opts o = opts ? *opts : (struct sim_file_opts){ 0 };
	struct queue_limits lim = { 0 };
	struct bfile_dev *dev;
	unsigned int lbs;
	int ret;

	if (!path || !*path) {
		sim_bdev_err(err, errlen, "file: no path given");
		return ERR_PTR(-EINVAL);
	}
	if (!o.queue_depth)
		o.queue_depth = SIM_BDEV_FILE_DEF_QD;
	if (o.queue_depth > SIM_BDEV_FILE_MAX_QD) {
		sim_bdev_err(err, errlen, "%s: queue depth %u is above %u",
			     path, o.queue_depth, SIM_BDEV_FILE_MAX_QD);
		return ERR_PTR(-EINVAL);
	}
	if (!o.name)
		o.name = base_name(path);

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev) {
		sim_bdev_err(err, errlen, "%s: out of memory", path);
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

	lbs = o.logical_block_size;
	if (!lbs)
		lbs = max(dev->t.is_blockdev ? dev->t.logical_block_size : 0,
			  max(dev->t.dio_offset_align, (unsigned int)SECTOR_SIZE));
	if (!is_power_of_2(lbs) || lbs < SECTOR_SIZE || lbs > 4096 ||
	    lbs < dev->t.dio_offset_align ||
	    lbs < dev->t.logical_block_size) {
		sim_bdev_err(err, errlen,
			     "%s: logical block size %u: need a power of two from 512 to 4096, at least the device's O_DIRECT alignment %u",
			     path, lbs,
			     max(dev->t.dio_offset_align,
				 dev->t.logical_block_size));
		ret = -EINVAL;
		goto fail;
	}
	if (dev->t.size < SIM_BDEV_FILE_MIN_SIZE) {
		sim_bdev_err(err, errlen,
			     "%s: too small: %llu bytes, at least %llu needed",
			     path, (unsigned long long)dev->t.size,
			     SIM_BDEV_FILE_MIN_SIZE);
		ret = -EINVAL;
		goto fail;
	}
	if (dev->t.size % lbs) {
		sim_bdev_err(err, errlen,
			     "%s: size %llu is not a multiple of the logical block size %u",
			     path, (unsigned long long)dev->t.size, lbs);
		ret = -EINVAL;
		goto fail;
	}

	/* one spare entry: destroy's NOP to stop the reaper */
	ret = bfu_ring_create(dev->depth + 1, 0, &dev->ring);
	if (ret) {
		sim_bdev_err(err, errlen, "%s: io_uring_queue_init: %s", path,
			     strerror(-ret));
		goto fail;
	}
	dev->rqs = kcalloc(dev->depth, sizeof(*dev->rqs), GFP_KERNEL);
	dev->order = kcalloc(dev->depth, sizeof(*dev->order), GFP_KERNEL);
	if (!dev->rqs || !dev->order) {
		sim_bdev_err(err, errlen, "%s: out of memory", path);
		ret = -ENOMEM;
		goto fail;
	}
	for (unsigned int i = dev->depth; i-- > 0;) {
		dev->rqs[i].dev = dev;
		dev->rqs[i].next_free = dev->free;
		dev->free = &dev->rqs[i];
	}

	lim.logical_block_size = lbs;
	lim.physical_block_size = dev->t.is_blockdev ?
		dev->t.physical_block_size : dev->t.blksize;
	if (!is_power_of_2(lim.physical_block_size) ||
	    lim.physical_block_size > 65536)
		lim.physical_block_size = lbs;
	lim.io_min = dev->t.io_min;
	lim.io_opt = dev->t.io_opt;
	lim.max_sectors = dev->t.max_sectors;
	lim.max_hw_sectors = dev->t.max_hw_sectors;
	lim.max_segments = (unsigned short)min(dev->t.max_segments, 65535u);
	lim.max_segment_size = dev->t.max_segment_size;
	lim.dma_alignment = dev->t.dio_mem_align - 1;
	lim.features = BLK_FEAT_NOWAIT | (o.no_poll ? 0 : BLK_FEAT_POLL);
	if (dev->t.write_cache)
		lim.features |= BLK_FEAT_WRITE_CACHE;
	if (dev->t.fua)
		lim.features |= BLK_FEAT_FUA;
	if (dev->t.rotational)
		lim.features |= BLK_FEAT_ROTATIONAL;
	sim_backend_init(&dev->be, &sim_file_ops, o.name,
			 dev->t.size >> SECTOR_SHIFT, &lim, o.read_only);

	/* completions: a reaper thread, or the deterministic engine's source */
	dev->threaded = sim_backend_threaded();
	dev->poll_us = o.poll_us;
	/* the reaper's sweep needs a wait with a timeout */
	dev->submitter_polls = dev->threaded && o.submitter_polls &&
			       bfu_has_ext_arg(dev->ring);
	if (dev->threaded) {
		char comm[16];

		snprintf(comm, sizeof(comm), "%.10s-cq", o.name);
		ret = sim_thread_create(&dev->reaper, comm, -1,
					SIM_CTX_HARDIRQ, bfile_reaper, dev);
		if (ret) {
			sim_bdev_err(err, errlen,
				     "%s: cannot start the reaper thread",
				     path);
			goto fail;
		}
		dev->reaper_started = true;
	} else {
		dev->src.poll = bfile_src_poll;
		dev->src.inflight = bfile_src_inflight;
		sim_engine_add_source(&dev->src);
		dev->src_added = true;
	}
	return &dev->be.bdev;

fail:
	bfile_free(dev);
	return ERR_PTR(ret);
}

/* The file device under @bdev (itself, or under fault / log-writes). */
static struct bfile_dev *file_of(struct block_device *bdev)
{
	if (bdev && bdev->bd_ops == &sim_fault_ops)
		bdev = sim_bdev_fault_lower(bdev);
	if (bdev && bdev->bd_ops == &sim_logw_ops)
		bdev = sim_bdev_logw_lower(bdev);
	if (!bdev || bdev->bd_ops != &sim_file_ops)
		return NULL;
	return to_bfile(bdev);
}

int sim_bdev_file_thread_fd(struct block_device *bdev)
{
	struct bfile_dev *dev = file_of(bdev);
	struct bfile_tring *tr;

	if (!dev || !dev->submitter_polls)
		return -EOPNOTSUPP;
	tr = bfile_my_tr;
	if (!tr)
		tr = bfile_tr_create(dev);
	if (!tr || __atomic_load_n(&tr->dev, __ATOMIC_RELAXED) != dev)
		return -ENODEV;
	return bfu_eventfd(tr->ring);
}

unsigned int sim_bdev_file_thread_outstanding(struct block_device *bdev)
{
	struct bfile_dev *dev = file_of(bdev);
	struct bfile_tring *tr = bfile_my_tr;

	if (!dev || !tr || __atomic_load_n(&tr->dev, __ATOMIC_RELAXED) != dev)
		return 0;
	return __atomic_load_n(&tr->outstanding, __ATOMIC_ACQUIRE);
}

int sim_bdev_file_thread_reap(struct block_device *bdev, bool wait)
{
	struct bfile_dev *dev = file_of(bdev);
	struct sim_file_spin spin = { 0 };

	if (!dev || !dev->submitter_polls)
		return 0;
	return wait ? bfile_tr_poll(dev, &spin) : bfile_tr_reap_ready(dev);
}

int sim_bdev_file_thread_wait(struct block_device *bdev,
			      struct sim_file_spin *spin)
{
	struct bfile_dev *dev = file_of(bdev);
	struct bfile_tring *tr = bfile_my_tr;

	spin->polled = spin->hit = false;
	spin->spent_ns = 0;
	if (!dev || !dev->submitter_polls || !tr ||
	    __atomic_load_n(&tr->dev, __ATOMIC_RELAXED) != dev)
		return 0;
	__atomic_store_n(&tr->lone_read, false, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&tr->outstanding, __ATOMIC_ACQUIRE))
		return 0;
	return bfile_tr_wait(dev, tr, spin);
}

int sim_bdev_file_thread_defer(struct block_device *bdev, bool on)
{
	struct bfile_dev *dev = file_of(bdev);
	struct bfile_tring *tr = bfile_my_tr;

	if (!dev || !dev->submitter_polls)
		return -EOPNOTSUPP;
	if (!tr)
		tr = bfile_tr_create(dev);
	if (!tr || __atomic_load_n(&tr->dev, __ATOMIC_RELAXED) != dev)
		return -ENODEV;
	if (!on)
		bfile_tr_flush(tr, false);
	tr->defer = on;
	return 0;
}

bool sim_bdev_file_info(struct block_device *bdev, struct sim_file_info *out)
{
	struct bfile_dev *dev;

	if (!bdev || bdev->bd_ops != &sim_file_ops)
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
