// SPDX-License-Identifier: GPL-2.0-only
/*
 * iomap direct I/O (fs/iomap/direct-io.c) as in the tree the "simple dio
 * path" v6 series applies to, with that series applied:
 *
 *  - the generic path: __iomap_dio_rw() walks the mappings with
 *    iomap_iter(), builds bios per mapping, zeroes sub-block ranges of new
 *    and unwritten blocks, copies inline data and zero-fills holes, and
 *    completes in the submitter, in bio completion context or on the
 *    super block's s_dio_done_wq (G-01..G-61);
 *  - the simple path: iomap_dio_simple() serves a small read inside EOF
 *    that maps to one extent with one bio carved out of a dedicated
 *    bio_set, completing from ->bi_end_io on success (S-01..S-38).
 *
 * Only the kernel's file, with the simulator's few lines marked (sim).
 * The ->iomap_next() integration discussed in the series' review thread
 * (N-06..N-14), which is no kernel code, is in direct-io-next.c: that
 * file includes this one, so the library compiles this file once,
 * through it (there is no direct-io.o: CMakeLists.txt leaves this file
 * out of the build list), and the proposal calls the simple path's
 * statics without this file exporting them.
 *
 * Same functions, same steps, same flag values and errnos as the kernel;
 * the simulator learns what happened only through the kernel's own
 * tracepoints (trace.h) and the file system's callbacks: whether a request
 * is offered to the simple path is the caller's choice of iomap_dio_rw()
 * or __iomap_dio_rw() (iomap/fs-dio.c, <sim/fs_dio.h>).  Things the
 * simulator leaves out, each at its place: fscrypt contexts, block
 * integrity payloads, I/O accounting.
 */
#include <string.h>
#include <linux/bio.h>
#include <linux/cache.h>
#include <linux/fs.h>
#include <linux/fserror.h>
#include <linux/init.h>
#include <linux/iomap.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/workqueue.h>
#include "internal.h"
#include "trace.h"

/*
 * The kernel is built without -Wsign-compare, and this file keeps the
 * kernel's expressions (u64 mapping lengths against loff_t positions).
 */
#pragma GCC diagnostic ignored "-Wsign-compare"

/*
 * Private flags for iomap_dio, must not overlap with the public ones in
 * iomap.h:
 */
#define IOMAP_DIO_NO_INVALIDATE	(1U << 26)
#define IOMAP_DIO_COMP_WORK	(1U << 27)
#define IOMAP_DIO_WRITE_THROUGH	(1U << 28)
#define IOMAP_DIO_NEED_SYNC	(1U << 29)
#define IOMAP_DIO_WRITE		(1U << 30)
#define IOMAP_DIO_USER_BACKED	(1U << 31)

struct iomap_dio {
	struct kiocb		*iocb;
	const struct iomap_dio_ops *dops;
	loff_t			i_size;
	loff_t			size;
	atomic_t		ref;
	unsigned		flags;
	int			error;
	size_t			done_before;
	bool			wait_for_completion;

	union {
		/* while submitting, and for a waiting (sync) completion */
		struct {
			struct iov_iter		*iter;
			struct task_struct	*waiter;
		} submit;

		/* completion punted to the workqueue */
		struct {
			struct work_struct	work;
		} aio;
	};
};

/* G-32: the file system's own bio_set if it has one, else fs_bio_set. */
static struct bio *iomap_dio_alloc_bio(const struct iomap_iter *iter,
		struct iomap_dio *dio, unsigned short nr_vecs, blk_opf_t opf)
{
	if (dio->dops && dio->dops->bio_set)
		return bio_alloc_bioset(iter->iomap.bdev, nr_vecs, opf,
					GFP_KERNEL, dio->dops->bio_set);
	return bio_alloc(iter->iomap.bdev, nr_vecs, opf, GFP_KERNEL);
}

/* G-37: one more reference per bio, then hand it to the device. */
static void iomap_dio_submit_bio(const struct iomap_iter *iter,
		struct iomap_dio *dio, struct bio *bio, loff_t pos)
{
	struct kiocb *iocb = dio->iocb;

	atomic_inc(&dio->ref);

	/* a sync waiter sleeps rather than polls, so only async is polled */
	if ((iocb->ki_flags & IOCB_HIPRI) && !is_sync_kiocb(iocb)) {
		bio->bi_opf |= REQ_POLLED;
		WRITE_ONCE(iocb->private, bio);
	}

	if (dio->dops && dio->dops->submit_io) {
		dio->dops->submit_io(iter, bio, pos);
	} else {
		WARN_ON_ONCE(iter->iomap.flags & IOMAP_F_ANON_WRITE);
		/* blk_crypto_submit_bio() in trees with inline encryption */
		submit_bio(bio);
	}
}

static inline enum fserror_type iomap_dio_err_type(const struct iomap_dio *dio)
{
	if (dio->flags & IOMAP_DIO_WRITE)
		return FSERR_DIRECTIO_WRITE;
	return FSERR_DIRECTIO_READ;
}

/*
 * K-14: success and the two "try another way" codes (-EAGAIN: retry,
 * -ENOTBLK: use buffered I/O) are not file errors worth reporting.
 */
static inline bool should_report_dio_fserror(int error)
{
	switch (error) {
	case 0:
	case -EAGAIN:
	case -ENOTBLK:
		return false;
	default:
		return true;
	}
}

