// SPDX-License-Identifier: GPL-2.0-only
/*
 * simfs's iomap_ops and iomap_dio_ops.
 *
 * ->iomap_begin reports extents as iomap mappings: written extents as
 * IOMAP_MAPPED, preallocated or not-yet-converted ones as IOMAP_UNWRITTEN,
 * holes as IOMAP_HOLE, tiny files as IOMAP_INLINE.  For a direct write it
 * fills holes the way XFS does (xfs_iomap_write_direct): the new blocks
 * are unwritten and flagged IOMAP_F_NEW, so iomap zeroes the parts of a
 * block the write does not cover, and ->end_io converts them to written
 * once the data is on the device, in process context (iomap punts
 * unwritten completions to s_dio_done_wq).  Until then a crash or a
 * concurrent reader sees zeroes, never stale blocks.
 *
 * The iomap_dio_ops are chosen per file (user.iomapsim.dops) so a tester
 * can steer requests off the simple path: none (NULL for reads, as ext4
 * and XFS pass), end_io, submit_io, or bio_set (an own bio_set with a
 * front_pad wrapper and a private ->bi_end_io, as btrfs does).
 */
#include <errno.h>
#include <linux/bio.h>
#include <linux/iomap.h>
#include <sim/iomap.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "simfs.h"

DEFINE_SIM_STAT(stat_iomap_begin, "simfs_iomap_begin");
DEFINE_SIM_STAT(stat_iomap_alloc, "simfs_iomap_alloc");
DEFINE_SIM_STAT(stat_iomap_eagain, "simfs_iomap_nowait_eagain");
DEFINE_SIM_STAT(stat_converted, "simfs_unwritten_converted");
DEFINE_SIM_STAT(stat_size_extended, "simfs_dio_size_extended");
DEFINE_SIM_STAT(stat_end_io_read, "simfs_dops_end_io_read");
DEFINE_SIM_STAT(stat_end_io_write, "simfs_dops_end_io_write");
DEFINE_SIM_STAT(stat_submit_io, "simfs_dops_submit_io");
DEFINE_SIM_STAT(stat_bioset_bios, "simfs_dops_bio_set_bios");

static const char *const iomap_type_names[] = { "hole", "delalloc", "mapped",
						"unwritten", "inline" };

/*
 * Lookups share the lock (concurrent direct reads and overwrites of one
 * file must not queue up here); a write may allocate.
 */
static int simfs_map_lock(struct simfs_inode_info *ei, unsigned int flags,
			  bool write)
{
	if (flags & IOMAP_NOWAIT) {
		if (write ? !down_write_trylock(&ei->map_lock) :
			    !down_read_trylock(&ei->map_lock)) {
			sim_stat_inc(&stat_iomap_eagain);
			return -EAGAIN;
		}
	} else if (write) {
		down_write(&ei->map_lock);
	} else {
		down_read(&ei->map_lock);
	}
	return 0;
}

static void simfs_map_unlock(struct simfs_inode_info *ei, bool write)
{
	if (write)
		up_write(&ei->map_lock);
	else
		up_read(&ei->map_lock);
}

/* An inline file: its data up to SIMFS_INLINE_MAX, a hole past it. */
static int simfs_iomap_inline(struct simfs_inode_info *ei, loff_t pos, u64 want,
			      unsigned int flags, struct iomap *iomap)
{
	if (pos < SIMFS_INLINE_MAX) {
		iomap->type = IOMAP_INLINE;
		iomap->addr = IOMAP_NULL_ADDR;
		iomap->offset = 0;
		iomap->length = SIMFS_INLINE_MAX;
		iomap->inline_data = ei->inline_data;
		return 0;
	}
	/* write_iter moves data out of the inode before this */
	if (WARN_ON_ONCE(flags & IOMAP_WRITE))
		return -EIO;
	iomap->type = IOMAP_HOLE;
	iomap->addr = IOMAP_NULL_ADDR;
	iomap->length = want << ei->vfs_inode.i_blkbits;
	return 0;
}

/*
 * A write into the hole at @lblk, before extent @idx: up to @n new
 * blocks, unwritten and IOMAP_F_NEW (xfs_iomap_write_direct()), placed
 * after the extent before the hole where they can be.
 */
static int simfs_iomap_alloc(struct simfs_inode_info *ei, u64 lblk, u32 idx,
			     u64 n, struct iomap *iomap)
{
	struct simfs_sb_info *sbi = ei->sbi;
	unsigned int bits = ei->vfs_inode.i_blkbits;
	u64 goal = 0, pblk, got;
	int ret;

	if (idx > 0) {
		struct simfs_extent *p = &ei->ext[idx - 1];

		goal = p->pblk + p->len + (lblk - p->lblk - p->len);
	}
	ret = simfs_ext_alloc_unwritten(ei, lblk, goal, n, &pblk, &got);
	if (ret)
		return ret;
	sim_stat_inc(&stat_iomap_alloc);
	simfs_mark_data_dirty(sbi);
	iomap->type = IOMAP_UNWRITTEN;
	iomap->flags |= IOMAP_F_NEW;
	iomap->addr = pblk << bits;
	iomap->length = got << bits;
	return 0;
}

