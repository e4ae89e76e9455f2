// SPDX-License-Identifier: GPL-2.0-only
/* Super block and inode helpers that direct I/O relies on. */
#include <linux/fs.h>
#include <linux/workqueue.h>
#include <sim/stats.h>

DEFINE_SIM_STAT(stat_dio_wq_created, "sb_dio_done_wq_created");
DEFINE_SIM_STAT(stat_inode_dirtied, "inode_dirtied");

/*
 * K-06: concurrent DIOs may race to create the queue; the loser of the
 * cmpxchg destroys its own copy, and either way a queue is installed.
 */
int sb_init_dio_done_wq(struct super_block *sb)
{
	struct workqueue_struct *old;
	struct workqueue_struct *wq = alloc_workqueue(
		"dio/%s", WQ_MEM_RECLAIM | WQ_PERCPU, 0, sb->s_id);

	if (!wq)
		return -ENOMEM;
	old = cmpxchg(&sb->s_dio_done_wq, NULL, wq);
	if (old)
		destroy_workqueue(wq);
	else
		sim_stat_inc(&stat_dio_wq_created);
	return 0;
}

void sb_destroy_dio_done_wq(struct super_block *sb)
{
	struct workqueue_struct *wq = xchg(&sb->s_dio_done_wq, NULL);

	if (wq)
		destroy_workqueue(wq);
}

void inode_dio_wait(struct inode *inode)
{
	wait_var_event(&inode->i_dio_count,
		       atomic_read(&inode->i_dio_count) == 0);
}

void sim_inode_init_once(struct inode *inode, struct super_block *sb)
{
	inode->i_sb = sb;
	inode->i_blkbits = sb->s_blocksize_bits;
	inode->i_mapping = &inode->i_data;
	inode->i_data.host = inode;
	atomic_set(&inode->i_dio_count, 0);
	spin_lock_init(&inode->i_lock);
	init_rwsem(&inode->i_rwsem);
}

void mark_inode_dirty(struct inode *inode)
{
	sim_stat_inc(&stat_inode_dirtied);
}