/*
 * G-55: runs exactly once per dio, in the submitter, in bio completion
 * context or in a workqueue worker, and frees the dio.
 */
ssize_t iomap_dio_complete(struct iomap_dio *dio)
{
	const struct iomap_dio_ops *dops = dio->dops;
	struct kiocb *iocb = dio->iocb;
	loff_t offset = iocb->ki_pos;
	ssize_t ret = dio->error;

	if (dops && dops->end_io)
		ret = dops->end_io(iocb, dio->size, ret, dio->flags);
	if (should_report_dio_fserror(dio->error))
		fserror_report_io(file_inode(iocb->ki_filp),
				  iomap_dio_err_type(dio), offset, dio->size,
				  dio->error, GFP_NOFS);

	if (likely(!ret)) {
		ret = dio->size;
		/* a read may have copied past EOF: report only up to i_size */
		if (offset + ret > dio->i_size &&
		    !(dio->flags & IOMAP_DIO_WRITE))
			ret = dio->i_size - offset;
	}

	/*
	 * Drop page cache that appeared over the written range while the
	 * write was in flight (readahead, or pages faulted in from an mmap of
	 * this very file as the write's source).  Failing here cannot undo
	 * the write, so it is only noted.  It must come after ->end_io: a
	 * file system converting unwritten extents there would otherwise let
	 * a racing buffered read cache the zeroes of the unwritten blocks.
	 */
	if (!dio->error && dio->size && (dio->flags & IOMAP_DIO_WRITE) &&
	    !(dio->flags & IOMAP_DIO_NO_INVALIDATE))
		kiocb_invalidate_post_direct_write(iocb, dio->size);

	inode_dio_end(file_inode(iocb->ki_filp));

	if (ret > 0) {
		iocb->ki_pos += ret;

		/* O_DSYNC/O_SYNC: the data must reach stable storage now */
		if (dio->flags & IOMAP_DIO_NEED_SYNC)
			ret = generic_write_sync(iocb, ret);
		if (ret > 0)
			ret += dio->done_before;
	}
	trace_iomap_dio_complete(iocb, dio->error, ret);
	kfree(dio);
	return ret;
}

static void iomap_dio_complete_work(struct work_struct *work)
{
	struct iomap_dio *dio = container_of(work, struct iomap_dio, aio.work);
	struct kiocb *iocb = dio->iocb;

	iocb->ki_complete(iocb, iomap_dio_complete(dio));
}

/*
 * G-47: the first error wins.  The submitter and any number of bio
 * completions can race here, hence the compare-and-exchange.
 */
static inline void iomap_dio_set_error(struct iomap_dio *dio, int ret)
{
	cmpxchg(&dio->error, 0, ret);
}

/*
 * The last reference to the dio went away in I/O completion (G-50, G-51):
 * wake a waiting submitter, or complete here, or punt to the workqueue.
 */
static void iomap_dio_done(struct iomap_dio *dio)
{
	struct kiocb *iocb = dio->iocb;

	if (dio->wait_for_completion) {
		/*
		 * The submitter sleeps in __iomap_dio_rw() and does all of the
		 * completion itself once woken; clearing the waiter is the
		 * signal.
		 */
		struct task_struct *waiter = dio->submit.waiter;

		WRITE_ONCE(dio->submit.waiter, NULL);
		blk_wake_io_task(waiter);
		return;
	}

	/*
	 * Errors are rare and their handling may take sleeping locks, so
	 * they always complete in process context.
	 */
	if (dio->error)
		dio->flags |= IOMAP_DIO_COMP_WORK;

	/*
	 * A write with no other reason to go to the workqueue may complete
	 * right here only if it need not invalidate page cache: invalidation
	 * sleeps, and from the ioend workqueue it could deadlock against
	 * buffered completions.  If someone dirties the range between this
	 * check and the completion, the stale page survives; the kernel
	 * accepts that small window.
	 */
	if ((dio->flags & IOMAP_DIO_WRITE) &&
	    !(dio->flags & IOMAP_DIO_COMP_WORK)) {
		if (dio->iocb->ki_filp->f_mapping->nrpages)
			dio->flags |= IOMAP_DIO_COMP_WORK;
		else
			dio->flags |= IOMAP_DIO_NO_INVALIDATE;
	}

	if (dio->flags & IOMAP_DIO_COMP_WORK) {
		struct inode *inode = file_inode(iocb->ki_filp);

		/*
		 * File system completion work (extent conversion, size
		 * update, cache flush) may issue more I/O and sleep, which
		 * bio completion context must not: punt it to the queue
		 * __iomap_dio_rw() made sure exists.
		 */
		INIT_WORK(&dio->aio.work, iomap_dio_complete_work);
		queue_work(inode->i_sb->s_dio_done_wq, &dio->aio.work);
		return;
	}

	/* nothing left that could sleep: complete in this context */
	WRITE_ONCE(iocb->private, NULL);
	iomap_dio_complete_work(&dio->aio.work);
}

/*
 * G-49: release the bio before dropping the dio reference, so that the
 * final completion never races with page release of its own bios.
 */
