/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tasks and execution contexts.  Every OS thread that runs kernel code has
 * a task_struct (current) and a context: task, soft-IRQ or hard-IRQ (bio
 * completion).  Workqueue workers are tasks flagged PF_WQ_WORKER.  The
 * sleeping primitives call might_sleep(), which reports "sleeping function
 * called from invalid context" with a backtrace when the context forbids
 * it (see <sim/report.h>).
 */
#ifndef _LINUX_SCHED_H
#define _LINUX_SCHED_H

#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/wait.h>

#define TASK_RUNNING 0x0000
#define TASK_INTERRUPTIBLE 0x0001
#define TASK_UNINTERRUPTIBLE 0x0002
#define TASK_NOLOAD 0x0400
#define TASK_IDLE (TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_COMM_LEN 16

#define PF_WQ_WORKER 0x00000020
#define PF_MEMALLOC_NOIO 0x00080000

struct bio_list;

struct task_struct {
	char comm[TASK_COMM_LEN];
	int pid;
	unsigned int flags;
	unsigned int __state;
	/* simulated CPU this task runs on */
	int cpu;
	/* schedule()/wake_up_process() rendezvous for the threaded engine */
	wait_queue_head_t sim_wake;
	/* task owned by the engine (worker, irq thread) or adopted thread */
	bool sim_engine_owned;
	struct task_struct *sim_next_dead;
	/* bios submitted while a submission is active (block/blk-core.c) */
	struct bio_list *bio_list;
};

struct task_struct *sim_get_current(void);
#define current sim_get_current()

/* Give the calling OS thread a task (name, simulated CPU); -1: any CPU. */
struct task_struct *sim_task_attach(const char *comm, int cpu);
void sim_task_detach(void);

#define set_current_state(state) \
	__atomic_store_n(&current->__state, (state), __ATOMIC_SEQ_CST)
#define __set_current_state(state) \
	__atomic_store_n(&current->__state, (state), __ATOMIC_RELAXED)

/*
 * Work a task must do before it sleeps: the block layer installs its plug
 * flush here, as the kernel's sched_submit_work() calls blk_flush_plug(),
 * so bios held in a plug are submitted before their submitter waits.
 */
extern void (*sim_sched_submit_work)(void);
void sim_before_sleep(void);

void schedule(void);
void io_schedule(void);
long io_schedule_timeout(long timeout);
int wake_up_process(struct task_struct *p);
void get_task_struct(struct task_struct *t);
void put_task_struct(struct task_struct *t);

#define __might_sleep_here() sim_might_sleep(__FILE__, __LINE__, __func__)
#define might_sleep() __might_sleep_here()
void sim_might_sleep(const char *file, int line, const char *func);

#define MAX_SCHEDULE_TIMEOUT LONG_MAX

#endif /* _LINUX_SCHED_H */
