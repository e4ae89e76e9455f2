// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page-cache model behind <linux/pagemap.h>: cached page indexes with
 * test-chosen state bits, and the mm/filemap.c helpers direct I/O calls,
 * acting on those bits as the kernel acts on real pages.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <sim/stats.h>
#include <sim/trace.h>

struct sim_pc_page {
	pgoff_t index;
	unsigned int flags;
};

struct sim_page_cache {
	pthread_mutex_t lock;
	struct sim_pc_page *pages; /* sorted by index */
	unsigned int nr, cap;
	struct sim_pc_stats st;
};

DEFINE_SIM_STAT(stat_pc_writebacks, "pagecache_writebacks");
DEFINE_SIM_STAT(stat_pc_invalidated, "pagecache_invalidated");
DEFINE_SIM_STAT(stat_pc_busy, "pagecache_invalidate_busy");
DEFINE_SIM_STAT(stat_stale, "dio_stale_pagecache");
DEFINE_SIM_STAT(stat_fsyncs, "vfs_fsync_range");

int sim_pc_init(struct address_space *mapping)
{
	struct sim_page_cache *pc;

	if (mapping->sim_pc)
		return 0;
	pc = calloc(1, sizeof(*pc));
	if (!pc)
		return -ENOMEM;
	pthread_mutex_init(&pc->lock, NULL);
	mapping->sim_pc = pc;
	return 0;
}

void sim_pc_destroy(struct address_space *mapping)
{
	struct sim_page_cache *pc = mapping->sim_pc;

	if (!pc)
		return;
	mapping->sim_pc = NULL;
	__atomic_store_n(&mapping->nrpages, 0, __ATOMIC_RELAXED);
	pthread_mutex_destroy(&pc->lock);
	free(pc->pages);
	free(pc);
}

