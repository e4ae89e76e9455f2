/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Spinlocks: a pthread mutex plus the preemption/IRQ accounting the kernel
 * does, so might_sleep() under a spinlock is reported.
 */
#ifndef _LINUX_SPINLOCK_H
#define _LINUX_SPINLOCK_H

#include <pthread.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>

typedef struct spinlock {
	pthread_mutex_t m;
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(x) { PTHREAD_MUTEX_INITIALIZER }
#define DEFINE_SPINLOCK(x) spinlock_t x = __SPIN_LOCK_UNLOCKED(x)

static inline void spin_lock_init(spinlock_t *lock)
{
	pthread_mutex_init(&lock->m, NULL);
}

static inline void spin_lock(spinlock_t *lock)
{
	preempt_disable();
	pthread_mutex_lock(&lock->m);
}

static inline void spin_unlock(spinlock_t *lock)
{
	pthread_mutex_unlock(&lock->m);
	preempt_enable();
}

static inline bool spin_trylock(spinlock_t *lock)
{
	preempt_disable();
	if (pthread_mutex_trylock(&lock->m) == 0)
		return true;
	preempt_enable();
	return false;
}

#define spin_lock_irqsave(lock, flags)          \
	do {                                    \
		local_irq_save(flags);          \
		pthread_mutex_lock(&(lock)->m); \
	} while (0)

static inline void spin_unlock_irqrestore(spinlock_t *lock,
					  unsigned long flags)
{
	pthread_mutex_unlock(&lock->m);
	local_irq_restore(flags);
}

static inline void spin_lock_irq(spinlock_t *lock)
{
	local_irq_disable();
	pthread_mutex_lock(&lock->m);
}

static inline void spin_unlock_irq(spinlock_t *lock)
{
	pthread_mutex_unlock(&lock->m);
	local_irq_enable();
}

#define spin_lock_bh spin_lock
#define spin_unlock_bh spin_unlock
#define lockdep_assert_held(l) do { } while (0)

#endif /* _LINUX_SPINLOCK_H */
