// SPDX-License-Identifier: GPL-2.0-only
/*
 * testfs: see testfs.h.  The file system part (extent map, ->iomap_begin,
 * ->iomap_end, ->iomap_next, the dio ops, the ioend completion, ->fsync)
 * is written the way a kernel file system writes it, followed by its
 * setup; the model of what the file must hold, the checks and the reset
 * are testfs-model.c.  Its bookkeeping (extent table, model, callback
 * log) is test fixture and uses libc memory, so allocation fault
 * injection aims only at the kernel code under test.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/iomap.h>
#include <sim/engine.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <sim/bdev.h>
#include <sim/fs_dio.h> /* the proposal modes */
#include <sim/iomap_features.h>
#include <sim/trace.h>
#include "testfs-internal.h"

#define TESTFS_INO 12

/* Odd bytes never zero, varied enough that any misplaced block shows. */
static u8 pattern_byte(unsigned int i)
{
	return (u8)((i * 7) ^ (i >> 9) ^ 0x5a) | 1;
}

u8 testfs_pattern_table[4096];

static void __attribute__((constructor)) testfs_pattern_init(void)
{
	u8 *t = testfs_pattern_table;
	unsigned int i;

	for (i = 0; i < 4096; i++)
		t[i] = pattern_byte(i);
}

void testfs_pattern_fill(u8 *dst, loff_t off, size_t len)
{
	while (len) {
		size_t in = off & 4095;
		size_t n = min_t(size_t, len, 4096 - in);
		u8 key = testfs_block_key(off);
		/*
		 * 16 bytes at a time (one SSE2 register, or what the target
		 * has), then words: files are filled whole at creation and
		 * the runner lays a request's window out for every input
		 */
		typedef u8 v16 __attribute__((vector_size(16)));
		u64 wkey = key * 0x0101010101010101ULL;
		v16 vkey = (v16){ 0 } + key;
		size_t k = 0;

		for (; k + 16 <= n; k += 16) {
			v16 v;

			memcpy(&v, &testfs_pattern_table[in + k], 16);
			v ^= vkey;
			memcpy(dst + k, &v, 16);
		}
		for (; k + 8 <= n; k += 8) {
			u64 w;

			memcpy(&w, &testfs_pattern_table[in + k], 8);
			w ^= wkey;
			memcpy(dst + k, &w, 8);
		}
		for (; k < n; k++)
			dst[k] = testfs_pattern_table[in + k] ^ key;
		dst += n;
		off += n;
		len -= n;
	}
}

/*
 * testfs_stale() repeats every 256 sectors: one period of it, copied
 * from, instead of a memset per sector (every block a write allocates
 * gets stale contents, every run).
 */
#define STALE_PERIOD (256 * 512)
static u8 stale_period[STALE_PERIOD];

static void __attribute__((constructor)) stale_period_init(void)
{
	for (u64 a = 0; a < STALE_PERIOD; a += 512)
		memset(stale_period + a, testfs_stale(a), 512);
}

/* testfs_stale() over device bytes [addr, addr + len): one byte a sector */
void testfs_stale_fill(u8 *dev, u64 addr, u64 len)
{
	while (len) {
		u64 in = addr % STALE_PERIOD;
		u64 n = min_t(u64, len, STALE_PERIOD - in);

		memcpy(dev + addr, stale_period + in, n);
		addr += n;
		len -= n;
	}
}

/* A file system's own wrapper around its bios (TESTFS_DOPS_BIO_SET). */
struct testfs_bio {
	u64 magic;
	struct bio bio;
};

/* ---- extent table (lock held) ------------------------------------------ */

