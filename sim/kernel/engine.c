// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine interface shared by the deterministic and threaded engines
 * (see <sim/engine.h>).
 */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/workqueue.h>
#include <sim/report.h>
#include <sim/trace.h>
#include "internal.h"

struct sim_engine_state sim_eng = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.ops = &sim_det_ops,
};
static void (*deadlock_hook)(void);
bool sim_engine_threads;

/* The engine's own counters; see sim_engine_threaded(). */
static void eng_lock(void)
{
	if (sim_engine_threaded())
		pthread_mutex_lock(&sim_eng.lock);
}

static void eng_unlock(void)
{
	if (sim_engine_threaded())
		pthread_mutex_unlock(&sim_eng.lock);
}

int sim_engine_init(const struct sim_engine_opts *opts)
{
	struct sim_engine_opts o = { 0 };
	bool keep_wqs = false;

	if (opts)
		o = *opts;
	if (!o.nr_cpus)
		o.nr_cpus = 4;
	if (o.nr_cpus > NR_CPUS)
		return -EINVAL;
	/*
	 * Deterministic again, on as many CPUs: run out what is queued and
	 * keep the system workqueues (idle now, no threads) instead of
	 * making them again; the runner starts an engine per request.
	 */
	if (sim_eng.running && sim_eng.kind == SIM_ENGINE_DET &&
	    o.kind == SIM_ENGINE_DET && nr_cpu_ids == o.nr_cpus) {
		sim_engine_drain();
		sim_tasks_reap();
		keep_wqs = true;
	} else if (sim_eng.running) {
		sim_engine_exit();
	}
	nr_cpu_ids = o.nr_cpus;
	sim_eng.kind = o.kind;
	sim_eng.ops = o.kind == SIM_ENGINE_THREADED ? &sim_thr_ops :
						      &sim_det_ops;
	sim_eng.policy = o.policy;
	sim_eng.seed = o.seed;
	sim_rand_seed(&sim_eng.rng, o.seed);
	sim_eng.pending = 0;
	sim_eng.seq = 0;
	sim_det_reset();
	sim_eng.running = true;
	/* The calling thread is task context on CPU 0. */
	if (sim_cpu >= (int)nr_cpu_ids)
		sim_task_set_cpu(0);
	__atomic_store_n(&sim_engine_threads, o.kind == SIM_ENGINE_THREADED,
			 __ATOMIC_RELAXED);
	if (sim_eng.ops->start) {
		int ret = sim_eng.ops->start(&o);

		if (ret)
			return ret;
	}
	return keep_wqs ? 0 : sim_workqueues_init();
}

void sim_engine_ensure(void)
{
	if (unlikely(!__atomic_load_n(&sim_eng.running, __ATOMIC_ACQUIRE)))
		sim_engine_init(NULL);
}

void sim_engine_exit(void)
{
	if (!sim_eng.running)
		return;
	sim_engine_drain();
	sim_workqueues_exit();
	if (sim_eng.ops->stop)
		sim_eng.ops->stop();
	sim_tasks_reap();
	sim_eng.running = false;
	sim_eng.kind = SIM_ENGINE_DET;
	sim_eng.ops = &sim_det_ops;
	__atomic_store_n(&sim_engine_threads, false, __ATOMIC_RELAXED);
}

bool sim_engine_running(void)
{
	return sim_eng.running;
}

enum sim_engine_kind sim_engine_kind(void)
{
	return sim_eng.kind;
}

u64 sim_engine_seed(void)
{
	return sim_eng.seed;
}

void sim_engine_set_policy(enum sim_sched_policy policy)
{
	sim_eng.policy = policy;
}

void sim_event_post(struct sim_event *ev)
{
	sim_engine_ensure();
	eng_lock();
	ev->seq = sim_eng.seq++;
	sim_eng.pending++;
	eng_unlock();
	if (ev->cpu < 0 && ev->ctx == SIM_CTX_HARDIRQ)
		ev->cpu = raw_smp_processor_id(); /* complete where submitted */
	sim_eng.ops->post(ev);
}

void sim_engine_event_done(void)
{
	eng_lock();
	sim_eng.pending--;
	eng_unlock();
}

long sim_engine_pending(void)
{
	long n;

	eng_lock();
	n = sim_eng.pending;
	eng_unlock();
	return n;
}

void sim_engine_run_event(struct sim_event *ev, enum sim_context ctx, int cpu,
			  struct task_struct *as)
{
	enum sim_context old_ctx = sim_ctx;
	int old_cpu = sim_cpu;
	struct task_struct *old_task = NULL;

	if (as)
		old_task = sim_set_current(as);
	sim_ctx = ctx;
	if (cpu >= 0)
		sim_cpu = cpu;
	ev->fn(ev);
	sim_ctx = old_ctx;
	sim_cpu = old_cpu;
	if (as)
		sim_set_current(old_task);
}

void sim_event_run_now(struct sim_event *ev, enum sim_context ctx)
{
	sim_engine_ensure();
	sim_engine_run_event(ev, ctx, -1, NULL);
}

bool sim_engine_step(void)
{
	sim_engine_ensure();
	return sim_eng.ops->step();
}

void sim_engine_drain(void)
{
	if (!sim_eng.running)
		return;
	sim_eng.ops->drain();
}

void sim_engine_settle(void)
{
	if (!sim_eng.running)
		return;
	sim_eng.ops->settle();
}

void sim_engine_add_source(struct sim_source *src)
{
	pthread_mutex_lock(&sim_eng.lock);
	src->next = sim_eng.sources;
	sim_eng.sources = src;
	pthread_mutex_unlock(&sim_eng.lock);
}

void sim_engine_remove_source(struct sim_source *src)
{
	struct sim_source **pp;

	pthread_mutex_lock(&sim_eng.lock);
	for (pp = &sim_eng.sources; *pp; pp = &(*pp)->next) {
		if (*pp == src) {
			*pp = src->next;
			break;
		}
	}
	pthread_mutex_unlock(&sim_eng.lock);
}

void sim_engine_set_deadlock_hook(void (*hook)(void))
{
	deadlock_hook = hook;
}

void sim_engine_deadlock(const char *file, int line, const char *func)
{
	sim_deadlock(file, line, func);
	if (deadlock_hook)
		deadlock_hook();
	/* nothing can ever wake this waiter: stop here, loudly */
	abort();
}

struct thread_start {
	char comm[TASK_COMM_LEN];
	int cpu;
	enum sim_context ctx;
	void *(*fn)(void *);
	void *arg;
};

static void *thread_trampoline(void *p)
{
	struct thread_start st = *(struct thread_start *)p;

	free(p);
	sim_task_attach(st.comm, st.cpu);
	sim_ctx = st.ctx;
	return st.fn(st.arg);
}

int sim_thread_create(pthread_t *thr, const char *comm, int cpu,
		      enum sim_context ctx, void *(*fn)(void *), void *arg)
{
	struct thread_start *st = calloc(1, sizeof(*st));
	int ret;

	if (!st)
		return -ENOMEM;
	snprintf(st->comm, sizeof(st->comm), "%s", comm);
	st->cpu = cpu;
	st->ctx = ctx;
	st->fn = fn;
	st->arg = arg;
	ret = pthread_create(thr, NULL, thread_trampoline, st);
	if (ret) {
		free(st);
		return -ret;
	}
	return 0;
}
