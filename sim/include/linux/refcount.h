/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * refcount_t: saturating reference counts.  As in the kernel, an increment
 * from zero (use after free) or a decrement below zero warns and saturates
 * instead of wrapping.
 */
#ifndef _LINUX_REFCOUNT_H
#define _LINUX_REFCOUNT_H

#include <linux/atomic.h>
#include <linux/bug.h>

typedef struct {
	atomic_t refs;
} refcount_t;

#define REFCOUNT_INIT(n) { .refs = ATOMIC_INIT(n) }
#define REFCOUNT_SATURATED (INT_MIN / 2)

static inline void refcount_set(refcount_t *r, int n)
{
	atomic_set(&r->refs, n);
}

static inline unsigned int refcount_read(const refcount_t *r)
{
	return atomic_read(&r->refs);
}

static inline void refcount_inc(refcount_t *r)
{
	int old = atomic_fetch_add(1, &r->refs);

	if (WARN_ON_ONCE(old <= 0))
		atomic_set(&r->refs, REFCOUNT_SATURATED);
}

static inline bool refcount_inc_not_zero(refcount_t *r)
{
	int old = atomic_read(&r->refs);

	do {
		if (!old)
			return false;
	} while (!atomic_try_cmpxchg(&r->refs, &old, old + 1));
	return true;
}

static inline bool refcount_dec_and_test(refcount_t *r)
{
	int n = atomic_sub_return(1, &r->refs);

	if (WARN_ON_ONCE(n < 0)) {
		atomic_set(&r->refs, REFCOUNT_SATURATED);
		return false;
	}
	return n == 0;
}

static inline void refcount_dec(refcount_t *r)
{
	WARN_ON_ONCE(refcount_dec_and_test(r));
}

#endif /* _LINUX_REFCOUNT_H */
