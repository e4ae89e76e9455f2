// SPDX-License-Identifier: GPL-2.0-only
/*
 * The file backend's per-thread rings (threaded engine, submitter_polls).
 *
 * With the shared ring, io_uring posts a read's completion from task work
 * of the thread that submitted it: the FUSE worker, by then asleep on
 * /dev/fuse, is woken for that alone, and then the reaper is woken to end
 * the bio.  A submitter that waits for its own reads on a ring of its
 * own is woken once, as a thread doing pread() would be, and ends them
 * itself, in hard-IRQ context: the polled completion of the kernel.
 *
 * A thread ring is used only by a thread that asked for it by polling,
 * and only for plain reads: not those of submit_bio_wait(), as a thread
 * sleeping on such a wait would never poll for it.  Should the
 * owner sleep on something else with reads of its own in flight (a tag,
 * a forced wait), the reaper ends them in its periodic sweep: the owner's
 * task work still posts their CQEs, since io_uring wakes a sleeping
 * submitter for it.
 *
 * The ring is its owner's completion context (blksim_bdev_submitter_*()):
 * an owner with an event loop (the FUSE workers) need not wait for each
 * read: the ring's eventfd (blksim_bdev_submitter_fd()) tells it when
 * reads complete, and it ends them when it gets to them
 * (blksim_bdev_submitter_reap()).  Waiting, it busy-polls first
 * (blksim_file_opts.poll_us) when the read went out on an idle device, or
 * as long as it says (blksim_bdev_submitter_wait()).
 *
 * Such an owner may also ask for a read that goes out on an idle device
 * to stay on its ring unsubmitted (blksim_bdev_submitter_defer()) until
 * it waits for it: then one io_uring_enter() submits it and sleeps until
 * it completes, as one pread() would.  Any reap submits it, and so does
 * the sweep should the owner never come back.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <linux/bio.h>
#include <linux/kernel.h>
#include "backend-file.h"

/* A lone read submitted and waited for in one io_uring_enter(). */
DEFINE_SIM_STAT(bdev_file_submit_and_wait, "bdev_file_submit_and_wait");
/* ... or left so long that something else had to submit it. */
DEFINE_SIM_STAT(bdev_file_deferred_late, "bdev_file_deferred_late");
/* Completion busy-poll windows of thread-ring owners, hits, time spent. */
DEFINE_SIM_STAT(bdev_file_poll_windows, "bdev_file_poll_windows");
DEFINE_SIM_STAT(bdev_file_poll_hits, "bdev_file_poll_hits");
DEFINE_SIM_STAT(bdev_file_poll_spent_ns, "bdev_file_poll_spent_ns");

#define BFILE_THREAD_RING_DEPTH 16

/* Guards every device's thread_rings list and each thread ring's ->dev. */
static pthread_mutex_t bfile_thread_rings_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t bfile_thread_ring_once = PTHREAD_ONCE_INIT;
static pthread_key_t bfile_thread_ring_key;
static bool bfile_thread_ring_key_ok;
static __thread struct bfile_thread_ring *bfile_my_ring;

static void bfile_thread_ring_unlink(struct bfile_thread_ring *tr)
{
	struct bfile_dev *dev = tr->dev;

	for (struct bfile_thread_ring **pp = &dev->thread_rings; *pp;
	     pp = &(*pp)->next) {
		if (*pp == tr) {
			*pp = tr->next;
			break;
		}
	}
	__atomic_store_n(&dev->nr_thread_rings, dev->nr_thread_rings - 1,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&tr->dev, NULL, __ATOMIC_RELAXED);
}

static void bfile_thread_ring_free(struct bfile_thread_ring *tr)
{
	bfu_ring_destroy(tr->ring);
	pthread_mutex_destroy(&tr->sq_lock);
	pthread_mutex_destroy(&tr->cq_lock);
	free(tr);
}

/* The owner thread exits: it polled for all it submitted. */
static void bfile_thread_ring_exit(void *p)
{
	struct bfile_thread_ring *tr = p;

	pthread_mutex_lock(&bfile_thread_rings_lock);
	if (WARN_ON_ONCE(__atomic_load_n(&tr->outstanding,
					 __ATOMIC_ACQUIRE))) {
		/* leave it to the sweep; the ring must outlive its reads */
		pthread_mutex_unlock(&bfile_thread_rings_lock);
		return;
	}
	if (tr->dev)
		bfile_thread_ring_unlink(tr);
	pthread_mutex_unlock(&bfile_thread_rings_lock);
	bfile_thread_ring_free(tr);
}

