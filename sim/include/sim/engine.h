/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The two engines behind one interface (docs/architecture.md, principle 2).
 *
 * Kernel code never calls the engine directly: it posts events (a bio
 * completion to run in hard-IRQ context, a work item to run in a worker)
 * and sleeps in the wait primitives.  The deterministic engine runs
 * everything on the calling OS thread: events wait in a queue until some
 * task sleeps (a wait runs the next event until its condition holds) or
 * the issuer calls sim_engine_drain(); which event runs next, and on which
 * simulated CPU, is decided by the policy and a seeded PRNG, so a seed
 * replays bit for bit.  The threaded engine runs hard-IRQ events on
 * interrupt threads and work on worker threads, and waits for real.
 */
#ifndef _SIM_ENGINE_H
#define _SIM_ENGINE_H

#include <pthread.h>
#include <linux/preempt.h>
#include <linux/types.h>

enum sim_engine_kind {
	SIM_ENGINE_DET = 0,
	SIM_ENGINE_THREADED,
};

/*
 * When the deterministic engine runs posted interrupt events:
 *  IRQ      - first posted, first run, on the posting CPU, when a task waits
 *             or the issuer drains;
 *  DEFERRED - as late as possible: only when nothing else is pending, and
 *             newest first (completions reversed);
 *  RANDOM   - any pending event, on any CPU, chosen by the seed.
 * (Completion inside submit_bio is the block layer's "inline" policy.)
 */
enum sim_sched_policy {
	SIM_SCHED_IRQ = 0,
	SIM_SCHED_DEFERRED,
	SIM_SCHED_RANDOM,
};

struct sim_engine_opts {
	enum sim_engine_kind kind;
	enum sim_sched_policy policy;
	u64 seed;
	unsigned int nr_cpus; /* simulated CPUs, default 4 */
	unsigned int nr_irq_threads; /* threaded: interrupt threads */
};

struct sim_event {
	struct sim_event *next;
	void (*fn)(struct sim_event *ev);
	enum sim_context ctx; /* context fn runs in */
	int cpu; /* CPU to run on, -1: engine's choice */
	u64 seq;
	void *owner; /* the workqueue, for work events */
};

int sim_engine_init(const struct sim_engine_opts *opts);

/*
 * Whether two real threads can meet in simulated code: only under the
 * threaded engine.  The deterministic engine runs every task, interrupt
 * and worker on one OS thread, and an event never runs in the middle of
 * another piece of code (only where a task waits or the issuer steps), so
 * a lock there excludes no one.  A shim whose lock stands for no kernel
 * lock, or for one that only excludes other CPUs and interrupts, takes it
 * only when this is true.
 */
extern bool sim_engine_threads;
static inline bool sim_engine_threaded(void)
{
	return __atomic_load_n(&sim_engine_threads, __ATOMIC_RELAXED);
}
/* Drains pending events, stops threads, keeps accounting for reports. */
void sim_engine_exit(void);
bool sim_engine_running(void);
enum sim_engine_kind sim_engine_kind(void);
u64 sim_engine_seed(void);
void sim_engine_set_policy(enum sim_sched_policy policy);

/*
 * Post @ev: ev->fn(ev) runs later in ev->ctx.  A hard-IRQ event may be
 * posted from any context; workqueue.c posts work with ctx TASK.
 */
void sim_event_post(struct sim_event *ev);
/* Run fn(ev) right now on this thread in context @ctx (an "interrupt"). */
void sim_event_run_now(struct sim_event *ev, enum sim_context ctx);

/* Deterministic engine: run one pending event; false if none could run. */
bool sim_engine_step(void);
/*
 * Run until nothing is pending (det) or everything posted has run.  In the
 * deterministic engine this includes waiting on external sources, and so
 * lets time pass: a source with work in flight may complete it or time it
 * out (a polled bio nobody polls, see block/blk-core.c).
 */
void sim_engine_drain(void);
/*
 * Deterministic engine: run what is ready now (posted events, completions
 * sources already have) without letting time pass.  Threaded: a drain.
 */
void sim_engine_settle(void);
/* Events posted but not yet run. */
long sim_engine_pending(void);

/*
 * External completion sources (an io_uring ring) for the deterministic
 * engine: when no event is ready, the engine polls each source; @wait asks
 * the source to block until it has posted at least one event.  Returns the
 * number of events posted.
 */
struct sim_source {
	int (*poll)(struct sim_source *src, bool wait);
	long (*inflight)(struct sim_source *src);
	struct sim_source *next;
};
void sim_engine_add_source(struct sim_source *src);
void sim_engine_remove_source(struct sim_source *src);

/*
 * Move the calling task to simulated CPU @cpu (tests use it to free a bio
 * on another CPU than the one that allocated it).  Returns the old CPU.
 */
int sim_task_set_cpu(int cpu);

/*
 * The deterministic engine found a wait nothing can satisfy.  By default
 * that is reported (sim_deadlocks()) and the process aborts, since the
 * waiter can never continue; a test expecting it installs a hook that
 * leaves the wait (longjmp).
 */
void sim_engine_set_deadlock_hook(void (*hook)(void));

/* Thread creation for engine-owned threads (irq, workers, reapers). */
int sim_thread_create(pthread_t *thr, const char *comm, int cpu,
		      enum sim_context ctx, void *(*fn)(void *), void *arg);

#endif /* _SIM_ENGINE_H */