static void __iomap_dio_bio_end_io(struct bio *bio, bool inline_completion)
{
	struct iomap_dio *dio = bio->bi_private;

	if (dio->flags & IOMAP_DIO_BOUNCE) {
		bio_iov_iter_unbounce(bio, !!dio->error,
				dio->flags & IOMAP_DIO_USER_BACKED);
		bio_put(bio);
	} else if (dio->flags & IOMAP_DIO_USER_BACKED) {
		bio_check_pages_dirty(bio);
	} else {
		bio_release_pages(bio, false);
		bio_put(bio);
	}

	/* The bio is gone now: only the dio may be touched below. */

	if (atomic_dec_and_test(&dio->ref)) {
		/*
		 * Already in a worker (the ioend completion queue): do not
		 * bounce to another one.
		 */
		if (inline_completion)
			dio->flags &= ~IOMAP_DIO_COMP_WORK;
		iomap_dio_done(dio);
	}
}

void iomap_dio_bio_end_io(struct bio *bio)
{
	struct iomap_dio *dio = bio->bi_private;

	if (bio->bi_status)
		iomap_dio_set_error(dio, blk_status_to_errno(bio->bi_status));
	__iomap_dio_bio_end_io(bio, false);
}

/*
 * G-40: write zeroes over [pos, pos + len) of a block the data write only
 * partly covers, from the shared zero folio.  Not counted in dio->size.
 */
static int iomap_dio_zero(const struct iomap_iter *iter, struct iomap_dio *dio,
		loff_t pos, unsigned len)
{
	struct inode *inode = file_inode(dio->iocb->ki_filp);
	struct folio *zero_folio = largest_zero_folio();
	int nr_vecs = max(1, i_blocksize(inode) / folio_size(zero_folio));
	struct bio *bio;

	if (!len)
		return 0;

	/* file systems stop at 64k blocks, far below this */
	if (WARN_ON_ONCE(nr_vecs > BIO_MAX_VECS))
		return -EINVAL;

	bio = iomap_dio_alloc_bio(iter, dio, nr_vecs,
				  REQ_OP_WRITE | REQ_SYNC | REQ_IDLE);
	fscrypt_set_bio_crypt_ctx(bio, inode, pos, GFP_KERNEL);
	bio->bi_iter.bi_sector = iomap_sector(&iter->iomap, pos);
	bio->bi_private = dio;
	bio->bi_end_io = iomap_dio_bio_end_io;

	while (len > 0) {
		unsigned int io_len = min_t(unsigned int, len,
					    folio_size(zero_folio));

		bio_add_folio_nofail(bio, zero_folio, io_len, 0);
		len -= io_len;
	}
	iomap_dio_submit_bio(iter, dio, bio, pos);
	return 0;
}

/*
 * G-32..G-37: build one data bio from the caller's iterator at @pos and
 * submit it.  Returns the bytes it carries or a negative errno.
 */
static ssize_t iomap_dio_bio_iter_one(struct iomap_iter *iter,
		struct iomap_dio *dio, loff_t pos, unsigned int alignment,
		blk_opf_t op)
{
	unsigned int nr_vecs;
	struct bio *bio;
	ssize_t ret;

	if (dio->flags & IOMAP_DIO_BOUNCE)
		nr_vecs = bio_iov_bounce_nr_vecs(dio->submit.iter, op);
	else
		nr_vecs = bio_iov_vecs_to_alloc(dio->submit.iter, BIO_MAX_VECS);

	bio = iomap_dio_alloc_bio(iter, dio, nr_vecs, op);
	fscrypt_set_bio_crypt_ctx(bio, iter->inode, pos, GFP_KERNEL);
	bio->bi_iter.bi_sector = iomap_sector(&iter->iomap, pos);
	bio->bi_write_hint = iter->inode->i_write_hint;
	bio->bi_ioprio = dio->iocb->ki_ioprio;
	bio->bi_private = dio;
	bio->bi_end_io = iomap_dio_bio_end_io;

	if (dio->flags & IOMAP_DIO_BOUNCE)
		ret = bio_iov_iter_bounce(bio, dio->submit.iter,
				iomap_max_bio_size(&iter->iomap));
	else
		ret = bio_iov_iter_get_pages(bio, dio->submit.iter,
					     alignment - 1);
	if (unlikely(ret))
		goto out_put_bio;
	ret = bio->bi_iter.bi_size;

	/*
	 * A REQ_ATOMIC write is only untorn as one bio covering all of the
	 * mapping; anything shorter is a bug somewhere.
	 */
	if ((op & REQ_ATOMIC) && WARN_ON_ONCE(ret != iomap_length(iter))) {
		ret = -EINVAL;
		goto out_bio_release_pages;
	}

	/*
	 * (IOMAP_F_INTEGRITY: the kernel generates or allocates the
	 * integrity payload here; the simulated block layer has none.)
	 */

	if (dio->flags & IOMAP_DIO_WRITE)
		task_io_account_write(ret);
	else if ((dio->flags & IOMAP_DIO_USER_BACKED) &&
		 !(dio->flags & IOMAP_DIO_BOUNCE))
		bio_set_pages_dirty(bio);

	/*
	 * Only a request that is a single bio can be polled: if the iterator
	 * has more to give, this bio is not the last one.
	 */
	if (iov_iter_count(dio->submit.iter))
		dio->iocb->ki_flags &= ~IOCB_HIPRI;
	iomap_dio_submit_bio(iter, dio, bio, pos);
	return ret;

	/*
	 * (sim) Not in the baseline, which only put the bio here and so
	 * never released the pages it had pinned (K8, docs/fuzzing.md); upstream
	 * releases them (the VFS tree at 2913b382), and so do we.
	 */
out_bio_release_pages:
	if (dio->flags & IOMAP_DIO_BOUNCE)
		bio_iov_iter_unbounce(bio, true, false);
	else
		bio_release_pages(bio, false);
out_put_bio:
	bio_put(bio);
	return ret;
}