int testfs_ext_reserve(struct testfs *tf, unsigned int more)
{
	struct testfs_extent *n;
	unsigned int cap;

	if (tf->nr_ext + more <= tf->cap_ext)
		return 0;
	cap = max(tf->cap_ext * 2, tf->nr_ext + more + 8);
	n = realloc(tf->ext, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	tf->ext = n;
	tf->cap_ext = cap;
	return 0;
}

static void ext_insert(struct testfs *tf, unsigned int at,
		       const struct testfs_extent *e)
{
	memmove(&tf->ext[at + 1], &tf->ext[at],
		(tf->nr_ext - at) * sizeof(tf->ext[0]));
	tf->ext[at] = *e;
	tf->nr_ext++;
}

/* Index of the first extent ending after @pos (may not contain it). */
unsigned int testfs_ext_find(struct testfs *tf, loff_t pos)
{
	unsigned int lo = 0, hi = tf->nr_ext;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;
		const struct testfs_extent *e = &tf->ext[mid];

		if (e->off + (loff_t)e->len <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Device space for @len bytes, never adjacent to the previous extent.
 * Freshly allocated blocks hold stale data (a recognisable pattern), which
 * is what sub-block zeroing exists to hide.
 */
static u64 alloc_addr(struct testfs *tf, u64 len)
{
	u8 *dev = tf->ram ? blksim_bdev_ram_data(tf->ram) : NULL;
	u64 addr = tf->next_addr;

	tf->next_addr += len + tf->fs_block;
	tf->dev_used = max(tf->dev_used, tf->next_addr);
	/* the initial map's blocks get their contents in testfs_set_contents() */
	if (dev && !tf->laying_out)
		testfs_stale_fill(dev, addr, len);
	return addr;
}

/*
 * Split @idx so that [start, end) becomes its own extent (start and end
 * inside it, block aligned); returns the index of the middle piece.
 */
static int ext_isolate(struct testfs *tf, unsigned int idx, loff_t start,
		       loff_t end)
{
	struct testfs_extent e = tf->ext[idx], piece;
	int ret = testfs_ext_reserve(tf, 2);

	if (ret)
		return ret;
	if (start > e.off) {
		piece = e;
		piece.len = start - e.off;
		tf->ext[idx].off = start;
		tf->ext[idx].len -= piece.len;
		if (e.addr != IOMAP_NULL_ADDR)
			tf->ext[idx].addr += piece.len;
		ext_insert(tf, idx, &piece);
		idx++;
	}
	e = tf->ext[idx];
	if (end < e.off + (loff_t)e.len) {
		piece = e;
		piece.off = end;
		piece.len = e.off + e.len - end;
		if (e.addr != IOMAP_NULL_ADDR)
			piece.addr = e.addr + (end - e.off);
		tf->ext[idx].len = end - e.off;
		ext_insert(tf, idx + 1, &piece);
	}
	return idx;
}

/* ---- the file system ---------------------------------------------------- */

static void record_cb(struct testfs *tf, enum testfs_cb_op op, loff_t pos,
		      u64 length, unsigned int flags, ssize_t written, int ret,
		      const struct iomap *iomap)
{
	struct testfs_cb *cb;

	if (tf->nr_cbs++ >= TESTFS_MAX_CBS)
		return;
	cb = &tf->cbs[tf->nr_cbs - 1];
	*cb = (struct testfs_cb){
		.op = op,
		.pos = pos,
		.length = length,
		.flags = flags,
		.written = written,
		.ret = ret,
		.dio_count = atomic_read(&tf->inode.i_dio_count),
	};
	if (iomap)
		cb->iomap = *iomap;
}

static void fill_iomap(struct testfs *tf, const struct testfs_extent *e,
		       struct iomap *iomap)
{
	iomap->offset = e->off;
	iomap->length = e->len;
	iomap->type = e->type;
	iomap->flags = e->flags;
	iomap->bdev = tf->bdev;
	iomap->addr = (e->type == IOMAP_MAPPED || e->type == IOMAP_UNWRITTEN) ?
			      e->addr :
			      IOMAP_NULL_ADDR;
	iomap->inline_data = e->type == IOMAP_INLINE ? tf->model + e->off :
						       NULL;
}

/*
 * A write where nothing is allocated: new blocks for the block-rounded
 * range, up to the next extent, returned flagged IOMAP_F_NEW.  Their
 * device blocks hold stale data, which is what sub-block zeroing is for.
 */
static int testfs_alloc(struct testfs *tf, loff_t pos, loff_t length,
			struct iomap *iomap)
{
	unsigned int idx = testfs_ext_find(tf, pos);
	loff_t start = testfs_round_down(pos, tf->fs_block);
	loff_t end = testfs_round_up(pos + length, tf->fs_block);
	struct testfs_extent e;
	int ret;

	if (idx < tf->nr_ext && testfs_ext_contains(&tf->ext[idx], pos)) {
		/* an explicit hole extent: carve the new blocks out of it */
		const struct testfs_extent *h = &tf->ext[idx];

		start = max_t(loff_t, start, h->off);
		end = min_t(loff_t, end, h->off + (loff_t)h->len);
		ret = ext_isolate(tf, idx, start, end);
		if (ret < 0)
			return ret;
		idx = ret;
		tf->ext[idx].type = IOMAP_MAPPED;
		tf->ext[idx].flags = 0;
		tf->ext[idx].addr = alloc_addr(tf, end - start);
	} else {
		if (idx < tf->nr_ext)
			end = min_t(loff_t, end, tf->ext[idx].off);
		if (idx > 0) {
			const struct testfs_extent *p = &tf->ext[idx - 1];

			/*
			 * Inline data may end mid-block; its block stays its
			 * own.  gfs2 would move the data out to a block
			 * ("unstuff") first; testfs does not, and refuses.
			 */
			start = max_t(loff_t, start,
				      testfs_round_up(p->off + p->len,
						      tf->fs_block));
			if (start > pos)
				return -EOPNOTSUPP;
		}
		ret = testfs_ext_reserve(tf, 1);
		if (ret)
			return ret;
		e = (struct testfs_extent){
			.off = start,
			.len = end - start,
			.type = IOMAP_MAPPED,
			.addr = alloc_addr(tf, end - start),
		};
		ext_insert(tf, idx, &e);
	}
	tf->allocations++;
	fill_iomap(tf, &tf->ext[idx], iomap);
	iomap->flags |= IOMAP_F_NEW;
	return 0;
}

#if IOMAPSIM_IOEND_DIRECT
/*
 * TESTFS_DOPS_IOEND, a block-aligned direct write: no target blocks yet,
 * as XFS's zoned ->iomap_begin maps a write (IOMAP_F_ANON_WRITE: the
 * bio's sector is chosen by ->submit_io), over whatever the range maps
 * now, up to the first inline extent (whose block stays where it is).
 */
static int testfs_anon_write_map(struct testfs *tf, unsigned int idx,
				 loff_t pos, loff_t length, unsigned flags,
				 struct iomap *iomap)
{
	loff_t end = pos + length;

	/* out of place is never an overwrite */
	if (flags & IOMAP_OVERWRITE_ONLY)
		return -EAGAIN;
	for (; idx < tf->nr_ext && tf->ext[idx].off < end; idx++)
		if (tf->ext[idx].type == IOMAP_INLINE)
			end = tf->ext[idx].off;
	memset(iomap, 0, sizeof(*iomap));
	iomap->offset = pos;
	iomap->length = end - pos;
	iomap->type = IOMAP_MAPPED;
	iomap->flags = IOMAP_F_ANON_WRITE;
	iomap->addr = IOMAP_NULL_ADDR;
	iomap->bdev = tf->bdev;
	return 0;
}
#endif /* IOMAPSIM_IOEND_DIRECT */

static int __testfs_iomap_begin(struct testfs *tf, loff_t pos, loff_t length,
				unsigned flags, struct iomap *iomap)
{
	unsigned int idx = testfs_ext_find(tf, pos);
	const struct testfs_extent *e = NULL;

	if (idx < tf->nr_ext && testfs_ext_contains(&tf->ext[idx], pos))
		e = &tf->ext[idx];
	/* a write may change the model (inline data) and the device */
	if (flags & IOMAP_WRITE)
		tf->written = true;

	if (!(flags & IOMAP_WRITE)) {
		struct testfs_extent hole;

		if (e) {
			fill_iomap(tf, e, iomap);
			return 0;
		}
		/* the gap between the neighbouring extents reads as a hole */
		hole = (struct testfs_extent){
			.off = idx > 0 ? tf->ext[idx - 1].off +
						 (loff_t)tf->ext[idx - 1].len :
					 0,
			.type = IOMAP_HOLE,
			.addr = IOMAP_NULL_ADDR,
		};
		if (idx < tf->nr_ext)
			hole.len = tf->ext[idx].off - hole.off;
		else
			hole.len = testfs_round_up(max_t(loff_t, pos + length,
							 pos + 1),
						   tf->fs_block) -
				   hole.off;
		fill_iomap(tf, &hole, iomap);
		return 0;
	}

#if IOMAPSIM_IOEND_DIRECT
	if (tf->ioend_anon && (flags & IOMAP_DIRECT) &&
	    !((pos | length) & (tf->fs_block - 1)) &&
	    !(e && e->type == IOMAP_INLINE))
		return testfs_anon_write_map(tf, idx, pos, length, flags,
					     iomap);
#endif

	if (e && e->type != IOMAP_HOLE) {
		/*
		 * IOMAP_OVERWRITE_ONLY promises no allocation, no unwritten
		 * conversion and no copy-on-write: refuse anything else, as
		 * XFS does, so the caller retries the careful way.
		 */
		if ((flags & IOMAP_OVERWRITE_ONLY) &&
		    (e->type != IOMAP_MAPPED || (e->flags & IOMAP_F_SHARED)))
			return -EAGAIN;
		fill_iomap(tf, e, iomap);
		return 0;
	}

	/* allocating can block (and is no overwrite) */
	if (flags & (IOMAP_NOWAIT | IOMAP_OVERWRITE_ONLY))
		return -EAGAIN;
	return testfs_alloc(tf, pos, length, iomap);
}

static int testfs_iomap_begin(struct inode *inode, loff_t pos, loff_t length,
			      unsigned flags, struct iomap *iomap,
			      struct iomap *srcmap)
{
	struct testfs *tf = testfs_from_inode(inode);
	int ret;

	testfs_lock(tf);
	tf->begin_calls++;
	if (tf->begin_error && tf->begin_calls == max(tf->begin_error_nth, 1U))
		ret = tf->begin_error;
	else
		ret = __testfs_iomap_begin(tf, pos, length, flags, iomap);
	record_cb(tf, TESTFS_CB_BEGIN, pos, length, flags, 0, ret,
		  ret ? NULL : iomap);
	testfs_unlock(tf);
	iomapsim_dio_mapped(inode, iomap, ret);
	if (tf->pc_on_begin && !ret) {
		tf->pc_on_begin = false;
		sim_pc_add(inode->i_mapping, tf->pc_on_begin_index,
			   tf->pc_on_begin_flags);
	}
	sim_trace("testfs_iomap_begin",
		  "pos 0x%llx length 0x%llx flags 0x%x ret %d type %u",
		  (unsigned long long)pos, (unsigned long long)length, flags,
		  ret, ret ? 0 : iomap->type);
	return ret;
}

static int testfs_iomap_end(struct inode *inode, loff_t pos, loff_t length,
			    ssize_t written, unsigned flags,
			    struct iomap *iomap)
{
	struct testfs *tf = testfs_from_inode(inode);
	int ret;

	testfs_lock(tf);
	tf->end_calls++;
	ret = tf->end_error;
	record_cb(tf, TESTFS_CB_END, pos, length, flags, written, ret, NULL);
	testfs_unlock(tf);
	sim_trace("testfs_iomap_end",
		  "pos 0x%llx length 0x%llx written %zd flags 0x%x",
		  (unsigned long long)pos, (unsigned long long)length, written,
		  flags);
	return ret;
}

#if IOMAPSIM_PROPOSAL
/* The proposal's single callback, built from the same begin and end. */
static int testfs_iomap_next(const struct iomap_iter *iter, struct iomap *iomap,
			     struct iomap *srcmap)
{
	struct testfs *tf = testfs_from_inode(iter->inode);

	testfs_lock(tf);
	tf->next_calls++;
	record_cb(tf, TESTFS_CB_NEXT, iter->pos, iter->len, iter->flags, 0, 0,
		  NULL);
	testfs_unlock(tf);
	return iomap_iter_next(iter, iomap, srcmap, testfs_iomap_begin,
			       testfs_iomap_end);
}
#endif

/*
 * Unwritten blocks that a completed write covered become written: the
 * block-rounded range, since sub-block zeroing filled the rest.
 */
static void testfs_convert_unwritten(struct testfs *tf, loff_t pos,
				     ssize_t size)
{
	loff_t start = testfs_round_down(pos, tf->fs_block);
	loff_t end = testfs_round_up(pos + size, tf->fs_block);
	unsigned int idx;

	pthread_mutex_lock(&tf->lock);
	for (idx = testfs_ext_find(tf, start); idx < tf->nr_ext; idx++) {
		struct testfs_extent *e = &tf->ext[idx];
		loff_t s, t;
		int at;

		if (e->off >= end)
			break;
		if (e->type != IOMAP_UNWRITTEN)
			continue;
		s = max_t(loff_t, start, e->off);
		t = min_t(loff_t, end, e->off + (loff_t)e->len);
		at = ext_isolate(tf, idx, s, t);
		if (at < 0)
			break;
		idx = at;
		tf->ext[idx].type = IOMAP_MAPPED;
		tf->conversions++;
	}
	pthread_mutex_unlock(&tf->lock);
}

/*
 * ->end_io, as XFS's write completion: unwritten conversion and the size
 * update both take locks and may start transactions, so they sleep; a
 * pure overwrite inside EOF does neither and may complete in interrupt
 * context.
 */
static int testfs_dio_end_io(struct kiocb *iocb, ssize_t size, int error,
			     unsigned flags)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct testfs *tf = testfs_from_inode(inode);

	__atomic_fetch_add(&tf->end_io_calls, 1, __ATOMIC_RELAXED);
	WRITE_ONCE(tf->end_io_flags, flags);
	if (error)
		return error;
	if (!(iocb->ki_flags & IOCB_WRITE) || size <= 0)
		return 0;

	if (flags & IOMAP_DIO_UNWRITTEN) {
		might_sleep();
		testfs_convert_unwritten(tf, iocb->ki_pos, size);
	}
	if (iocb->ki_pos + size > i_size_read(inode)) {
		might_sleep();
		i_size_write(inode, iocb->ki_pos + size);
		mark_inode_dirty(inode);
	}
	return 0;
}

static void testfs_submit_io(const struct iomap_iter *iter, struct bio *bio,
			     loff_t file_offset)
{
	struct testfs *tf = testfs_from_inode(iter->inode);

	__atomic_fetch_add(&tf->submit_io_calls, 1, __ATOMIC_RELAXED);
	submit_bio(bio);
}

#if IOMAPSIM_IOEND_DIRECT
/*
 * ---- TESTFS_DOPS_IOEND: direct writes ended through ioends -------------
 *
 * As XFS's zoned writes (xfs_dio_zoned_submit_io(), xfs_end_bio(),
 * xfs_end_io()): ->submit_io places an out-of-place bio, makes every write
 * bio an ioend and ends it in xfs_end_bio()'s way; the per-file worker
 * records where the data went and hands the ioend to
 * iomap_finish_ioends(), whose iomap_finish_ioend_direct() ends the bio's
 * share of the dio in task context (G-54).
 */

/* Drop the extents over [start, end) (block aligned); lock held. */
static int ext_punch(struct testfs *tf, loff_t start, loff_t end)
{
	unsigned int idx = testfs_ext_find(tf, start);

	while (idx < tf->nr_ext && tf->ext[idx].off < end) {
		int at = ext_isolate(
			tf, idx, max_t(loff_t, start, tf->ext[idx].off),
			min_t(loff_t, end,
			      tf->ext[idx].off + (loff_t)tf->ext[idx].len));

		if (at < 0)
			return at;
		memmove(&tf->ext[at], &tf->ext[at + 1],
			(tf->nr_ext - at - 1) * sizeof(tf->ext[0]));
		tf->nr_ext--;
		idx = at;
	}
	return 0;
}

/*
 * A written out-of-place range becomes the file's: the old blocks are
 * dropped, the new ones mapped (xfs_zoned_end_io()).  Bios of an
 * IOMAP_F_ANON_WRITE mapping are whole blocks (testfs_dio_rw() asks for
 * IOMAP_DIO_FSBLOCK_ALIGNED).
 */
static void testfs_remap(struct testfs *tf, loff_t off, u64 len, u64 addr)
{
	struct testfs_extent e = {
		.off = off,
		.len = len,
		.type = IOMAP_MAPPED,
		.addr = addr,
	};

	WARN_ON_ONCE((off | len) & (tf->fs_block - 1));
	might_sleep();
	pthread_mutex_lock(&tf->lock);
	if (!ext_punch(tf, off, off + len) && !testfs_ext_reserve(tf, 1))
		ext_insert(tf, testfs_ext_find(tf, off), &e);
	pthread_mutex_unlock(&tf->lock);
}

/* One ioend in the worker: remap on success, then end it (xfs_end_ioend()) */
static void testfs_end_ioend(struct testfs *tf, struct iomap_ioend *ioend)
{
	int error = blk_status_to_errno(ioend->io_bio.bi_status);

	__atomic_fetch_add(&tf->ioends, 1, __ATOMIC_RELAXED);
	if (!error && ioend->io_private)
		testfs_remap(tf, ioend->io_offset, ioend->io_size,
			     (u64)ioend->io_sector << SECTOR_SHIFT);
	iomap_finish_ioends(ioend, error);
}

/* The file's ioend work: every ioend ended since it was queued. */
static void testfs_end_io_work(struct work_struct *work)
{
	struct testfs *tf = container_of(work, struct testfs, ioend_work);
	struct iomap_ioend *ioend;
	struct list_head tmp;
	unsigned long flags;

	spin_lock_irqsave(&tf->ioend_lock, flags);
	list_replace_init(&tf->ioend_list, &tmp);
	spin_unlock_irqrestore(&tf->ioend_lock, flags);

	while ((ioend = list_first_entry_or_null(&tmp, struct iomap_ioend,
						 io_list))) {
		list_del_init(&ioend->io_list);
		testfs_end_ioend(tf, ioend);
		cond_resched();
	}
}

/*
 * ->bi_end_io of every write bio, in bio completion context: nothing that
 * sleeps, so the ioend goes to the worker (the first one onto an empty
 * list queues the work, as xfs_end_bio() does).
 */
static void testfs_end_bio(struct bio *bio)
{
	struct iomap_ioend *ioend = iomap_ioend_from_bio(bio);
	struct testfs *tf = testfs_from_inode(ioend->io_inode);
	unsigned long flags;

	spin_lock_irqsave(&tf->ioend_lock, flags);
	if (list_empty(&tf->ioend_list))
		WARN_ON_ONCE(!queue_work(tf->ioend_wq, &tf->ioend_work));
	list_add_tail(&ioend->io_list, &tf->ioend_list);
	spin_unlock_irqrestore(&tf->ioend_lock, flags);
}

/*
 * ->submit_io: an IOMAP_F_ANON_WRITE bio gets new blocks here, where XFS
 * picks the place in its open zone; every write bio becomes an ioend
 * (its bio_set's front_pad is the struct iomap_ioend) that testfs's
 * ->bi_end_io ends.
 */
static void testfs_ioend_submit_io(const struct iomap_iter *iter,
				   struct bio *bio, loff_t file_offset)
{
	struct testfs *tf = testfs_from_inode(iter->inode);
	bool anon = iter->iomap.flags & IOMAP_F_ANON_WRITE;
	struct iomap_ioend *ioend;

	__atomic_fetch_add(&tf->submit_io_calls, 1, __ATOMIC_RELAXED);
	if (anon) {
		testfs_lock(tf);
		bio->bi_iter.bi_sector = alloc_addr(tf, bio->bi_iter.bi_size) >>
					 SECTOR_SHIFT;
		tf->allocations++;
		testfs_unlock(tf);
	}
	bio->bi_end_io = testfs_end_bio;
	ioend = iomap_init_ioend(iter->inode, bio, file_offset,
				 IOMAP_IOEND_DIRECT);
	/* the worker remaps what went out of place */
	ioend->io_private = anon ? tf : NULL;
	submit_bio(bio);
}

static int testfs_ioend_setup(struct testfs *tf, char *err, size_t errlen)
{
	if (!tf->ioend_wq) {
		tf->ioend_wq = alloc_workqueue("testfs-conv/%s", WQ_MEM_RECLAIM,
					       0, tf->sb.s_id);
		if (!tf->ioend_wq) {
			snprintf(err, errlen, "alloc_workqueue: -ENOMEM");
			return -ENOMEM;
		}
		spin_lock_init(&tf->ioend_lock);
		INIT_LIST_HEAD(&tf->ioend_list);
		INIT_WORK(&tf->ioend_work, testfs_end_io_work);
	}
	tf->dops_storage.bio_set = &iomap_ioend_bioset;
	tf->dops_storage.submit_io = testfs_ioend_submit_io;
	tf->dops_storage.end_io = testfs_dio_end_io;
	tf->dops = &tf->dops_storage;
	return 0;
}
#else
static int testfs_ioend_setup(struct testfs *tf, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "--dops ioend: iomap_finish_ioend_direct() is not in this "
		 "build's iomap code (see --version)");
	return -EOPNOTSUPP;
}
#endif /* IOMAPSIM_IOEND_DIRECT */

/* What the dio ops of the last opts set up: bio_set, ioend worker. */
static void dops_release(struct testfs *tf, enum testfs_dops keep)
{
	if (keep != TESTFS_DOPS_BIO_SET && tf->bio_set_ready) {
		bioset_exit(&tf->bio_set);
		tf->bio_set_ready = false;
	}
	if (keep != TESTFS_DOPS_IOEND && tf->ioend_wq) {
		destroy_workqueue(tf->ioend_wq);
		tf->ioend_wq = NULL;
	}
}

static int testfs_fsync(struct file *file, loff_t start, loff_t end,
			int datasync)
{
	struct testfs *tf = testfs_from_inode(file_inode(file));

	might_sleep();
	__atomic_fetch_add(&tf->fsync_calls, 1, __ATOMIC_RELAXED);
	WRITE_ONCE(tf->fsync_datasync, datasync);
	if (tf->fsync_error)
		return tf->fsync_error;
	return blkdev_issue_flush(tf->bdev);
}

/*
 * The file system's ->iomap_next, begin and end as one callback, as a file
 * system converted to iomap_iter_next_fn defines it.  The proposal modes
 * use testfs_iomap_next(), which also counts.
 */
IOMAPSIM_DEFINE_IOMAP_NEXT_END(testfs_iomap_next_fs, testfs_iomap_begin,
			       testfs_iomap_end);

/*
 * The entry the mode names.  The proposal's entry points exist only in
 * the embedded copy; with the simple path off (per call or per mount)
 * they become __iomap_dio_rw() directly, the file system's choice (see
 * <sim/fs_dio.h>), as iomapsim_dio_rw() does for the others.
 */
static ssize_t testfs_dio_call(struct testfs *tf, struct kiocb *iocb,
			       struct iov_iter *iter,
			       const struct iomap_dio_ops *dops,
			       unsigned int dio_flags, size_t done_before)
{
#if IOMAPSIM_PROPOSAL
	const struct iomap_ops next_ops = { .iomap_next = testfs_iomap_next };
	enum iomapsim_offer offer = tf->mode == TESTFS_MODE_BEGIN ?
					    IOMAPSIM_OFFER_NO_END :
					    IOMAPSIM_OFFER_RW;
	ssize_t ret;
#endif

	switch (tf->mode) {
	case TESTFS_MODE_NEXT:
	case TESTFS_MODE_BEGIN:
#if !IOMAPSIM_PROPOSAL
		/* proposal entry points: only the embedded copy has them */
		return -EOPNOTSUPP;
#else
		if (!iomapsim_fs_dio_offer(iocb, iter, dops, &dio_flags,
					   done_before, offer))
			ret = iomapsim_fs_dio_generic(iocb, iter, &next_ops,
						      dops, dio_flags, NULL,
						      done_before);
		else if (tf->mode == TESTFS_MODE_NEXT)
			ret = iomap_dio_rw_next(iocb, iter, testfs_iomap_next,
						dops, dio_flags, NULL,
						done_before);
		else
			ret = iomap_dio_rw_begin(iocb, iter, testfs_iomap_begin,
						 testfs_iomap_next, dops,
						 dio_flags, NULL, done_before);
		iomapsim_dio_offer_end();
		return ret;
#endif
	default:
		return iomapsim_dio_rw(iocb, iter, &tf->ops, dops, dio_flags,
				       tf->dio_private, done_before);
	}
}

/*
 * TESTFS_DOPS_IOEND: a write of whole blocks (position and length) goes
 * out of place, in bios of whole blocks (IOMAP_DIO_FSBLOCK_ALIGNED) so
 * that each ioend remaps whole blocks; any other write is written in place, through ioends too
 * (XFS would send it through the page cache, which testfs does not have).
 * The choice holds for the one write running (tf->ioend_anon).
 */
static void testfs_ioend_write(struct testfs *tf, struct kiocb *iocb,
			       struct iov_iter *iter, unsigned int *dio_flags)
{
#ifdef IOMAP_DIO_FSBLOCK_ALIGNED
	u64 mask = tf->fs_block - 1;

	/*
	 * as xfs_file_dio_write() tells an unaligned write, by position and
	 * length only: where the caller's memory sits must not decide it
	 * (it would make the same request go either way from one run to the
	 * next), and IOMAP_DIO_FSBLOCK_ALIGNED keeps each bio whole blocks
	 * however the segments fall
	 */
	tf->ioend_anon = !(((u64)iocb->ki_pos | iov_iter_count(iter)) & mask);
	if (tf->ioend_anon)
		*dio_flags |= IOMAP_DIO_FSBLOCK_ALIGNED;
#else
	tf->ioend_anon = false;
#endif
}

ssize_t testfs_dio_rw(struct testfs *tf, struct kiocb *iocb,
		      struct iov_iter *iter, unsigned int dio_flags,
		      size_t done_before)
{
	struct inode *inode = &tf->inode;
	bool write = iov_iter_rw(iter) == WRITE;
	const struct iomap_dio_ops *dops = tf->dops;
	ssize_t ret;

	if (tf->dops_kind == TESTFS_DOPS_IOEND) {
		/* TESTFS_DOPS_IOEND: reads complete as without dops (XFS) */
		if (!write)
			dops = NULL;
		else
			testfs_ioend_write(tf, iocb, iter, &dio_flags);
	}
	ret = testfs_dio_call(tf, iocb, iter, dops, dio_flags, done_before);
	/* only the ioend mode sets it: other requests may run side by side */
	if (tf->dops_kind == TESTFS_DOPS_IOEND)
		tf->ioend_anon = false;
	sim_trace("dio_rw_return", "ret %zd", ret);

	/*
	 * Without an ->end_io, a synchronous extending write updates the
	 * size here, as ext4 does after iomap_dio_rw() returns.
	 */
	if (write && ret > 0 && !(tf->dops && tf->dops->end_io) &&
	    iocb->ki_pos > i_size_read(inode)) {
		i_size_write(inode, iocb->ki_pos);
		mark_inode_dirty(inode);
	}
	return ret;
}

static ssize_t testfs_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	return testfs_dio_rw(testfs_from_inode(file_inode(iocb->ki_filp)), iocb,
			     to, 0, 0);
}