static int __simfs_iomap_begin(struct inode *inode, loff_t pos, loff_t length,
			       unsigned flags, struct iomap *iomap)
{
	struct simfs_inode_info *ei = SIMFS_I(inode);
	struct simfs_sb_info *sbi = ei->sbi;
	unsigned int bits = inode->i_blkbits;
	u64 lblk = (u64)pos >> bits;
	u64 end = DIV_ROUND_UP((u64)pos + (u64)length, 1ULL << bits);
	u64 want = end > lblk ? end - lblk : 1;
	bool write = flags & IOMAP_WRITE;
	struct simfs_extent *e;
	u32 idx;
	int ret = 0;

	sim_stat_inc(&stat_iomap_begin);
	ret = simfs_map_lock(ei, flags, write);
	if (ret)
		return ret;

	iomap->bdev = sbi->sb.s_bdev;
	iomap->flags = 0;
	iomap->offset = lblk << bits;

	if (ei->flags & SIMFS_IFL_INLINE) {
		ret = simfs_iomap_inline(ei, pos, want, flags, iomap);
		if (ret)
			goto unlock;
		goto out;
	}

	e = simfs_ext_find(ei, lblk, &idx);
	if (e) {
		u64 n = min(e->lblk + e->len - lblk, want);

		iomap->type = (e->flags & SIMFS_EXT_UNWRITTEN) ?
				      IOMAP_UNWRITTEN :
				      IOMAP_MAPPED;
		iomap->addr = (e->pblk + (lblk - e->lblk)) << bits;
		iomap->length = n << bits;
	} else {
		u64 next = idx < ei->nr_ext ? ei->ext[idx].lblk : U64_MAX;
		u64 n = min(next - lblk, want);

		if (!(flags & IOMAP_WRITE)) {
			iomap->type = IOMAP_HOLE;
			iomap->addr = IOMAP_NULL_ADDR;
			iomap->length = n << bits;
			goto out;
		}
		if (flags & (IOMAP_NOWAIT | IOMAP_OVERWRITE_ONLY)) {
			/* allocation may block, and is not an overwrite */
			sim_stat_inc(&stat_iomap_eagain);
			ret = -EAGAIN;
			goto unlock;
		}
		ret = simfs_iomap_alloc(ei, lblk, idx, n, iomap);
		if (ret)
			goto unlock;
	}

	/*
	 * Uncommitted metadata: an O_DSYNC write must not be finished with
	 * FUA alone, the commit is needed too (ext4 sets this the same way
	 * for a datasync-dirty inode).
	 */
	if ((flags & IOMAP_WRITE) &&
	    atomic_long_read(&sbi->data_seq) != sbi->committed_data_seq)
		iomap->flags |= IOMAP_F_DIRTY;
out:
	if (ei->integrity)
		iomap->flags |= IOMAP_F_INTEGRITY;
	sim_trace("simfs_iomap_begin",
		  "ino=%lu pos=%lld len=%lld flags=%#x type=%s off=%lld "
		  "mlen=%llu iflags=%#x",
		  inode->i_ino, (long long)pos, (long long)length, flags,
		  iomap_type_names[iomap->type], (long long)iomap->offset,
		  (unsigned long long)iomap->length, iomap->flags);
unlock:
	simfs_map_unlock(ei, write);
	return ret;
}

/* Tells the observer each mapping: the simple path's is its first. */
static int simfs_iomap_begin(struct inode *inode, loff_t pos, loff_t length,
			     unsigned flags, struct iomap *iomap,
			     struct iomap *srcmap)
{
	int ret = __simfs_iomap_begin(inode, pos, length, flags, iomap);

	iomapsim_dio_mapped(inode, iomap, ret);
	return ret;
}

/* ->iomap_next of the VFS tree's API: simfs has no end work */
IOMAPSIM_DEFINE_IOMAP_NEXT(simfs_iomap_next, simfs_iomap_begin);

const struct iomapsim_fs_ops simfs_iomap_ops = {
	.begin = simfs_iomap_begin,
	.next = simfs_iomap_next,
};

/* ---- completion --------------------------------------------------------- */

static int simfs_convert_unwritten(struct simfs_inode_info *ei, loff_t pos,
				   ssize_t size)
{
	unsigned int bits = ei->vfs_inode.i_blkbits;
	u64 first = (u64)pos >> bits;
	u64 last = DIV_ROUND_UP((u64)pos + size, 1ULL << bits);
	int ret;

	down_write(&ei->map_lock);
	ret = simfs_ext_set_flags(ei, first, last - first, 0);
	up_write(&ei->map_lock);
	if (!ret) {
		sim_stat_inc(&stat_converted);
		simfs_mark_data_dirty(ei->sbi);
		sim_trace("simfs_convert_unwritten",
			  "ino=%lu pos=%lld size=%zd", ei->vfs_inode.i_ino,
			  (long long)pos, size);
	}
	return ret;
}

