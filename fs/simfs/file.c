// SPDX-License-Identifier: GPL-2.0-only
/*
 * simfs regular files: open/release, read_iter/write_iter (direct I/O
 * through iomap_dio_rw(), buffered I/O straight to the device), fsync,
 * fallocate and truncate.
 *
 * The direct write path follows ext4_dio_write_iter() and its checks: the
 * inode lock is taken shared only for an aligned pure overwrite inside
 * i_size; extending, allocating or unaligned-into-unwritten writes take it
 * exclusive, and then run synchronously (IOMAP_DIO_FORCE_WAIT), after
 * draining other direct I/O when sub-block zeroing could race.
 *
 * FMODE_DIO_PARALLEL_WRITE (P-01..P-08) is what a file system declares
 * when it can take several O_DIRECT writes to one file at once, as the
 * shared lock above allows.  simfs declares it per open file when the
 * mount says so.  In the kernel its only consumer is io_uring, which
 * otherwise hashes (serialises) writes per inode in io-wq; the FUSE front
 * end here has no io-wq, so without the flag simfs itself serialises:
 * every direct write takes the inode lock exclusive and completes before
 * the next one starts.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <linux/falloc.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "simfs.h"

DEFINE_SIM_STAT(stat_dio_read, "simfs_dio_read");
DEFINE_SIM_STAT(stat_dio_write, "simfs_dio_write");
DEFINE_SIM_STAT(stat_dio_write_shared, "simfs_dio_write_shared_lock");
DEFINE_SIM_STAT(stat_dio_write_excl, "simfs_dio_write_exclusive_lock");
DEFINE_SIM_STAT(stat_dio_write_serial, "simfs_dio_write_serialised");
DEFINE_SIM_STAT(stat_dio_enotblk, "simfs_dio_write_buffered_fallback");
DEFINE_SIM_STAT(stat_buf_read, "simfs_buffered_read");
DEFINE_SIM_STAT(stat_buf_write, "simfs_buffered_write");
DEFINE_SIM_STAT(stat_inline_conv, "simfs_inline_to_extent");
DEFINE_SIM_STAT(stat_enospc_retry, "simfs_enospc_commit_retry");
DEFINE_SIM_STAT(stat_fsync, "simfs_fsync");
DEFINE_SIM_STAT(stat_fsync_flush, "simfs_fsync_flush_only");
DEFINE_SIM_STAT(stat_fallocate, "simfs_fallocate");

/* Largest file: keeps block numbers and byte offsets far from overflow. */
#define SIMFS_MAX_BYTES ((loff_t)SIMFS_MAX_FILE_SIZE)
/* Buffered I/O moves at most this much per device round trip. */
#define BUFFERED_CHUNK (1U << 20)

static const struct file_operations simfs_file_ops_parallel = {
	.fop_flags = FOP_DIO_PARALLEL_WRITE,
	.read_iter = simfs_file_read_iter,
	.write_iter = simfs_file_write_iter,
	.fsync = simfs_fsync,
};

static const struct file_operations simfs_file_ops = {
	.read_iter = simfs_file_read_iter,
	.write_iter = simfs_file_write_iter,
	.fsync = simfs_fsync,
};

/* ---- open / release ----------------------------------------------------- */

struct file *simfs_file_open(struct simfs_inode_info *ei, int flags)
{
	struct simfs_sb_info *sbi = ei->sbi;
	int acc = flags & O_ACCMODE;
	struct file *f;
	int ret;

	if (!S_ISREG(ei->vfs_inode.i_mode))
		return ERR_PTR(S_ISDIR(ei->vfs_inode.i_mode) ? -EISDIR :
							       -EINVAL);
	if (acc != O_RDONLY && sbi->opts.read_only)
		return ERR_PTR(-EROFS);
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return ERR_PTR(-ENOMEM);
	f->f_mode = FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE |
		    FMODE_CAN_ODIRECT | FMODE_NOWAIT;
	if (acc == O_RDONLY || acc == O_RDWR)
		f->f_mode |= FMODE_READ;
	if (acc == O_WRONLY || acc == O_RDWR)
		f->f_mode |= FMODE_WRITE;
	if (READ_ONCE(sbi->parallel_dio_write)) {
		f->f_mode |= FMODE_DIO_PARALLEL_WRITE;
		f->f_op = &simfs_file_ops_parallel;
	} else {
		f->f_op = &simfs_file_ops;
	}
	f->f_flags = flags;
	f->f_inode = &ei->vfs_inode;
	f->f_mapping = ei->vfs_inode.i_mapping;

