// SPDX-License-Identifier: GPL-2.0-only
/*
 * The deterministic engine: the same seed gives the same trace, bit for
 * bit; other seeds can give other orders; policies order events as
 * documented; waits run pending events; a wait nothing can satisfy is a
 * reported deadlock.
 */
#include <setjmp.h>
#include <string.h>
#include <linux/completion.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/workqueue.h>
#include <sim/report.h>
#include <sim/trace.h>
#include "harness.h"

#define NR_EV 12

struct tev {
	struct sim_event ev;
	struct work_struct work;
	int id;
};

static struct tev evs[NR_EV];
static int ran[NR_EV * 2];
static int ran_cpu[NR_EV];
static int nr_ran;
static struct workqueue_struct *wq;

static void tev_work(struct work_struct *w)
{
	struct tev *t = container_of(w, struct tev, work);

	sim_trace("test_work", "id=%d", t->id);
	ran[nr_ran++] = 100 + t->id;
}

static void tev_irq(struct sim_event *ev)
{
	struct tev *t = container_of(ev, struct tev, ev);

	sim_trace("test_irq", "id=%d", t->id);
	ran_cpu[t->id] = raw_smp_processor_id();
	ran[nr_ran++] = t->id;
	/* every third completion needs process context, like an error */
	if (t->id % 3 == 0)
		queue_work(wq, &t->work);
}

/* Post NR_EV interrupt events from task context and drain; return the
 * trace hash of the run. */
static u64 scenario(u64 seed, enum sim_sched_policy policy)
{
	struct sim_engine_opts o = { .kind = SIM_ENGINE_DET,
				     .seed = seed,
				     .policy = policy,
				     .nr_cpus = 4 };

	ck_assert_int_eq(sim_engine_init(&o), 0);
	sim_trace_reset();
	nr_ran = 0;
	wq = alloc_workqueue("scn", 0, 0);
	for (int i = 0; i < NR_EV; i++) {
		evs[i] = (struct tev){ .id = i };
		evs[i].ev.fn = tev_irq;
		evs[i].ev.ctx = SIM_CTX_HARDIRQ;
		evs[i].ev.cpu = -1;
		INIT_WORK(&evs[i].work, tev_work);
		sim_event_post(&evs[i].ev);
	}
	ck_assert_int_eq(sim_engine_pending(), NR_EV);
	sim_engine_drain();
	ck_assert_int_eq(sim_engine_pending(), 0);
	destroy_workqueue(wq);
	return sim_trace_hash();
}

START_TEST(test_same_seed_same_trace)
{
	u64 a = scenario(7, SIM_SCHED_RANDOM);
	u64 na = sim_trace_count();
	int order_a[NR_EV * 2];
	u64 b;

	memcpy(order_a, ran, sizeof(ran));
	b = scenario(7, SIM_SCHED_RANDOM);
	ck_assert_uint_eq(a, b);
	ck_assert_uint_eq(na, sim_trace_count());
	ck_assert_mem_eq(order_a, ran, sizeof(ran));
}
END_TEST

START_TEST(test_other_seeds_other_orders)
{
	u64 first = scenario(1, SIM_SCHED_RANDOM);
	bool differs = false;

	for (u64 seed = 2; seed < 10 && !differs; seed++)
		differs = scenario(seed, SIM_SCHED_RANDOM) != first;
	ck_assert(differs);
}
END_TEST

START_TEST(test_irq_policy_is_fifo_on_posting_cpu)
{
	scenario(3, SIM_SCHED_IRQ);
	/* interrupts in posting order, each work after its interrupt batch */
	for (int i = 0; i < NR_EV; i++) {
		ck_assert_int_eq(ran[i], i);
		ck_assert_int_eq(ran_cpu[i], 0);
	}
	ck_assert_int_eq(nr_ran, NR_EV + NR_EV / 3);
}
END_TEST

START_TEST(test_random_policy_uses_other_cpus)
{
	bool other_cpu = false;

	scenario(11, SIM_SCHED_RANDOM);
	for (int i = 0; i < NR_EV; i++)
		other_cpu |= ran_cpu[i] != 0;
	ck_assert(other_cpu);
	ck_assert_int_eq(nr_ran, NR_EV + NR_EV / 3);
}
END_TEST

START_TEST(test_deferred_policy_reverses)
{
	scenario(5, SIM_SCHED_DEFERRED);
	/* newest first: the last interrupt runs first */
	ck_assert_int_eq(ran[0], NR_EV - 1);
}
END_TEST

static struct completion done;

static void complete_fn(struct sim_event *ev)
{
	complete(&done);
}

