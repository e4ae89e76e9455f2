/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * "internal.h" of a kernel tree's fs/iomap/ sources in kernel-source mode:
 * the embedded copy's fs/iomap/internal.h (iomap/internal.h) and what the
 * kernel's header chain brings in that ours does not (slab, cache line
 * alignment, workqueues).  The call adapters for block-layer functions
 * are in ksrc-compat.h, since older trees' direct-io.c does not include
 * this file.
 */
#ifndef _IOMAP_KSRC_INTERNAL_H
#define _IOMAP_KSRC_INTERNAL_H

#include <linux/cache.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "../../../internal.h"

#endif
