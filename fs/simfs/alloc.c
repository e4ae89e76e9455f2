// SPDX-License-Identifier: GPL-2.0-only
/*
 * Block allocation: an in-memory bitmap rebuilt from the extent maps at
 * mount (free space is not stored on disk, so it can never disagree with
 * the extents), first fit from a goal, aligned to the device's optimal I/O
 * size for large requests as XFS aligns to the stripe unit.
 *
 * Freed blocks are held back until a commit no longer refers to them: the
 * committed copy on disk may still map them, and handing them to another
 * file before the next commit would let a crash expose that file's data
 * through the old mapping.  Each held-back range remembers the "epoch" in
 * which it was freed; a commit that started later covers it.
 */
#include <errno.h>
#include <string.h>
#include <linux/slab.h>
#include <sim/stats.h>
#include "simfs.h"

DEFINE_SIM_STAT(stat_alloc_calls, "simfs_alloc_calls");
DEFINE_SIM_STAT(stat_alloc_blocks, "simfs_alloc_blocks");
DEFINE_SIM_STAT(stat_alloc_enospc, "simfs_alloc_enospc");
DEFINE_SIM_STAT(stat_freed_blocks, "simfs_freed_blocks");

#define BPW (8 * sizeof(unsigned long))

static bool bit_test(const unsigned long *map, u64 b)
{
	return map[b / BPW] & (1UL << (b % BPW));
}

static void bits_set(unsigned long *map, u64 b, u64 n)
{
	for (; n; b++, n--)
		map[b / BPW] |= 1UL << (b % BPW);
}

static void bits_clear(unsigned long *map, u64 b, u64 n)
{
	for (; n; b++, n--)
		map[b / BPW] &= ~(1UL << (b % BPW));
}

/* First clear bit in [from, end), or end. */
static u64 next_zero(const unsigned long *map, u64 from, u64 end)
{
	while (from < end) {
		unsigned long w = ~map[from / BPW] >> (from % BPW);

		if (w)
			return min(end, from + __builtin_ctzl(w));
		from = ALIGN_DOWN(from, BPW) + BPW;
	}
	return end;
}

/* Length of the clear run at @from, at most @max. */
static u64 zero_run(const unsigned long *map, u64 from, u64 end, u64 max)
{
	u64 n = 0;

	while (from + n < end && n < max && !bit_test(map, from + n))
		n++;
	return n;
}

int simfs_alloc_init(struct simfs_sb_info *sbi)
{
	u64 nr = sbi->geo.nr_blocks;

	sbi->bitmap = kvzalloc(DIV_ROUND_UP(nr, BPW) * sizeof(unsigned long),
			       GFP_KERNEL);
	if (!sbi->bitmap)
		return -ENOMEM;
	mutex_init(&sbi->alloc_lock);
	/* superblock slots and both metadata areas are never data */
	bits_set(sbi->bitmap, 0, sbi->geo.data_start);
	sbi->free_blocks = nr - sbi->geo.data_start;
	sbi->alloc_cursor = sbi->geo.data_start;
	return 0;
}

void simfs_alloc_exit(struct simfs_sb_info *sbi)
{
	kvfree(sbi->bitmap);
	kfree(sbi->pending);
	sbi->bitmap = NULL;
	sbi->pending = NULL;
	sbi->nr_pending = sbi->cap_pending = 0;
	mutex_destroy(&sbi->alloc_lock);
}

int simfs_alloc_mark_used(struct simfs_sb_info *sbi, u64 pblk, u64 len)
{
	if (pblk < sbi->geo.data_start || len > sbi->geo.nr_blocks ||
	    pblk > sbi->geo.nr_blocks - len)
		return -EUCLEAN;
	for (u64 i = 0; i < len; i++)
		if (bit_test(sbi->bitmap, pblk + i))
			return -EUCLEAN;
	bits_set(sbi->bitmap, pblk, len);
	sbi->free_blocks -= len;
	return 0;
}

static u32 align_blocks(struct simfs_sb_info *sbi)
{
	u32 io_opt = simfs_le32_to_cpu(sbi->dsb.s_io_opt);
	u32 bs = sbi->geo.block_size;

	if (io_opt <= bs || io_opt % bs)
		return 1;
	return io_opt / bs;
}

/* An aligned start with a free run of @need blocks, searching [from, end). */
static u64 find_aligned(struct simfs_sb_info *sbi, u64 from, u64 end, u32 align,
			u64 need)
{
	for (u64 b = round_up(from, (u64)align); b + need <= end; b += align) {
		b = next_zero(sbi->bitmap, b, end);
		b = round_up(b, (u64)align);
		if (b + need > end)
			break;
		if (zero_run(sbi->bitmap, b, end, need) == need)
			return b;
	}
	return end;
}

