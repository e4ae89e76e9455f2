/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What testfs.c (the file system and its setup) and testfs-model.c (the
 * model, the checks and the reset) share.  Private to fs/testfs.
 */
#ifndef _TESTFS_INTERNAL_H
#define _TESTFS_INTERNAL_H

#include <pthread.h>
#include <sim/engine.h>
#include "testfs.h"

static inline u64 testfs_round_up(u64 x, u64 a)
{
	return (x + a - 1) / a * a;
}

static inline u64 testfs_round_down(u64 x, u64 a)
{
	return x / a * a;
}

/*
 * The callbacks' lock: the extents, the callback record and the counters
 * are testfs's own bookkeeping, shared only when real threads run
 * requests (the threaded engine).  A read's mapping needs only the
 * shared side of ext4's i_data_sem or XFS's ILOCK, which two tasks on
 * one OS thread never contend for; under the deterministic engine the
 * per-request callbacks take no lock.
 */
static inline void testfs_lock(struct testfs *tf)
{
	if (sim_engine_threaded())
		pthread_mutex_lock(&tf->lock);
}

static inline void testfs_unlock(struct testfs *tf)
{
	if (sim_engine_threaded())
		pthread_mutex_unlock(&tf->lock);
}

/* ---- the extent table (lock held), testfs.c ---- */

int testfs_ext_reserve(struct testfs *tf, unsigned int more);
/* Index of the first extent ending after @pos (may not contain it). */
unsigned int testfs_ext_find(struct testfs *tf, loff_t pos);

static inline bool testfs_ext_contains(const struct testfs_extent *e,
				       loff_t pos)
{
	return e->off <= pos && pos < e->off + (loff_t)e->len;
}

/* Stale data (a recognisable pattern) in device bytes @addr..+@len. */
void testfs_stale_fill(u8 *dev, u64 addr, u64 len);

/* ---- contents of a map, testfs-model.c ---- */

/*
 * What a map holds where: its extents, the model's length, and the file
 * range whose contents are kept (the rest is zero, see testfs_opts).
 */
struct contents_view {
	const struct testfs_extent *ext;
	unsigned int nr;
	u64 model_size;
	loff_t win_start, win_end;
};

/* The map just laid out by testfs_create(), with the window @o asks for. */
void testfs_view_new_map(const struct testfs *tf, const struct testfs_opts *o,
			 struct contents_view *v);
/* The initial map as it stands (after testfs_reset()). */
void testfs_view_initial(const struct testfs *tf, struct contents_view *v);
/*
 * Turn the contents @old left (after testfs_reset(): its initial ones),
 * plus blocks requests allocated in [@dirty_from, @dirty_to), into what
 * @new wants; 0 or -ENOMEM.  A new testfs has nothing old.
 */
int testfs_set_contents(struct testfs *tf, const struct contents_view *old,
			const struct contents_view *new, u64 dirty_from,
			u64 dirty_to);

#endif /* _TESTFS_INTERNAL_H */
