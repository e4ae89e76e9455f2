/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "../internal.h" (fs/internal.h) of a kernel tree's fs/iomap/direct-io.c
 * in kernel-source mode.  Of the VFS internals it uses only
 * sb_init_dio_done_wq(), which the simulator's <linux/fs.h> declares; the
 * real fs/internal.h wants much of the VFS (struct path, mount flags, ...)
 * and is not shimmed.
 */
#include <linux/fs.h>
