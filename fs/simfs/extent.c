// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-inode extent maps: a sorted array of non-overlapping extents (file
 * block, device block, length, unwritten flag), merged whenever two
 * neighbours are contiguous in both spaces with the same flags, the way
 * ext4's extent tree merges.  Everything here runs under ei->map_lock.
 */
#include <errno.h>
#include <string.h>
#include <linux/slab.h>
#include <sim/stats.h>
#include "simfs.h"

DEFINE_SIM_STAT(stat_post_eof_freed, "simfs_post_eof_blocks_freed");

static void set_nr(struct simfs_inode_info *ei, u32 nr)
{
	long delta = ((long)nr - (long)ei->nr_ext) *
		     (long)sizeof(struct simfs_dextent);

	atomic_long_add(delta, &ei->sbi->meta_bytes);
	ei->nr_ext = nr;
}

static int ensure_cap(struct simfs_inode_info *ei, u32 need)
{
	struct simfs_extent *n;

	if (need <= ei->cap_ext)
		return 0;
	n = simfs_grow_array(ei->ext, ei->nr_ext, &ei->cap_ext, need,
			     sizeof(*n), 4, GFP_NOFS);
	if (!n)
		return -ENOMEM;
	ei->ext = n;
	return 0;
}

/* Index of the first extent whose start is after @lblk. */
static u32 upper_bound(struct simfs_inode_info *ei, u64 lblk)
{
	u32 lo = 0, hi = ei->nr_ext;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (ei->ext[mid].lblk <= lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct simfs_extent *simfs_ext_find(struct simfs_inode_info *ei, u64 lblk,
				    u32 *idx)
{
	u32 i = upper_bound(ei, lblk);

	if (i > 0) {
		struct simfs_extent *e = &ei->ext[i - 1];

		if (lblk < e->lblk + e->len) {
			*idx = i - 1;
			return e;
		}
	}
	*idx = i;
	return NULL;
}

static bool can_merge(const struct simfs_extent *a,
		      const struct simfs_extent *b)
{
	return a->lblk + a->len == b->lblk && a->pblk + a->len == b->pblk &&
	       a->flags == b->flags &&
	       (u64)a->len + b->len <= SIMFS_EXT_MAX_LEN;
}

/* Merge neighbours within [from, to] (indexes, clamped). */
static void merge_range(struct simfs_inode_info *ei, u32 from, u32 to)
{
	u32 nr = ei->nr_ext;

	if (from > 0)
		from--;
	if (to >= nr)
		to = nr ? nr - 1 : 0;
	for (u32 i = from; i < to && i + 1 < nr;) {
		if (can_merge(&ei->ext[i], &ei->ext[i + 1])) {
			ei->ext[i].len += ei->ext[i + 1].len;
			memmove(&ei->ext[i + 1], &ei->ext[i + 2],
				(nr - i - 2) * sizeof(ei->ext[0]));
			nr--;
			to--;
		} else {
			i++;
		}
	}
	set_nr(ei, nr);
}

int simfs_ext_insert(struct simfs_inode_info *ei, u64 lblk, u64 pblk, u32 len,
		     u32 flags)
{
	u32 i = upper_bound(ei, lblk);
	int ret;

	if (WARN_ON_ONCE(!len))
		return -EIO;
	/* must go into a hole */
	if ((i > 0 && ei->ext[i - 1].lblk + ei->ext[i - 1].len > lblk) ||
	    (i < ei->nr_ext && lblk + len > ei->ext[i].lblk)) {
		WARN_ON_ONCE(1);
		return -EIO;
	}
	ret = ensure_cap(ei, ei->nr_ext + 1);
	if (ret)
		return ret;
	memmove(&ei->ext[i + 1], &ei->ext[i],
		(ei->nr_ext - i) * sizeof(ei->ext[0]));
	ei->ext[i] = (struct simfs_extent){
		.lblk = lblk, .pblk = pblk, .len = len, .flags = flags
	};
	set_nr(ei, ei->nr_ext + 1);
	merge_range(ei, i, i + 1);
	return 0;
}

int simfs_ext_alloc_unwritten(struct simfs_inode_info *ei, u64 lblk, u64 goal,
			      u64 want, u64 *pblk, u64 *got)
{
	struct simfs_sb_info *sbi = ei->sbi;
	int ret;

	/* room for the extent and for a split of its neighbour */
	ret = simfs_meta_room(sbi, 2 * sizeof(struct simfs_dextent));
	if (!ret)
		ret = simfs_alloc_blocks(sbi, goal, want, pblk, got);
	if (!ret) {
		ret = simfs_ext_insert(ei, lblk, *pblk, *got,
				       SIMFS_EXT_UNWRITTEN);
		if (ret)
			simfs_free_blocks_now(sbi, *pblk, *got);
	}
	return ret;
}

/* Make @lblk an extent boundary (split the extent it falls inside). */
static int split_at(struct simfs_inode_info *ei, u64 lblk)
{
	struct simfs_extent *e;
	u32 i, head;
	int ret;

	e = simfs_ext_find(ei, lblk, &i);
	if (!e || e->lblk == lblk)
		return 0;
	ret = ensure_cap(ei, ei->nr_ext + 1);
	if (ret)
		return ret;
	e = &ei->ext[i];
	head = lblk - e->lblk;
	memmove(&ei->ext[i + 2], &ei->ext[i + 1],
		(ei->nr_ext - i - 1) * sizeof(ei->ext[0]));
	ei->ext[i + 1] = (struct simfs_extent){ .lblk = lblk,
						.pblk = e->pblk + head,
						.len = e->len - head,
						.flags = e->flags };
	e->len = head;
	set_nr(ei, ei->nr_ext + 1);
	return 0;
}

/*
 * Split the extents at @lblk and at @lblk + @len, so that whole extents
 * cover the range; *@first is where a walk over them starts.
 */
static int split_range(struct simfs_inode_info *ei, u64 lblk, u64 len,
		       u32 *first)
{
	u32 i;
	int ret;

	ret = split_at(ei, lblk);
	if (!ret)
		ret = split_at(ei, lblk + len);
	if (ret)
		return ret;
	i = upper_bound(ei, lblk);
	if (i > 0 && ei->ext[i - 1].lblk >= lblk)
		i--;
	*first = i;
	return 0;
}

int simfs_ext_set_flags(struct simfs_inode_info *ei, u64 lblk, u64 len,
			u32 flags)
{
	u32 first, i;
	int ret;

	if (!len)
		return 0;
	ret = split_range(ei, lblk, len, &first);
	if (ret)
		return ret;
	for (i = first; i < ei->nr_ext && ei->ext[i].lblk < lblk + len; i++)
		if (ei->ext[i].lblk >= lblk)
			ei->ext[i].flags = flags;
	merge_range(ei, first, i);
	return 0;
}

int simfs_ext_remove(struct simfs_inode_info *ei, u64 lblk, u64 len)
{
	u32 first, last;
	int ret;

	if (!len)
		return 0;
	if (lblk + len < lblk)
		len = U64_MAX - lblk;
	ret = split_range(ei, lblk, len, &first);
	if (ret)
		return ret;
	while (first < ei->nr_ext && ei->ext[first].lblk < lblk)
		first++;
	for (last = first; last < ei->nr_ext && ei->ext[last].lblk < lblk + len;
	     last++)
		simfs_free_blocks(ei->sbi, ei->ext[last].pblk,
				  ei->ext[last].len);
	/* nothing mapped there (an empty file has no array at all) */
	if (last == first)
		return 0;
	memmove(&ei->ext[first], &ei->ext[last],
		(ei->nr_ext - last) * sizeof(ei->ext[0]));
	set_nr(ei, ei->nr_ext - (last - first));
	return 0;
}

long simfs_ext_trim_written(struct simfs_inode_info *ei, u64 from)
{
	long freed = 0;
	u32 i;

	/* the common case, nothing mapped from there on: no search */
	if (!ei->nr_ext ||
	    ei->ext[ei->nr_ext - 1].lblk + ei->ext[ei->nr_ext - 1].len <= from)
		return 0;
	simfs_ext_find(ei, from, &i);
	while (i < ei->nr_ext) {
		struct simfs_extent *e = &ei->ext[i];
		u64 start = max(e->lblk, from), end = e->lblk + e->len;
		int ret;

		if (e->flags & SIMFS_EXT_UNWRITTEN) {
			i++;
			continue;
		}
		ret = simfs_ext_remove(ei, start, end - start);
		if (ret)
			return ret;
		freed += end - start;
		/* the extent after the removed range, wherever it moved */
		simfs_ext_find(ei, end, &i);
	}
	if (freed)
		sim_stat_add(&stat_post_eof_freed, freed);
	return freed;
}

void simfs_ext_free_all(struct simfs_inode_info *ei)
{
	for (u32 i = 0; i < ei->nr_ext; i++)
		simfs_free_blocks(ei->sbi, ei->ext[i].pblk, ei->ext[i].len);
	set_nr(ei, 0);
	kfree(ei->ext);
	ei->ext = NULL;
	ei->cap_ext = 0;
}

u64 simfs_ext_blocks(struct simfs_inode_info *ei)
{
	u64 n = 0;

	for (u32 i = 0; i < ei->nr_ext; i++)
		n += ei->ext[i].len;
	return n;
}