/* G-23, S-14: the unit both paths require of position and length. */
static inline unsigned int iomap_dio_alignment(struct inode *inode,
		struct block_device *bdev, unsigned int dio_flags)
{
	if (dio_flags & IOMAP_DIO_FSBLOCK_ALIGNED)
		return i_blocksize(inode);
	return bdev_logical_block_size(bdev);
}

/* G-23..G-39: one MAPPED or UNWRITTEN (write) mapping. */
static int iomap_dio_bio_iter(struct iomap_iter *iter, struct iomap_dio *dio)
{
	const struct iomap *iomap = &iter->iomap;
	struct inode *inode = iter->inode;
	unsigned int fs_block_size = i_blocksize(inode), pad;
	const loff_t length = iomap_length(iter);
	loff_t pos = iter->pos;
	blk_opf_t bio_opf = REQ_SYNC | REQ_IDLE;
	bool need_zeroout = false;
	u64 copied = 0;
	size_t orig_count;
	unsigned int alignment;
	ssize_t ret = 0;

	/*
	 * Out-of-place writers that allocate fresh blocks for every write
	 * need whole blocks per bio: that is their allocation unit.
	 */
	alignment = iomap_dio_alignment(inode, iomap->bdev, dio->flags);

	if ((pos | length) & (alignment - 1))
		return -EINVAL;

	if (dio->flags & IOMAP_DIO_WRITE) {
		bool need_completion_work = true;

		switch (iomap->type) {
		case IOMAP_MAPPED:
			/*
			 * Overwriting allocated blocks needs no work at
			 * completion by itself; the flags below may still
			 * ask for it.
			 */
			need_completion_work = false;
			break;
		case IOMAP_UNWRITTEN:
			dio->flags |= IOMAP_DIO_UNWRITTEN;
			need_zeroout = true;
			break;
		default:
			break;
		}

		if (iomap->flags & IOMAP_F_ATOMIC_BIO) {
			/*
			 * Hardware atomics need the whole write in one bio,
			 * so this mapping must cover all that is left.
			 */
			if (length != iter->len)
				return -EINVAL;
			bio_opf |= REQ_ATOMIC;
		}

		if (iomap->flags & IOMAP_F_SHARED) {
			/* unsharing updates metadata when the I/O is done */
			need_completion_work = true;
			dio->flags |= IOMAP_DIO_COW;
		}

		if (iomap->flags & IOMAP_F_NEW) {
			/* new blocks may need recording at completion */
			need_completion_work = true;
			need_zeroout = true;
		}

		/*
		 * G-26: for O_DSYNC, a pure overwrite that needs no metadata
		 * update can be made durable with FUA and save the cache
		 * flush at completion.  One mapping that cannot turns the
		 * optimisation off for the whole request.
		 */
		if (dio->flags & IOMAP_DIO_WRITE_THROUGH) {
			if (!need_completion_work &&
			    !(iomap->flags & IOMAP_F_DIRTY) &&
			    (!bdev_write_cache(iomap->bdev) ||
			     bdev_fua(iomap->bdev)))
				bio_opf |= REQ_FUA;
			else
				dio->flags &= ~IOMAP_DIO_WRITE_THROUGH;
		}

		/*
		 * G-27: zeroing, unwritten conversion and unsharing all need
		 * process context at completion.  (Size extension is handled
		 * in __iomap_dio_rw().)
		 */
		if (need_completion_work)
			dio->flags |= IOMAP_DIO_COMP_WORK;

		bio_opf |= REQ_OP_WRITE;
	} else {
		bio_opf |= REQ_OP_READ;
	}

	/*
	 * G-28: limit the caller's iterator to this mapping while its bios
	 * are built; it is given back the rest below.
	 */
	orig_count = iov_iter_count(dio->submit.iter);
	iov_iter_truncate(dio->submit.iter, length);

	if (!iov_iter_count(dio->submit.iter))
		goto out;

	/*
	 * G-29: polling completes in the poller's context, so it is only
	 * offered to requests that may complete inline.
	 */
	if (dio->flags & IOMAP_DIO_COMP_WORK)
		dio->iocb->ki_flags &= ~IOCB_HIPRI;

	if (need_zeroout) {
		/* G-30: zero from the start of the block up to the data */
		pad = pos & (fs_block_size - 1);

		ret = iomap_dio_zero(iter, dio, pos - pad, pad);
		if (ret)
			goto out;
	}

	do {
		/* G-31: a completion already failed the request: stop */
		if (unlikely(data_race(dio->error)))
			goto out;

		ret = iomap_dio_bio_iter_one(iter, dio, pos, alignment, bio_opf);
		if (unlikely(ret < 0)) {
			/*
			 * G-33: stop part way.  The tail zeroing below must
			 * still run, or this short write would leave stale
			 * data in the rest of its last block.
			 */
			break;
		}
		dio->size += ret;
		copied += ret;
		pos += ret;
		ret = 0;
	} while (iov_iter_count(dio->submit.iter));

	/*
	 * G-38: zero the rest of the last block when the mapping needs
	 * zeroing or the write ends at or past EOF; otherwise an mmap read of
	 * the EOF block could see stale data.
	 */
	if (need_zeroout ||
	    ((dio->flags & IOMAP_DIO_WRITE) && pos >= i_size_read(inode))) {
		pad = pos & (fs_block_size - 1);
		if (pad)
			ret = iomap_dio_zero(iter, dio, pos,
					     fs_block_size - pad);
	}
out:
	/* give the iterator back what this mapping did not consume */
	iov_iter_reexpand(dio->submit.iter, orig_count - copied);
	if (copied)
		return iomap_iter_advance(iter, copied);
	return ret;
}

