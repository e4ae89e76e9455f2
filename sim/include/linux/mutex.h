/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sleeping locks.  mutex_lock() may sleep (might_sleep() is checked).  In
 * the deterministic engine a contended lock runs pending events until the
 * owner lets go, and reports a deadlock when nothing can run.
 */
#ifndef _LINUX_MUTEX_H
#define _LINUX_MUTEX_H

#include <pthread.h>
#include <linux/kernel.h>

struct task_struct;

struct mutex {
	pthread_mutex_t m;
	struct task_struct *owner;
};

#define __MUTEX_INITIALIZER(x) { PTHREAD_MUTEX_INITIALIZER, NULL }
#define DEFINE_MUTEX(x) struct mutex x = __MUTEX_INITIALIZER(x)

void mutex_init(struct mutex *lock);
void mutex_destroy(struct mutex *lock);
#define mutex_lock(lock) sim_mutex_lock(lock, __FILE__, __LINE__, __func__)
void sim_mutex_lock(struct mutex *lock, const char *file, int line,
		    const char *func);
int mutex_trylock(struct mutex *lock);
void mutex_unlock(struct mutex *lock);
bool mutex_is_locked(struct mutex *lock);

/* Reader/writer semaphore (inode->i_rwsem). */
struct rw_semaphore {
	pthread_rwlock_t l;
};

void init_rwsem(struct rw_semaphore *sem);
#define down_read(sem) sim_down(sem, false, __FILE__, __LINE__, __func__)
#define down_write(sem) sim_down(sem, true, __FILE__, __LINE__, __func__)
void sim_down(struct rw_semaphore *sem, bool write, const char *file,
	      int line, const char *func);
int down_read_trylock(struct rw_semaphore *sem);
int down_write_trylock(struct rw_semaphore *sem);
void up_read(struct rw_semaphore *sem);
void up_write(struct rw_semaphore *sem);

#endif /* _LINUX_MUTEX_H */