static void bfile_thread_ring_key_init(void)
{
	if (pthread_key_create(&bfile_thread_ring_key, bfile_thread_ring_exit))
		pr_err("file: no thread-exit hook, thread rings are off\n");
	else
		__atomic_store_n(&bfile_thread_ring_key_ok, true,
				 __ATOMIC_RELEASE);
}

static struct bfile_thread_ring *
bfile_thread_ring_create(struct bfile_dev *dev)
{
	struct bfile_thread_ring *tr;

	pthread_once(&bfile_thread_ring_once, bfile_thread_ring_key_init);
	if (!__atomic_load_n(&bfile_thread_ring_key_ok, __ATOMIC_ACQUIRE))
		return NULL;
	tr = calloc(1, sizeof(*tr));
	if (!tr)
		return NULL;
	/* the owner sleeps in the ring when it waits: no IPI needed */
	if (bfu_ring_create(BFILE_THREAD_RING_DEPTH, BFU_COOP_TASKRUN,
			    &tr->ring)) {
		free(tr);
		return NULL;
	}
	pthread_mutex_init(&tr->sq_lock, NULL);
	pthread_mutex_init(&tr->cq_lock, NULL);
	if (pthread_setspecific(bfile_thread_ring_key, tr)) {
		bfile_thread_ring_free(tr);
		return NULL;
	}
	pthread_mutex_lock(&bfile_thread_rings_lock);
	tr->dev = dev;
	tr->next = dev->thread_rings;
	dev->thread_rings = tr;
	__atomic_store_n(&dev->nr_thread_rings, dev->nr_thread_rings + 1,
			 __ATOMIC_RELAXED);
	pthread_mutex_unlock(&bfile_thread_rings_lock);
	bfile_my_ring = tr;
	return tr;
}

/* The calling thread's ring on @dev if it has one; NULL: none. */
static struct bfile_thread_ring *bfile_thread_ring_mine(struct bfile_dev *dev)
{
	struct bfile_thread_ring *tr = bfile_my_ring;

	if (!tr || __atomic_load_n(&tr->dev, __ATOMIC_RELAXED) != dev)
		return NULL;
	return tr;
}

/* The calling thread's ring on @dev, made on first use; NULL: none. */
static struct bfile_thread_ring *bfile_thread_ring_get(struct bfile_dev *dev)
{
	struct bfile_thread_ring *tr = bfile_my_ring;

	if (!tr)
		tr = bfile_thread_ring_create(dev);
	if (!tr || __atomic_load_n(&tr->dev, __ATOMIC_RELAXED) != dev)
		return NULL;
	return tr;
}

/*
 * The calling thread's ring for @bio, or NULL for the device's.  The
 * caller has checked the context: task, no lock held, interrupts on.
 */
static struct bfile_thread_ring *
bfile_thread_ring_for(struct bfile_dev *dev, struct bio *bio)
{
	struct bfile_thread_ring *tr = bfile_thread_ring_mine(dev);

	if (!tr)
		return NULL;
	if (bio_op(bio) != REQ_OP_READ ||
	    (bio->bi_opf & (REQ_META | REQ_POLLED)) ||
	    blksim_bio_submitter_sleeps(bio))
		return NULL;
	/* full: the completion queue must never overflow */
	if (__atomic_load_n(&tr->outstanding, __ATOMIC_RELAXED) >=
	    BFILE_THREAD_RING_DEPTH)
		return NULL;
	return tr;
}

void bfile_thread_ring_attach(struct bfile_dev *dev, struct bfile_rq *rq,
			      struct bio *bio)
{
	rq->tr = bfile_thread_ring_for(dev, bio);
	if (rq->tr) {
		__atomic_fetch_add(&rq->tr->outstanding, 1, __ATOMIC_RELAXED);
		/* the device is idle but for it: worth polling for */
		if (rq->alone)
			__atomic_store_n(&rq->tr->lone_read, true,
					 __ATOMIC_RELAXED);
	}
}

/* Under tr->sq_lock: submit what the ring holds. */
static int bfile_thread_ring_submit(struct bfile_thread_ring *tr)
{
	int ret = bfile_submit_retry(tr->ring);

	if (!ret)
		tr->unsubmitted = 0;
	return ret;
}

/*
 * Under tr->sq_lock: submit a deferred read now, not in the call that
 * waits for it (@late: the owner is not the one doing it).
 */
static void bfile_thread_ring_flush_locked(struct bfile_thread_ring *tr,
					   bool late)
{
	if (!tr->unsubmitted)
		return;
	if (late)
		sim_stat_inc(&bdev_file_deferred_late);
	if (bfile_thread_ring_submit(tr))
		pr_err("file: cannot submit a deferred read\n");
}

