// SPDX-License-Identifier: GPL-2.0-only
/*
 * The workload generator behind `iomapsim bench` (see workload.h).
 *
 * A request lives in a slot: its kiocb, iterator and buffer.  A submitter
 * owns qd slots; a free slot is issued, a completed one goes back on the
 * submitter's done stack (pushed from whatever context ran ki_complete,
 * taken whole by the submitter), so finding a finished request costs the
 * same at qd 1 and qd 256.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/blkdev.h>
#include <linux/smp.h>
#include <sim/alloc.h>
#include <sim/bdev.h>
#include <sim/engine.h>
#include <sim/io_wq.h>
#include <sim/iomap.h>
#include <sim/rand.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "workload.h"

struct wl_sub;

struct wl_slot {
	struct kiocb iocb;
	struct iov_iter iter;
	void *buf;
	struct wl_sub *sub;
	struct wl_slot *next_done; /* on sub->done */
	struct wl_slot *next_work; /* on the io-wq list */
	bool busy;
	long ret;
};

struct wl_sub {
	struct wl_run_ctx *ctx;
	unsigned int id;
	struct wl_slot *slots;
	struct wl_slot *done; /* completed, pushed by ki_complete */
	unsigned int inflight;
	sem_t sem; /* threaded async: a completion came */
	struct sim_rand rng;
	pthread_t thr;
	u64 ios, errors;
};

/* io_uring's io-wq for the punted requests, reduced to hashing. */
struct wl_iowq {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct wl_slot *head, **tail;
	bool hash; /* io_wq_should_hash() for this work */
	bool hash_busy; /* a hashed item of the inode runs */
	bool stop;
	unsigned int running, max_running;
	u64 hashed;
	pthread_t *workers;
	unsigned int nr_workers;
};

struct wl_run_ctx {
	const struct wl_opts *o;
	struct testfs *tf;
	struct wl_sub *subs;
	u64 nr_blocks; /* request-sized blocks in the file */
	u64 total; /* requests to issue (warm-up + measured) */
	u64 issued; /* claimed so far */
	u64 measure_from; /* the first measured request */
	u64 deadline_ns; /* duration mode */
	bool stop;
	pthread_barrier_t start;
	struct wl_iowq wq;
};

static u64 clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

static u64 now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int wl_check(struct wl_opts *o, char *err, size_t errlen)
{
	if (!o->size)
		o->size = 4096;
	if (!o->qd)
		o->qd = 1;
	if (!o->submitters)
		o->submitters = 1;
	if (!o->file_size)
		o->file_size = 16 << 20;
	if (!o->count && !o->duration_ns)
		o->count = 100000;
	if (o->size % 512 || o->size > (1u << 20)) {
		snprintf(err, errlen, "size %u: a multiple of 512 up to 1 MiB",
			 o->size);
		return -EINVAL;
	}
	if (o->file_size < o->size || o->file_size % o->size) {
		snprintf(err, errlen,
			 "file size %llu: a multiple of the request size",
			 (unsigned long long)o->file_size);
		return -EINVAL;
	}
	if (o->qd > 4096 || o->submitters > 64) {
		snprintf(
			err, errlen,
			"at most 4096 requests in flight per submitter and 64 submitters");
		return -EINVAL;
	}
	if (o->mode == WL_SYNC && o->qd > 1) {
		snprintf(
			err, errlen,
			"a synchronous submitter has one request in flight (qd 1)");
		return -EINVAL;
	}
	if (o->iowq && (!o->threaded || o->mode != WL_ASYNC)) {
		snprintf(err, errlen,
			 "--iowq needs the threaded engine and async requests");
		return -EINVAL;
	}
	if (o->duration_ns && !o->threaded) {
		snprintf(
			err, errlen,
			"--duration needs the threaded engine (the deterministic one counts requests)");
		return -EINVAL;
	}
	if (o->dev == WL_DEV_FILE && !o->path) {
		snprintf(err, errlen, "the file device needs a path");
		return -EINVAL;
	}
	if (o->latency_ns && o->dev != WL_DEV_NULL) {
		snprintf(err, errlen,
			 "a completion latency is for the null device");
		return -EINVAL;
	}
	return 0;
}

/* ---- one request ------------------------------------------------------- */

