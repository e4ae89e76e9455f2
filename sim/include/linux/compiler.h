/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _LINUX_COMPILER_H
#define _LINUX_COMPILER_H

#include <linux/types.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define noinline __attribute__((noinline))
#define __cold __attribute__((cold))
#define __maybe_unused __attribute__((unused))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define __aligned(x) __attribute__((aligned(x)))
#define __packed __attribute__((packed))
#define fallthrough __attribute__((fallthrough))
#define __must_be_array(a) 0

#define barrier() __asm__ __volatile__("" : : : "memory")

/*
 * READ_ONCE/WRITE_ONCE are atomic accesses here rather than volatile ones:
 * the threaded engine runs kernel code on real threads and
 * ThreadSanitizer must see these lockless accesses as intended races.
 * They are acquire/release rather than relaxed because kernel code leans
 * on orderings the LKMM gives and C11 does not: e.g. iomap's sync waiter
 * sees dio->submit.waiter == NULL (READ_ONCE, then a control dependency)
 * and frees the dio that the completion side read before its
 * atomic_dec_and_test() and WRITE_ONCE().  On x86 both compile to plain
 * moves, so nothing is slower.
 */
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define WRITE_ONCE(x, val) __atomic_store_n(&(x), (val), __ATOMIC_RELEASE)

/*
 * A lockless read the author knows may race (the DIO submitter reading
 * dio->error while completions set it): an atomic load, so ThreadSanitizer
 * agrees.
 */
#define data_race(x) READ_ONCE(x)

#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb__before_atomic() smp_mb()
#define smp_mb__after_atomic() smp_mb()
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

#define BUILD_BUG_ON(cond) _Static_assert(!(cond), "BUILD_BUG_ON: " #cond)
#define static_assert(...) _Static_assert(__VA_ARGS__)

#endif /* _LINUX_COMPILER_H */
