/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _LINUX_KERNEL_H
#define _LINUX_KERNEL_H

#include <limits.h>
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/printk.h>
#include <linux/types.h>

#define container_of(ptr, type, member)                               \
	({                                                            \
		void *__mptr = (void *)(ptr);                         \
		((type *)((char *)__mptr - offsetof(type, member))); \
	})

#define ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]))

#define min(x, y)                        \
	({                               \
		typeof(x) _min1 = (x);   \
		typeof(y) _min2 = (y);   \
		_min1 < _min2 ? _min1 : _min2; \
	})
#define max(x, y)                        \
	({                               \
		typeof(x) _max1 = (x);   \
		typeof(y) _max2 = (y);   \
		_max1 > _max2 ? _max1 : _max2; \
	})
#define min_t(type, x, y) min((type)(x), (type)(y))
#define max_t(type, x, y) max((type)(x), (type)(y))
#define clamp(val, lo, hi) min(max(val, lo), hi)
#define umin(x, y) min_t(unsigned long long, x, y)
#define umax(x, y) max_t(unsigned long long, x, y)

#define __ALIGN_MASK(x, mask) (((x) + (mask)) & ~(mask))
#define ALIGN(x, a) __ALIGN_MASK(x, (typeof(x))(a) - 1)
#define ALIGN_DOWN(x, a) ((x) & ~((typeof(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((typeof(x))(a) - 1)) == 0)
#define PTR_ALIGN(p, a) ((typeof(p))ALIGN((unsigned long)(p), (a)))
#define round_up(x, y) ((((x) - 1) | ((typeof(x))(y) - 1)) + 1)
#define round_down(x, y) ((x) & ~((typeof(x))(y) - 1))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define is_power_of_2(n) ((n) != 0 && (((n) & ((n) - 1)) == 0))

#define U8_MAX ((u8)~0U)
#define U16_MAX ((u16)~0U)
#define U32_MAX ((u32)~0U)
#define U64_MAX ((u64)~0ULL)
#define S64_MAX ((s64)(U64_MAX >> 1))
#define LLONG_MAX_T LLONG_MAX

#define MAX_RW_COUNT (INT_MAX & ~(4096 - 1))

#define might_fault() do { } while (0)
#define cond_resched() do { } while (0)

#endif /* _LINUX_KERNEL_H */
