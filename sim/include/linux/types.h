/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel integer and size types on top of the C library's.  loff_t and
 * ssize_t come from <sys/types.h> (glibc defines loff_t with _GNU_SOURCE)
 * so that a file including both this and libc headers sees one definition.
 */
#ifndef _LINUX_TYPES_H
#define _LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;
typedef s32 __s32;
typedef s64 __s64;

typedef u64 sector_t;
typedef u64 blkcnt_t;
typedef unsigned int gfp_t;
typedef unsigned int fmode_t;
typedef unsigned long pgoff_t;
typedef u64 phys_addr_t;

#define __bitwise
#define __force
#define __user
#define __kernel
#define __iomem
#define __rcu
#define __must_check __attribute__((warn_unused_result))

#endif /* _LINUX_TYPES_H */