/* G-21: holes, and unwritten extents on read, read as zeroes. */
static int iomap_dio_hole_iter(struct iomap_iter *iter, struct iomap_dio *dio)
{
	loff_t length = iov_iter_zero(iomap_length(iter), dio->submit.iter);

	dio->size += length;
	if (!length)
		return -EFAULT;
	return iomap_iter_advance(iter, length);
}

/* G-22: data stored in the inode itself is copied, no bio. */
static int iomap_dio_inline_iter(struct iomap_iter *iomi, struct iomap_dio *dio)
{
	const struct iomap *iomap = &iomi->iomap;
	struct iov_iter *iter = dio->submit.iter;
	void *inline_data = iomap_inline_data(iomap, iomi->pos);
	loff_t length = iomap_length(iomi);
	loff_t pos = iomi->pos;
	u64 copied;

	/*
	 * The kernel tests the derived pointer; testing the base says the
	 * same without arithmetic on NULL (which UBSan rightly flags).
	 */
	if (WARN_ON_ONCE(!iomap->inline_data))
		return -EIO;

	if (dio->flags & IOMAP_DIO_WRITE) {
		loff_t size = iomi->inode->i_size;

		if (pos > size)
			memset(iomap_inline_data(iomap, size), 0, pos - size);
		copied = copy_from_iter(inline_data, length, iter);
		if (copied) {
			if (pos + copied > size)
				i_size_write(iomi->inode, pos + copied);
			mark_inode_dirty(iomi->inode);
		}
	} else {
		copied = copy_to_iter(inline_data, length, iter);
	}
	dio->size += copied;
	if (!copied)
		return -EFAULT;
	return iomap_iter_advance(iomi, copied);
}

/* G-20: what each mapping type means for a direct read or write. */
static int iomap_dio_iter(struct iomap_iter *iter, struct iomap_dio *dio)
{
	switch (iter->iomap.type) {
	case IOMAP_HOLE:
		if (WARN_ON_ONCE(dio->flags & IOMAP_DIO_WRITE))
			return -EIO;
		return iomap_dio_hole_iter(iter, dio);
	case IOMAP_UNWRITTEN:
		if (!(dio->flags & IOMAP_DIO_WRITE))
			return iomap_dio_hole_iter(iter, dio);
		return iomap_dio_bio_iter(iter, dio);
	case IOMAP_MAPPED:
		return iomap_dio_bio_iter(iter, dio);
	case IOMAP_INLINE:
		return iomap_dio_inline_iter(iter, dio);
	case IOMAP_DELALLOC:
		/*
		 * Direct I/O is not serialised against mmap: a page_mkwrite
		 * between the cache flush and iomap_iter() leaves delalloc
		 * blocks behind, which direct I/O cannot handle.
		 */
		pr_warn_ratelimited("Direct I/O collision with buffered writes! File: ino %lu Comm: %.20s\n",
				    iter->inode->i_ino, current->comm);
		return -EIO;
	default:
		WARN_ON_ONCE(1);
		return -EIO;
	}
}

/*
 * The generic path.  O_[D]SYNC writes always complete through here, async
 * or not, so that pure overwrites can use REQ_FUA instead of a cache
 * flush at completion; a request split over several mappings where only
 * some allow that still gets the full sync.
 *
 * With IOMAP_DIO_PARTIAL and page faults disabled in @iter, a fault after
 * some progress returns that progress; the caller faults the pages in and
 * continues with @done_before set to what was already done, so that the
 * final completion reports the whole count (G-43, G-57).
 *
 * Returns NULL for "nothing to do, return 0", an ERR_PTR (-EIOCBQUEUED for
 * an async request in flight), or a dio the caller completes with
 * iomap_dio_complete().  -ENOTBLK from page invalidation tells a write
 * caller to fall back to buffered I/O.
 */