	mutex_lock(&sbi->ns_lock);
	ei->open_count++;
	mutex_unlock(&sbi->ns_lock);

	if ((flags & O_TRUNC) && (f->f_mode & FMODE_WRITE)) {
		struct simfs_attr a = { .size = 0 };

		ret = simfs_setattr(ei, SIMFS_SETATTR_SIZE, &a);
		if (ret) {
			simfs_file_release(f);
			return ERR_PTR(ret);
		}
	}
	return f;
}

void simfs_file_release(struct file *file)
{
	struct simfs_inode_info *ei = SIMFS_I(file_inode(file));
	struct simfs_sb_info *sbi = ei->sbi;

	mutex_lock(&sbi->ns_lock);
	ei->open_count--;
	simfs_inode_maybe_evict(ei);
	mutex_unlock(&sbi->ns_lock);
	kfree(file);
}

/* ---- helpers ------------------------------------------------------------ */

static void file_update_time(struct simfs_inode_info *ei)
{
	down_write(&ei->map_lock);
	ei->mtime = ei->ctime = simfs_now();
	up_write(&ei->map_lock);
	simfs_mark_time_dirty(ei->sbi);
}

/*
 * Blocks held back for the next commit may be all that is missing:
 * commit and try again, a few times (ext4_should_retry_alloc()).
 */
static bool should_retry_alloc(struct simfs_sb_info *sbi, int *retries)
{
	if ((*retries)++ >= 3 || !simfs_alloc_pending_count(sbi))
		return false;
	sim_stat_inc(&stat_enospc_retry);
	return simfs_commit(sbi) == 0;
}

bool simfs_overwrite_io(struct simfs_inode_info *ei, loff_t pos, size_t count,
			bool *unwritten)
{
	unsigned int bits = ei->vfs_inode.i_blkbits;
	u64 first = (u64)pos >> bits;
	u64 last = DIV_ROUND_UP((u64)pos + count, 1ULL << bits);
	struct simfs_extent *e;
	bool ret = false;
	u32 idx;

	*unwritten = false;
	if (pos + (loff_t)count > i_size_read(&ei->vfs_inode))
		return false;
	down_read(&ei->map_lock);
	if (!(ei->flags & SIMFS_IFL_INLINE)) {
		e = simfs_ext_find(ei, first, &idx);
		if (e && e->lblk + e->len >= last) {
			ret = true;
			*unwritten = e->flags & SIMFS_EXT_UNWRITTEN;
		}
	}
	up_read(&ei->map_lock);
	return ret;
}

/*
 * What maps block @blk of [blk, end) (map_lock held): the extent, with
 * *@pblk its block for @blk, or NULL for a hole; *@run blocks from @blk
 * on are mapped the same way, *@idx as simfs_ext_find() leaves it.
 */
static struct simfs_extent *find_run(struct simfs_inode_info *ei, u64 blk,
				     u64 end, u32 *idx, u64 *run, u64 *pblk)
{
	struct simfs_extent *e = simfs_ext_find(ei, blk, idx);
	u64 next;

	if (e) {
		*run = min(e->lblk + e->len, end) - blk;
		*pblk = e->pblk + (blk - e->lblk);
		return e;
	}
	next = *idx < ei->nr_ext ? ei->ext[*idx].lblk : end;
	*run = min(next, end) - blk;
	return NULL;
}

/*
 * Read whole blocks [first, first + n) into @buf: mapped extents from the
 * device, holes and unwritten extents as zeroes.
 */
static int read_blocks(struct simfs_inode_info *ei, u64 first, u64 n, char *buf)
{
	unsigned int bits = ei->vfs_inode.i_blkbits;
	struct block_device *bdev = ei->sbi->bdev;
	u64 blk = first, end = first + n;
	int ret = 0;

	while (blk < end && !ret) {
		struct simfs_extent *e;
		u64 run, pblk = 0;
		bool data;
		u32 idx;

		down_read(&ei->map_lock);
		e = find_run(ei, blk, end, &idx, &run, &pblk);
		data = e && !(e->flags & SIMFS_EXT_UNWRITTEN);
		up_read(&ei->map_lock);
		if (data)
			ret = simfs_bdev_rw(bdev, REQ_OP_READ, pblk << bits,
					    buf + ((blk - first) << bits),
					    run << bits);
		else
			memset(buf + ((blk - first) << bits), 0, run << bits);
		blk += run;
	}
	return ret;
}

/*
 * Write whole blocks [first, first + n) from @buf, allocating holes.  New
 * blocks are inserted unwritten and converted once the data is there, so
 * a crash in between leaves zeroes, not stale data.
 */
