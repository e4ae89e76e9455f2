// SPDX-License-Identifier: GPL-2.0-only
/*
 * The threaded engine: hard-IRQ events run on interrupt threads (one per
 * simulated CPU by default), each event on the CPU it was posted for;
 * workqueues run their own worker threads (workqueue.c).  Waits are real.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/errno.h>
#include <linux/smp.h>
#include <linux/workqueue.h>
#include "internal.h"

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* work for the interrupt threads */
	pthread_cond_t idle; /* drain waiters */
	struct sim_event *head, *tail;
	long running;
	bool stopping;
	unsigned int nr_threads;
	pthread_t *threads;
} thr = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.idle = PTHREAD_COND_INITIALIZER,
};

static void *irq_thread(void *arg)
{
	pthread_mutex_lock(&thr.lock);
	for (;;) {
		struct sim_event *ev;

		while (!thr.head && !thr.stopping)
			pthread_cond_wait(&thr.cond, &thr.lock);
		if (!thr.head)
			break;
		ev = thr.head;
		thr.head = ev->next;
		if (!thr.head)
			thr.tail = NULL;
		thr.running++;
		pthread_mutex_unlock(&thr.lock);

		sim_engine_run_event(ev, ev->ctx, ev->cpu, NULL);
		sim_engine_event_done();

		pthread_mutex_lock(&thr.lock);
		thr.running--;
		if (!thr.head && !thr.running)
			pthread_cond_broadcast(&thr.idle);
	}
	pthread_mutex_unlock(&thr.lock);
	return NULL;
}

int sim_thr_start(unsigned int nr_threads)
{
	thr.stopping = false;
	thr.head = thr.tail = NULL;
	thr.running = 0;
	thr.threads = calloc(nr_threads, sizeof(*thr.threads));
	if (!thr.threads)
		return -ENOMEM;
	for (thr.nr_threads = 0; thr.nr_threads < nr_threads;
	     thr.nr_threads++) {
		char comm[TASK_COMM_LEN];
		unsigned int i = thr.nr_threads;

		snprintf(comm, sizeof(comm), "irq/%u", i);
		if (sim_thread_create(&thr.threads[i], comm,
				      (int)(i % nr_cpu_ids), SIM_CTX_HARDIRQ,
				      irq_thread, NULL)) {
			sim_thr_stop();
			return -ENOMEM;
		}
	}
	return 0;
}

void sim_thr_stop(void)
{
	pthread_mutex_lock(&thr.lock);
	thr.stopping = true;
	pthread_cond_broadcast(&thr.cond);
	pthread_mutex_unlock(&thr.lock);
	for (unsigned int i = 0; i < thr.nr_threads; i++)
		pthread_join(thr.threads[i], NULL);
	free(thr.threads);
	thr.threads = NULL;
	thr.nr_threads = 0;
}

void sim_thr_post(struct sim_event *ev)
{
	ev->next = NULL;
	pthread_mutex_lock(&thr.lock);
	if (thr.tail)
		thr.tail->next = ev;
	else
		thr.head = ev;
	thr.tail = ev;
	pthread_cond_signal(&thr.cond);
	pthread_mutex_unlock(&thr.lock);
}

/* Wait until interrupt events and work items have all run (they may post
 * each other, so loop until both are quiet at once). */
void sim_thr_drain(void)
{
	for (;;) {
		pthread_mutex_lock(&thr.lock);
		while (thr.head || thr.running)
			pthread_cond_wait(&thr.idle, &thr.lock);
		pthread_mutex_unlock(&thr.lock);
		if (sim_work_outstanding()) {
			sim_workqueues_flush_all();
			continue;
		}
		if (!sim_engine_pending())
			return;
		sched_yield();
	}
}

static int thr_start(const struct sim_engine_opts *opts)
{
	return sim_thr_start(opts->nr_irq_threads ?: opts->nr_cpus);
}

/* the engine's threads run the events: a caller has none to step */
static bool thr_step(void)
{
	return false;
}

const struct sim_engine_ops sim_thr_ops = {
	.start = thr_start,
	.stop = sim_thr_stop,
	.post = sim_thr_post,
	.step = thr_step,
	.drain = sim_thr_drain,
	.settle = sim_thr_drain,
};