static ssize_t testfs_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	return testfs_dio_rw(testfs_from_inode(file_inode(iocb->ki_filp)), iocb,
			     from, 0, 0);
}

/* ---- setup -------------------------------------------------------------- */

static int ext_cmp(const void *a, const void *b)
{
	const struct testfs_extent *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static bool valid_type(u16 type)
{
	return type <= IOMAP_INLINE;
}

static int setup_map(struct testfs *tf, const struct testfs_opts *o, char *err,
		     size_t errlen)
{
	unsigned int i;

	if (!o->map) {
		u64 len = testfs_round_up(o->size, tf->fs_block);

		if (!len)
			return 0;
		if (testfs_ext_reserve(tf, 1))
			return -ENOMEM;
		tf->ext[0] = (struct testfs_extent){
			.off = 0,
			.len = len,
			.type = IOMAP_MAPPED,
			.addr = TESTFS_ADDR_AUTO,
		};
		tf->nr_ext = 1;
	} else {
		if (testfs_ext_reserve(tf, o->nr_map))
			return -ENOMEM;
		memcpy(tf->ext, o->map, o->nr_map * sizeof(*o->map));
		tf->nr_ext = o->nr_map;
		qsort(tf->ext, tf->nr_ext, sizeof(*tf->ext), ext_cmp);
	}

	for (i = 0; i < tf->nr_ext; i++) {
		struct testfs_extent *e = &tf->ext[i];

		/*
		 * Inline data is as long as the data (a gfs2 stuffed inode,
		 * an erofs tail), not a whole number of blocks; it still
		 * starts on a block.
		 */
		if (!valid_type(e->type) || !e->len || e->off < 0 ||
		    e->off % tf->fs_block ||
		    (e->type != IOMAP_INLINE && e->len % tf->fs_block)) {
			snprintf(
				err, errlen,
				"extent %u: offset and length must be non-zero multiples of the block size (inline data: any length)",
				i);
			return -EINVAL;
		}
		if (i &&
		    tf->ext[i - 1].off + (loff_t)tf->ext[i - 1].len > e->off) {
			snprintf(err, errlen, "extents overlap at %lld",
				 (long long)e->off);
			return -EINVAL;
		}
	}
	/* device addresses: in file order, a block apart */
	for (i = 0; i < tf->nr_ext; i++) {
		struct testfs_extent *e = &tf->ext[i];

		if (e->type == IOMAP_MAPPED || e->type == IOMAP_UNWRITTEN)
			e->addr = alloc_addr(tf, e->len);
		else
			e->addr = IOMAP_NULL_ADDR;
	}
	return 0;
}

/*
 * Keep what testfs_create() built, so that testfs_reset() restores it by
 * copying back only what a request touched: creating the device and
 * filling it is most of what a request costs.
 */
static int snapshot(struct testfs *tf)
{
	size_t n = tf->nr_ext * sizeof(*tf->ext);

	tf->ext0 = malloc(n ? n : 1);
	if (!tf->ext0)
		return -ENOMEM;
	if (n)
		memcpy(tf->ext0, tf->ext, n);
	tf->nr_ext0 = tf->nr_ext;
	tf->next_addr0 = tf->next_addr;
	tf->size0 = tf->inode.i_size;
	return 0;
}

/*
 * The model is mapped, not calloc'ed: it spans megabytes of which a
 * request touches little, fresh anonymous pages are zero for free, and
 * glibc serves a calloc that size from the heap once one was freed,
 * clearing all of it.
 */
static u8 *model_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void model_free(struct testfs *tf)
{
	if (tf->model)
		munmap(tf->model, tf->model_cap);
	tf->model = NULL;
	tf->model_cap = 0;
}

/* Defaults, and the geometry checks, for create and recycle alike. */
static int check_opts(struct testfs_opts *o, char *err, size_t errlen)
{
	if (!o->fs_block)
		o->fs_block = 4096;
	if (!o->lbs)
		o->lbs = 512;
	if (!is_power_of_2(o->fs_block) || o->fs_block < 512 ||
	    o->fs_block > 65536) {
		snprintf(err, errlen,
			 "block size %u: not a power of two in 512..65536",
			 o->fs_block);
		return -EINVAL;
	}
	/*
	 * A block larger than a page needs a zero page that covers a block
	 * (large block size support: a 64 KiB zero page, or
	 * largest_zero_folio()); code that zeroes from ZERO_PAGE(0) ran on
	 * kernels whose file systems refused such blocks.
	 */
	if (IOMAPSIM_ZERO_PAGE == IOMAPSIM_ZERO_PAGE0 &&
	    o->fs_block > PAGE_SIZE) {
		snprintf(
			err, errlen,
			"block size %u: blocks larger than a page are not in this build's iomap code (it zeroes from ZERO_PAGE(0))",
			o->fs_block);
		return -EINVAL;
	}
	if (!is_power_of_2(o->lbs) || o->lbs < 512 || o->lbs > 4096 ||
	    o->lbs > o->fs_block) {
		snprintf(
			err, errlen,
			"logical block size %u: must be 512..4096, a power of two, <= block size",
			o->lbs);
		return -EINVAL;
	}
	if (o->size < 0) {
		snprintf(err, errlen, "negative size");
		return -EINVAL;
	}
	return 0;
}

/*
 * The extent map, device addresses and a zeroed model for @o; *@dev_size
 * is the device it needs.  The model buffer is kept when it is big
 * enough (testfs_recycle()).
 */
static int layout(struct testfs *tf, const struct testfs_opts *o, u64 *dev_size,
		  char *err, size_t errlen)
{
	u64 span;
	int ret;

	tf->fs_block = o->fs_block;
	tf->next_addr = o->fs_block;
	tf->nr_ext = 0;
	tf->laying_out = true;
	ret = setup_map(tf, o, err, errlen);
	tf->laying_out = false;
	if (ret)
		return ret;

	/* the model covers every offset a request or an extent can reach */
	span = max_t(u64, max_t(u64, o->size, o->max_offset), o->min_span);
	if (tf->nr_ext)
		span = max_t(u64, span,
			     tf->ext[tf->nr_ext - 1].off +
				     tf->ext[tf->nr_ext - 1].len);
	span = testfs_round_up(span, o->fs_block) + o->fs_block;
	/*
	 * A kept model holds the last map's contents (testfs_set_contents() turns
	 * them into this map's); its size is rounded up so that one model
	 * serves every block size.
	 */
	if (span > tf->model_cap) {
		model_free(tf);
		tf->model_cap = testfs_round_up(span, 1 << 20);
		tf->model = model_alloc(tf->model_cap);
		if (!tf->model) {
			tf->model_cap = 0;
			return -ENOMEM;
		}
	}
	tf->model_size = span;

	/* room for the map plus allocating all of span a block at a time */
	*dev_size = testfs_round_up(
		tf->next_addr + 2 * span + 64ULL * o->fs_block, 1 << 20);
	*dev_size = max(*dev_size, testfs_round_up(o->min_dev_size, 1 << 20));
	return 0;
}

/* What the super block, inode and dio ops take from @o. */
static int apply_opts(struct testfs *tf, const struct testfs_opts *o, char *err,
		      size_t errlen)
{
	int ret;

	tf->sb.s_blocksize = o->fs_block;
	tf->sb.s_blocksize_bits = __builtin_ctz(o->fs_block);
	tf->inode.i_blkbits = tf->sb.s_blocksize_bits;
	if (o->no_simple)
		tf->sb.s_iflags |= SB_I_SIM_NO_SIMPLE_DIO;
	else
		tf->sb.s_iflags &= ~SB_I_SIM_NO_SIMPLE_DIO;
	if (o->sync_mount)
		tf->sb.s_flags |= SB_SYNCHRONOUS;
	else
		tf->sb.s_flags &= ~SB_SYNCHRONOUS;
	tf->inode.i_size = o->size;
	if (o->encrypted)
		tf->inode.i_flags |= S_ENCRYPTED;
	else
		tf->inode.i_flags &= ~S_ENCRYPTED;

	dops_release(tf, o->dops);
	memset(&tf->dops_storage, 0, sizeof(tf->dops_storage));
	tf->dops_kind = o->dops;
	switch (o->dops) {
	case TESTFS_DOPS_IOEND:
		ret = testfs_ioend_setup(tf, err, errlen);
		if (ret)
			return ret;
		break;
	case TESTFS_DOPS_END_IO:
		tf->dops_storage.end_io = testfs_dio_end_io;
		tf->dops = &tf->dops_storage;
		break;
	case TESTFS_DOPS_SUBMIT_IO:
		tf->dops_storage.submit_io = testfs_submit_io;
		tf->dops = &tf->dops_storage;
		break;
	case TESTFS_DOPS_BIO_SET:
		if (!tf->bio_set_ready) {
			ret = bioset_init(&tf->bio_set, 4,
					  offsetof(struct testfs_bio, bio),
					  BIOSET_NEED_BVECS);
			if (ret) {
				snprintf(err, errlen, "bioset_init: %d", ret);
				return ret;
			}
			tf->bio_set_ready = true;
		}
		tf->dops_storage.bio_set = &tf->bio_set;
		tf->dops = &tf->dops_storage;
		break;
	default:
		tf->dops = NULL;
		break;
	}
	return 0;
}

/* What the device was made for: a recycled testfs must want the same. */
static void set_dev_geometry(struct testfs *tf, const struct testfs_opts *o,
			     u64 dev_size)
{
	tf->dev_geo.lbs = o->lbs;
	tf->dev_geo.write_cache = o->write_cache;
	tf->dev_geo.fua = o->fua;
	tf->dev_geo.atomic_max = o->atomic_max;
	tf->dev_geo.size = dev_size;
}

static bool dev_geometry_fits(const struct testfs *tf,
			      const struct testfs_opts *o)
{
	return tf->dev_geo.lbs == o->lbs &&
	       tf->dev_geo.write_cache == o->write_cache &&
	       tf->dev_geo.fua == o->fua &&
	       tf->dev_geo.atomic_max == o->atomic_max;
}

/* The ram device under a fault wrapper, holding the initial map's data. */
static int make_ram(struct testfs *tf, const struct testfs_opts *o,
		    u64 dev_size, char *err, size_t errlen)
{
	struct blksim_ram_opts ro = {
		.name = "testfs-ram",
		.size = dev_size,
		.logical_block_size = o->lbs,
		.physical_block_size = o->lbs,
		.dma_alignment = o->lbs - 1,
		.write_cache = o->write_cache,
		.fua = o->fua,
	};
	struct contents_view want;
	int ret;

	tf->ram = blksim_bdev_ram_create(&ro, err, errlen);
	if (IS_ERR(tf->ram)) {
		ret = PTR_ERR(tf->ram);
		tf->ram = NULL;
		return ret;
	}
	tf->bdev = blksim_bdev_fault_wrap(tf->ram, err, errlen);
	if (IS_ERR(tf->bdev)) {
		ret = PTR_ERR(tf->bdev);
		tf->bdev = NULL;
		blksim_bdev_destroy(tf->ram);
		tf->ram = NULL;
		return ret;
	}
	set_dev_geometry(tf, o, dev_size);
	testfs_view_new_map(tf, o, &want);
	ret = testfs_set_contents(tf, &(struct contents_view){ 0 }, &want, 0,
				  0);
	if (ret) {
		blksim_bdev_destroy(tf->bdev);
		tf->bdev = NULL;
		tf->ram = NULL;
	}
	return ret;
}

/* testfs_opts.lower: the caller's device, big enough, under a wrapper. */
static int use_lower(struct testfs *tf, const struct testfs_opts *o,
		     u64 dev_size, char *err, size_t errlen)
{
	struct block_device *lower = o->lower;
	u64 have = bdev_nr_bytes(lower);

	if (have < dev_size) {
		snprintf(err, errlen,
			 "device %s: %llu bytes, the file needs %llu",
			 lower->bd_name, (unsigned long long)have,
			 (unsigned long long)dev_size);
		blksim_bdev_destroy(lower);
		return -ENOSPC;
	}
	tf->bdev = blksim_bdev_fault_wrap(lower, err, errlen);
	if (IS_ERR(tf->bdev)) {
		tf->bdev = NULL;
		blksim_bdev_destroy(lower);
		return -EINVAL;
	}
	set_dev_geometry(tf, o, dev_size);
	return 0;
}

struct testfs *testfs_create(const struct testfs_opts *opts, char *err,
			     size_t errlen)
{
	char dummy[8];
	struct testfs_opts o = *opts;
	struct testfs *tf;
	u64 dev_size;
	int ret;

	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	ret = check_opts(&o, err, errlen);
	if (ret) {
		if (o.lower)
			blksim_bdev_destroy(o.lower);
		return ERR_PTR(ret);
	}

	tf = calloc(1, sizeof(*tf));
	if (!tf) {
		if (o.lower)
			blksim_bdev_destroy(o.lower);
		return ERR_PTR(-ENOMEM);
	}
	pthread_mutex_init(&tf->lock, NULL);

	ret = layout(tf, &o, &dev_size, err, errlen);
	if (ret) {
		if (o.lower)
			blksim_bdev_destroy(o.lower);
		goto out_free;
	}
	if (o.lower)
		ret = use_lower(tf, &o, dev_size, err, errlen);
	else
		ret = make_ram(tf, &o, dev_size, err, errlen);
	if (ret)
		goto out_free;
	if (o.atomic_max) {
		/* untorn from one logical block up to atomic_max bytes */
		blksim_set_atomic_write_limits(tf->bdev, o.lbs, o.atomic_max);
		blksim_set_atomic_write_limits(
			blksim_bdev_fault_lower(tf->bdev), o.lbs, o.atomic_max);
	}

	/* super block, inode, file */
	snprintf(tf->sb.s_id, sizeof(tf->sb.s_id), "testfs");
	tf->sb.s_bdev = tf->bdev;
	tf->sb.s_fs_info = tf;
	/* block size and i_blkbits: apply_opts(), as for a recycled one */
	sim_inode_init_once(&tf->inode, &tf->sb);
	tf->inode.i_ino = TESTFS_INO;
	tf->inode.i_mode = S_IFREG | 0644;
	tf->inode.i_private = tf;

	tf->fops.read_iter = testfs_read_iter;
	tf->fops.write_iter = testfs_write_iter;
	tf->fops.fsync = testfs_fsync;
	tf->file.f_inode = &tf->inode;
	tf->file.f_mapping = tf->inode.i_mapping;
	tf->file.f_op = &tf->fops;
	tf->file.f_mode = FMODE_READ | FMODE_WRITE | FMODE_CAN_ODIRECT |
			  FMODE_NOWAIT;
	tf->file.f_flags = 040000; /* O_DIRECT */

	tf->ops.begin = testfs_iomap_begin;
	tf->ops.end = testfs_iomap_end;
	tf->ops.next = testfs_iomap_next_fs;

	ret = apply_opts(tf, &o, err, errlen);
	if (ret)
		goto out_dev;
	if (o.reusable) {
		ret = snapshot(tf);
		if (ret)
			goto out_bioset;
	}
	return tf;

out_bioset:
	dops_release(tf, TESTFS_DOPS_NONE);

out_dev:
	blksim_bdev_destroy(tf->bdev);
out_free:
	model_free(tf);
	free(tf->ext);
	free(tf->ext0);
	pthread_mutex_destroy(&tf->lock);
	free(tf);
	if (!err[0])
		snprintf(err, errlen, "testfs: error %d", ret);
	return ERR_PTR(ret);
}

int testfs_retune(struct testfs *tf, const struct testfs_opts *opts, char *err,
		  size_t errlen)
{
	err[0] = '\0';
	/* as snapshot() keeps it, for testfs_reset() */
	tf->size0 = opts->size;
	return apply_opts(tf, opts, err, errlen);
}

int testfs_recycle(struct testfs *tf, const struct testfs_opts *opts, char *err,
		   size_t errlen)
{
	struct testfs_opts o = *opts;
	struct contents_view old, want;
	u64 dev_size, dirty_to;
	u8 *model;
	int ret;

	err[0] = '\0';
	ret = check_opts(&o, err, errlen);
	if (ret)
		return ret;
	if (!tf->ext0 || !o.reusable || !dev_geometry_fits(tf, &o))
		return -EAGAIN;

	/* what testfs_reset() left: the last map's initial contents */
	testfs_view_initial(tf, &old);
	tf->ext0 = NULL;
	model = tf->model;
	dirty_to = tf->dev_used;
	tf->dev_used = 0;
	ret = layout(tf, &o, &dev_size, err, errlen);
	if (!ret && dev_size != tf->dev_geo.size)
		ret = -EAGAIN;
	if (!ret) {
		/* a model mapped afresh is all zero */
		if (tf->model != model)
			old.model_size = 0;
		testfs_view_new_map(tf, &o, &want);
		ret = testfs_set_contents(tf, &old, &want, tf->next_addr0,
					  dirty_to);
	}
	free((void *)old.ext);
	if (ret)
		return ret; /* without ext0, never recycled or reset again */
	ret = apply_opts(tf, &o, err, errlen);
	if (ret)
		return ret;
	return snapshot(tf);
}

void testfs_destroy(struct testfs *tf)
{
	if (!tf)
		return;
	sb_destroy_dio_done_wq(&tf->sb);
	sim_pc_destroy(tf->inode.i_mapping);
	dops_release(tf, TESTFS_DOPS_NONE);
	if (tf->bdev)
		blksim_bdev_destroy(tf->bdev);
	model_free(tf);
	free(tf->ext);
	free(tf->ext0);
	pthread_mutex_destroy(&tf->lock);
	free(tf);
}

static const struct {
	const char *name;
	int err;
} errno_names[] = {
	{ "EPERM", EPERM },
	{ "ENOENT", ENOENT },
	{ "EIO", EIO },
	{ "ENXIO", ENXIO },
	{ "EAGAIN", EAGAIN },
	{ "ENOMEM", ENOMEM },
	{ "EFAULT", EFAULT },
	{ "ENOTBLK", ENOTBLK },
	{ "EBUSY", EBUSY },
	{ "EEXIST", EEXIST },
	{ "EINVAL", EINVAL },
	{ "EFBIG", EFBIG },
	{ "ENOSPC", ENOSPC },
	{ "EROFS", EROFS },
	{ "EDQUOT", EDQUOT },
	{ "EOPNOTSUPP", EOPNOTSUPP },
	{ "ENODATA", ENODATA },
	{ "ESTALE", ESTALE },
	{ "EOVERFLOW", EOVERFLOW },
	{ "EFSCORRUPTED", EUCLEAN },
	{ "EUCLEAN", EUCLEAN },
	{ "ETIMEDOUT", ETIMEDOUT },
	{ "ENOLINK", ENOLINK },
	{ "EILSEQ", EILSEQ },
	{ "ENODEV", ENODEV },
};

int testfs_parse_errno(const char *s)
{
	char *end;
	long v;
	size_t i;

	if (!s || !*s)
		return 0;
	for (i = 0; i < ARRAY_SIZE(errno_names); i++)
		if (!strcasecmp(s, errno_names[i].name) ||
		    (s[0] == '-' && !strcasecmp(s + 1, errno_names[i].name)))
			return -errno_names[i].err;
	v = strtol(s, &end, 0);
	if (*end || v == 0 || v < -4095 || v > 4095)
		return 0;
	return v < 0 ? (int)v : (int)-v;
}
