/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The C library provides the user-visible errno values, which are the
 * kernel's; the kernel-internal ones (never seen by user space) are added
 * with the kernel's numbers.
 */
#ifndef _LINUX_ERRNO_H
#define _LINUX_ERRNO_H

#include <errno.h>

#define ERESTARTSYS 512
#define ENOIOCTLCMD 515
#define ENOTSUPP 524
#define EIOCBQUEUED 529

#endif /* _LINUX_ERRNO_H */
