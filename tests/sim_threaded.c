// SPDX-License-Identifier: GPL-2.0-only
/*
 * The threaded engine: interrupt events run on interrupt threads in
 * hard-IRQ context, work on worker threads, waits really sleep, and the
 * per-CPU and lazy-initialisation patterns the kernel relies on hold with
 * real concurrency.  Run under TSan in CI.
 */
#include <pthread.h>
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/workqueue.h>
#include <sim/stats.h>
#include "harness.h"

static struct completion done;
static pthread_t irq_thread_id;
static bool irq_saw_hardirq;
static int irq_cpu;

static void irq_fn(struct sim_event *ev)
{
	irq_thread_id = pthread_self();
	irq_saw_hardirq = in_hardirq();
	irq_cpu = raw_smp_processor_id();
	complete(&done);
}

START_TEST(test_irq_event_on_irq_thread)
{
	struct sim_event ev = { .fn = irq_fn,
				.ctx = SIM_CTX_HARDIRQ,
				.cpu = 3 };

	init_completion(&done);
	sim_event_post(&ev);
	wait_for_completion(&done);
	ck_assert(irq_saw_hardirq);
	ck_assert(!pthread_equal(irq_thread_id, pthread_self()));
	ck_assert_int_eq(irq_cpu, 3);
	ck_assert(in_task());
}
END_TEST

static pthread_t worker_id;
static bool worker_flag;

static void work_fn(struct work_struct *w)
{
	worker_id = pthread_self();
	worker_flag = current->flags & PF_WQ_WORKER;
	complete(&done);
}

START_TEST(test_work_on_worker_thread)
{
	struct workqueue_struct *wq = alloc_workqueue("thr", 0, 0);
	struct work_struct w;

	init_completion(&done);
	INIT_WORK(&w, work_fn);
	queue_work(wq, &w);
	wait_for_completion(&done);
	flush_workqueue(wq);
	ck_assert(worker_flag);
	ck_assert(!pthread_equal(worker_id, pthread_self()));
	destroy_workqueue(wq);
}
END_TEST

#define CHAIN 200
static struct workqueue_struct *chain_wq;
static struct work_struct chain_work[CHAIN];
static struct sim_event chain_ev[CHAIN];
static int chain_done;

static void chain_work_fn(struct work_struct *w)
{
	__atomic_fetch_add(&chain_done, 1, __ATOMIC_RELAXED);
}

static void chain_irq_fn(struct sim_event *ev)
{
	int i = ev - chain_ev;

	/* an interrupt that punts its completion to a worker */
	queue_work(chain_wq, &chain_work[i]);
}

START_TEST(test_drain_waits_for_irq_then_work)
{
	chain_wq = alloc_workqueue("chain", 0, 0);
	chain_done = 0;
	for (int i = 0; i < CHAIN; i++) {
		INIT_WORK(&chain_work[i], chain_work_fn);
		chain_ev[i] = (struct sim_event){ .fn = chain_irq_fn,
						  .ctx = SIM_CTX_HARDIRQ,
						  .cpu = i % 4 };
		sim_event_post(&chain_ev[i]);
	}
	sim_engine_drain();
	ck_assert_int_eq(__atomic_load_n(&chain_done, __ATOMIC_RELAXED), CHAIN);
	ck_assert_int_eq(sim_work_outstanding(), 0);
	destroy_workqueue(chain_wq);
}
END_TEST

#define RACERS 8
static struct super_block race_sb = { .s_id = "race" };
static pthread_barrier_t barrier;

static void *racer(void *arg)
{
	long ret;

	pthread_barrier_wait(&barrier);
	ret = sb_init_dio_done_wq(&race_sb);
	return (void *)ret;
}

START_TEST(test_dio_done_wq_creation_race)
{
	pthread_t t[RACERS];

	race_sb.s_dio_done_wq = NULL;
	pthread_barrier_init(&barrier, NULL, RACERS);
	for (int i = 0; i < RACERS; i++)
		pthread_create(&t[i], NULL, racer, NULL);
	for (int i = 0; i < RACERS; i++) {
		void *ret;

		pthread_join(t[i], &ret);
		ck_assert_int_eq((long)ret, 0);
	}
	pthread_barrier_destroy(&barrier);
	/* exactly one queue installed; the losers freed theirs (gauges) */
	ck_assert_ptr_nonnull(race_sb.s_dio_done_wq);
	ck_assert_int_eq(sim_stat_get("sb_dio_done_wq_created"), 1);
	sb_destroy_dio_done_wq(&race_sb);
}
END_TEST

#define PCPU_THREADS 4
#define PCPU_ITERS 20000
static long *pcpu_counter;

static void *pcpu_worker(void *arg)
{
	sim_task_attach("pcpu", 1); /* all on simulated CPU 1 */
	for (int i = 0; i < PCPU_ITERS; i++) {
		long *c = per_cpu_ptr(pcpu_counter, get_cpu());
		long v =
			*c; /* a plain read-modify-write, as per-CPU code does */

		*c = v + 1;
		put_cpu();
	}
	sim_task_detach();
	return NULL;
}

START_TEST(test_percpu_exclusive_under_preempt_disable)
{
	pthread_t t[PCPU_THREADS];

	pcpu_counter = alloc_percpu(long);
	for (int i = 0; i < PCPU_THREADS; i++)
		pthread_create(&t[i], NULL, pcpu_worker, NULL);
	for (int i = 0; i < PCPU_THREADS; i++)
		pthread_join(t[i], NULL);
	ck_assert_int_eq(*per_cpu_ptr(pcpu_counter, 1),
			 PCPU_THREADS * PCPU_ITERS);
	free_percpu(pcpu_counter);
}
END_TEST

static struct task_struct *sleeper;
static int wake_flag;

static void wake_irq(struct sim_event *ev)
{
	__atomic_store_n(&wake_flag, 1, __ATOMIC_SEQ_CST);
	wake_up_process(sleeper);
}

START_TEST(test_schedule_and_wake_across_threads)
{
	struct sim_event ev = { .fn = wake_irq,
				.ctx = SIM_CTX_HARDIRQ,
				.cpu = -1 };

	sleeper = current;
	wake_flag = 0;
	set_current_state(TASK_UNINTERRUPTIBLE);
	sim_event_post(&ev);
	/* the generic DIO waiter's loop: recheck the condition each time */
	while (!__atomic_load_n(&wake_flag, __ATOMIC_SEQ_CST)) {
		schedule();
		set_current_state(TASK_UNINTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	ck_assert_int_eq(wake_flag, 1);
}
END_TEST

static DEFINE_MUTEX(shared_mutex);
static long shared_value;

static void *mutex_worker(void *arg)
{
	for (int i = 0; i < 5000; i++) {
		mutex_lock(&shared_mutex);
		shared_value++;
		mutex_unlock(&shared_mutex);
	}
	sim_task_detach();
	return NULL;
}

START_TEST(test_mutex_excludes_threads)
{
	pthread_t t[4];

	shared_value = 0;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, mutex_worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	ck_assert_int_eq(shared_value, 20000);
}
END_TEST

static Suite *threaded_suite(void)
{
	return sim_suite("threaded", sim_tcase_threaded("threaded"),
			 test_irq_event_on_irq_thread,
			 test_work_on_worker_thread,
			 test_drain_waits_for_irq_then_work,
			 test_dio_done_wq_creation_race,
			 test_percpu_exclusive_under_preempt_disable,
			 test_schedule_and_wake_across_threads,
			 test_mutex_excludes_threads);
}

SIM_TEST_MAIN(threaded_suite)