static void slot_done(struct wl_slot *s, long ret)
{
	struct wl_sub *sb = s->sub;

	s->ret = ret;
	s->next_done = __atomic_load_n(&sb->done, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&sb->done, &s->next_done, s, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	if (sb->ctx->o->threaded && sb->ctx->o->mode == WL_ASYNC)
		sem_post(&sb->sem);
}

static void wl_ki_complete(struct kiocb *iocb, long ret)
{
	slot_done(container_of(iocb, struct wl_slot, iocb), ret);
}

static loff_t next_pos(struct wl_run_ctx *c, struct wl_sub *sb, u64 n)
{
	u64 blk = c->o->sequential ? n % c->nr_blocks :
				     sim_rand_below(&sb->rng, c->nr_blocks);

	return (loff_t)(blk * c->o->size);
}

/* Issue a request on a free slot; a result that came back at once ends it. */
static void slot_rw(struct wl_slot *s)
{
	struct wl_run_ctx *c = s->sub->ctx;
	ssize_t ret;

	iov_iter_ubuf(&s->iter, c->o->write ? ITER_SOURCE : ITER_DEST, s->buf,
		      c->o->size);
	ret = testfs_dio_rw(c->tf, &s->iocb, &s->iter, c->o->dio_flags, 0);
	if (ret != -EIOCBQUEUED)
		slot_done(s, ret); /* sync, an error, or G-48a */
}

static void iowq_queue(struct wl_iowq *wq, struct wl_slot *s);

static void slot_issue(struct wl_sub *sb, struct wl_slot *s, u64 n)
{
	struct wl_run_ctx *c = sb->ctx;
	const struct wl_opts *o = c->o;

	s->busy = true;
	sb->inflight++;
	s->iocb = (struct kiocb){
		.ki_filp = &c->tf->file,
		.ki_pos = next_pos(c, sb, n),
		.ki_flags = IOCB_DIRECT | (o->write ? IOCB_WRITE : 0) |
			    (o->mode == WL_POLLED ? IOCB_HIPRI : 0),
		.ki_complete = o->mode == WL_SYNC ? NULL : wl_ki_complete,
	};
	if (c->o->iowq)
		iowq_queue(&c->wq, s);
	else
		slot_rw(s);
}

/* Take back what completed; false if nothing had. */
static bool sub_reap(struct wl_sub *sb)
{
	struct wl_slot *s =
		__atomic_exchange_n(&sb->done, NULL, __ATOMIC_ACQUIRE);

	if (!s)
		return false;
	while (s) {
		struct wl_slot *next = s->next_done;

		if (s->ret != (long)sb->ctx->o->size)
			sb->errors++;
		sb->ios++;
		s->busy = false;
		sb->inflight--;
		s = next;
	}
	return true;
}

/* Polled: look once at every request in flight (io_uring's iopoll list). */
static void sub_poll(struct wl_sub *sb)
{
	unsigned int i;

	for (i = 0; i < sb->ctx->o->qd; i++) {
		struct wl_slot *s = &sb->slots[i];

		if (s->busy && READ_ONCE(s->iocb.private))
			iocb_bio_iopoll(&s->iocb, NULL, BLK_POLL_ONESHOT);
	}
}

/* The next request number, or false when the run is over. */
static bool claim(struct wl_run_ctx *c, u64 *n)
{
	u64 deadline;

	if (!c->o->threaded) {
		if (c->issued >= c->total)
			return false;
		*n = c->issued++;
		return true;
	}
	if (__atomic_load_n(&c->stop, __ATOMIC_RELAXED))
		return false;
	*n = __atomic_fetch_add(&c->issued, 1, __ATOMIC_RELAXED);
	if (c->total && *n >= c->total)
		return false;
	deadline = __atomic_load_n(&c->deadline_ns, __ATOMIC_RELAXED);
	if (deadline && !(*n & 63) && now_ns() >= deadline) {
		__atomic_store_n(&c->stop, true, __ATOMIC_RELAXED);
		return false;
	}
	return true;
}

/* ---- io-wq --------------------------------------------------------------- */

static void iowq_queue(struct wl_iowq *wq, struct wl_slot *s)
{
	pthread_mutex_lock(&wq->lock);
	s->next_work = NULL;
	*wq->tail = s;
	wq->tail = &s->next_work;
	/*
	 * Hashed work behind a running chain waits for that chain's worker,
	 * which takes it next: waking another one would only find the hash
	 * busy (io-wq leaves a stalled hash's work alone, too).
	 */
	if (!(wq->hash && wq->hash_busy))
		pthread_cond_signal(&wq->cond);
	pthread_mutex_unlock(&wq->lock);
}

/*
 * io-wq's worker.  Unhashed work: take the first item.  Hashed work (one
 * file, so one hash key): take the whole chain queued for the inode, as
 * io_get_next_work() does up to the hash's tail, and run it in order
 * while other workers leave the key alone (they stall on it).
 */
static void *iowq_worker(void *arg)
{
	struct wl_run_ctx *c = arg;
	struct wl_iowq *wq = &c->wq;

	sim_task_attach("iou-wrk", -1);
	pthread_mutex_lock(&wq->lock);
	for (;;) {
		struct wl_slot *s = wq->head, *next;

		if (wq->stop && !s)
			break;
		if (!s || (wq->hash && wq->hash_busy)) {
			pthread_cond_wait(&wq->cond, &wq->lock);
			continue;
		}
		if (wq->hash) {
			/* the chain: everything queued now */
			wq->head = NULL;
			wq->hash_busy = true;
		} else {
			wq->head = s->next_work;
			s->next_work = NULL;
		}
		if (!wq->head)
			wq->tail = &wq->head;
		if (++wq->running > wq->max_running)
			wq->max_running = wq->running;
		pthread_mutex_unlock(&wq->lock);

		for (; s; s = next) {
			next = s->next_work;
			if (wq->hash)
				__atomic_fetch_add(&wq->hashed, 1,
						   __ATOMIC_RELAXED);
			slot_rw(s);
		}

		pthread_mutex_lock(&wq->lock);
		wq->running--;
		/* what came meanwhile is this worker's next chain */
		wq->hash_busy = false;
	}
	pthread_mutex_unlock(&wq->lock);
	sim_task_detach();
	return NULL;
}

static int iowq_start(struct wl_run_ctx *c)
{
	struct wl_iowq *wq = &c->wq;
	unsigned int i;

	pthread_mutex_init(&wq->lock, NULL);
	pthread_cond_init(&wq->cond, NULL);
	wq->tail = &wq->head;
	wq->nr_workers = c->o->submitters;
	wq->workers = calloc(wq->nr_workers, sizeof(*wq->workers));
	if (!wq->workers)
		return -ENOMEM;
	wq->hash = io_wq_should_hash(c->o->write ? IO_WQ_SIM_WRITE :
						   IO_WQ_SIM_READ,
				     &c->tf->file, c->o->ring_iopoll);
	for (i = 0; i < wq->nr_workers; i++) {
		if (pthread_create(&wq->workers[i], NULL, iowq_worker, c)) {
			wq->nr_workers = i; /* iowq_stop() joins these */
			return -EAGAIN;
		}
	}
	return 0;
}

static void iowq_stop(struct wl_run_ctx *c)
{
	struct wl_iowq *wq = &c->wq;
	unsigned int i;

	pthread_mutex_lock(&wq->lock);
	wq->stop = true;
	pthread_cond_broadcast(&wq->cond);
	pthread_mutex_unlock(&wq->lock);
	for (i = 0; i < wq->nr_workers; i++)
		pthread_join(wq->workers[i], NULL);
	free(wq->workers);
	pthread_cond_destroy(&wq->cond);
	pthread_mutex_destroy(&wq->lock);
}

/* ---- the deterministic engine: every submitter on this thread ---------- */

static void det_round(struct wl_run_ctx *c, u64 until)
{
	const struct wl_opts *o = c->o;
	unsigned int i, k;
	u64 n;

	while (c->issued < until) {
		/* every submitter's requests in flight ... */
		for (i = 0; i < o->submitters; i++) {
			struct wl_sub *sb = &c->subs[i];

			sim_task_set_cpu(i % nr_cpu_ids);
			for (k = 0; k < o->qd && c->issued < until; k++) {
				if (!claim(c, &n))
					break;
				slot_issue(sb, &sb->slots[k], n);
			}
		}
		/* ... then their completions, in the engine's order */
		for (i = 0; i < o->submitters; i++) {
			struct wl_sub *sb = &c->subs[i];

			sim_task_set_cpu(i % nr_cpu_ids);
			while (sb->inflight) {
				if (o->mode == WL_POLLED)
					sub_poll(sb);
				if (sub_reap(sb) || sim_engine_step())
					continue;
				sim_engine_drain();
				if (o->mode == WL_POLLED)
					sub_poll(sb);
				if (!sub_reap(sb)) {
					/* nothing can end them: a bug, not a figure */
					fprintf(stderr,
						"workload: %u request(s) never completed\n",
						sb->inflight);
					abort();
				}
			}
		}
	}
	sim_task_set_cpu(0);
}

/* What a profiler collects (--toggle-collect=wl_measure): the measured part. */
noinline void wl_measure(struct wl_run_ctx *c)
{
	det_round(c, c->total);
}

/* ---- the threaded engine: a thread per submitter ------------------------ */

static void *sub_thread(void *arg)
{
	struct wl_sub *sb = arg;
	struct wl_run_ctx *c = sb->ctx;
	const struct wl_opts *o = c->o;
	bool more = true;

	sim_task_attach("bench", (int)(sb->id % nr_cpu_ids));
	pthread_barrier_wait(&c->start);
	while (more || sb->inflight) {
		unsigned int i;
		u64 n;

		for (i = 0; more && i < o->qd; i++) {
			if (sb->slots[i].busy)
				continue;
			if (!claim(c, &n)) {
				more = false;
				break;
			}
			slot_issue(sb, &sb->slots[i], n);
		}
		if (o->mode == WL_POLLED)
			sub_poll(sb);
		else if (o->mode == WL_ASYNC && sb->inflight &&
			 !__atomic_load_n(&sb->done, __ATOMIC_ACQUIRE))
			sem_wait(&sb->sem);
		sub_reap(sb);
		/* the semaphore counts what the reap already took */
		while (o->mode == WL_ASYNC && !sem_trywait(&sb->sem))
			;
		sub_reap(sb);
	}
	sim_engine_drain();
	sim_task_detach();
	return NULL;
}

static int threaded_measure(struct wl_run_ctx *c)
{
	const struct wl_opts *o = c->o;
	unsigned int i;

	if (pthread_barrier_init(&c->start, NULL, o->submitters + 1))
		return -EAGAIN;
	for (i = 0; i < o->submitters; i++) {
		if (pthread_create(&c->subs[i].thr, NULL, sub_thread,
				   &c->subs[i])) {
			/* the others wait at the barrier for it */
			fprintf(stderr,
				"workload: cannot start submitter thread %u\n",
				i);
			abort();
		}
	}
	pthread_barrier_wait(&c->start);
	if (o->duration_ns)
		__atomic_store_n(&c->deadline_ns, now_ns() + o->duration_ns,
				 __ATOMIC_RELAXED);
	for (i = 0; i < o->submitters; i++)
		pthread_join(c->subs[i].thr, NULL);
	pthread_barrier_destroy(&c->start);
	return 0;
}

/* ---- set-up ------------------------------------------------------------- */

static struct block_device *make_dev(const struct wl_opts *o, char *err,
				     size_t errlen)
{
	switch (o->dev) {
	case WL_DEV_NULL: {
		struct blksim_null_opts no = {
			.name = "nullb0",
			.irqmode = o->latency_ns ? BLKSIM_NULL_IRQ_TIMER :
						   BLKSIM_NULL_IRQ_NONE,
			.completion_nsec = o->latency_ns,
		};

		return blksim_bdev_null_create(&no, err, errlen);
	}
	case WL_DEV_FILE: {
		struct blksim_file_opts fo = {
			.queue_depth = BLKSIM_BDEV_FILE_MAX_QD
		};

		return blksim_bdev_file_open(o->path, &fo, err, errlen);
	}
	default:
		return NULL; /* testfs makes its ram device */
	}
}

static int subs_init(struct wl_run_ctx *c)
{
	const struct wl_opts *o = c->o;
	unsigned int i, k;

	c->subs = calloc(o->submitters, sizeof(*c->subs));
	if (!c->subs)
		return -ENOMEM;
	for (i = 0; i < o->submitters; i++) {
		struct wl_sub *sb = &c->subs[i];

		sb->ctx = c;
		sb->id = i;
		sim_rand_seed(&sb->rng, o->seed * 1000003 + i);
		sem_init(&sb->sem, 0, 0);
		sb->slots = calloc(o->qd, sizeof(*sb->slots));
		if (!sb->slots)
			return -ENOMEM;
		for (k = 0; k < o->qd; k++) {
			sb->slots[k].sub = sb;
			sb->slots[k].buf = aligned_alloc(4096, o->size);
			if (!sb->slots[k].buf)
				return -ENOMEM;
			memset(sb->slots[k].buf, 0x5a, o->size);
		}
	}
	return 0;
}

static void subs_free(struct wl_run_ctx *c)
{
	unsigned int i, k;

	if (!c->subs)
		return;
	for (i = 0; i < c->o->submitters; i++) {
		struct wl_sub *sb = &c->subs[i];

		if (sb->slots)
			for (k = 0; k < c->o->qd; k++)
				free(sb->slots[k].buf);
		free(sb->slots);
		sem_destroy(&sb->sem);
	}
	free(c->subs);
}

/*
 * Bios the simple path's own bio_set handed out: one per request the
 * simple path built a bio for.  The block layer counts them per set in
 * any case, so the measured requests run with nobody watching (no iomap
 * counter, observer or trace; wl_run()) and the path is still known.
 */
static u64 simple_bios(void)
{
	struct bio_set *pool = iomapsim_simple_pool();

	/* code without a simple path has no such bio_set */
	return pool ? (u64)atomic_long_read(&pool->sim_allocs) : 0;
}

static int measure(struct wl_run_ctx *c, struct wl_result *r)
{
	const struct wl_opts *o = c->o;
	u64 simple0, t0, cpu0, ios0 = 0, err0 = 0;
	long allocs0;
	unsigned int i;
	int ret = 0;

	/* warm-up: caches, the dio workqueue, the per-CPU bio caches */
	c->total = o->warmup;
	if (o->warmup && !o->threaded)
		det_round(c, o->warmup);
	else if (o->warmup)
		ret = threaded_measure(c);
	if (ret)
		return ret;
	for (i = 0; i < o->submitters; i++) {
		ios0 += c->subs[i].ios;
		err0 += c->subs[i].errors;
	}

	c->issued = 0;
	c->stop = false;
	c->total = o->count;
	/* the workers are idle: every request ended */
	__atomic_store_n(&c->wq.hashed, 0, __ATOMIC_RELAXED);
	allocs0 = sim_alloc_total();
	simple0 = simple_bios();
	t0 = now_ns();
	cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (o->threaded)
		ret = threaded_measure(c);
	else
		wl_measure(c);
	r->ns = now_ns() - t0;
	r->cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	r->allocs = sim_alloc_total() - allocs0;
	r->simple = simple_bios() - simple0;
	for (i = 0; i < o->submitters; i++) {
		r->ios += c->subs[i].ios;
		r->errors += c->subs[i].errors;
	}
	r->ios -= ios0;
	r->errors -= err0;
	return ret;
}

int wl_run(const struct wl_opts *o, struct wl_result *r, char *err,
	   size_t errlen)
{
	struct sim_engine_opts eo = {
		.kind = o->threaded ? SIM_ENGINE_THREADED : SIM_ENGINE_DET,
		.seed = o->seed,
		.nr_cpus = max(o->submitters, 1u),
	};
	struct testfs_opts to = {
		.size = (loff_t)o->file_size,
		.no_simple = !o->simple,
	};
	struct wl_run_ctx c = { .o = o };
	bool counting = sim_watch_counting();
	int ret;

	memset(r, 0, sizeof(*r));
	if (eo.nr_cpus < 4)
		eo.nr_cpus = 4;
	ret = sim_engine_init(&eo);
	if (ret) {
		snprintf(err, errlen, "engine: error %d", ret);
		return ret;
	}
	/* nobody watches: as the kernel runs with its tracepoints off */
	sim_trace_enable(false);
	sim_watch_set(SIM_WATCH_COUNT, false);
	iomapsim_dio_init();
	if (o->dev != WL_DEV_RAM) {
		to.lower = make_dev(o, err, errlen);
		if (IS_ERR(to.lower)) {
			ret = PTR_ERR(to.lower);
			goto out_engine;
		}
	}
	c.tf = testfs_create(&to, err, errlen);
	if (IS_ERR(c.tf)) {
		ret = PTR_ERR(c.tf);
		goto out_engine;
	}
	c.tf->mode = o->iomap_mode;
	/*
	 * The dio completion workqueue exists before the first request, as
	 * after any warm-up: iomap creates it lazily and checks for it
	 * without a lock (the kernel's deliberate race, which TSan reports
	 * when two submitter threads make the first async writes at once).
	 */
	ret = sb_init_dio_done_wq(&c.tf->sb);
	if (ret) {
		snprintf(err, errlen, "dio workqueue: error %d", ret);
		testfs_destroy(c.tf);
		goto out_engine;
	}
	if (o->parallel_write)
		c.tf->file.f_mode |= FMODE_DIO_PARALLEL_WRITE;
	c.nr_blocks = o->file_size / o->size;

	ret = subs_init(&c);
	if (!ret && o->iowq)
		ret = iowq_start(&c);
	if (!ret)
		ret = measure(&c, r);
	if (o->iowq && c.wq.workers) {
		iowq_stop(&c);
		r->hashed = c.wq.hashed;
		r->max_parallel = c.wq.max_running;
	}
	sim_engine_drain();
	if (ret && !err[0])
		snprintf(err, errlen, "workload: error %d", ret);
	subs_free(&c);
	testfs_destroy(c.tf);
out_engine:
	iomapsim_dio_exit();
	sim_engine_exit();
	sim_watch_set(SIM_WATCH_COUNT, counting);
	return ret;
}
