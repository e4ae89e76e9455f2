// SPDX-License-Identifier: GPL-2.0-only
/*
 * The deterministic engine: one OS thread, a queue of posted events, and a
 * seeded choice of which runs next and on which simulated CPU.  Nothing
 * here reads a clock or depends on addresses, so a seed replays exactly.
 */
#include <linux/smp.h>
#include <sim/trace.h>
#include "internal.h"

#define DET_MAX_QUEUE 65536 /* a power of two */

/*
 * Posted events in posting order, as a ring: the IRQ policy takes the
 * oldest and DEFERRED the newest without moving the others, so a deep
 * queue (a benchmark's 256 requests in flight) costs the same per event
 * as a shallow one.
 */
static struct sim_event *queue[DET_MAX_QUEUE];
static unsigned int q_head, nr_queued;

static struct sim_event **slot(unsigned int i)
{
	return &queue[(q_head + i) & (DET_MAX_QUEUE - 1)];
}

void sim_det_reset(void)
{
	q_head = 0;
	nr_queued = 0;
}

void sim_det_post(struct sim_event *ev)
{
	BUG_ON(nr_queued >= DET_MAX_QUEUE);
	*slot(nr_queued++) = ev;
}

/* Take the @i-th oldest event out, the others keeping their order. */
static struct sim_event *take(unsigned int i)
{
	struct sim_event *ev = *slot(i);
	unsigned int k;

	if (i < nr_queued / 2) {
		/* the older ones move up one */
		for (k = i; k > 0; k--)
			*slot(k) = *slot(k - 1);
		q_head = (q_head + 1) & (DET_MAX_QUEUE - 1);
	} else {
		for (k = i; k + 1 < nr_queued; k++)
			*slot(k) = *slot(k + 1);
	}
	nr_queued--;
	return ev;
}

static struct sim_event *pick(int *cpu)
{
	unsigned int i;
	struct sim_event *ev;

	if (!nr_queued)
		return NULL;
	switch (sim_eng.policy) {
	case SIM_SCHED_DEFERRED:
		i = nr_queued - 1;
		break;
	case SIM_SCHED_RANDOM:
		i = (unsigned int)sim_rand_below(&sim_eng.rng, nr_queued);
		break;
	default:
		i = 0;
		break;
	}
	ev = take(i);

	*cpu = ev->cpu;
	if (sim_eng.policy == SIM_SCHED_RANDOM)
		*cpu = (int)sim_rand_below(&sim_eng.rng, nr_cpu_ids);
	else if (*cpu < 0)
		*cpu = raw_smp_processor_id();
	return ev;
}

/* Let external sources (io_uring rings) post what has completed. */
static bool poll_sources(bool wait)
{
	struct sim_source *src;
	int posted = 0;

	for (src = sim_eng.sources; src; src = src->next)
		posted += src->poll(src, false);
	if (posted || !wait)
		return posted > 0;
	for (src = sim_eng.sources; src; src = src->next) {
		if (src->inflight(src) > 0) {
			posted += src->poll(src, true);
			if (posted)
				break;
		}
	}
	return posted > 0;
}

static bool det_step(bool may_wait)
{
	struct sim_event *ev;
	struct task_struct *as = NULL;
	int cpu;

	if (!nr_queued && !poll_sources(false) &&
	    (!may_wait || !poll_sources(true)))
		return false;
	ev = pick(&cpu);
	if (!ev)
		return false;
	if (ev->owner)
		as = sim_wq_worker(ev->owner);
	sim_trace("sched_event", "seq=%llu ctx=%d cpu=%d",
		  (unsigned long long)ev->seq, ev->ctx, cpu);
	sim_engine_event_done();
	sim_engine_run_event(ev, ev->ctx, cpu, as);
	return true;
}

bool sim_det_step(void)
{
	return det_step(true);
}

void sim_det_settle(void)
{
	while (det_step(false))
		;
}

static void det_drain(void)
{
	while (sim_det_step())
		;
}

const struct sim_engine_ops sim_det_ops = {
	.post = sim_det_post,
	.step = sim_det_step,
	.drain = det_drain,
	.settle = sim_det_settle,
};
