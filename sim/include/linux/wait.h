/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Wait queues.  wait_event() evaluates its condition in a loop around
 * sim_wait_sleep(): in the threaded engine that is a condition-variable
 * wait under the queue's mutex (wake_up() takes the mutex, so no wakeup is
 * lost); in the deterministic engine it runs the next pending event, since
 * only an event can make the condition true, and a wait with nothing left
 * to run is reported as a deadlock.
 */
#ifndef _LINUX_WAIT_H
#define _LINUX_WAIT_H

#include <pthread.h>
#include <linux/kernel.h>

typedef struct wait_queue_head {
	pthread_mutex_t lock;
	pthread_cond_t cond;
} wait_queue_head_t;

#define __WAIT_QUEUE_HEAD_INITIALIZER(name) \
	{ PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER }
#define DECLARE_WAIT_QUEUE_HEAD(name) \
	wait_queue_head_t name = __WAIT_QUEUE_HEAD_INITIALIZER(name)

void init_waitqueue_head(wait_queue_head_t *wq);
void sim_waitqueue_destroy(wait_queue_head_t *wq);
void wake_up(wait_queue_head_t *wq);
#define wake_up_all(wq) wake_up(wq)
#define wake_up_interruptible(wq) wake_up(wq)

/* The wait loop's three steps; see wait_event(). */
void sim_wait_prepare(wait_queue_head_t *wq, const char *file, int line,
		      const char *func);
void sim_wait_sleep(wait_queue_head_t *wq);
void sim_wait_finish(wait_queue_head_t *wq);

#define wait_event(wq_head, condition)                                  \
	do {                                                            \
		sim_might_sleep(__FILE__, __LINE__, __func__);          \
		if (condition)                                          \
			break;                                          \
		sim_wait_prepare(&(wq_head), __FILE__, __LINE__,        \
				 __func__);                             \
		while (!(condition))                                    \
			sim_wait_sleep(&(wq_head));                     \
		sim_wait_finish(&(wq_head));                            \
	} while (0)
#define wait_event_idle(wq, cond) wait_event(wq, cond)
#define io_wait_event(wq, cond) wait_event(wq, cond)

/* Waits on a variable's address, through a hashed table of queues. */
wait_queue_head_t *__var_waitqueue(const void *p);
#define wait_var_event(var, condition) \
	wait_event(*__var_waitqueue(var), condition)
#define wake_up_var(var) wake_up(__var_waitqueue(var))

void sim_might_sleep(const char *file, int line, const char *func);

#endif /* _LINUX_WAIT_H */
