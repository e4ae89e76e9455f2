/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "trace.h" of a kernel tree's fs/iomap/ sources in kernel-source mode: the
 * simulator's implementation of the iomap tracepoints (iomap/trace.h),
 * which has the kernel's names and arguments.
 */
#include "../../../trace.h"
