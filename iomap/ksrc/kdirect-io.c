// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel-source mode (cmake/kernel-tree.cmake): the kernel tree's
 * fs/iomap/direct-io.c, a byte-for-byte copy in the build tree, compiled
 * as part of this translation unit so that the simulator can reach the
 * few statics it needs (the simple bio_set) without a line
 * of the kernel file changing.  Its "trace.h", "internal.h" and
 * "../internal.h" are ours, in iomap/ksrc/fs/.
 */
#include "direct-io.c"

/* ---- (sim) what the simulator needs of the file's statics ------------ */

/*
 * The simple bio_set, which the tree's fs_initcall(iomap_dio_init) sets
 * up, for iomap_sim_dio_exit() (iomap/trace.c).
 */
struct bio_set *iomap_sim_simple_pool(void)
{
	return &iomap_dio_simple_pool;
}