static int write_blocks(struct simfs_inode_info *ei, u64 first, u64 n,
			const char *buf)
{
	struct simfs_sb_info *sbi = ei->sbi;
	unsigned int bits = ei->vfs_inode.i_blkbits;
	u64 blk = first, end = first + n;
	int ret = 0;

	while (blk < end) {
		struct simfs_extent *e;
		u64 run, pblk;
		bool convert;
		u32 idx;

		down_write(&ei->map_lock);
		e = find_run(ei, blk, end, &idx, &run, &pblk);
		if (e) {
			convert = e->flags & SIMFS_EXT_UNWRITTEN;
		} else {
			u64 goal = 0;

			if (idx > 0)
				goal = ei->ext[idx - 1].pblk +
				       ei->ext[idx - 1].len;
			/* the hole's blocks, or as many as came contiguous */
			ret = simfs_ext_alloc_unwritten(ei, blk, goal, run,
							&pblk, &run);
			convert = true;
		}
		up_write(&ei->map_lock);
		if (ret)
			return ret;
		simfs_mark_data_dirty(sbi);
		ret = simfs_bdev_rw(sbi->bdev, REQ_OP_WRITE, pblk << bits,
				    (void *)(buf + ((blk - first) << bits)),
				    run << bits);
		if (ret)
			return ret;
		if (convert) {
			down_write(&ei->map_lock);
			ret = simfs_ext_set_flags(ei, blk, run, 0);
			up_write(&ei->map_lock);
			if (ret)
				return ret;
		}
		blk += run;
	}
	return 0;
}

static bool all_zero(const char *p, size_t len)
{
	return !len || (!p[0] && !memcmp(p, p + 1, len - 1));
}

/* Zero bytes [start, end) of one block on disk if it holds data. */
static int zero_partial_block(struct simfs_inode_info *ei, loff_t start,
			      loff_t end)
{
	unsigned int bits = ei->vfs_inode.i_blkbits;
	u32 bs = 1U << bits;
	u64 blk = (u64)start >> bits;
	struct simfs_extent *e;
	bool data;
	char *buf;
	u32 idx;
	int ret;

	if (start >= end)
		return 0;
	down_read(&ei->map_lock);
	e = simfs_ext_find(ei, blk, &idx);
	data = e && !(e->flags & SIMFS_EXT_UNWRITTEN);
	up_read(&ei->map_lock);
	if (!data)
		return 0;
	buf = simfs_buf_alloc(bs);
	if (!buf)
		return -ENOMEM;
	ret = read_blocks(ei, blk, 1, buf);
	/* zeroes there already (the usual tail past EOF): nothing to write */
	if (!ret && !all_zero(buf + (start & (bs - 1)), end - start)) {
		memset(buf + (start & (bs - 1)), 0, end - start);
		ret = write_blocks(ei, blk, 1, buf);
	}
	simfs_buf_free(buf);
	return ret;
}

/*
 * F-01: space past EOF reads as zeroes whatever the device holds there,
 * as in XFS and ext4.  Before i_size moves out from @old, nothing the
 * device holds past it may become file data: written blocks wholly past
 * @old are freed (mount frees what a crash left; a buffered write cut
 * short by ENOSPC or an I/O error leaves them in memory), and bytes
 * @old..@upto of the block holding @old are zeroed on disk if that block
 * holds data, as xfs_file_write_checks() and xfs_setattr_size() zero
 * from the old EOF with iomap_zero_range().  What the caller writes from
 * @upto on is its own.  i_rwsem held exclusive.
 */
static int zero_past_eof(struct simfs_inode_info *ei, loff_t old, loff_t upto)
{
	struct inode *inode = &ei->vfs_inode;
	loff_t bs = i_blocksize(inode);
	long freed;

	/* an inline file has no blocks, and its tail is kept zeroed */
	if (ei->flags & SIMFS_IFL_INLINE)
		return 0;
	down_write(&ei->map_lock);
	freed = simfs_ext_trim_written(ei, DIV_ROUND_UP((u64)old, bs));
	up_write(&ei->map_lock);
	if (freed < 0)
		return freed;
	if (freed)
		simfs_mark_data_dirty(ei->sbi);
	if (upto <= old || !(old & (bs - 1)))
		return 0;
	/* a direct overwrite of that block in flight would be undone */
	inode_dio_wait(inode);
	return zero_partial_block(ei, old, min(upto, round_up(old, bs)));
}

