/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel-source mode: the tree's include/linux/iomap.h (the build's copy,
 * next on the include path), compiled as the kernel compiles it.  The
 * kernel is built without -Wsign-compare (a W=2 warning) and the header's
 * inlines compare u64 lengths with loff_t positions; the warning is off
 * for the header's lines only, not for the files that include it.
 */
#ifndef _SIM_KSRC_WRAP_IOMAP_H
#define _SIM_KSRC_WRAP_IOMAP_H

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#include_next <linux/iomap.h>
#pragma GCC diagnostic pop

#endif
