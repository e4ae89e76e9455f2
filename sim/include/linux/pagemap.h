/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The page cache as direct I/O sees it (include/linux/pagemap.h and the
 * mm/filemap.c helpers DIO calls): writeback before a read, invalidation
 * before and after a write, and generic_write_sync() for O_[D]SYNC
 * (K-07..K-11).
 *
 * There is no buffered I/O behind it.  An address_space's page cache is a
 * set of page indexes, each with state bits a test chooses (dirty, under
 * writeback, impossible to invalidate, failing writeback), kept in a
 * struct sim_page_cache hung off address_space->sim_pc.  The helpers act on
 * those bits as the kernel acts on real pages, and keep mapping->nrpages
 * right, which decides where a write completes (G-51).  The model is test
 * fixture, not kernel memory: libc-allocated, invisible to fault injection.
 */
#ifndef _LINUX_PAGEMAP_H
#define _LINUX_PAGEMAP_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/types.h>

/* Per-page state bits of the model. */
#define SIM_PC_DIRTY		(1U << 0) /* needs writeback */
#define SIM_PC_WRITEBACK	(1U << 1) /* writeback in flight */
#define SIM_PC_BUSY		(1U << 2) /* cannot be invalidated: -EBUSY */
#define SIM_PC_WB_ERROR		(1U << 3) /* its writeback fails with -EIO */

/* Counters of what the helpers did to one mapping. */
struct sim_pc_stats {
	unsigned long writebacks;	/* pages written back */
	unsigned long waits;		/* pages waited on (writeback) */
	unsigned long invalidated;	/* pages dropped */
	unsigned long invalidate_busy;	/* pages that would not go */
	unsigned long stale_warnings;	/* dio_warn_stale_pagecache() */
	unsigned long fsyncs;		/* vfs_fsync_range() calls */
};

/*
 * Set up / tear down the model of @mapping (sim_pc_add() sets it up on
 * demand; destroy is needed only if it was set up).
 */
int sim_pc_init(struct address_space *mapping);
void sim_pc_destroy(struct address_space *mapping);
/* Add (or change) the page at @index with @flags; 0 or -ENOMEM. */
int sim_pc_add(struct address_space *mapping, pgoff_t index,
	       unsigned int flags);
/* State bits of the page at @index, or -1 if it is not cached. */
int sim_pc_page_flags(struct address_space *mapping, pgoff_t index);
void sim_pc_get_stats(struct address_space *mapping, struct sim_pc_stats *out);

/* mm/filemap.c, on byte ranges [start, end] (inclusive, as the kernel). */
int filemap_write_and_wait_range(struct address_space *mapping,
				 loff_t start, loff_t end);
bool filemap_range_needs_writeback(struct address_space *mapping,
				   loff_t start, loff_t end);
bool filemap_range_has_page(struct address_space *mapping, loff_t start,
			    loff_t end);
int invalidate_inode_pages2_range(struct address_space *mapping,
				  pgoff_t start, pgoff_t end);

/* K-07: flush cached data over [ki_pos, ki_pos + count) before a read. */
int kiocb_write_and_wait(struct kiocb *iocb, size_t count);
/* K-08: flush and drop cached pages over the range before a write. */
int kiocb_invalidate_pages(struct kiocb *iocb, size_t count);
/* K-10: drop pages that appeared during the write; failure only warns. */
void kiocb_invalidate_post_direct_write(struct kiocb *iocb, size_t count);
void dio_warn_stale_pagecache(struct file *filp);

/* K-11 (linux/fs.h in the kernel): O_[D]SYNC after a write. */
int vfs_fsync_range(struct file *file, loff_t start, loff_t end,
		    int datasync);
ssize_t generic_write_sync(struct kiocb *iocb, ssize_t count);

#endif /* _LINUX_PAGEMAP_H */