int simfs_alloc_blocks(struct simfs_sb_info *sbi, u64 goal, u64 want, u64 *pblk,
		       u64 *got)
{
	u64 start = sbi->geo.data_start, end = sbi->geo.nr_blocks;
	u32 align = align_blocks(sbi);
	u64 b = end;

	sim_stat_inc(&stat_alloc_calls);
	want = min_t(u64, want, SIMFS_EXT_MAX_LEN);
	mutex_lock(&sbi->alloc_lock);
	if (!sbi->free_blocks)
		goto nospc;
	if (goal < start || goal >= end)
		goal = sbi->alloc_cursor;

	/* right behind the file's previous extent: keep it contiguous */
	if (goal >= start && goal < end && !bit_test(sbi->bitmap, goal))
		b = goal;
	if (b == end && align > 1 && want >= align) {
		b = find_aligned(sbi, goal, end, align, align);
		if (b == end)
			b = find_aligned(sbi, start, goal, align, align);
	}
	if (b == end) {
		b = next_zero(sbi->bitmap, goal, end);
		if (b == end)
			b = next_zero(sbi->bitmap, start, goal);
	}
	if (b >= end)
		goto nospc;

	*got = zero_run(sbi->bitmap, b, end, want);
	*pblk = b;
	bits_set(sbi->bitmap, b, *got);
	sbi->free_blocks -= *got;
	sbi->alloc_cursor = b + *got < end ? b + *got : start;
	mutex_unlock(&sbi->alloc_lock);
	sim_stat_add(&stat_alloc_blocks, *got);
	return 0;

nospc:
	mutex_unlock(&sbi->alloc_lock);
	sim_stat_inc(&stat_alloc_enospc);
	return -ENOSPC;
}

void simfs_free_blocks(struct simfs_sb_info *sbi, u64 pblk, u64 len)
{
	struct simfs_pending_free *pf;

	mutex_lock(&sbi->alloc_lock);
	if (sbi->nr_pending == sbi->cap_pending)
		/* GFP_NOFS | __GFP_NOFAIL: a lost free would leak blocks */
		sbi->pending = simfs_grow_array(sbi->pending, sbi->nr_pending,
						&sbi->cap_pending,
						sbi->nr_pending + 1,
						sizeof(*sbi->pending), 64,
						GFP_NOFS | __GFP_NOFAIL);
	pf = &sbi->pending[sbi->nr_pending++];
	pf->pblk = pblk;
	pf->len = len;
	pf->epoch = sbi->free_epoch;
	sbi->pending_blocks += len;
	mutex_unlock(&sbi->alloc_lock);
	sim_stat_add(&stat_freed_blocks, len);
}

void simfs_free_blocks_now(struct simfs_sb_info *sbi, u64 pblk, u64 len)
{
	mutex_lock(&sbi->alloc_lock);
	bits_clear(sbi->bitmap, pblk, len);
	sbi->free_blocks += len;
	mutex_unlock(&sbi->alloc_lock);
}

u64 simfs_alloc_commit_begin(struct simfs_sb_info *sbi)
{
	u64 epoch;

	mutex_lock(&sbi->alloc_lock);
	epoch = ++sbi->free_epoch;
	mutex_unlock(&sbi->alloc_lock);
	return epoch;
}

void simfs_alloc_commit_done(struct simfs_sb_info *sbi, u64 epoch)
{
	u32 keep = 0;

	mutex_lock(&sbi->alloc_lock);
	for (u32 i = 0; i < sbi->nr_pending; i++) {
		struct simfs_pending_free *pf = &sbi->pending[i];

		if (pf->epoch < epoch) {
			bits_clear(sbi->bitmap, pf->pblk, pf->len);
			sbi->free_blocks += pf->len;
			sbi->pending_blocks -= pf->len;
		} else {
			sbi->pending[keep++] = *pf;
		}
	}
	sbi->nr_pending = keep;
	mutex_unlock(&sbi->alloc_lock);
}

/* One of the allocator's counts, read under the lock that guards it. */
static u64 alloc_count(struct simfs_sb_info *sbi, const u64 *count)
{
	u64 n;

	mutex_lock(&sbi->alloc_lock);
	n = *count;
	mutex_unlock(&sbi->alloc_lock);
	return n;
}

u64 simfs_alloc_free_count(struct simfs_sb_info *sbi)
{
	return alloc_count(sbi, &sbi->free_blocks);
}

u64 simfs_alloc_pending_count(struct simfs_sb_info *sbi)
{
	return alloc_count(sbi, &sbi->pending_blocks);
}

int simfs_meta_room(struct simfs_sb_info *sbi, long extra)
{
	long cap = (long)(sbi->geo.meta_blocks * sbi->geo.block_size);

	/*
	 * Keep an eighth of the area back: unwritten conversions split
	 * extents at completion time, where ENOSPC cannot be returned to
	 * anyone, so they must always find room.
	 */
	if (atomic_long_read(&sbi->meta_bytes) + extra > cap - cap / 8)
		return -ENOSPC;
	return 0;
}