struct iomap_dio *
__iomap_dio_rw(struct kiocb *iocb, struct iov_iter *iter,
		const struct iomap_ops *ops, const struct iomap_dio_ops *dops,
		unsigned int dio_flags, void *private, size_t done_before)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct iomap_iter iomi = {
		.inode		= inode,
		.pos		= iocb->ki_pos,
		.len		= iov_iter_count(iter),
		.flags		= IOMAP_DIRECT,
		.private	= private,
	};
	bool wait_for_completion =
		is_sync_kiocb(iocb) || (dio_flags & IOMAP_DIO_FORCE_WAIT);
	struct blk_plug plug;
	struct iomap_dio *dio;
	loff_t ret = 0;

	trace_iomap_dio_rw_begin(iocb, iter, dio_flags, done_before);

	if (!iomi.len)
		return NULL;

	dio = kmalloc(sizeof(*dio), GFP_KERNEL);
	if (!dio)
		return ERR_PTR(-ENOMEM);

	dio->iocb = iocb;
	atomic_set(&dio->ref, 1);
	dio->size = 0;
	dio->i_size = i_size_read(inode);
	dio->dops = dops;
	dio->error = 0;
	dio->flags = dio_flags & (IOMAP_DIO_FSBLOCK_ALIGNED | IOMAP_DIO_BOUNCE);
	dio->done_before = done_before;

	dio->submit.iter = iter;
	dio->submit.waiter = current;

	if (iocb->ki_flags & IOCB_NOWAIT)
		iomi.flags |= IOMAP_NOWAIT;

	if (iov_iter_rw(iter) == READ) {
		/* G-07: nothing to read at or past EOF */
		if (iomi.pos >= dio->i_size)
			goto out_free_dio;

		if (user_backed_iter(iter))
			dio->flags |= IOMAP_DIO_USER_BACKED;

		ret = kiocb_write_and_wait(iocb, iomi.len);
		if (ret)
			goto out_free_dio;
	} else {
		iomi.flags |= IOMAP_WRITE;
		dio->flags |= IOMAP_DIO_WRITE;

		if (dio_flags & IOMAP_DIO_OVERWRITE_ONLY) {
			ret = -EAGAIN;
			if (iomi.pos >= dio->i_size ||
			    iomi.pos + iomi.len > dio->i_size)
				goto out_free_dio;
			iomi.flags |= IOMAP_OVERWRITE_ONLY;
		}

		if (iocb->ki_flags & IOCB_ATOMIC)
			iomi.flags |= IOMAP_ATOMIC;

		/* O_DSYNC / O_SYNC need sync processing at completion */
		if (iocb_is_dsync(iocb)) {
			dio->flags |= IOMAP_DIO_NEED_SYNC;

			/*
			 * Data-only sync: try writing through (FUA, or a
			 * device without a volatile cache).  Any bio that
			 * cannot clears the flag, so by completion time it
			 * is known whether a cache flush is still needed.
			 */
			if (!(iocb->ki_flags & IOCB_SYNC))
				dio->flags |= IOMAP_DIO_WRITE_THROUGH;
		}

		/* G-14: i_size is updated in process context only */
		if (iomi.pos + iomi.len > dio->i_size)
			dio->flags |= IOMAP_DIO_COMP_WORK;

		/*
		 * G-15: cached pages over the range must go first; if they
		 * cannot, let the caller use buffered I/O instead.
		 */
		ret = kiocb_invalidate_pages(iocb, iomi.len);
		if (ret) {
			if (ret != -EAGAIN) {
				trace_iomap_dio_invalidate_fail(inode, iomi.pos,
								iomi.len);
				if (iocb->ki_flags & IOCB_ATOMIC) {
					/*
					 * Possibly transient: have the caller
					 * retry rather than tear the write.
					 */
					ret = -EAGAIN;
				} else {
					/* fall back to buffered write */
					ret = -ENOTBLK;
				}
			}
			goto out_free_dio;
		}
	}

	if (!wait_for_completion && !inode->i_sb->s_dio_done_wq) {
		ret = sb_init_dio_done_wq(inode->i_sb);
		if (ret < 0)
			goto out_free_dio;
	}

	inode_dio_begin(inode);

	blk_start_plug(&plug);
	while ((ret = iomap_iter(&iomi, ops)) > 0) {
		iomi.status = iomap_dio_iter(&iomi, dio);

		/* G-19: only the first mapping's single bio can be polled */
		iocb->ki_flags &= ~IOCB_HIPRI;
	}

	blk_finish_plug(&plug);

	/*
	 * G-42: report reads only up to i_size, and leave the iterator where
	 * that puts it (splice relies on it).
	 */
	if (iov_iter_rw(iter) == READ && iomi.pos >= dio->i_size)
		iov_iter_revert(iter, iomi.pos - dio->i_size);

	if (ret == -EFAULT && dio->size && (dio_flags & IOMAP_DIO_PARTIAL)) {
		if (!(iocb->ki_flags & IOCB_NOWAIT))
			wait_for_completion = true;
		ret = 0;
	}

	/* G-44: the "use buffered I/O for the rest" code from ->iomap_begin */
	if (ret == -ENOTBLK) {
		wait_for_completion = true;
		ret = 0;
	}
	if (ret < 0)
		iomap_dio_set_error(dio, ret);

	/*
	 * G-46: if every write went through to stable media there is no
	 * cache to flush at completion; otherwise the sync needs process
	 * context.
	 */
	if (dio->flags & IOMAP_DIO_WRITE_THROUGH)
		dio->flags &= ~IOMAP_DIO_NEED_SYNC;
	else if (dio->flags & IOMAP_DIO_NEED_SYNC)
		dio->flags |= IOMAP_DIO_COMP_WORK;

	/*
	 * G-48: drop the submission reference.  (a) The last one: complete
	 * and free the dio here, even for an async kiocb.  (b) Not the last,
	 * async: the completion owns the dio now, do not touch it.  (c) Not
	 * the last, sync: sleep until the last completion clears the waiter,
	 * then complete here.
	 */
	dio->wait_for_completion = wait_for_completion;
	if (!atomic_dec_and_test(&dio->ref)) {
		if (!wait_for_completion) {
			trace_iomap_dio_rw_queued(inode, iomi.pos, iomi.len);
			return ERR_PTR(-EIOCBQUEUED);
		}

		for (;;) {
			set_current_state(TASK_UNINTERRUPTIBLE);
			if (!READ_ONCE(dio->submit.waiter))
				break;

			blk_io_schedule();
		}
		__set_current_state(TASK_RUNNING);
	}

	return dio;

