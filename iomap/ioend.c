// SPDX-License-Identifier: GPL-2.0-only
/*
 * The direct-I/O half of fs/iomap/ioend.c: what a file system that ends
 * its direct-write bios through ioends needs around the code's
 * iomap_finish_ioend_direct() (G-54).  XFS's zoned, out-of-place write
 * path is the model: its dio ops allocate bios from iomap_ioend_bioset,
 * whose front_pad makes room for the struct iomap_ioend around each bio;
 * ->submit_io picks the blocks, calls iomap_init_ioend() and sets its own
 * ->bi_end_io, which queues the ioend to a worker; the worker records the
 * new blocks and calls iomap_finish_ioends(), which ends the bio's part of
 * the dio with iomap_finish_ioend_direct() in task context.
 *
 * Built only where the iomap code linked in has that entry point
 * (IOMAPSIM_IOEND_DIRECT: a tree's direct-io.c in kernel-source mode; the
 * embedded copy lacks it), against that code's struct iomap_ioend.  The
 * buffered-writeback half (iomap_add_to_ioend(), merging, sorting,
 * iomap_split_ioend()) is left out: nothing here writes back a page cache.
 */
#include <stddef.h>
#include <linux/bio.h>
#include <linux/init.h>
#include <linux/iomap.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <sim/iomap.h>
#include "internal.h"
#include "trace.h"

struct bio_set iomap_ioend_bioset;

struct iomap_ioend *iomap_init_ioend(struct inode *inode, struct bio *bio,
		loff_t file_offset, u16 ioend_flags)
{
	struct iomap_ioend *ioend = iomap_ioend_from_bio(bio);

	atomic_set(&ioend->io_remaining, 1);
	ioend->io_error = 0;
	ioend->io_parent = NULL;
	INIT_LIST_HEAD(&ioend->io_list);
	ioend->io_flags = ioend_flags;
	ioend->io_inode = inode;
	ioend->io_offset = file_offset;
	ioend->io_size = bio->bi_iter.bi_size;
	ioend->io_sector = bio->bi_iter.bi_sector;
	ioend->io_private = NULL;
	return ioend;
}

/*
 * One ioend: a split-off child gives up its bio and ends its parent's
 * share; the last share ends the ioend with the first error any share
 * reported.  Returns the bvecs completed, the worker's measure of work.
 */
static u32 iomap_finish_ioend(struct iomap_ioend *ioend, int error)
{
	if (ioend->io_parent) {
		struct bio *child = &ioend->io_bio;

		ioend = ioend->io_parent;
		bio_put(child);
	}

	if (error)
		cmpxchg(&ioend->io_error, 0, error);

	if (!atomic_dec_and_test(&ioend->io_remaining))
		return 0;
	/* (sim) iomapsim_ioend_bvecs() counts what it returns */
	if (ioend->io_flags & IOMAP_IOEND_DIRECT)
		return iomapsim_ioend_bvecs(iomap_finish_ioend_direct(ioend));
	/* buffered writeback ioends: no file system here makes them */
	WARN_ON_ONCE(1);
	return 0;
}

/*
 * The ioend and those chained on its io_list, from task context only: a
 * chain may be long, so the worker yields every IOEND_BATCH_SIZE * 8
 * bvecs, and a dio completed here may run ->end_io, which sleeps.
 */
void iomap_finish_ioends(struct iomap_ioend *ioend, int error)
{
	struct work_struct *prev = iomapsim_ioend_enter(); /* (sim) */
	struct list_head tmp;
	u32 completions;

	might_sleep();

	list_replace_init(&ioend->io_list, &tmp);
	completions = iomap_finish_ioend(ioend, error);

	while (!list_empty(&tmp)) {
		if (completions > IOEND_BATCH_SIZE * 8) {
			cond_resched();
			completions = 0;
		}
		ioend = list_first_entry(&tmp, struct iomap_ioend, io_list);
		list_del_init(&ioend->io_list);
		completions += iomap_finish_ioend(ioend, error);
	}
	iomapsim_ioend_exit(prev); /* (sim) */
}

/*
 * The kernel sets the bio_set up at boot, sized for a writeback's worth
 * of bios in flight; the simulator boots on first use (iomapsim_dio_init())
 * and takes it down again at each teardown (iomapsim_dio_exit()).
 */
static int __init iomap_ioend_init(void)
{
	return bioset_init(&iomap_ioend_bioset, 4 * (PAGE_SIZE / SECTOR_SIZE),
			   offsetof(struct iomap_ioend, io_bio),
			   BIOSET_NEED_BVECS);
}
fs_initcall(iomap_ioend_init);

/* (sim) undo iomap_ioend_init(), for iomapsim_dio_exit() (trace.c) */
void iomapsim_ioend_initcall_undo(void)
{
	if (bioset_initialized(&iomap_ioend_bioset))
		bioset_exit(&iomap_ioend_bioset);
}