int simfs_inline_to_extent(struct simfs_inode_info *ei)
{
	struct simfs_sb_info *sbi = ei->sbi;
	unsigned int bits = ei->vfs_inode.i_blkbits;
	loff_t size = i_size_read(&ei->vfs_inode);
	u64 pblk, got;
	char *buf;
	int ret;

	if (!(ei->flags & SIMFS_IFL_INLINE))
		return 0;
	if (size) {
		ret = simfs_meta_room(sbi, sizeof(struct simfs_dextent));
		if (!ret)
			ret = simfs_alloc_blocks(sbi, 0, 1, &pblk, &got);
		if (ret)
			return ret;
		buf = simfs_buf_alloc(1U << bits);
		if (!buf) {
			simfs_free_blocks_now(sbi, pblk, got);
			return -ENOMEM;
		}
		memcpy(buf, ei->inline_data, size);
		ret = simfs_bdev_rw(sbi->bdev, REQ_OP_WRITE, pblk << bits, buf,
				    1U << bits);
		simfs_buf_free(buf);
		if (!ret)
			ret = simfs_ext_insert(ei, 0, pblk, 1, 0);
		if (ret) {
			simfs_free_blocks_now(sbi, pblk, got);
			return ret;
		}
	}
	ei->flags &= ~SIMFS_IFL_INLINE;
	kfree(ei->inline_data);
	ei->inline_data = NULL;
	simfs_mark_data_dirty(sbi);
	sim_stat_inc(&stat_inline_conv);
	return 0;
}

static int inline_to_extent_locked(struct simfs_inode_info *ei)
{
	int ret;

	down_write(&ei->map_lock);
	ret = simfs_inline_to_extent(ei);
	up_write(&ei->map_lock);
	return ret;
}

/* generic_write_checks(), with simfs's size limit. */
static ssize_t simfs_write_checks(struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);

	if (iocb->ki_flags & IOCB_APPEND)
		iocb->ki_pos = i_size_read(inode);
	if (!iov_iter_count(from))
		return 0;
	if (iocb->ki_pos >= SIMFS_MAX_BYTES)
		return -EFBIG;
	iov_iter_truncate(from, SIMFS_MAX_BYTES - iocb->ki_pos);
	return iov_iter_count(from);
}

/* ---- buffered I/O ------------------------------------------------------- */

/*
 * The blocks a buffered copy at @pos goes through next: @n cut to what
 * ends within BUFFERED_CHUNK, and a buffer for them (NULL: no memory).
 */
static char *chunk_buf(struct inode *inode, loff_t pos, size_t *n, u64 *first,
		       u64 *nblk)
{
	unsigned int bits = inode->i_blkbits;
	u32 bs = 1U << bits;

	*n = min_t(size_t, *n, BUFFERED_CHUNK - (pos & (bs - 1)));
	*first = (u64)pos >> bits;
	*nblk = DIV_ROUND_UP((u64)pos + *n, bs) - *first;
	return simfs_buf_alloc(*nblk << bits);
}

/*
 * Move ki_pos and the count done past the @copied bytes of @n a chunk
 * moved: -EFAULT when the iterator stopped short (the user memory
 * faulted, which copy_to_iter() and copy_from_iter() report so), else 0.
 */
static int chunk_copied(struct kiocb *iocb, ssize_t *done, size_t copied,
			size_t n)
{
	iocb->ki_pos += copied;
	*done += copied;
	return copied < n ? -EFAULT : 0;
}

static ssize_t simfs_buffered_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct simfs_inode_info *ei = SIMFS_I(inode);
	u32 bs = i_blocksize(inode);
	ssize_t done = 0;
	int ret = 0;
	char *buf;

	if (iocb->ki_flags & IOCB_NOWAIT)
		return -EAGAIN;
	sim_stat_inc(&stat_buf_read);
	inode_lock_shared(inode);
	while (iov_iter_count(to)) {
		loff_t pos = iocb->ki_pos, size = i_size_read(inode);
		size_t n = min_t(u64, iov_iter_count(to), size - pos);
		u64 first, nblk;
		size_t copied;

		if (pos >= size)
			break;
		down_read(&ei->map_lock);
		if (ei->flags & SIMFS_IFL_INLINE) {
			/*
			 * The buffer is SIMFS_INLINE_MAX bytes; mount's
			 * check refuses an inline i_size beyond it, and
			 * this keeps a read inside it regardless.
			 */
			if (pos >= SIMFS_INLINE_MAX) {
				up_read(&ei->map_lock);
				break;
			}
			n = min_t(size_t, n, SIMFS_INLINE_MAX - pos);
			copied = copy_to_iter(ei->inline_data + pos, n, to);
			up_read(&ei->map_lock);
			ret = chunk_copied(iocb, &done, copied, n);
			break;
		}
		up_read(&ei->map_lock);

		buf = chunk_buf(inode, pos, &n, &first, &nblk);
		if (!buf) {
			ret = -ENOMEM;
			break;
		}
		ret = read_blocks(ei, first, nblk, buf);
		if (!ret) {
			copied = copy_to_iter(buf + (pos & (bs - 1)), n, to);
			ret = chunk_copied(iocb, &done, copied, n);
		}
		simfs_buf_free(buf);
		if (ret)
			break;
	}
	inode_unlock_shared(inode);
	return done ? done : ret;
}