out_free_dio:
	kfree(dio);
	if (ret)
		return ERR_PTR(ret);
	return NULL;
}

/*
 * The simple path's per-request state lives in the front_pad of its bio
 * (S-33, S-34): one allocation, found again with container_of.
 */
struct iomap_dio_simple {
	struct kiocb		*iocb;
	size_t			size;
	unsigned int		dio_flags;
	struct work_struct	work;
	/*
	 * The bio starts a cache line: with the front_pad handed to
	 * bioset_init() and the cache-aligned bio slab, the fields the block
	 * layer touches on submission and completion (bi_iter, bi_status,
	 * ...) share one line.  Must stay the last member.
	 */
	struct bio		bio ____cacheline_aligned_in_smp;
};

static struct bio_set iomap_dio_simple_pool;

/*
 * S-29, S-30: result, page release, inode_dio_end, in that order; the
 * wrapper may be reused as soon as the bio is put, so it is read first.
 */
static ssize_t iomap_dio_simple_complete(struct iomap_dio_simple *sr)
{
	struct bio *bio = &sr->bio;
	struct kiocb *iocb = sr->iocb;
	struct inode *inode = file_inode(iocb->ki_filp);
	ssize_t ret;

	if (unlikely(bio->bi_status)) {
		ret = blk_status_to_errno(bio->bi_status);
		if (should_report_dio_fserror(ret))
			fserror_report_io(inode, FSERR_DIRECTIO_READ,
					  iocb->ki_pos, sr->size, ret,
					  GFP_NOFS);
	} else {
		ret = sr->size;
		iocb->ki_pos += ret;
	}

	if (sr->dio_flags & IOMAP_DIO_USER_BACKED) {
		bio_check_pages_dirty(bio);
	} else {
		bio_release_pages(bio, false);
		bio_put(bio);
	}
	inode_dio_end(inode);
	trace_iomap_dio_complete(iocb, ret < 0 ? ret : 0, ret);
	return ret;
}

/* S-28: the error completion, in process context. */
static void iomap_dio_simple_complete_work(struct work_struct *work)
{
	struct iomap_dio_simple *sr =
		container_of(work, struct iomap_dio_simple, work);
	struct kiocb *iocb = sr->iocb;

	WRITE_ONCE(iocb->private, NULL);
	iocb->ki_complete(iocb, iomap_dio_simple_complete(sr));
}

/*
 * S-27, S-28: success completes right here, in bio completion context;
 * an error goes to the workqueue, since error reporting may sleep.
 */
static void iomap_dio_simple_end_io(struct bio *bio)
{
	struct iomap_dio_simple *sr =
		container_of(bio, struct iomap_dio_simple, bio);
	struct kiocb *iocb = sr->iocb;

	if (unlikely(sr->bio.bi_status)) {
		struct inode *inode = file_inode(iocb->ki_filp);

		INIT_WORK(&sr->work, iomap_dio_simple_complete_work);
		queue_work(inode->i_sb->s_dio_done_wq, &sr->work);
		return;
	}

	WRITE_ONCE(iocb->private, NULL);
	iocb->ki_complete(iocb, iomap_dio_simple_complete(sr));
}

/* S-01..S-08: the cheap checks, no side effects. */
static inline bool
iomap_dio_simple_supported(struct kiocb *iocb, struct iov_iter *iter,
			   const struct iomap_dio_ops *dops,
			   unsigned int dio_flags, size_t done_before)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	size_t count = iov_iter_count(iter);

	if (dops || done_before)
		return false;
	if (iov_iter_rw(iter) != READ)
		return false;
	if (!count)
		return false;
	/*
	 * Large requests are the most common reason to fail in a typical
	 * direct I/O workload, so they are filtered out first.
	 */
	if (count > inode->i_sb->s_blocksize)
		return false;
	if (dio_flags & (IOMAP_DIO_FORCE_WAIT | IOMAP_DIO_PARTIAL |
			 IOMAP_DIO_BOUNCE))
		return false;
	if (iocb->ki_pos + count > i_size_read(inode))
		return false;
	if (IS_ENCRYPTED(inode))
		return false;

	return true;
}

/*
 * The fast path for a small direct read that fits one extent (S-09..S-32).
 *
 * iomap_dio_simple_supported() has already checked the cheap conditions:
 * no @dops (their ->end_io/->submit_io hooks would be skipped, and a file
 * system @dops->bio_set has a front_pad for its own wrapper, not for
 * struct iomap_dio_simple), no @done_before (a residual cannot be carried
 * through a single-bio inline completion), a non-empty read no larger than
 * a block, none of FORCE_WAIT / PARTIAL / BOUNCE, inside i_size, and not
 * encrypted.
 *
 * -ENOTBLK means "not for this path" and sends the caller to the generic
 * path with the iterator and ki_pos untouched.  Every other return is the
 * request's result; -EAGAIN for IOCB_NOWAIT in particular must reach the
 * caller as is.
 */
