/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Workqueues.  Work runs in a worker task (PF_WQ_WORKER, task context) of
 * the queue: in the deterministic engine as an event the scheduler picks,
 * in the threaded engine on the queue's worker threads.  Queued and running
 * work is accounted so a test can demand none is left.
 */
#ifndef _LINUX_WORKQUEUE_H
#define _LINUX_WORKQUEUE_H

#include <string.h>
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <sim/engine.h>

struct work_struct;
struct workqueue_struct;
typedef void (*work_func_t)(struct work_struct *work);

struct work_struct {
	struct sim_event sim_ev; /* the engine's queue node */
	atomic_long_t data;	 /* bit 0: pending */
	work_func_t func;
	struct workqueue_struct *wq;
};

#define WORK_STRUCT_PENDING 1UL

#define INIT_WORK(_work, _func)                               \
	do {                                                  \
		memset((_work), 0, sizeof(struct work_struct)); \
		(_work)->func = (_func);                      \
	} while (0)
#define DECLARE_WORK(n, f) struct work_struct n = { .func = (f) }

enum {
	WQ_UNBOUND = 1 << 1,
	WQ_FREEZABLE = 1 << 2,
	WQ_MEM_RECLAIM = 1 << 3,
	WQ_HIGHPRI = 1 << 4,
	WQ_CPU_INTENSIVE = 1 << 5,
	WQ_SYSFS = 1 << 6,
	WQ_POWER_EFFICIENT = 1 << 7,
	WQ_PERCPU = 1 << 8,
	__WQ_ORDERED = 1 << 17,
	WQ_MAX_ACTIVE = 512,
	WQ_DFL_ACTIVE = WQ_MAX_ACTIVE / 2,
};

struct workqueue_struct *alloc_workqueue(const char *fmt, unsigned int flags,
					 int max_active, ...)
	__attribute__((format(printf, 1, 4)));
#define alloc_ordered_workqueue(fmt, flags, args...) \
	alloc_workqueue(fmt, __WQ_ORDERED | (flags), 1, ##args)
void destroy_workqueue(struct workqueue_struct *wq);
bool queue_work(struct workqueue_struct *wq, struct work_struct *work);
bool queue_work_on(int cpu, struct workqueue_struct *wq,
		   struct work_struct *work);
#define flush_workqueue(wq) sim_flush_workqueue(wq, __FILE__, __LINE__, __func__)
void sim_flush_workqueue(struct workqueue_struct *wq, const char *file,
			 int line, const char *func);
bool flush_work(struct work_struct *work);
/* The work item the calling worker is running, or NULL (not a worker). */
struct work_struct *current_work(void);
/*
 * (sim) The workqueue the calling worker's item was queued on, or NULL:
 * the kernel's worker->current_pwq->wq.  Unlike current_work()->wq it
 * stays valid after the item frees itself (a bio's embedded work).
 */
struct workqueue_struct *sim_current_workqueue(void);
bool work_pending(const struct work_struct *work);
const char *sim_workqueue_name(const struct workqueue_struct *wq);

/* system_wq and friends, created on first use. */
extern struct workqueue_struct *system_wq;
extern struct workqueue_struct *system_unbound_wq;
bool schedule_work(struct work_struct *work);

/* Work items queued or running, over all queues (accounting). */
long sim_work_outstanding(void);

#endif /* _LINUX_WORKQUEUE_H */