/* First page with index >= @index; lock held. */
static unsigned int pc_lower(struct sim_page_cache *pc, pgoff_t index)
{
	unsigned int lo = 0, hi = pc->nr;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (pc->pages[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void pc_sync_nrpages(struct address_space *mapping)
{
	struct sim_page_cache *pc = mapping->sim_pc;

	__atomic_store_n(&mapping->nrpages, pc->nr, __ATOMIC_RELAXED);
}

int sim_pc_add(struct address_space *mapping, pgoff_t index, unsigned int flags)
{
	struct sim_page_cache *pc;
	unsigned int i;
	int ret;

	ret = sim_pc_init(mapping);
	if (ret)
		return ret;
	pc = mapping->sim_pc;
	pthread_mutex_lock(&pc->lock);
	i = pc_lower(pc, index);
	if (i < pc->nr && pc->pages[i].index == index) {
		pc->pages[i].flags = flags;
		goto out;
	}
	if (pc->nr == pc->cap) {
		unsigned int cap = pc->cap ? pc->cap * 2 : 16;
		struct sim_pc_page *p = realloc(pc->pages, cap * sizeof(*p));

		if (!p) {
			ret = -ENOMEM;
			goto out;
		}
		pc->pages = p;
		pc->cap = cap;
	}
	memmove(&pc->pages[i + 1], &pc->pages[i],
		(pc->nr - i) * sizeof(pc->pages[0]));
	pc->pages[i] = (struct sim_pc_page){ .index = index, .flags = flags };
	pc->nr++;
	pc_sync_nrpages(mapping);
out:
	pthread_mutex_unlock(&pc->lock);
	return ret;
}

int sim_pc_page_flags(struct address_space *mapping, pgoff_t index)
{
	struct sim_page_cache *pc = mapping->sim_pc;
	unsigned int i;
	int ret = -1;

	if (!pc)
		return -1;
	pthread_mutex_lock(&pc->lock);
	i = pc_lower(pc, index);
	if (i < pc->nr && pc->pages[i].index == index)
		ret = (int)pc->pages[i].flags;
	pthread_mutex_unlock(&pc->lock);
	return ret;
}

void sim_pc_get_stats(struct address_space *mapping, struct sim_pc_stats *out)
{
	struct sim_page_cache *pc = mapping->sim_pc;

	memset(out, 0, sizeof(*out));
	if (!pc)
		return;
	pthread_mutex_lock(&pc->lock);
	*out = pc->st;
	pthread_mutex_unlock(&pc->lock);
}

static pgoff_t first_index(loff_t start)
{
	return start < 0 ? 0 : (pgoff_t)(start >> PAGE_SHIFT);
}

static pgoff_t last_index(loff_t end)
{
	return end < 0 ? 0 : (pgoff_t)(end >> PAGE_SHIFT);
}

/*
 * Write back every dirty page in the range and wait for writeback to end;
 * the first writeback error is returned (the kernel reports it through
 * the mapping's errseq; one error, reported once, is what a DIO caller
 * sees).
 */
int filemap_write_and_wait_range(struct address_space *mapping, loff_t start,
				 loff_t end)
{
	struct sim_page_cache *pc = mapping->sim_pc;
	unsigned int i;
	int err = 0;

	might_sleep();
	if (!pc || end < start)
		return 0;
	pthread_mutex_lock(&pc->lock);
	for (i = pc_lower(pc, first_index(start));
	     i < pc->nr && pc->pages[i].index <= last_index(end); i++) {
		struct sim_pc_page *p = &pc->pages[i];

		if (p->flags & SIM_PC_WRITEBACK) {
			p->flags &= ~SIM_PC_WRITEBACK;
			pc->st.waits++;
		}
		if (p->flags & SIM_PC_DIRTY) {
			p->flags &= ~SIM_PC_DIRTY;
			pc->st.writebacks++;
			sim_stat_inc(&stat_pc_writebacks);
			if (p->flags & SIM_PC_WB_ERROR) {
				p->flags &= ~SIM_PC_WB_ERROR;
				if (!err)
					err = -EIO;
			}
		}
	}
	pthread_mutex_unlock(&pc->lock);
	sim_trace("filemap_write_and_wait_range",
		  "start 0x%llx end 0x%llx ret %d", (unsigned long long)start,
		  (unsigned long long)end, err);
	return err;
}

bool filemap_range_needs_writeback(struct address_space *mapping, loff_t start,
				   loff_t end)
{
	struct sim_page_cache *pc = mapping->sim_pc;
	bool ret = false;
	unsigned int i;

	if (!pc || !READ_ONCE(mapping->nrpages) || end < start)
		return false;
	pthread_mutex_lock(&pc->lock);
	for (i = pc_lower(pc, first_index(start));
	     i < pc->nr && pc->pages[i].index <= last_index(end); i++) {
		if (pc->pages[i].flags & (SIM_PC_DIRTY | SIM_PC_WRITEBACK)) {
			ret = true;
			break;
		}
	}
	pthread_mutex_unlock(&pc->lock);
	return ret;
}

bool filemap_range_has_page(struct address_space *mapping, loff_t start,
			    loff_t end)
{
	struct sim_page_cache *pc = mapping->sim_pc;
	bool ret;
	unsigned int i;

	if (!pc || end < start)
		return false;
	pthread_mutex_lock(&pc->lock);
	i = pc_lower(pc, first_index(start));
	ret = i < pc->nr && pc->pages[i].index <= last_index(end);
	pthread_mutex_unlock(&pc->lock);
	return ret;
}

/*
 * Drop the pages in [start, end] (page indexes, inclusive).  A page that
 * is dirty, under writeback or marked busy stays and makes the call
 * return -EBUSY, as a page the kernel cannot release does.
 */
int invalidate_inode_pages2_range(struct address_space *mapping, pgoff_t start,
				  pgoff_t end)
{
	struct sim_page_cache *pc = mapping->sim_pc;
	unsigned int i, j;
	int ret = 0;

	might_sleep();
	if (!pc)
		return 0;
	pthread_mutex_lock(&pc->lock);
	i = pc_lower(pc, start);
	for (j = i; j < pc->nr && pc->pages[j].index <= end; j++) {
		struct sim_pc_page *p = &pc->pages[j];

		if (p->flags &
		    (SIM_PC_BUSY | SIM_PC_DIRTY | SIM_PC_WRITEBACK)) {
			pc->pages[i++] = *p;
			pc->st.invalidate_busy++;
			sim_stat_inc(&stat_pc_busy);
			ret = -EBUSY;
			continue;
		}
		pc->st.invalidated++;
		sim_stat_inc(&stat_pc_invalidated);
	}
	memmove(&pc->pages[i], &pc->pages[j],
		(pc->nr - j) * sizeof(pc->pages[0]));
	pc->nr -= j - i;
	pc_sync_nrpages(mapping);
	pthread_mutex_unlock(&pc->lock);
	return ret;
}

int kiocb_write_and_wait(struct kiocb *iocb, size_t count)
{
	struct address_space *mapping = iocb->ki_filp->f_mapping;
	loff_t pos = iocb->ki_pos;
	loff_t end = pos + count - 1;

	if (iocb->ki_flags & IOCB_NOWAIT) {
		if (filemap_range_needs_writeback(mapping, pos, end))
			return -EAGAIN;
		return 0;
	}

	return filemap_write_and_wait_range(mapping, pos, end);
}

int kiocb_invalidate_pages(struct kiocb *iocb, size_t count)
{
	struct address_space *mapping = iocb->ki_filp->f_mapping;
	loff_t pos = iocb->ki_pos;
	loff_t end = pos + count - 1;
	int ret;

	if (iocb->ki_flags & IOCB_NOWAIT) {
		/* any cached page could mean blocking on it */
		if (filemap_range_has_page(mapping, pos, end))
			return -EAGAIN;
	} else {
		ret = filemap_write_and_wait_range(mapping, pos, end);
		if (ret)
			return ret;
	}

	/*
	 * Buffered reads after the write must go to the device for the new
	 * data.  Dropping the pages before the write, rather than after,
	 * lets an async write return -EIOCBQUEUED untouched.
	 */
	return invalidate_inode_pages2_range(mapping, pos >> PAGE_SHIFT,
					     end >> PAGE_SHIFT);
}

void dio_warn_stale_pagecache(struct file *filp)
{
	struct sim_page_cache *pc = filp->f_mapping->sim_pc;

	/* the kernel records -EIO in the mapping's errseq and logs once */
	WRITE_ONCE(filp->f_mapping->wb_err, -EIO);
	sim_stat_inc(&stat_stale);
	if (pc) {
		pthread_mutex_lock(&pc->lock);
		pc->st.stale_warnings++;
		pthread_mutex_unlock(&pc->lock);
	}
	sim_trace("dio_warn_stale_pagecache", "ino 0x%lx",
		  file_inode(filp)->i_ino);
}

void kiocb_invalidate_post_direct_write(struct kiocb *iocb, size_t count)
{
	struct address_space *mapping = iocb->ki_filp->f_mapping;

	if (READ_ONCE(mapping->nrpages) &&
	    invalidate_inode_pages2_range(mapping, iocb->ki_pos >> PAGE_SHIFT,
					  (iocb->ki_pos + count - 1) >>
						  PAGE_SHIFT))
		dio_warn_stale_pagecache(iocb->ki_filp);
}

int vfs_fsync_range(struct file *file, loff_t start, loff_t end, int datasync)
{
	struct sim_page_cache *pc = file->f_mapping->sim_pc;

	might_sleep();
	if (!file->f_op || !file->f_op->fsync)
		return -EINVAL;
	sim_stat_inc(&stat_fsyncs);
	if (pc) {
		pthread_mutex_lock(&pc->lock);
		pc->st.fsyncs++;
		pthread_mutex_unlock(&pc->lock);
	}
	return file->f_op->fsync(file, start, end, datasync);
}

ssize_t generic_write_sync(struct kiocb *iocb, ssize_t count)
{
	if (iocb_is_dsync(iocb)) {
		int ret = vfs_fsync_range(iocb->ki_filp, iocb->ki_pos - count,
					  iocb->ki_pos - 1,
					  (iocb->ki_flags & IOCB_SYNC) ? 0 : 1);
		if (ret)
			return ret;
	}

	return count;
}
