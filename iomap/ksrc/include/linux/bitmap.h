/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel-source mode: the tree's iomap.h includes it; iomap uses no bitmap. */
#ifndef _LINUX_BITMAP_H
#define _LINUX_BITMAP_H

#include <linux/bits.h>

#endif /* _LINUX_BITMAP_H */