START_TEST(test_wait_runs_pending_events)
{
	struct sim_event ev = { .fn = complete_fn,
				.ctx = SIM_CTX_HARDIRQ,
				.cpu = -1 };

	init_completion(&done);
	sim_event_post(&ev);
	ck_assert(!completion_done(&done));
	wait_for_completion(&done);
	ck_assert_int_eq(sim_engine_pending(), 0);
	ck_assert(!try_wait_for_completion(&done));
}
END_TEST

static jmp_buf deadlock_jmp;

static void leave_wait(void)
{
	longjmp(deadlock_jmp, 1);
}

START_TEST(test_deadlock_reported)
{
	init_completion(&done);
	sim_test_expect_deadlocks(1);
	sim_engine_set_deadlock_hook(leave_wait);
	if (!setjmp(deadlock_jmp)) {
		wait_for_completion(&done);
		ck_abort_msg("a wait with nothing to run returned");
	}
	sim_engine_set_deadlock_hook(NULL);
	ck_assert_int_eq(sim_deadlocks(), 1);
	ck_assert_ptr_nonnull(strstr(sim_report_last(), "blocked for ever"));
}
END_TEST

static struct task_struct *sleeper;

static void wake_fn(struct sim_event *ev)
{
	wake_up_process(sleeper);
}

START_TEST(test_schedule_until_woken)
{
	struct sim_event ev = { .fn = wake_fn,
				.ctx = SIM_CTX_HARDIRQ,
				.cpu = -1 };

	sleeper = current;
	sim_event_post(&ev);
	set_current_state(TASK_UNINTERRUPTIBLE);
	schedule();
	ck_assert_uint_eq(current->__state, TASK_RUNNING);
	ck_assert_int_eq(sim_engine_pending(), 0);
}
END_TEST

struct fake_source {
	struct sim_source src;
	struct sim_event ev;
	int inflight;
	int polls_waiting;
};

static int fake_poll(struct sim_source *src, bool wait)
{
	struct fake_source *f = container_of(src, struct fake_source, src);

	if (!wait || !f->inflight)
		return 0;
	f->polls_waiting++;
	f->inflight--;
	sim_event_post(&f->ev);
	return 1;
}

static long fake_inflight(struct sim_source *src)
{
	return container_of(src, struct fake_source, src)->inflight;
}

/* A source with one request in flight, whose completion completes done. */
static void fake_source_start(struct fake_source *f)
{
	*f = (struct fake_source){
		.src = { .poll = fake_poll, .inflight = fake_inflight },
		.ev = { .fn = complete_fn, .ctx = SIM_CTX_HARDIRQ, .cpu = -1 },
		.inflight = 1,
	};
	init_completion(&done);
	sim_engine_add_source(&f->src);
}

START_TEST(test_external_source_polled_when_idle)
{
	struct fake_source f;

	fake_source_start(&f);
	wait_for_completion(&done);
	sim_engine_remove_source(&f.src);
	ck_assert_int_eq(f.polls_waiting, 1);
	ck_assert_int_eq(f.inflight, 0);
}
END_TEST

START_TEST(test_settle_does_not_wait_on_sources)
{
	struct fake_source f;

	fake_source_start(&f);
	sim_engine_settle(); /* no time passes: the source is not waited on */
	ck_assert_int_eq(f.polls_waiting, 0);
	ck_assert(!completion_done(&done));
	sim_engine_drain(); /* time passes: the source completes its work */
	sim_engine_remove_source(&f.src);
	ck_assert_int_eq(f.polls_waiting, 1);
	ck_assert(completion_done(&done));
}
END_TEST

START_TEST(test_task_cpu_migration)
{
	int old = sim_task_set_cpu(2);

	ck_assert_int_eq(old, 0);
	ck_assert_int_eq(smp_processor_id(), 2);
	ck_assert_int_eq(current->cpu, 2);
	sim_task_set_cpu(old);
	ck_assert_int_eq(nr_cpu_ids, 4);
}
END_TEST

static Suite *engine_suite(void)
{
	return sim_suite("engine", sim_tcase("det"), test_same_seed_same_trace,
			 test_other_seeds_other_orders,
			 test_irq_policy_is_fifo_on_posting_cpu,
			 test_random_policy_uses_other_cpus,
			 test_deferred_policy_reverses,
			 test_wait_runs_pending_events, test_deadlock_reported,
			 test_schedule_until_woken,
			 test_external_source_polled_when_idle,
			 test_settle_does_not_wait_on_sources,
			 test_task_cpu_migration);
}

SIM_TEST_MAIN(engine_suite)