/* Copy @from to the file at ki_pos: i_rwsem held exclusive. */
static ssize_t simfs_perform_write(struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct simfs_inode_info *ei = SIMFS_I(inode);
	unsigned int bits = inode->i_blkbits;
	u32 bs = 1U << bits;
	ssize_t done = 0;
	int ret = 0;

	while (iov_iter_count(from)) {
		loff_t pos = iocb->ki_pos;
		size_t n = iov_iter_count(from), copied;
		u64 first, nblk;
		loff_t size;
		char *buf;

		down_write(&ei->map_lock);
		if (ei->flags & SIMFS_IFL_INLINE) {
			if (pos + n <= SIMFS_INLINE_MAX) {
				size = i_size_read(inode);
				/* the tail past i_size is kept zeroed */
				copied = copy_from_iter(ei->inline_data + pos,
							n, from);
				if (pos + (loff_t)copied > size)
					i_size_write(inode, pos + copied);
				up_write(&ei->map_lock);
				simfs_mark_data_dirty(ei->sbi);
				ret = chunk_copied(iocb, &done, copied, n);
				break;
			}
			ret = simfs_inline_to_extent(ei);
			if (ret) {
				up_write(&ei->map_lock);
				break;
			}
		}
		up_write(&ei->map_lock);

		buf = chunk_buf(inode, pos, &n, &first, &nblk);
		if (!buf) {
			ret = -ENOMEM;
			break;
		}
		/* read-modify-write of partial first and last blocks */
		if (pos & (bs - 1))
			ret = read_blocks(ei, first, 1, buf);
		if (!ret && ((pos + n) & (bs - 1)) &&
		    (nblk > 1 || !(pos & (bs - 1))))
			ret = read_blocks(ei, first + nblk - 1, 1,
					  buf + ((nblk - 1) << bits));
		if (!ret) {
			copied =
				copy_from_iter(buf + (pos & (bs - 1)), n, from);
			if (!copied)
				ret = -EFAULT;
			else
				ret = write_blocks(ei, first, nblk, buf);
			if (!ret) {
				spin_lock(&inode->i_lock);
				if (pos + (loff_t)copied > i_size_read(inode))
					i_size_write(inode, pos + copied);
				spin_unlock(&inode->i_lock);
				simfs_mark_data_dirty(ei->sbi);
				iocb->ki_pos += copied;
				done += copied;
			}
		}
		simfs_buf_free(buf);
		if (ret)
			break;
	}
	return done ? done : ret;
}

static ssize_t simfs_buffered_write_iter(struct kiocb *iocb,
					 struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct simfs_inode_info *ei = SIMFS_I(inode);
	int retries = 0;
	ssize_t ret;

	/* no FOP_BUFFER_WASYNC: buffered writes may block */
	if (iocb->ki_flags & IOCB_NOWAIT)
		return -EAGAIN;
	sim_stat_inc(&stat_buf_write);
retry:
	inode_lock(inode);
	ret = simfs_write_checks(iocb, from);
	if (ret > 0 && iocb->ki_pos + ret > i_size_read(inode)) {
		int err = zero_past_eof(ei, i_size_read(inode), iocb->ki_pos);

		if (err)
			ret = err;
	}
	if (ret > 0) {
		file_update_time(ei);
		ret = simfs_perform_write(iocb, from);
	}
	inode_unlock(inode);
	if (ret == -ENOSPC && should_retry_alloc(ei->sbi, &retries))
		goto retry;
	if (ret > 0)
		ret = generic_write_sync(iocb, ret);
	return ret;
}

/* ---- direct I/O ---------------------------------------------------------- */

static ssize_t simfs_dio_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct simfs_inode_info *ei = SIMFS_I(inode);
	ssize_t ret;

	if (iocb->ki_flags & IOCB_NOWAIT) {
		if (!down_read_trylock(&inode->i_rwsem))
			return -EAGAIN;
	} else {
		inode_lock_shared(inode);
	}
	sim_stat_inc(&stat_dio_read);
	ret = iomapsim_dio_rw(iocb, to, &simfs_iomap_ops,
			      simfs_dio_ops(ei, false), 0, NULL, 0);
	sim_trace("dio_rw_return", "ret %zd", ret);
	inode_unlock_shared(inode);
	return ret;
}

