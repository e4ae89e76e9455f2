// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workqueues.  In the deterministic engine a queued work item is an event
 * the scheduler runs as the queue's worker task; in the threaded engine
 * each queue has worker threads (one for an ordered queue).  Either way a
 * work item runs in task context with PF_WQ_WORKER set, its pending bit is
 * cleared before it runs (so it may requeue itself), and nothing touches
 * it afterwards (the function may free it).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bug.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "internal.h"

#define WQ_THREADS 2

struct workqueue_struct {
	char name[32];
	unsigned int flags;
	long outstanding; /* queued + running */
	wait_queue_head_t idle; /* flush_workqueue waiters */
	struct task_struct *worker; /* deterministic engine's worker */
	struct workqueue_struct *next;
	/* threaded engine */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct work_struct *head, *tail;
	bool stopping;
	unsigned int nr_threads;
	pthread_t threads[WQ_THREADS];
};

struct workqueue_struct *system_wq;
struct workqueue_struct *system_unbound_wq;

static struct workqueue_struct *all_wqs;
static pthread_mutex_t wqs_lock = PTHREAD_MUTEX_INITIALIZER;

DEFINE_SIM_GAUGE(stat_work_outstanding, "work_outstanding");
DEFINE_SIM_STAT(stat_work_queued, "work_queued");

/* worker->current_work of the kernel: what this worker is running */
static __thread struct work_struct *running_work;
/* worker->current_pwq->wq: kept apart, the item may free itself */
static __thread struct workqueue_struct *running_wq;

struct work_struct *current_work(void)
{
	return running_work;
}

struct workqueue_struct *sim_current_workqueue(void)
{
	return running_wq;
}

static void work_run(struct workqueue_struct *wq, struct work_struct *work)
{
	work_func_t fn = work->func;
	struct work_struct *outer = running_work;
	struct workqueue_struct *outer_wq = running_wq;

	atomic_long_set(&work->data, 0); /* clear pending first */
	sim_trace("workqueue_execute_start", "wq=%s", wq->name);
	running_work = work;
	running_wq = wq;
	fn(work);
	running_work = outer;
	running_wq = outer_wq;
	sim_trace("workqueue_execute_end", "wq=%s", wq->name);
	if (__atomic_sub_fetch(&wq->outstanding, 1, __ATOMIC_SEQ_CST) == 0)
		wake_up(&wq->idle);
	sim_stat_dec(&stat_work_outstanding);
}

static void work_event(struct sim_event *ev)
{
	struct work_struct *work = container_of(ev, struct work_struct, sim_ev);

	work_run(ev->owner, work);
}

static void *worker_thread(void *arg)
{
	struct workqueue_struct *wq = arg;

	current->flags |= PF_WQ_WORKER;
	pthread_mutex_lock(&wq->lock);
	for (;;) {
		struct work_struct *work;

		while (!wq->head && !wq->stopping)
			pthread_cond_wait(&wq->cond, &wq->lock);
		if (!wq->head)
			break;
		work = wq->head;
		wq->head = (struct work_struct *)work->sim_ev.next;
		if (!wq->head)
			wq->tail = NULL;
		pthread_mutex_unlock(&wq->lock);
		work_run(wq, work);
		pthread_mutex_lock(&wq->lock);
	}
	pthread_mutex_unlock(&wq->lock);
	return NULL;
}

struct task_struct *sim_wq_worker(struct workqueue_struct *wq)
{
	return wq->worker;
}

/*
 * @fmt with only %s conversions (the kernel's names: "events", "dio/%s")
 * into @dst, without printf: the engine makes system_wq and
 * system_unbound_wq again, and testfs its dio/ queue, for every fuzzer
 * run.  False for anything else, left to vsnprintf().
 */
static bool wq_name(char *dst, size_t size, const char *fmt, va_list ap)
{
	size_t n = 0;

	for (const char *f = fmt; *f; f++) {
		const char *s;

		if (*f != '%') {
			if (n < size - 1)
				dst[n++] = *f;
			continue;
		}
		if (*++f != 's')
			return false;
		for (s = va_arg(ap, const char *); *s && n < size - 1; s++)
			dst[n++] = *s;
	}
	dst[n] = '\0';
	return true;
}

struct workqueue_struct *alloc_workqueue(const char *fmt, unsigned int flags,
					 int max_active, ...)
{
	struct workqueue_struct *wq;
	char comm[TASK_COMM_LEN];
	size_t n;
	va_list ap;

	sim_engine_ensure();
	wq = kzalloc(sizeof(*wq), GFP_KERNEL);
	if (!wq)
		return NULL;
	va_start(ap, max_active);
	if (!wq_name(wq->name, sizeof(wq->name), fmt, ap)) {
		va_end(ap);
		va_start(ap, max_active);
		vsnprintf(wq->name, sizeof(wq->name), fmt, ap);
	}
	va_end(ap);
	wq->flags = flags;
	init_waitqueue_head(&wq->idle);
	pthread_mutex_init(&wq->lock, NULL);
	pthread_cond_init(&wq->cond, NULL);
	/* like the kernel, a thread name is cut at TASK_COMM_LEN: "kw/" + 11 */
	BUILD_BUG_ON(TASK_COMM_LEN != 16);
	memcpy(comm, "kw/", 3);
	for (n = 0; wq->name[n] && n < 11; n++)
		comm[3 + n] = wq->name[n];
	comm[3 + n] = '\0';
	wq->worker = sim_task_new(comm, 0, PF_WQ_WORKER);
	if (sim_engine_kind() == SIM_ENGINE_THREADED) {
		unsigned int n = (flags & __WQ_ORDERED) || max_active == 1 ?
					 1 :
					 WQ_THREADS;

		for (; wq->nr_threads < n; wq->nr_threads++)
			if (sim_thread_create(&wq->threads[wq->nr_threads],
					      comm, -1, SIM_CTX_TASK,
					      worker_thread, wq))
				break;
	}
	pthread_mutex_lock(&wqs_lock);
	wq->next = all_wqs;
	all_wqs = wq;
	pthread_mutex_unlock(&wqs_lock);
	return wq;
}

