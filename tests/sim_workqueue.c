// SPDX-License-Identifier: GPL-2.0-only
/* Workqueues: ordering, flush, requeue, pending bit, accounting, and the
 * lazily created per-super-block DIO completion queue. */
#include <string.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <sim/fault.h>
#include <sim/stats.h>
#include "harness.h"

#define NR_ITEMS 8

struct item {
	struct work_struct work;
	int id;
};

static int order[64];
static int nr_run;
static int requeue_left;
static struct workqueue_struct *wq;

/* Every test counts the work it ran from zero, forked or not (CK_FORK=no). */
static void workqueue_setup(void)
{
	sim_test_setup();
	nr_run = 0;
}

static void record_fn(struct work_struct *w)
{
	struct item *it = container_of(w, struct item, work);

	order[nr_run++] = it->id;
}

START_TEST(test_fifo_order_under_irq_policy)
{
	struct item it[NR_ITEMS];

	wq = alloc_workqueue("fifo", 0, 0);
	for (int i = 0; i < NR_ITEMS; i++) {
		it[i].id = i;
		INIT_WORK(&it[i].work, record_fn);
		ck_assert(queue_work(wq, &it[i].work));
	}
	ck_assert_int_eq(sim_work_outstanding(), NR_ITEMS);
	flush_workqueue(wq);
	ck_assert_int_eq(nr_run, NR_ITEMS);
	for (int i = 0; i < NR_ITEMS; i++)
		ck_assert_int_eq(order[i], i);
	ck_assert_int_eq(sim_work_outstanding(), 0);
	destroy_workqueue(wq);
}
END_TEST

START_TEST(test_queue_pending_work_returns_false)
{
	struct item it = { .id = 1 };

	wq = alloc_workqueue("pending", 0, 0);
	INIT_WORK(&it.work, record_fn);
	ck_assert(queue_work(wq, &it.work));
	ck_assert(work_pending(&it.work));
	ck_assert(!queue_work(wq, &it.work));
	flush_workqueue(wq);
	ck_assert(!work_pending(&it.work));
	ck_assert_int_eq(nr_run, 1);
	destroy_workqueue(wq);
}
END_TEST

static void requeue_fn(struct work_struct *w)
{
	nr_run++;
	/* the pending bit is clear while the function runs */
	ck_assert(!work_pending(w));
	if (--requeue_left > 0)
		ck_assert(queue_work(wq, w));
}

START_TEST(test_work_can_requeue_itself)
{
	struct work_struct w;

	requeue_left = 3;
	wq = alloc_workqueue("requeue", 0, 0);
	INIT_WORK(&w, requeue_fn);
	queue_work(wq, &w);
	flush_workqueue(wq);
	ck_assert_int_eq(nr_run, 3);
	destroy_workqueue(wq);
}
END_TEST

static void worker_identity_fn(struct work_struct *w)
{
	ck_assert(current->flags & PF_WQ_WORKER);
	ck_assert(in_task());
	ck_assert_ptr_nonnull(strstr(current->comm, "kw/ident"));
	nr_run++;
}

/* names as the kernel's printf would make them, cut to fit */
START_TEST(test_workqueue_names)
{
	static const char long_id[] = "a-device-name-longer-than-any-queue";
	struct workqueue_struct *a, *b, *c, *d;

	a = alloc_workqueue("events", 0, 0);
	b = alloc_workqueue("dio/%s", 0, 0, "sda1");
	c = alloc_workqueue("q%d-%s", 0, 0, 7, "x");
	d = alloc_workqueue("dio/%s", 0, 0, long_id);
	ck_assert_str_eq(sim_workqueue_name(a), "events");
	ck_assert_str_eq(sim_workqueue_name(b), "dio/sda1");
	ck_assert_str_eq(sim_workqueue_name(c), "q7-x");
	ck_assert_uint_eq(strlen(sim_workqueue_name(d)), 31);
	ck_assert(!strncmp(sim_workqueue_name(d), "dio/a-device-name", 17));
	destroy_workqueue(a);
	destroy_workqueue(b);
	destroy_workqueue(c);
	destroy_workqueue(d);
}
END_TEST

START_TEST(test_work_runs_as_worker_task)
{
	struct work_struct w;

	wq = alloc_workqueue("ident", 0, 0);
	INIT_WORK(&w, worker_identity_fn);
	queue_work(wq, &w);
	flush_workqueue(wq);
	ck_assert_int_eq(nr_run, 1);
	ck_assert(!(current->flags & PF_WQ_WORKER));
	destroy_workqueue(wq);
}
END_TEST

static struct work_struct *seen_work;
static struct workqueue_struct *seen_wq, *seen_wq_after_free;

/* A completion work item that frees the object it lives in, as a bio's does. */
static void free_self_fn(struct work_struct *w)
{
	struct item *it = container_of(w, struct item, work);

	seen_work = current_work();
	seen_wq = sim_current_workqueue();
	kfree(it);
	seen_wq_after_free = sim_current_workqueue();
}

START_TEST(test_worker_knows_its_queue_after_item_freed)
{
	struct item *it = kzalloc(sizeof(*it), GFP_KERNEL);

	wq = alloc_workqueue("selffree", 0, 0);
	INIT_WORK(&it->work, free_self_fn);
	ck_assert(queue_work(wq, &it->work));
	ck_assert_ptr_null(current_work());
	ck_assert_ptr_null(sim_current_workqueue());
	flush_workqueue(wq);
	ck_assert_ptr_eq(seen_work, &it->work);
	ck_assert_ptr_eq(seen_wq, wq);
	ck_assert_ptr_eq(seen_wq_after_free, wq);
	ck_assert_ptr_null(sim_current_workqueue());
	destroy_workqueue(wq);
}
END_TEST