/*
 * As ext4_dio_write_end_io / xfs_dio_write_end_io: convert what the write
 * covered, then move i_size out.  iomap runs this in process context for
 * both (unwritten and size-extending completions go to s_dio_done_wq);
 * a pure overwrite may complete in interrupt context, and then neither
 * branch sleeps.
 */
static int simfs_dio_write_end_io(struct kiocb *iocb, ssize_t size, int error,
				  unsigned flags)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct simfs_inode_info *ei = SIMFS_I(inode);
	loff_t pos = iocb->ki_pos;

	sim_stat_inc(&stat_end_io_write);
	if (error)
		return error;
	if (!size)
		return 0;
	if (flags & IOMAP_DIO_UNWRITTEN) {
		error = simfs_convert_unwritten(ei, pos, size);
		if (error)
			return error;
	}
	if (pos + size > i_size_read(inode)) {
		spin_lock(&inode->i_lock);
		if (pos + size > i_size_read(inode)) {
			i_size_write(inode, pos + size);
			sim_stat_inc(&stat_size_extended);
		}
		spin_unlock(&inode->i_lock);
		simfs_mark_data_dirty(ei->sbi);
	}
	return 0;
}

/* The "end_io" dops for reads: nothing to do but be called. */
static int simfs_dio_read_end_io(struct kiocb *iocb, ssize_t size, int error,
				 unsigned flags)
{
	sim_stat_inc(&stat_end_io_read);
	return error;
}

static void simfs_dio_submit_io(const struct iomap_iter *iter, struct bio *bio,
				loff_t file_offset)
{
	sim_stat_inc(&stat_submit_io);
	submit_bio(bio);
}

/* The bio_set variant: private data in front of each bio. */
struct simfs_dio_bio {
	loff_t file_offset;
	u64 ino;
	struct bio bio; /* must be last: the bio_set's front_pad */
};

static void simfs_dio_private_end_io(struct bio *bio)
{
	struct simfs_dio_bio *sb = container_of(bio, struct simfs_dio_bio, bio);

	sim_trace("simfs_dio_bio_end_io", "ino=%llu off=%lld status=%u",
		  (unsigned long long)sb->ino, (long long)sb->file_offset,
		  bio->bi_status);
	iomap_dio_bio_end_io(bio);
}

static void simfs_dio_submit_io_private(const struct iomap_iter *iter,
					struct bio *bio, loff_t file_offset)
{
	struct simfs_dio_bio *sb = container_of(bio, struct simfs_dio_bio, bio);

	sim_stat_inc(&stat_submit_io);
	/*
	 * G-32: a bio from any other set has no room in front for our
	 * fields; counted here only when it really came from our set.
	 */
	if (WARN_ON_ONCE(bio->bi_pool !=
			 &SIMFS_I(iter->inode)->sbi->dio_bio_set)) {
		submit_bio(bio);
		return;
	}
	sim_stat_inc(&stat_bioset_bios);
	sb->file_offset = file_offset;
	sb->ino = iter->inode->i_ino;
	bio->bi_end_io = simfs_dio_private_end_io;
	submit_bio(bio);
}

int simfs_dio_ops_init(struct simfs_sb_info *sbi)
{
	int ret;

	ret = bioset_init(&sbi->dio_bio_set, BIO_POOL_SIZE,
			  offsetof(struct simfs_dio_bio, bio),
			  BIOSET_NEED_BVECS | BIOSET_PERCPU_CACHE);
	if (ret)
		return ret;
	sbi->dio_bio_set_ready = true;

	sbi->read_dops[SIMFS_DOPS_END_IO].end_io = simfs_dio_read_end_io;
	sbi->read_dops[SIMFS_DOPS_SUBMIT_IO].submit_io = simfs_dio_submit_io;
	sbi->read_dops[SIMFS_DOPS_BIO_SET] = (struct iomap_dio_ops){
		.submit_io = simfs_dio_submit_io_private,
		.bio_set = &sbi->dio_bio_set,
	};
	/* writes always need ->end_io: conversion and i_size */
	for (int k = 0; k < SIMFS_DOPS_NR; k++) {
		sbi->write_dops[k] = sbi->read_dops[k];
		sbi->write_dops[k].end_io = simfs_dio_write_end_io;
	}
	return 0;
}

void simfs_dio_ops_exit(struct simfs_sb_info *sbi)
{
	if (sbi->dio_bio_set_ready)
		bioset_exit(&sbi->dio_bio_set);
	sbi->dio_bio_set_ready = false;
}

const struct iomap_dio_ops *simfs_dio_ops(struct simfs_inode_info *ei,
					  bool write)
{
	struct simfs_sb_info *sbi = ei->sbi;
	int k = READ_ONCE(ei->dops);

	if (k == SIMFS_DOPS_DEFAULT)
		k = READ_ONCE(sbi->opts.default_dops);
	if (k < 0 || k >= SIMFS_DOPS_NR)
		k = SIMFS_DOPS_NONE;
	if (write)
		return &sbi->write_dops[k];
	return k == SIMFS_DOPS_NONE ? NULL : &sbi->read_dops[k];
}
