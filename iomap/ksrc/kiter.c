// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel-source mode: the kernel tree's fs/iomap/iter.c, a byte-for-byte
 * copy in the build tree (see kdirect-io.c).
 */
#include "iter.c"
