/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * atomic_t and friends on the compiler's __atomic builtins.  Value-returning
 * read-modify-write operations are fully ordered, as in the kernel; plain
 * atomic_read/atomic_set are relaxed.
 */
#ifndef _LINUX_ATOMIC_H
#define _LINUX_ATOMIC_H

#include <linux/compiler.h>

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	long counter;
} atomic_long_t;

typedef struct {
	s64 counter;
} atomic64_t;

#define ATOMIC_INIT(i) { (i) }

#define __sim_atomic_ops(pfx, t, v)                                         \
	static inline v pfx##_read(const t *a)                                \
	{                                                                     \
		return __atomic_load_n(&a->counter, __ATOMIC_RELAXED);        \
	}                                                                     \
	static inline void pfx##_set(t *a, v i)                               \
	{                                                                     \
		__atomic_store_n(&a->counter, i, __ATOMIC_RELAXED);           \
	}                                                                     \
	static inline void pfx##_add(v i, t *a)                               \
	{                                                                     \
		__atomic_fetch_add(&a->counter, i, __ATOMIC_RELAXED);         \
	}                                                                     \
	static inline void pfx##_sub(v i, t *a)                               \
	{                                                                     \
		__atomic_fetch_sub(&a->counter, i, __ATOMIC_RELAXED);         \
	}                                                                     \
	static inline void pfx##_inc(t *a)                                    \
	{                                                                     \
		pfx##_add(1, a);                                              \
	}                                                                     \
	static inline void pfx##_dec(t *a)                                    \
	{                                                                     \
		pfx##_sub(1, a);                                              \
	}                                                                     \
	static inline v pfx##_add_return(v i, t *a)                           \
	{                                                                     \
		return __atomic_add_fetch(&a->counter, i, __ATOMIC_SEQ_CST);  \
	}                                                                     \
	static inline v pfx##_sub_return(v i, t *a)                           \
	{                                                                     \
		return __atomic_sub_fetch(&a->counter, i, __ATOMIC_SEQ_CST);  \
	}                                                                     \
	static inline v pfx##_inc_return(t *a)                                \
	{                                                                     \
		return pfx##_add_return(1, a);                                \
	}                                                                     \
	static inline v pfx##_dec_return(t *a)                                \
	{                                                                     \
		return pfx##_sub_return(1, a);                                \
	}                                                                     \
	static inline bool pfx##_dec_and_test(t *a)                           \
	{                                                                     \
		return pfx##_sub_return(1, a) == 0;                           \
	}                                                                     \
	static inline bool pfx##_inc_and_test(t *a)                           \
	{                                                                     \
		return pfx##_add_return(1, a) == 0;                           \
	}                                                                     \
	static inline v pfx##_fetch_add(v i, t *a)                            \
	{                                                                     \
		return __atomic_fetch_add(&a->counter, i, __ATOMIC_SEQ_CST);  \
	}                                                                     \
	static inline v pfx##_xchg(t *a, v n)                                 \
	{                                                                     \
		return __atomic_exchange_n(&a->counter, n, __ATOMIC_SEQ_CST); \
	}                                                                     \
	static inline v pfx##_cmpxchg(t *a, v old, v n)                       \
	{                                                                     \
		__atomic_compare_exchange_n(&a->counter, &old, n, false,      \
					    __ATOMIC_SEQ_CST,                 \
					    __ATOMIC_SEQ_CST);                \
		return old;                                                   \
	}                                                                     \
	static inline bool pfx##_try_cmpxchg(t *a, v *old, v n)               \
	{                                                                     \
		return __atomic_compare_exchange_n(&a->counter, old, n, false, \
						   __ATOMIC_SEQ_CST,          \
						   __ATOMIC_SEQ_CST);         \
	}

__sim_atomic_ops(atomic, atomic_t, int)
__sim_atomic_ops(atomic_long, atomic_long_t, long)
__sim_atomic_ops(atomic64, atomic64_t, s64)

/* cmpxchg/xchg on plain variables, returning the old value. */
#define cmpxchg(ptr, o, n)                                                \
	({                                                                \
		typeof(*(ptr)) __old = (o);                               \
		__atomic_compare_exchange_n((ptr), &__old, (n), false,    \
					    __ATOMIC_SEQ_CST,             \
					    __ATOMIC_SEQ_CST);            \
		__old;                                                    \
	})
#define try_cmpxchg(ptr, oldp, n)                                          \
	__atomic_compare_exchange_n((ptr), (oldp), (n), false,             \
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define xchg(ptr, n) __atomic_exchange_n((ptr), (n), __ATOMIC_SEQ_CST)

#endif /* _LINUX_ATOMIC_H */