static int lock_inode(struct kiocb *iocb, struct inode *inode, bool shared)
{
	if (iocb->ki_flags & IOCB_NOWAIT) {
		if (shared ? !down_read_trylock(&inode->i_rwsem) :
			     !down_write_trylock(&inode->i_rwsem))
			return -EAGAIN;
		return 0;
	}
	if (shared)
		inode_lock_shared(inode);
	else
		inode_lock(inode);
	return 0;
}

static void unlock_inode(struct inode *inode, bool shared)
{
	if (shared)
		inode_unlock_shared(inode);
	else
		inode_unlock(inode);
}

static ssize_t simfs_dio_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	struct simfs_inode_info *ei = SIMFS_I(inode);
	bool parallel = file->f_mode & FMODE_DIO_PARALLEL_WRITE;
	bool ilock_shared = parallel && !(iocb->ki_flags & IOCB_APPEND);
	bool extend, unwritten, overwrite, unaligned, is_inline;
	unsigned int dio_flags = 0;
	int retries = 0;
	loff_t offset;
	size_t count;
	ssize_t ret;

restart:
	ret = lock_inode(iocb, inode, ilock_shared);
	if (ret)
		return ret;
	ret = simfs_write_checks(iocb, from);
	if (ret <= 0)
		goto out;
	offset = iocb->ki_pos;
	count = ret;
	extend = offset + (loff_t)count > i_size_read(inode);
	is_inline = READ_ONCE(ei->flags) & SIMFS_IFL_INLINE;
	overwrite = simfs_overwrite_io(ei, offset, count, &unwritten);
	unaligned = ((offset | count) & (i_blocksize(inode) - 1)) != 0;

	/*
	 * As ext4_dio_write_checks(): the exclusive lock for anything that
	 * allocates, extends, moves inline data, or zeroes partial blocks
	 * of unwritten extents (two such writes would zero each other's
	 * data).
	 */
	if (ilock_shared &&
	    (extend || !overwrite || is_inline || (unaligned && unwritten))) {
		unlock_inode(inode, true);
		ilock_shared = false;
		goto restart;
	}

	if (is_inline && offset + count > SIMFS_INLINE_MAX) {
		ret = inline_to_extent_locked(ei);
		if (ret)
			goto out;
	}

	if (!ilock_shared && (unaligned || extend)) {
		if (iocb->ki_flags & IOCB_NOWAIT) {
			ret = -EAGAIN;
			goto out;
		}
		if (unaligned && (!overwrite || unwritten))
			inode_dio_wait(inode);
		dio_flags = IOMAP_DIO_FORCE_WAIT;
	}
	if (extend) {
		ret = zero_past_eof(ei, i_size_read(inode), offset);
		if (ret)
			goto out;
	}
	if (!parallel) {
		/* see the top of this file: no parallel direct writes */
		dio_flags |= IOMAP_DIO_FORCE_WAIT;
		sim_stat_inc(&stat_dio_write_serial);
	}
	sim_stat_inc(ilock_shared ? &stat_dio_write_shared :
				    &stat_dio_write_excl);
	sim_stat_inc(&stat_dio_write);
	file_update_time(ei);

	ret = iomapsim_dio_rw(iocb, from, &simfs_iomap_ops,
			      simfs_dio_ops(ei, true), dio_flags, NULL, 0);
	sim_trace("dio_rw_return", "ret %zd", ret);
	if (ret == -ENOTBLK) {
		/* page cache could not be invalidated: buffered instead */
		sim_stat_inc(&stat_dio_enotblk);
		ret = 0;
		if (iov_iter_count(from) && !ilock_shared)
			ret = simfs_perform_write(iocb, from);
	}
out:
	unlock_inode(inode, ilock_shared);
	if (ret == -ENOSPC && should_retry_alloc(ei->sbi, &retries)) {
		ilock_shared = false;
		goto restart;
	}
	return ret;
}

ssize_t simfs_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	if (!iov_iter_count(to))
		return 0;
	if (iocb->ki_flags & IOCB_DIRECT)
		return simfs_dio_read_iter(iocb, to);
	return simfs_buffered_read_iter(iocb, to);
}

