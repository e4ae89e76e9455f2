// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel-source mode: the kernel tree's fs/iomap/iter.c, a byte-for-byte
 * copy in the build tree (see kdirect-io.c).
 */
/* the kernel is built without -Wsign-compare (a W=2 warning) */
#pragma GCC diagnostic ignored "-Wsign-compare"

#include "iter.c"
