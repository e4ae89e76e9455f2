// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sleeping locks.  In the deterministic engine a contended lock can only be
 * released by an event that has yet to run, so the waiter runs events
 * until the trylock succeeds, and a lock nobody can release is a deadlock.
 */
#include <linux/mutex.h>
#include <linux/sched.h>
#include <sim/engine.h>
#include "internal.h"

void mutex_init(struct mutex *lock)
{
	pthread_mutex_init(&lock->m, NULL);
	lock->owner = NULL;
}

void mutex_destroy(struct mutex *lock)
{
	pthread_mutex_destroy(&lock->m);
}

void sim_mutex_lock(struct mutex *lock, const char *file, int line,
		    const char *func)
{
	sim_might_sleep(file, line, func);
	if (sim_engine_kind() == SIM_ENGINE_THREADED) {
		pthread_mutex_lock(&lock->m);
	} else {
		while (pthread_mutex_trylock(&lock->m))
			if (!sim_engine_step())
				sim_engine_deadlock(file, line, func);
	}
	__atomic_store_n(&lock->owner, current, __ATOMIC_RELAXED);
}

int mutex_trylock(struct mutex *lock)
{
	if (pthread_mutex_trylock(&lock->m))
		return 0;
	__atomic_store_n(&lock->owner, current, __ATOMIC_RELAXED);
	return 1;
}

void mutex_unlock(struct mutex *lock)
{
	WARN_ON_ONCE(__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) !=
		     current);
	__atomic_store_n(&lock->owner, NULL, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&lock->m);
}

bool mutex_is_locked(struct mutex *lock)
{
	return __atomic_load_n(&lock->owner, __ATOMIC_RELAXED) != NULL;
}

void init_rwsem(struct rw_semaphore *sem)
{
	pthread_rwlock_init(&sem->l, NULL);
}

void sim_down(struct rw_semaphore *sem, bool write, const char *file, int line,
	      const char *func)
{
	sim_might_sleep(file, line, func);
	if (sim_engine_kind() == SIM_ENGINE_THREADED) {
		if (write)
			pthread_rwlock_wrlock(&sem->l);
		else
			pthread_rwlock_rdlock(&sem->l);
		return;
	}
	while (write ? pthread_rwlock_trywrlock(&sem->l) :
		       pthread_rwlock_tryrdlock(&sem->l))
		if (!sim_engine_step())
			sim_engine_deadlock(file, line, func);
}

int down_read_trylock(struct rw_semaphore *sem)
{
	return pthread_rwlock_tryrdlock(&sem->l) == 0;
}

int down_write_trylock(struct rw_semaphore *sem)
{
	return pthread_rwlock_trywrlock(&sem->l) == 0;
}

void up_read(struct rw_semaphore *sem)
{
	pthread_rwlock_unlock(&sem->l);
}

void up_write(struct rw_semaphore *sem)
{
	pthread_rwlock_unlock(&sem->l);
}