ssize_t simfs_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct simfs_inode_info *ei = SIMFS_I(file_inode(iocb->ki_filp));

	if (ei->sbi->opts.read_only)
		return -EROFS;
	if (!(iocb->ki_filp->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!iov_iter_count(from))
		return 0;
	if (iocb->ki_flags & IOCB_DIRECT)
		return simfs_dio_write_iter(iocb, from);
	return simfs_buffered_write_iter(iocb, from);
}

ssize_t simfs_rw_sync(struct file *file, bool write, bool direct, void *buf,
		      size_t len, loff_t pos)
{
	struct kiocb kiocb;
	struct iov_iter iter;

	init_sync_kiocb(&kiocb, file);
	kiocb.ki_flags = direct ? IOCB_DIRECT : 0;
	kiocb.ki_pos = pos;
	iov_iter_ubuf(&iter, write ? ITER_SOURCE : ITER_DEST, buf, len);
	if (write)
		return simfs_file_write_iter(&kiocb, &iter);
	return simfs_file_read_iter(&kiocb, &iter);
}

/* ---- fsync, truncate, fallocate -------------------------------------------- */

int simfs_fsync(struct file *file, loff_t start, loff_t end, int datasync)
{
	struct simfs_sb_info *sbi = SIMFS_I(file_inode(file))->sbi;
	bool commit;

	if (sbi->opts.read_only)
		return 0;
	sim_stat_inc(&stat_fsync);
	if (datasync)
		commit = atomic_long_read(&sbi->data_seq) !=
			 READ_ONCE(sbi->committed_data_seq);
	else
		commit = atomic_long_read(&sbi->any_seq) !=
			 READ_ONCE(sbi->committed_any_seq);
	if (commit)
		return simfs_commit(sbi);
	/* metadata is on disk already: only the data needs the flush */
	sim_stat_inc(&stat_fsync_flush);
	return blkdev_issue_flush(sbi->bdev);
}

int simfs_truncate(struct simfs_inode_info *ei, loff_t size)
{
	struct inode *inode = &ei->vfs_inode;
	unsigned int bits = inode->i_blkbits;
	loff_t old = i_size_read(inode);
	int ret = 0;

	if (size < 0)
		return -EINVAL;
	if (size > SIMFS_MAX_BYTES)
		return -EFBIG;
	down_write(&ei->map_lock);
	if (ei->flags & SIMFS_IFL_INLINE) {
		if (size <= SIMFS_INLINE_MAX) {
			if (size < old)
				memset(ei->inline_data + size, 0, old - size);
			goto set;
		}
		ret = simfs_inline_to_extent(ei);
		if (ret)
			goto unlock;
	}
	if (size > old) {
		up_write(&ei->map_lock);
		ret = zero_past_eof(ei, old, size);
		if (ret)
			return ret;
		down_write(&ei->map_lock);
	} else if (size < old) {
		u64 keep = DIV_ROUND_UP((u64)size, 1ULL << bits);

		ret = simfs_ext_remove(ei, keep, U64_MAX - keep);
		if (ret)
			goto unlock;
		up_write(&ei->map_lock);
		/*
		 * Bytes past EOF in the last block must read as zeroes when
		 * the file grows again (ext4_block_truncate_page).
		 */
		if (size & ((1 << bits) - 1))
			ret = zero_partial_block(ei, size,
						 round_up(size, 1LL << bits));
		if (ret)
			return ret;
		down_write(&ei->map_lock);
	}
set:
	i_size_write(inode, size);
	ei->mtime = ei->ctime = simfs_now();
unlock:
	up_write(&ei->map_lock);
	if (!ret)
		simfs_mark_data_dirty(ei->sbi);
	return ret;
}

/* Allocate unwritten blocks over the holes of [first, end). */
static int prealloc_blocks(struct simfs_inode_info *ei, u64 first, u64 end)
{
	struct simfs_sb_info *sbi = ei->sbi;
	u64 blk = first;
	int ret = 0;

	down_write(&ei->map_lock);
	while (blk < end) {
		struct simfs_extent *e = NULL;
		u64 next, goal = 0, pblk, got;
		u32 idx;

		e = simfs_ext_find(ei, blk, &idx);
		if (e) {
			blk = e->lblk + e->len;
			continue;
		}
		next = idx < ei->nr_ext ? min(ei->ext[idx].lblk, end) : end;
		if (idx > 0)
			goal = ei->ext[idx - 1].pblk + ei->ext[idx - 1].len;
		ret = simfs_ext_alloc_unwritten(ei, blk, goal, next - blk,
						&pblk, &got);
		if (ret)
			break;
		simfs_mark_data_dirty(sbi);
		blk += got;
	}
	up_write(&ei->map_lock);
	return ret;
}

