// SPDX-License-Identifier: GPL-2.0-only
/*
 * Wait queues and completions for both engines (see <linux/wait.h>).
 */
#include <linux/completion.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <sim/engine.h>
#include <sim/report.h>
#include "internal.h"

/* Where the current deterministic wait started, for deadlock reports. */
static __thread const char *wait_file;
static __thread int wait_line;
static __thread const char *wait_func;

void init_waitqueue_head(wait_queue_head_t *wq)
{
	pthread_mutex_init(&wq->lock, NULL);
	pthread_cond_init(&wq->cond, NULL);
}

void sim_waitqueue_destroy(wait_queue_head_t *wq)
{
	pthread_cond_destroy(&wq->cond);
	pthread_mutex_destroy(&wq->lock);
}

void wake_up(wait_queue_head_t *wq)
{
	if (sim_engine_kind() != SIM_ENGINE_THREADED)
		return; /* the deterministic waiter re-tests after each event */
	pthread_mutex_lock(&wq->lock);
	pthread_cond_broadcast(&wq->cond);
	pthread_mutex_unlock(&wq->lock);
}

void sim_wait_prepare(wait_queue_head_t *wq, const char *file, int line,
		      const char *func)
{
	sim_before_sleep();
	if (sim_engine_kind() == SIM_ENGINE_THREADED) {
		pthread_mutex_lock(&wq->lock);
		return;
	}
	wait_file = file;
	wait_line = line;
	wait_func = func;
}

void sim_wait_sleep(wait_queue_head_t *wq)
{
	if (sim_engine_kind() == SIM_ENGINE_THREADED) {
		pthread_cond_wait(&wq->cond, &wq->lock);
		return;
	}
	if (!sim_engine_step())
		sim_engine_deadlock(wait_file, wait_line, wait_func);
}

void sim_wait_finish(wait_queue_head_t *wq)
{
	if (sim_engine_kind() == SIM_ENGINE_THREADED)
		pthread_mutex_unlock(&wq->lock);
}

#define VAR_WAITQUEUES 64
static wait_queue_head_t var_waitqueues[VAR_WAITQUEUES] = {
	[0 ... VAR_WAITQUEUES - 1] = __WAIT_QUEUE_HEAD_INITIALIZER(x)
};

wait_queue_head_t *__var_waitqueue(const void *p)
{
	unsigned long h = ((unsigned long)p >> 3) * 0x9e3779b97f4a7c15ULL;

	return &var_waitqueues[h >> 58];
}

/*
 * The kernel's completion takes its wait queue's spinlock with interrupts
 * off: against other CPUs and the interrupt that completes it.  Under the
 * deterministic engine neither can run in the middle (see
 * sim_engine_threaded()), nobody sleeps on the condition variable, and
 * the lock is left alone: a synchronous request does not pay for two
 * mutexes the kernel's single-CPU path does not have.
 */
static void completion_lock(struct completion *x)
{
	if (sim_engine_threaded())
		pthread_mutex_lock(&x->wait.lock);
}

static void completion_unlock(struct completion *x)
{
	if (sim_engine_threaded()) {
		pthread_cond_broadcast(&x->wait.cond);
		pthread_mutex_unlock(&x->wait.lock);
	}
}

void init_completion(struct completion *x)
{
	x->done = 0;
	init_waitqueue_head(&x->wait);
}

void reinit_completion(struct completion *x)
{
	__atomic_store_n(&x->done, 0, __ATOMIC_RELAXED);
}

void complete(struct completion *x)
{
	completion_lock(x);
	if (x->done != UINT_MAX)
		__atomic_store_n(&x->done, x->done + 1, __ATOMIC_RELEASE);
	completion_unlock(x);
}

void complete_all(struct completion *x)
{
	completion_lock(x);
	__atomic_store_n(&x->done, UINT_MAX, __ATOMIC_RELEASE);
	completion_unlock(x);
}

static void take_done(struct completion *x)
{
	if (x->done != UINT_MAX)
		__atomic_store_n(&x->done, x->done - 1, __ATOMIC_RELAXED);
}

void sim_wait_for_completion(struct completion *x, const char *file, int line,
			     const char *func)
{
	sim_might_sleep(file, line, func);
	if (!completion_done(x))
		sim_before_sleep();
	if (sim_engine_kind() == SIM_ENGINE_THREADED) {
		pthread_mutex_lock(&x->wait.lock);
		while (!x->done)
			pthread_cond_wait(&x->wait.cond, &x->wait.lock);
		take_done(x);
		pthread_mutex_unlock(&x->wait.lock);
		return;
	}
	while (!__atomic_load_n(&x->done, __ATOMIC_ACQUIRE))
		if (!sim_engine_step())
			sim_engine_deadlock(file, line, func);
	take_done(x); /* deterministic: one thread, no lock (see above) */
}

bool try_wait_for_completion(struct completion *x)
{
	bool ret = false;

	if (sim_engine_threaded())
		pthread_mutex_lock(&x->wait.lock);
	if (x->done) {
		take_done(x);
		ret = true;
	}
	if (sim_engine_threaded())
		pthread_mutex_unlock(&x->wait.lock);
	return ret;
}

bool completion_done(struct completion *x)
{
	return __atomic_load_n(&x->done, __ATOMIC_ACQUIRE) != 0;
}
