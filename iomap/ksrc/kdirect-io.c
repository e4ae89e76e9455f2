// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel-source mode (cmake/kernel-tree.cmake): the kernel tree's
 * fs/iomap/direct-io.c, a byte-for-byte copy in the build tree, compiled
 * as part of this translation unit so that the simulator can reach the
 * few statics it needs (the simple bio_set) without a line of the kernel
 * file changing.  Its "trace.h", "internal.h" and "../internal.h" are
 * ours, in iomap/ksrc/fs/; ksrc-compat.h adapts the calls whose
 * signature changed between releases.
 */
#include <sim/iomap.h>
#include <sim/iomap_features.h>
#include "ksrc-compat.h"

/*
 * The kernel is built without -Wsign-compare (a W=2 warning), and the
 * file compares u64 mapping lengths with loff_t positions.
 */
#pragma GCC diagnostic ignored "-Wsign-compare"

#include "direct-io.c"

/* ---- (sim) what the simulator needs of the file's statics ------------ */

/* The simple bio_set; NULL in a tree without a simple path. */
struct bio_set *iomapsim_simple_pool(void)
{
#if IOMAPSIM_SIMPLE_PATH != IOMAPSIM_SIMPLE_NONE
	return &iomap_dio_simple_pool;
#else
	return NULL;
#endif
}

/*
 * Undo what the tree's fs_initcall(iomap_dio_init), where it has one, set
 * up: the simple bio_set, the 64 KiB zero page (iomapsim_dio_exit()).
 */
void iomapsim_dio_initcall_undo(void)
{
	struct bio_set *pool = iomapsim_simple_pool();

	if (pool && bioset_initialized(pool))
		bioset_exit(pool);
#if IOMAPSIM_ZERO_PAGE == IOMAPSIM_ZERO_PAGE_64K
	if (zero_page) {
		__free_pages(zero_page, IOMAP_ZERO_PAGE_ORDER);
		zero_page = NULL;
	}
#endif
}
