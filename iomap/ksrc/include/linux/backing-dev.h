/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel-source mode: older trees' direct-io.c includes
 * <linux/backing-dev.h> and uses nothing of it (a leftover of write
 * throttling through the backing device); the simulator has no BDI.
 */
#ifndef _LINUX_BACKING_DEV_H
#define _LINUX_BACKING_DEV_H

#include <linux/fs.h>

#endif /* _LINUX_BACKING_DEV_H */