void destroy_workqueue(struct workqueue_struct *wq)
{
	struct workqueue_struct **pp;

	if (!wq)
		return;
	flush_workqueue(wq);
	pthread_mutex_lock(&wq->lock);
	wq->stopping = true;
	pthread_cond_broadcast(&wq->cond);
	pthread_mutex_unlock(&wq->lock);
	for (unsigned int i = 0; i < wq->nr_threads; i++)
		pthread_join(wq->threads[i], NULL);
	pthread_mutex_lock(&wqs_lock);
	for (pp = &all_wqs; *pp; pp = &(*pp)->next) {
		if (*pp == wq) {
			*pp = wq->next;
			break;
		}
	}
	pthread_mutex_unlock(&wqs_lock);
	sim_task_free(wq->worker);
	sim_waitqueue_destroy(&wq->idle);
	pthread_cond_destroy(&wq->cond);
	pthread_mutex_destroy(&wq->lock);
	kfree(wq);
}

bool queue_work_on(int cpu, struct workqueue_struct *wq,
		   struct work_struct *work)
{
	/*
	 * __queue_work() dereferences the workqueue first thing: the
	 * kernel oopses here, and so does the simulated task (G-17: a
	 * super block's s_dio_done_wq exists only once sb_init_dio_done_wq()
	 * has run).
	 */
	if (unlikely(!wq))
		sim_bug_hit(
			__FILE__, __LINE__, __func__,
			"kernel NULL pointer dereference: work queued on a NULL workqueue");
	if (atomic_long_xchg(&work->data, WORK_STRUCT_PENDING) &
	    WORK_STRUCT_PENDING)
		return false;
	work->wq = wq;
	__atomic_add_fetch(&wq->outstanding, 1, __ATOMIC_SEQ_CST);
	sim_stat_inc(&stat_work_outstanding);
	sim_stat_inc(&stat_work_queued);
	sim_trace("workqueue_queue_work", "wq=%s", wq->name);
	if (sim_engine_kind() == SIM_ENGINE_THREADED && wq->nr_threads) {
		work->sim_ev.next = NULL;
		pthread_mutex_lock(&wq->lock);
		if (wq->tail)
			wq->tail->sim_ev.next = &work->sim_ev;
		else
			wq->head = work;
		wq->tail = work;
		pthread_cond_signal(&wq->cond);
		pthread_mutex_unlock(&wq->lock);
		return true;
	}
	work->sim_ev.fn = work_event;
	work->sim_ev.ctx = SIM_CTX_TASK;
	work->sim_ev.cpu = cpu;
	work->sim_ev.owner = wq;
	sim_event_post(&work->sim_ev);
	return true;
}

bool queue_work(struct workqueue_struct *wq, struct work_struct *work)
{
	return queue_work_on(-1, wq, work);
}

void sim_flush_workqueue(struct workqueue_struct *wq, const char *file,
			 int line, const char *func)
{
	sim_might_sleep(file, line, func);
	if (!__atomic_load_n(&wq->outstanding, __ATOMIC_SEQ_CST))
		return;
	sim_wait_prepare(&wq->idle, file, line, func);
	while (__atomic_load_n(&wq->outstanding, __ATOMIC_SEQ_CST))
		sim_wait_sleep(&wq->idle);
	sim_wait_finish(&wq->idle);
}

bool flush_work(struct work_struct *work)
{
	struct workqueue_struct *wq = work->wq;

	might_sleep();
	if (!wq || !work_pending(work))
		return false;
	flush_workqueue(wq);
	return true;
}

bool work_pending(const struct work_struct *work)
{
	return atomic_long_read(&work->data) & WORK_STRUCT_PENDING;
}

const char *sim_workqueue_name(const struct workqueue_struct *wq)
{
	return wq->name;
}

bool schedule_work(struct work_struct *work)
{
	return queue_work(system_wq, work);
}

long sim_work_outstanding(void)
{
	return sim_stat_read(&stat_work_outstanding);
}

void sim_workqueues_flush_all(void)
{
	struct workqueue_struct *wq;

	for (;;) {
		pthread_mutex_lock(&wqs_lock);
		for (wq = all_wqs; wq; wq = wq->next)
			if (__atomic_load_n(&wq->outstanding, __ATOMIC_SEQ_CST))
				break;
		pthread_mutex_unlock(&wqs_lock);
		if (!wq)
			return;
		flush_workqueue(wq);
	}
}

/* Engine start: the system queues come with it. */
int sim_workqueues_init(void)
{
	system_wq = alloc_workqueue("events", 0, 0);
	system_unbound_wq = alloc_workqueue("events_unbound", WQ_UNBOUND, 0);
	return system_wq && system_unbound_wq ? 0 : -ENOMEM;
}

/* Engine shutdown: the system queues go with it. */
void sim_workqueues_exit(void)
{
	destroy_workqueue(system_wq);
	system_wq = NULL;
	destroy_workqueue(system_unbound_wq);
	system_unbound_wq = NULL;
}