START_TEST(test_flush_empty_queue_returns)
{
	wq = alloc_workqueue("empty", 0, 0);
	flush_workqueue(wq);
	ck_assert_int_eq(sim_work_outstanding(), 0);
	destroy_workqueue(wq);
}
END_TEST

START_TEST(test_destroy_flushes_pending_work)
{
	struct item it = { .id = 5 };

	wq = alloc_workqueue("destroy", 0, 0);
	INIT_WORK(&it.work, record_fn);
	queue_work(wq, &it.work);
	destroy_workqueue(wq);
	ck_assert_int_eq(nr_run, 1);
}
END_TEST

START_TEST(test_schedule_work_uses_system_wq)
{
	struct item it = { .id = 9 };

	INIT_WORK(&it.work, record_fn);
	ck_assert(schedule_work(&it.work));
	ck_assert_ptr_eq(it.work.wq, system_wq);
	ck_assert(flush_work(&it.work));
	ck_assert_int_eq(nr_run, 1);
	ck_assert_str_eq(sim_workqueue_name(system_wq), "events");
}
END_TEST

START_TEST(test_deferred_policy_runs_newest_first)
{
	struct item it[4];

	sim_engine_set_policy(SIM_SCHED_DEFERRED);
	wq = alloc_workqueue("lifo", 0, 0);
	for (int i = 0; i < 4; i++) {
		it[i].id = i;
		INIT_WORK(&it[i].work, record_fn);
		queue_work(wq, &it[i].work);
	}
	sim_engine_drain();
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(order[i], 3 - i);
	destroy_workqueue(wq);
}
END_TEST

START_TEST(test_sb_dio_done_wq_lazy_and_once)
{
	struct super_block sb = { .s_id = "testdev" };
	struct workqueue_struct *first;

	ck_assert_ptr_null(sb.s_dio_done_wq);
	ck_assert_int_eq(sb_init_dio_done_wq(&sb), 0);
	first = sb.s_dio_done_wq;
	ck_assert_ptr_nonnull(first);
	ck_assert_str_eq(sim_workqueue_name(first), "dio/testdev");
	/* a second caller (a racing DIO) keeps the installed queue */
	ck_assert_int_eq(sb_init_dio_done_wq(&sb), 0);
	ck_assert_ptr_eq(sb.s_dio_done_wq, first);
	ck_assert_int_eq(sim_stat_get("sb_dio_done_wq_created"), 1);
	sb_destroy_dio_done_wq(&sb);
	ck_assert_ptr_null(sb.s_dio_done_wq);
}
END_TEST

START_TEST(test_sb_dio_done_wq_enomem)
{
	struct super_block sb = { .s_id = "nomem" };
	struct sim_fault_alloc cfg = { .nth = 1 };

	sim_fault_alloc_set(&cfg);
	sim_fault_arm(true);
	ck_assert_int_eq(sb_init_dio_done_wq(&sb), -ENOMEM);
	sim_fault_arm(false);
	ck_assert_ptr_null(sb.s_dio_done_wq);
}
END_TEST

static struct inode *ending_inode;

static void dio_end_fn(struct work_struct *w)
{
	nr_run++;
	inode_dio_end(ending_inode);
}

START_TEST(test_inode_dio_wait_runs_until_zero)
{
	struct super_block sb = { .s_blocksize = 4096, .s_blocksize_bits = 12 };
	struct inode inode = { 0 };
	struct work_struct w;

	sim_inode_init_once(&inode, &sb);
	inode_dio_begin(&inode);
	ck_assert_int_eq(atomic_read(&inode.i_dio_count), 1);
	/* the completion that ends the DIO runs from a worker; the wait
	 * must let it run (K-04) */
	ending_inode = &inode;
	wq = alloc_workqueue("dioend", 0, 0);
	INIT_WORK(&w, dio_end_fn);
	queue_work(wq, &w);
	inode_dio_wait(&inode);
	ck_assert_int_eq(nr_run, 1);
	ck_assert_int_eq(atomic_read(&inode.i_dio_count), 0);
	ck_assert_int_eq(i_blocksize(&inode), 4096);
	destroy_workqueue(wq);
}
END_TEST

static Suite *workqueue_suite(void)
{
	return sim_suite("workqueue",
			 sim_tcase_fixture("workqueue", workqueue_setup,
					   sim_test_teardown),
			 test_fifo_order_under_irq_policy, test_workqueue_names,
			 test_queue_pending_work_returns_false,
			 test_work_can_requeue_itself,
			 test_work_runs_as_worker_task,
			 test_worker_knows_its_queue_after_item_freed,
			 test_flush_empty_queue_returns,
			 test_destroy_flushes_pending_work,
			 test_schedule_work_uses_system_wq,
			 test_deferred_policy_runs_newest_first,
			 test_sb_dio_done_wq_lazy_and_once,
			 test_sb_dio_done_wq_enomem,
			 test_inode_dio_wait_runs_until_zero);
}

SIM_TEST_MAIN(workqueue_suite)
