/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The user-visible errno values are the kernel's (the uapi <asm/errno.h>,
 * which the C library's <errno.h> also uses); the kernel-internal ones,
 * never seen by user space, are added with the kernel's numbers.  The
 * guard differs from the uapi header's on purpose: glibc's <errno.h>
 * includes <linux/errno.h>, which resolves to this file.
 */
#ifndef _SIM_LINUX_ERRNO_H
#define _SIM_LINUX_ERRNO_H

#include <asm/errno.h>
#include <errno.h>

#define ERESTARTSYS 512
#define ENOIOCTLCMD 515
#define ENOTSUPP 524
#define EIOCBQUEUED 529

#endif /* _SIM_LINUX_ERRNO_H */