static ssize_t
iomap_dio_simple(struct kiocb *iocb, struct iov_iter *iter,
		 const struct iomap_ops *ops, void *private,
		 unsigned int dio_flags)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	size_t count = iov_iter_count(iter);
	bool wait_for_completion = is_sync_kiocb(iocb);
	struct iomap_iter iomi = {
		.inode		= inode,
		.pos		= iocb->ki_pos,
		.len		= count,
		.flags		= IOMAP_DIRECT,
		.private	= private,
	};
	struct iomap_dio_simple *sr;
	unsigned int alignment;
	struct bio *bio;
	ssize_t ret;

	if (iocb->ki_flags & IOCB_NOWAIT)
		iomi.flags |= IOMAP_NOWAIT;

	ret = kiocb_write_and_wait(iocb, count);
	if (ret)
		return ret;

	inode_dio_begin(inode);

	ret = ops->iomap_begin(inode, iomi.pos, count, iomi.flags,
			       &iomi.iomap, &iomi.srcmap);
	if (ret) {
		inode_dio_end(inode);
		return ret;
	}

	if (iomi.iomap.type != IOMAP_MAPPED ||
	    iomi.iomap.offset + iomi.iomap.length < iomi.pos + count ||
	    (iomi.iomap.flags & IOMAP_F_INTEGRITY)) {
		ret = -ENOTBLK;
		goto out_iomap_end;
	}

	alignment = iomap_dio_alignment(inode, iomi.iomap.bdev, dio_flags);
	if ((iomi.pos | count) & (alignment - 1)) {
		ret = -EINVAL;
		goto out_iomap_end;
	}

	if (!wait_for_completion && unlikely(!inode->i_sb->s_dio_done_wq)) {
		ret = sb_init_dio_done_wq(inode->i_sb);
		if (ret < 0)
			goto out_iomap_end;
	}

	trace_iomap_dio_rw_begin(iocb, iter, dio_flags, 0);

	if (user_backed_iter(iter))
		dio_flags |= IOMAP_DIO_USER_BACKED;

	bio = bio_alloc_bioset(iomi.iomap.bdev,
			       bio_iov_vecs_to_alloc(iter, BIO_MAX_VECS),
			       REQ_OP_READ, GFP_KERNEL, &iomap_dio_simple_pool);
	sr = container_of(bio, struct iomap_dio_simple, bio);
	sr->iocb = iocb;
	sr->dio_flags = dio_flags;

	bio->bi_iter.bi_sector = iomap_sector(&iomi.iomap, iomi.pos);
	bio->bi_ioprio = iocb->ki_ioprio;

	ret = bio_iov_iter_get_pages(bio, iter, alignment - 1);
	if (unlikely(ret))
		goto out_bio_put;

	if (bio->bi_iter.bi_size != count) {
		iov_iter_revert(iter, bio->bi_iter.bi_size);
		ret = -ENOTBLK;
		goto out_bio_release_pages;
	}

	sr->size = bio->bi_iter.bi_size;

	if (dio_flags & IOMAP_DIO_USER_BACKED)
		bio_set_pages_dirty(bio);

	if (iocb->ki_flags & IOCB_NOWAIT)
		bio->bi_opf |= REQ_NOWAIT;
	if ((iocb->ki_flags & IOCB_HIPRI) && !wait_for_completion) {
		bio->bi_opf |= REQ_POLLED;
		WRITE_ONCE(iocb->private, bio);
	}

	if (ops->iomap_end)
		ops->iomap_end(inode, iomi.pos, count, count, iomi.flags,
			       &iomi.iomap);

	if (!wait_for_completion) {
		bio->bi_end_io = iomap_dio_simple_end_io;
		submit_bio(bio);
		trace_iomap_dio_rw_queued(inode, iomi.pos, count);
		return -EIOCBQUEUED;
	}

	submit_bio_wait(bio);
	return iomap_dio_simple_complete(sr);

out_bio_release_pages:
	bio_release_pages(bio, false);
out_bio_put:
	bio_put(bio);
out_iomap_end:
	if (ops->iomap_end)
		ops->iomap_end(inode, iomi.pos, count, 0, iomi.flags,
			       &iomi.iomap);
	inode_dio_end(inode);
	return ret;
}

ssize_t
iomap_dio_rw(struct kiocb *iocb, struct iov_iter *iter,
		const struct iomap_ops *ops, const struct iomap_dio_ops *dops,
		unsigned int dio_flags, void *private, size_t done_before)
{
	struct iomap_dio *dio;
	ssize_t ret;

	if (iomap_dio_simple_supported(iocb, iter, dops, dio_flags,
				       done_before)) {
		ret = iomap_dio_simple(iocb, iter, ops, private, dio_flags);
		if (ret != -ENOTBLK)
			return ret;
	}

	dio = __iomap_dio_rw(iocb, iter, ops, dops, dio_flags, private,
			     done_before);
	if (IS_ERR_OR_NULL(dio))
		return PTR_ERR_OR_ZERO(dio);
	return iomap_dio_complete(dio);
}

static int __init iomap_dio_init(void)
{
	return bioset_init(&iomap_dio_simple_pool, 4,
			   offsetof(struct iomap_dio_simple, bio),
			   BIOSET_NEED_BVECS | BIOSET_PERCPU_CACHE);
}
fs_initcall(iomap_dio_init);

/* (sim) the simple path's bio_set */
struct bio_set *iomapsim_simple_pool(void)
{
	return &iomap_dio_simple_pool;
}

/* (sim) undo iomap_dio_init(), for iomapsim_dio_exit() (trace.c) */
void iomapsim_dio_initcall_undo(void)
{
	if (bioset_initialized(&iomap_dio_simple_pool))
		bioset_exit(&iomap_dio_simple_pool);
}