/* Zero the partial blocks at both ends of [offset, end). */
static int zero_edges(struct simfs_inode_info *ei, loff_t offset, loff_t end)
{
	loff_t bs = i_blocksize(&ei->vfs_inode);
	loff_t head_end = min(round_up(offset, bs), end);
	int ret = 0;

	if (offset & (bs - 1))
		ret = zero_partial_block(ei, offset, head_end);
	if (!ret && (end & (bs - 1)) && round_down(end, bs) >= head_end &&
	    round_down(end, bs) >= offset)
		ret = zero_partial_block(ei, max(round_down(end, bs), offset),
					 end);
	return ret;
}

int simfs_fallocate(struct file *file, int mode, loff_t offset, loff_t len)
{
	struct inode *inode = file_inode(file);
	struct simfs_inode_info *ei = SIMFS_I(inode);
	unsigned int bits = inode->i_blkbits;
	loff_t end = offset + len;
	u64 first_full, last_full;
	int retries = 0;
	int ret = 0;

	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE |
		     FALLOC_FL_ZERO_RANGE))
		return -EOPNOTSUPP;
	/* vfs_fallocate(): punch needs KEEP_SIZE, and excludes zero range */
	if ((mode & FALLOC_FL_PUNCH_HOLE) &&
	    (!(mode & FALLOC_FL_KEEP_SIZE) || (mode & FALLOC_FL_ZERO_RANGE)))
		return -EOPNOTSUPP;
	if (offset < 0 || len <= 0)
		return -EINVAL;
	if (end > SIMFS_MAX_BYTES || end < offset)
		return -EFBIG;
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (ei->sbi->opts.read_only)
		return -EROFS;
	sim_stat_inc(&stat_fallocate);

retry:
	inode_lock(inode);
	/* as ext4: no mapping changes under running direct I/O */
	inode_dio_wait(inode);

	down_write(&ei->map_lock);
	if (ei->flags & SIMFS_IFL_INLINE) {
		if ((mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) &&
		    end <= SIMFS_INLINE_MAX) {
			loff_t size = i_size_read(inode);

			if (offset < size)
				memset(ei->inline_data + offset, 0,
				       min(end, size) - offset);
			if (!(mode & FALLOC_FL_KEEP_SIZE) && end > size)
				i_size_write(inode, end);
			up_write(&ei->map_lock);
			goto done;
		}
		ret = simfs_inline_to_extent(ei);
	}
	up_write(&ei->map_lock);
	if (ret)
		goto out;

	if (!(mode & FALLOC_FL_KEEP_SIZE) && end > i_size_read(inode)) {
		ret = zero_past_eof(ei, i_size_read(inode), end);
		if (ret)
			goto out;
	}
	first_full = DIV_ROUND_UP((u64)offset, 1ULL << bits);
	last_full = (u64)end >> bits;

	if (mode & FALLOC_FL_PUNCH_HOLE) {
		if (first_full < last_full) {
			down_write(&ei->map_lock);
			ret = simfs_ext_remove(ei, first_full,
					       last_full - first_full);
			up_write(&ei->map_lock);
		}
		if (!ret)
			ret = zero_edges(ei, offset, end);
		goto done;
	}

	if (mode & FALLOC_FL_ZERO_RANGE) {
		ret = zero_edges(ei, offset, end);
		if (!ret && first_full < last_full) {
			/* whole blocks: unwritten, i.e. zeroes, no I/O */
			down_write(&ei->map_lock);
			ret = simfs_ext_set_flags(ei, first_full,
						  last_full - first_full,
						  SIMFS_EXT_UNWRITTEN);
			up_write(&ei->map_lock);
			if (!ret)
				ret = prealloc_blocks(ei, first_full,
						      last_full);
		}
	} else {
		ret = prealloc_blocks(ei, (u64)offset >> bits,
				      DIV_ROUND_UP((u64)end, 1ULL << bits));
	}
	if (!ret && !(mode & FALLOC_FL_KEEP_SIZE) && end > i_size_read(inode)) {
		spin_lock(&inode->i_lock);
		i_size_write(inode, end);
		spin_unlock(&inode->i_lock);
	}
done:
	if (!ret) {
		down_write(&ei->map_lock);
		ei->mtime = ei->ctime = simfs_now();
		up_write(&ei->map_lock);
		simfs_mark_data_dirty(ei->sbi);
	}
out:
	inode_unlock(inode);
	if (ret == -ENOSPC && should_retry_alloc(ei->sbi, &retries))
		goto retry;
	return ret;
}
