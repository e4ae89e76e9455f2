// SPDX-License-Identifier: GPL-2.0-only
/*
 * Context checks: every sleeping primitive called from bio-completion
 * (hard-IRQ) context, soft-IRQ, or with a spinlock held is reported as
 * "sleeping function called from invalid context"; from a task or a
 * workqueue worker it is not.
 */
#include <string.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <sim/report.h>
#include "harness.h"

enum action {
	DO_MIGHT_SLEEP,
	DO_GFP_KERNEL,
	DO_GFP_ATOMIC,
	DO_MUTEX,
	DO_WAIT_COMPLETION,
	DO_FLUSH_WQ,
};

static enum action action;
static bool ran_in_task, ran_in_irq, ran_as_worker;
static struct workqueue_struct *test_wq;
static DEFINE_MUTEX(test_mutex);

static void do_action(void)
{
	ran_in_task = in_task();
	ran_in_irq = in_hardirq();
	ran_as_worker = current->flags & PF_WQ_WORKER;
	switch (action) {
	case DO_MIGHT_SLEEP:
		might_sleep();
		break;
	case DO_GFP_KERNEL:
		kfree(kmalloc(32, GFP_KERNEL));
		break;
	case DO_GFP_ATOMIC:
		kfree(kmalloc(32, GFP_ATOMIC));
		break;
	case DO_MUTEX:
		mutex_lock(&test_mutex);
		mutex_unlock(&test_mutex);
		break;
	case DO_WAIT_COMPLETION: {
		DECLARE_COMPLETION_ONSTACK(done);

		complete(&done);
		wait_for_completion(&done);
		break;
	}
	case DO_FLUSH_WQ:
		flush_workqueue(test_wq);
		break;
	}
}

static void irq_fn(struct sim_event *ev)
{
	do_action();
}

static void work_fn(struct work_struct *w)
{
	do_action();
}

static void run_in_irq(enum action a)
{
	struct sim_event ev = { .fn = irq_fn,
				.ctx = SIM_CTX_HARDIRQ,
				.cpu = -1 };

	action = a;
	sim_event_post(&ev);
	sim_engine_drain();
	ck_assert(ran_in_irq);
	ck_assert(!ran_in_task);
}

static void run_in_worker(enum action a)
{
	struct work_struct w;

	action = a;
	INIT_WORK(&w, work_fn);
	ck_assert(queue_work(system_wq, &w));
	sim_engine_drain();
	ck_assert(ran_in_task);
	ck_assert(ran_as_worker);
}

START_TEST(test_might_sleep_in_irq_reported)
{
	sim_test_expect_violations(1);
	run_in_irq(DO_MIGHT_SLEEP);
	ck_assert_int_eq(sim_context_violations(), 1);
	ck_assert_ptr_nonnull(strstr(sim_report_last(),
				     "sleeping function called from invalid "
				     "context"));
	ck_assert_ptr_nonnull(strstr(sim_report_last(), "do_action"));
}
END_TEST

START_TEST(test_gfp_kernel_in_irq_reported)
{
	sim_test_expect_violations(1);
	run_in_irq(DO_GFP_KERNEL);
	ck_assert_int_eq(sim_context_violations(), 1);
}
END_TEST

START_TEST(test_gfp_atomic_in_irq_allowed)
{
	run_in_irq(DO_GFP_ATOMIC);
	ck_assert_int_eq(sim_context_violations(), 0);
}
END_TEST

START_TEST(test_mutex_in_irq_reported)
{
	sim_test_expect_violations(1);
	run_in_irq(DO_MUTEX);
	ck_assert_int_eq(sim_context_violations(), 1);
}
END_TEST

START_TEST(test_wait_for_completion_in_irq_reported)
{
	sim_test_expect_violations(1);
	run_in_irq(DO_WAIT_COMPLETION);
	ck_assert_int_eq(sim_context_violations(), 1);
}
END_TEST

START_TEST(test_flush_workqueue_in_irq_reported)
{
	test_wq = alloc_workqueue("ctxtest", 0, 0);
	sim_test_expect_violations(1);
	run_in_irq(DO_FLUSH_WQ);
	ck_assert_int_eq(sim_context_violations(), 1);
	destroy_workqueue(test_wq);
}
END_TEST

START_TEST(test_sleeping_calls_in_worker_allowed)
{
	test_wq = alloc_workqueue("ctxtest", 0, 0);
	run_in_worker(DO_MIGHT_SLEEP);
	run_in_worker(DO_GFP_KERNEL);
	run_in_worker(DO_MUTEX);
	run_in_worker(DO_WAIT_COMPLETION);
	run_in_worker(DO_FLUSH_WQ);
	ck_assert_int_eq(sim_context_violations(), 0);
	destroy_workqueue(test_wq);
}
END_TEST

START_TEST(test_sleeping_calls_in_task_allowed)
{
	action = DO_GFP_KERNEL;
	do_action();
	action = DO_MUTEX;
	do_action();
	ck_assert(ran_in_task);
	ck_assert(!ran_as_worker);
	ck_assert_int_eq(sim_context_violations(), 0);
}
END_TEST

START_TEST(test_sleep_under_spinlock_reported)
{
	DEFINE_SPINLOCK(lock);

	sim_test_expect_violations(1);
	spin_lock(&lock);
	might_sleep();
	spin_unlock(&lock);
	ck_assert_int_eq(sim_context_violations(), 1);
	ck_assert(!in_atomic());
}
END_TEST

START_TEST(test_sleep_with_irqs_disabled_reported)
{
	unsigned long flags;

	sim_test_expect_violations(1);
	local_irq_save(flags);
	ck_assert(irqs_disabled());
	kfree(kmalloc(8, GFP_KERNEL));
	local_irq_restore(flags);
	ck_assert(!irqs_disabled());
	ck_assert_int_eq(sim_context_violations(), 1);
}
END_TEST

static void softirq_fn(struct sim_event *ev)
{
	ck_assert(in_softirq());
	ck_assert(in_interrupt());
	ck_assert(!in_hardirq());
	might_sleep();
}

START_TEST(test_might_sleep_in_softirq_reported)
{
	struct sim_event ev = { .fn = softirq_fn,
				.ctx = SIM_CTX_SOFTIRQ,
				.cpu = -1 };

	sim_test_expect_violations(1);
	sim_event_post(&ev);
	sim_engine_drain();
	ck_assert_int_eq(sim_context_violations(), 1);
}
END_TEST

START_TEST(test_context_restored_after_event)
{
	run_in_irq(DO_GFP_ATOMIC);
	ck_assert(in_task());
	ck_assert(!in_interrupt());
	ck_assert_int_eq(sim_preempt_count, 0);
}
END_TEST

static Suite *context_suite(void)
{
	return sim_suite("context", sim_tcase("might_sleep"),
			 test_might_sleep_in_irq_reported,
			 test_gfp_kernel_in_irq_reported,
			 test_gfp_atomic_in_irq_allowed,
			 test_mutex_in_irq_reported,
			 test_wait_for_completion_in_irq_reported,
			 test_flush_workqueue_in_irq_reported,
			 test_sleeping_calls_in_worker_allowed,
			 test_sleeping_calls_in_task_allowed,
			 test_sleep_under_spinlock_reported,
			 test_sleep_with_irqs_disabled_reported,
			 test_might_sleep_in_softirq_reported,
			 test_context_restored_after_event);
}

SIM_TEST_MAIN(context_suite)