static void bfile_thread_ring_flush(struct bfile_thread_ring *tr, bool late)
{
	pthread_mutex_lock(&tr->sq_lock);
	bfile_thread_ring_flush_locked(tr, late);
	pthread_mutex_unlock(&tr->sq_lock);
}

void bfile_thread_ring_flush_mine(struct bfile_dev *dev)
{
	struct bfile_thread_ring *tr = bfile_thread_ring_mine(dev);

	if (tr)
		bfile_thread_ring_flush(tr, true);
}

struct bfile_thread_ring_drain {
	struct sim_event ev;
	struct bfile_thread_ring *tr;
	int done;
};

/* Under tr->cq_lock, in hard-IRQ context: end what has completed. */
static void bfile_thread_ring_drain_ev(struct sim_event *ev)
{
	struct bfile_thread_ring_drain *d =
		container_of(ev, struct bfile_thread_ring_drain, ev);
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

static int bfile_thread_ring_drain(struct bfile_thread_ring *tr)
{
	struct bfile_thread_ring_drain d = {
		.ev = { .fn = bfile_thread_ring_drain_ev,
			.ctx = SIM_CTX_HARDIRQ, .cpu = -1 },
		.tr = tr,
	};

	sim_event_run_now(&d.ev, SIM_CTX_HARDIRQ);
	return d.done;
}

/* The owner, not waiting: end what has completed on its ring. */
static int bfile_thread_ring_reap_ready(struct bfile_dev *dev)
{
	struct bfile_thread_ring *tr = bfile_thread_ring_mine(dev);
	int done;

	if (!tr || !__atomic_load_n(&tr->outstanding, __ATOMIC_ACQUIRE))
		return 0;
	/*
	 * Only what is posted: the owner's next system call runs the task
	 * work that posts the rest (and cuts a sleep short for it), so an
	 * event loop need not spend one on that here.
	 */
	bfile_thread_ring_flush(tr, false);
	pthread_mutex_lock(&tr->cq_lock);
	tr->reaping = true;
	done = bfile_thread_ring_drain(tr);
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
static int bfile_thread_ring_wait(struct bfile_dev *dev,
				  struct bfile_thread_ring *tr,
				  struct blksim_bdev_spin *spin)
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
		bfile_thread_ring_flush_locked(tr, false);
	}
	pthread_mutex_unlock(&tr->sq_lock);

	pthread_mutex_lock(&tr->cq_lock);
	for (;;) {
		int ret;

		done += bfile_thread_ring_drain(tr);
		if (!__atomic_load_n(&tr->outstanding, __ATOMIC_ACQUIRE))
			break;
		pthread_mutex_unlock(&tr->cq_lock);
		if (spin->budget_us && !spin->polled && !waited) {
			u64 t0 = blksim_now_ns();

			spin->polled = true;
			spin->hit = bfu_spin_ready(tr->ring, spin->budget_us);
			spin->spent_ns = blksim_now_ns() - t0;
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

int bfile_thread_ring_poll(struct bfile_dev *dev, struct blksim_bdev_spin *spin)
{
	struct bfile_thread_ring *tr = bfile_thread_ring_get(dev);
	bool lone;

	if (!tr)
		return 0;
	lone = __atomic_exchange_n(&tr->lone_read, false, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&tr->outstanding, __ATOMIC_ACQUIRE))
		return 0;
	if (!spin->budget_us && lone && !tr->defer)
		spin->budget_us = dev->poll_us;
	return bfile_thread_ring_wait(dev, tr, spin);
}

/*
 * Every BLKSIM_BDEV_FILE_SWEEP_MS while thread rings exist: end the reads
 * of owners that are not polling.  The reaper, already in hard-IRQ
 * context.
 */
void bfile_thread_ring_sweep(struct bfile_dev *dev)
{
	pthread_mutex_lock(&bfile_thread_rings_lock);
	for (struct bfile_thread_ring *tr = dev->thread_rings; tr;
	     tr = tr->next) {
		if (!__atomic_load_n(&tr->outstanding, __ATOMIC_ACQUIRE))
			continue;
		/* a deferred read its owner did not come back for */
		if (!pthread_mutex_trylock(&tr->sq_lock)) {
			if (tr->unsubmitted &&
			    blksim_now_ns() - tr->deferred_ns >=
				    BLKSIM_BDEV_FILE_SWEEP_MS * 1000000ull)
				bfile_thread_ring_flush_locked(tr, true);
			pthread_mutex_unlock(&tr->sq_lock);
		}
		if (pthread_mutex_trylock(&tr->cq_lock))
			continue; /* its owner is at it */
		if (!tr->reaping) {
			struct bfile_thread_ring_drain d = { .tr = tr };

			bfile_thread_ring_drain_ev(&d.ev);
		}
		pthread_mutex_unlock(&tr->cq_lock);
	}
	pthread_mutex_unlock(&bfile_thread_rings_lock);
}

void bfile_thread_ring_detach_all(struct bfile_dev *dev)
{
	pthread_mutex_lock(&bfile_thread_rings_lock);
	while (dev->thread_rings) {
		struct bfile_thread_ring *tr = dev->thread_rings;

		bfile_thread_ring_unlink(tr);
		bfu_ring_destroy(tr->ring);
		tr->ring = NULL;
	}
	pthread_mutex_unlock(&bfile_thread_rings_lock);
}

/*
 * Put @rq's current phase on its thread ring.  @first: the bio's first
 * issue.
 */
int bfile_thread_ring_issue(struct bfile_dev *dev, struct bfile_rq *rq,
			    bool first)
{
	struct bfile_thread_ring *tr = rq->tr;
	uint64_t ud = (uintptr_t)rq;
	/*
	 * Alone on the device, from its owner, who asked: it goes out when
	 * the owner waits for it, in the same system call.
	 */
	bool defer = first && rq->alone && tr->defer && bfile_my_ring == tr;
	int ret;

	/* a short read or a retry stays where its owner waits */
	pthread_mutex_lock(&tr->sq_lock);
	if (rq->phase == BFILE_FLUSH)
		ret = bfu_prep_fdatasync(tr->ring, dev->t.fd, ud);
	else
		ret = bfu_prep_rw(tr->ring, dev->t.fd, rq->write, rq->iov,
				  rq->nr_iov, rq->pos, rq->dsync, ud);
	/* after the last look at @rq: no lock orders it for TSan */
	__atomic_store_n(&rq->issues, rq->issues + 1, __ATOMIC_RELEASE);
	if (!ret && defer) {
		if (!tr->unsubmitted++)
			tr->deferred_ns = blksim_now_ns();
	} else if (!ret)
		ret = bfile_thread_ring_submit(tr);
	pthread_mutex_unlock(&tr->sq_lock);
	return ret;
}

/* ---- the owner's completion context (blksim_bdev_submitter_*()) -------- */

static int bfile_submitter_fd(struct block_device *bdev)
{
	struct bfile_dev *dev = to_bfile(bdev);
	struct bfile_thread_ring *tr;

	if (!dev->submitter_polls)
		return -EOPNOTSUPP;
	tr = bfile_thread_ring_get(dev);
	return tr ? bfu_eventfd(tr->ring) : -ENODEV;
}

static unsigned int bfile_submitter_outstanding(struct block_device *bdev)
{
	struct bfile_thread_ring *tr = bfile_thread_ring_mine(to_bfile(bdev));

	return tr ? __atomic_load_n(&tr->outstanding, __ATOMIC_ACQUIRE) : 0;
}

static int bfile_submitter_reap(struct block_device *bdev, bool wait)
{
	struct bfile_dev *dev = to_bfile(bdev);
	struct blksim_bdev_spin spin = { 0 };

	if (!dev->submitter_polls)
		return 0;
	return wait ? bfile_thread_ring_poll(dev, &spin) :
		      bfile_thread_ring_reap_ready(dev);
}

static int bfile_submitter_wait(struct block_device *bdev,
				struct blksim_bdev_spin *spin)
{
	struct bfile_dev *dev = to_bfile(bdev);
	struct bfile_thread_ring *tr = bfile_thread_ring_mine(dev);

	spin->polled = spin->hit = false;
	spin->spent_ns = 0;
	if (!dev->submitter_polls || !tr)
		return 0;
	__atomic_store_n(&tr->lone_read, false, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&tr->outstanding, __ATOMIC_ACQUIRE))
		return 0;
	return bfile_thread_ring_wait(dev, tr, spin);
}

static int bfile_submitter_defer(struct block_device *bdev, bool on)
{
	struct bfile_dev *dev = to_bfile(bdev);
	struct bfile_thread_ring *tr;

	if (!dev->submitter_polls)
		return -EOPNOTSUPP;
	tr = bfile_thread_ring_get(dev);
	if (!tr)
		return -ENODEV;
	if (!on)
		bfile_thread_ring_flush(tr, false);
	tr->defer = on;
	return 0;
}

const struct blksim_bdev_submitter_ops bfile_submitter_ops = {
	.fd = bfile_submitter_fd,
	.outstanding = bfile_submitter_outstanding,
	.reap = bfile_submitter_reap,
	.wait = bfile_submitter_wait,
	.defer = bfile_submitter_defer,
};
