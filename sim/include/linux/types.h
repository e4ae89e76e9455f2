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
#include <asm/types.h> /* __u8 .. __s64, as the uapi defines them */

/*
 * The kernel's fixed-size types are the uapi ones (u64 is unsigned long
 * long on every architecture), so printk formats match the kernel's.
 * System headers that include <linux/types.h> (statx, for one) get this
 * file and find the __uNN types they expect.
 */
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;
typedef __u16 __le16;
typedef __u32 __le32;
typedef __u64 __le64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u64 __be64;
typedef __u16 __sum16;
typedef __u32 __wsum;
#define __aligned_u64 __u64 __attribute__((aligned(8)))

typedef unsigned short umode_t;
typedef u64 sector_t;
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
