/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-task I/O accounting is not simulated; the calls stay as in the kernel. */
#ifndef _LINUX_TASK_IO_ACCOUNTING_OPS_H
#define _LINUX_TASK_IO_ACCOUNTING_OPS_H

#include <linux/types.h>

static inline void task_io_account_read(size_t bytes)
{
}

static inline void task_io_account_write(size_t bytes)
{
}

#endif /* _LINUX_TASK_IO_ACCOUNTING_OPS_H */
