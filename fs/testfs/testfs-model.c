// SPDX-License-Identifier: GPL-2.0-only
/*
 * testfs's model (see testfs.h): what the file and the device must hold.
 * The contents a map lays out (window included), the model's view of what
 * requests wrote, the checks of the device against it, and the reset
 * that puts a file system back to its initial map between requests.
 * Test fixture, not file system: libc memory, no fault injection.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <linux/iomap.h>
#include <linux/pagemap.h>
#include <sim/bdev.h>
#include "testfs-internal.h"

/*
 * ---- contents of the initial map -------------------------------------
 *
 * What the initial map leaves in one stretch of the model or the device:
 * at byte x, the pattern of file offset x + delta (data of a mapped,
 * delalloc or inline extent), stale bytes (the blocks of an unwritten
 * extent), or whatever requests left there (blocks allocated past the
 * initial map: only ever wiped).
 */
enum { RUN_PATTERN, RUN_STALE, RUN_DIRTY };

struct content_run {
	u64 start, end;
	int kind;
	s64 delta;
};

static bool data_type(u16 type)
{
	return type == IOMAP_MAPPED || type == IOMAP_DELALLOC ||
	       type == IOMAP_INLINE;
}

/* The model's runs for @v, in file order. */
static unsigned int model_runs(const struct contents_view *v,
			       struct content_run *out)
{
	u64 lo = v->win_start, hi = min_t(u64, v->win_end, v->model_size);
	unsigned int i, k = 0;

	for (i = 0; i < v->nr; i++) {
		const struct testfs_extent *e = &v->ext[i];
		u64 s = max_t(u64, e->off, lo);
		u64 t = min_t(u64, e->off + e->len, hi);

		if (data_type(e->type) && s < t)
			out[k++] = (struct content_run){
				.start = s,
				.end = t,
				.kind = RUN_PATTERN,
			};
	}
	return k;
}

/*
 * The device's runs for @v (addresses grow in file order), then the
 * blocks requests allocated in [@dirty_from, @dirty_to).
 */
static unsigned int dev_runs(const struct contents_view *v, u64 dirty_from,
			     u64 dirty_to, struct content_run *out)
{
	unsigned int i, k = 0;

	for (i = 0; i < v->nr; i++) {
		const struct testfs_extent *e = &v->ext[i];
		u64 s = max_t(u64, e->off, v->win_start);
		u64 t = min_t(u64, e->off + e->len, v->win_end);

		if ((e->type != IOMAP_MAPPED && e->type != IOMAP_UNWRITTEN) ||
		    s >= t)
			continue;
		out[k++] = (struct content_run){
			.start = e->addr + (s - e->off),
			.end = e->addr + (t - e->off),
			.kind = e->type == IOMAP_MAPPED ? RUN_PATTERN :
							  RUN_STALE,
			.delta = e->type == IOMAP_MAPPED ?
					 (s64)e->off - (s64)e->addr :
					 0,
		};
	}
	if (dirty_to > dirty_from)
		out[k++] = (struct content_run){
			.start = dirty_from,
			.end = dirty_to,
			.kind = RUN_DIRTY,
		};
	return k;
}

static bool same_contents(const struct content_run *a,
			  const struct content_run *b)
{
	return a->kind == b->kind && a->delta == b->delta;
}

struct contents_ops {
	void (*fill)(struct testfs *tf, const struct content_run *r, u64 s,
		     u64 t);
	void (*zero)(struct testfs *tf, u64 s, u64 t);
};

/*
 * Turn what the @old runs left into what the @new runs want (both sorted,
 * neither overlapping itself): fill where new wants other contents than
 * old left, zero where only old left something, and leave alone what both
 * agree on.  A map laid out again for another input mostly agrees with
 * the last one (same extents, one longer), which is why testfs_recycle()
 * is cheap.
 */
static void apply_runs(struct testfs *tf, const struct contents_ops *ops,
		       const struct content_run *old, unsigned int no,
		       const struct content_run *new, unsigned int nn)
{
	unsigned int i = 0, j = 0;
	u64 p = 0;

	for (;;) {
		u64 os = U64_MAX, ns = U64_MAX, s, t;
		bool oc, nc;

		while (i < no && old[i].end <= p)
			i++;
		while (j < nn && new[j].end <= p)
			j++;
		if (i < no)
			os = max(old[i].start, p);
		if (j < nn)
			ns = max(new[j].start, p);
		s = min(os, ns);
		if (s == U64_MAX)
			break;
		/* the stretch from s on where the same runs cover s */
		oc = os == s;
		nc = ns == s;
		t = min(oc ? old[i].end : os, nc ? new[j].end : ns);
		if (nc && !(oc && same_contents(&old[i], &new[j])))
			ops->fill(tf, &new[j], s, t);
		else if (oc && !nc)
			ops->zero(tf, s, t);
		p = t;
	}
}

static void model_fill(struct testfs *tf, const struct content_run *r, u64 s,
		       u64 t)
{
	testfs_pattern_fill(tf->model + s, s + r->delta, t - s);
}

static void model_zero(struct testfs *tf, u64 s, u64 t)
{
	memset(tf->model + s, 0, t - s);
}

static void dev_fill(struct testfs *tf, const struct content_run *r, u64 s,
		     u64 t)
{
	u8 *dev = blksim_bdev_ram_data(tf->ram);

	u64 off = s + r->delta; /* the file offset, for the pattern */

	if (r->kind == RUN_STALE)
		testfs_stale_fill(dev, s, t - s);
	else if (off + (t - s) <= tf->model_size)
		/*
		 * testfs_set_contents() lays the model out first: it holds the
		 * pattern of every mapped block of the window, copied here
		 * faster than made again
		 */
		memcpy(dev + s, tf->model + off, t - s);
	else
		testfs_pattern_fill(dev + s, off, t - s);
}

/* (testfs never looks at a write cache's media image) */
static void dev_zero(struct testfs *tf, u64 s, u64 t)
{
	blksim_bdev_ram_zero_data(tf->ram, s, t - s);
}

static const struct contents_ops model_ops = { model_fill, model_zero };
static const struct contents_ops dev_ops = { dev_fill, dev_zero };

/*
 * Turn the contents @old left (after testfs_reset(): its initial ones),
 * plus blocks requests allocated in [@dirty_from, @dirty_to), into what
 * @new wants.  A new testfs has nothing old: everything starts zero.
 */
int testfs_set_contents(struct testfs *tf, const struct contents_view *old,
			const struct contents_view *new, u64 dirty_from,
			u64 dirty_to)
{
	struct content_run *o, *n;
	unsigned int no, nn;

	o = malloc((old->nr + 1 + new->nr) * sizeof(*o));
	if (!o)
		return -ENOMEM;
	n = o + old->nr + 1;

	no = model_runs(old, o);
	nn = model_runs(new, n);
	apply_runs(tf, &model_ops, o, no, n, nn);

	no = dev_runs(old, dirty_from, dirty_to, o);
	nn = dev_runs(new, 0, 0, n);
	apply_runs(tf, &dev_ops, o, no, n, nn);
	free(o);
	tf->win_start = new->win_start;
	tf->win_end = new->win_end;
	return 0;
}

/* The map just laid out, with the window @o asks for. */
void testfs_view_new_map(const struct testfs *tf, const struct testfs_opts *o,
			 struct contents_view *v)
{
	*v = (struct contents_view){
		.ext = tf->ext,
		.nr = tf->nr_ext,
		.model_size = tf->model_size,
		.win_start = o->window_end ? o->window_start : 0,
		.win_end = o->window_end ? o->window_end : LLONG_MAX,
	};
}

/* The initial map as it stands (after testfs_reset()). */
void testfs_view_initial(const struct testfs *tf, struct contents_view *v)
{
	*v = (struct contents_view){
		.ext = tf->ext0,
		.nr = tf->nr_ext0,
		.model_size = tf->model_size,
		.win_start = tf->win_start,
		.win_end = tf->win_end,
	};
}

int testfs_set_window(struct testfs *tf, loff_t start, loff_t end)
{
	struct contents_view old, new;
	int ret;

	if (!tf->ext0)
		return -EINVAL;
	if (!end) {
		start = 0;
		end = LLONG_MAX;
	}
	if (start == tf->win_start && end == tf->win_end &&
	    tf->dev_used <= tf->next_addr0)
		return 0;
	testfs_view_initial(tf, &old);
	new = old;
	new.win_start = start;
	new.win_end = end;
	/* and blocks requests allocated go back to zero, as on a new one */
	ret = testfs_set_contents(tf, &old, &new, tf->next_addr0, tf->dev_used);
	if (!ret)
		tf->dev_used = tf->next_addr0;
	return ret;
}

bool testfs_lookup(struct testfs *tf, loff_t pos, struct testfs_extent *out)
{
	unsigned int idx;
	bool found;

	pthread_mutex_lock(&tf->lock);
	idx = testfs_ext_find(tf, pos);
	found = idx < tf->nr_ext && testfs_ext_contains(&tf->ext[idx], pos);
	if (found)
		*out = tf->ext[idx];
	pthread_mutex_unlock(&tf->lock);
	return found;
}

/*
 * From extent @*idx on, the next mapped one that overlaps [start, end),
 * with the overlap in [*s, *t); NULL when none is left.  @*idx moves on
 * past it.
 */
static const struct testfs_extent *next_mapped(const struct testfs *tf,
					       unsigned int *idx, loff_t start,
					       loff_t end, loff_t *s, loff_t *t)
{
	for (; *idx < tf->nr_ext; (*idx)++) {
		const struct testfs_extent *e = &tf->ext[*idx];

		if (e->off >= end)
			return NULL;
		if (e->type != IOMAP_MAPPED)
			continue;
		*s = max_t(loff_t, start, e->off);
		*t = min_t(loff_t, end, e->off + (loff_t)e->len);
		if (*t > *s) {
			(*idx)++;
			return e;
		}
	}
	return NULL;
}

bool testfs_device_matches(struct testfs *tf, loff_t start, loff_t end)
{
	const u8 *dev = blksim_bdev_ram_data(tf->ram);
	const struct testfs_extent *e;
	bool ok = true;
	unsigned int idx;
	loff_t s, t;

	pthread_mutex_lock(&tf->lock);
	idx = testfs_ext_find(tf, start);
	while (ok && (e = next_mapped(tf, &idx, start, end, &s, &t)))
		ok = (size_t)t <= tf->model_size &&
		     !memcmp(dev + e->addr + (s - e->off), tf->model + s,
			     t - s);
	pthread_mutex_unlock(&tf->lock);
	return ok;
}

void testfs_model_write(struct testfs *tf, loff_t pos, const void *buf,
			size_t n)
{
	const u8 *src = buf;
	unsigned int idx;
	loff_t s, t;

	pthread_mutex_lock(&tf->lock);
	tf->written = tf->model_written = true;
	/*
	 * Only written blocks read back what was written; unwritten ones
	 * still read as zeroes, and inline data was written in place (it
	 * lives in the model).
	 */
	idx = testfs_ext_find(tf, pos);
	while (next_mapped(tf, &idx, pos, pos + (loff_t)n, &s, &t))
		if ((size_t)t <= tf->model_size)
			memcpy(tf->model + s, src + (s - pos), t - s);
	pthread_mutex_unlock(&tf->lock);
}

/* Zero the model over [s, t) where mapped extents hold it. */
static void model_zero_mapped(struct testfs *tf, loff_t s, loff_t t)
{
	unsigned int idx = testfs_ext_find(tf, s);
	loff_t a, b;

	while (next_mapped(tf, &idx, s, t, &a, &b)) {
		b = min_t(loff_t, b, (loff_t)tf->model_size);
		if (b > a)
			memset(tf->model + a, 0, b - a);
	}
}

/* Is the block at @pos in an extent the map flags IOMAP_F_NEW? */
static bool ext_new_at(struct testfs *tf, loff_t pos)
{
	unsigned int idx = testfs_ext_find(tf, pos);

	return idx < tf->nr_ext && testfs_ext_contains(&tf->ext[idx], pos) &&
	       (tf->ext[idx].flags & IOMAP_F_NEW);
}

/*
 * Which partial blocks around a direct write of [@pos, @end) iomap
 * zeroes: the head's where the first block is new, the tail's where the
 * last block is new or at or past the old EOF.  Blocks testfs allocates
 * for the write were holes (zero in the model) and unwritten extents read
 * as zeroes: only mapped extents flagged IOMAP_F_NEW, and the tail at or
 * past EOF, change.
 */
static void dio_write_zeroes(struct testfs *tf, loff_t pos, loff_t end,
			     loff_t old_size, bool *head, bool *tail)
{
	loff_t fsb = tf->fs_block;

	*head = pos % fsb && ext_new_at(tf, pos);
	*tail = end % fsb && (end >= old_size || ext_new_at(tf, end - 1));
}

void testfs_model_dio_write(struct testfs *tf, loff_t pos, const void *buf,
			    size_t n, loff_t old_size)
{
	loff_t fsb = tf->fs_block, end = pos + (loff_t)n;
	bool head, tail;

	testfs_model_write(tf, pos, buf, n);
	if (!n)
		return;
	pthread_mutex_lock(&tf->lock);
	dio_write_zeroes(tf, pos, end, old_size, &head, &tail);
	if (head)
		model_zero_mapped(tf, testfs_round_down(pos, fsb), pos);
	if (tail)
		model_zero_mapped(tf, end, testfs_round_up(end, fsb));
	pthread_mutex_unlock(&tf->lock);
}

/* Does @p[0..n) hold zeroes only? */
static bool zero_bytes(const u8 *p, size_t n)
{
	static const u8 zero[4096];

	for (size_t k; n; p += k, n -= k) {
		k = min(n, sizeof(zero));
		if (memcmp(p, zero, k))
			return false;
	}
	return true;
}

/*
 * The device's [s, t) (file offsets, inside mapped extent @e) against
 * what testfs_model_dio_write() would have left in the model there:
 * @buf under the written bytes [pos, end), and around them (the rest of
 * the first and last block) zeroes where iomap zeroes (@zero_head,
 * @zero_tail) or else the model as it is.
 */
static bool dev_holds(struct testfs *tf, const struct testfs_extent *e,
		      loff_t s, loff_t t, loff_t pos, loff_t end, const u8 *buf,
		      bool zero_head, bool zero_tail)
{
	const u8 *dev = blksim_bdev_ram_data(tf->ram) + e->addr - e->off;
	loff_t a = max(s, pos), b = min(t, end);

	if (s < min(t, pos) &&
	    (zero_head ? !zero_bytes(dev + s, min(t, pos) - s) :
			 memcmp(dev + s, tf->model + s, min(t, pos) - s)))
		return false;
	if (a < b && memcmp(dev + a, buf + (a - pos), b - a))
		return false;
	a = max(s, end);
	if (a < t && (zero_tail ? !zero_bytes(dev + a, t - a) :
				  memcmp(dev + a, tf->model + a, t - a)))
		return false;
	return true;
}

bool testfs_device_holds_dio_write(struct testfs *tf, loff_t pos,
				   const void *buf, size_t n, loff_t old_size)
{
	loff_t fsb = tf->fs_block, end = pos + (loff_t)n;
	loff_t start = testfs_round_down(pos, fsb),
	       stop = testfs_round_up(end, fsb);
	const struct testfs_extent *e;
	bool zero_head, zero_tail, ok = true;
	unsigned int idx;
	loff_t s, t;

	if (!n)
		return testfs_device_matches(tf, start, stop);
	testfs_lock(tf);
	dio_write_zeroes(tf, pos, end, old_size, &zero_head, &zero_tail);
	idx = testfs_ext_find(tf, start);
	/* the model (and so the check) ends at model_size */
	while (ok && (e = next_mapped(tf, &idx, start, stop, &s, &t)))
		ok = (size_t)t <= tf->model_size &&
		     dev_holds(tf, e, s, t, pos, end, buf, zero_head,
			       zero_tail);
	testfs_unlock(tf);
	return ok;
}

static bool data_type_ext(const struct testfs_extent *e)
{
	return e->type == IOMAP_MAPPED || e->type == IOMAP_DELALLOC ||
	       e->type == IOMAP_INLINE;
}

/* Zeroes in the model's [@s, @t), the part of it the model has. */
static void model_zero_upto(struct testfs *tf, loff_t s, loff_t t)
{
	t = min_t(loff_t, t, tf->model_size);
	if (s < t)
		memset(tf->model + s, 0, t - s);
}

/*
 * Model and device under file range [s, t) back to what testfs_set_contents()
 * made of the initial extents (not overlapping): the pattern
 * under the data extents of the window, zeroes everywhere else in the
 * model, each byte written once.  Blocks allocated later lie past
 * next_addr0 and get stale contents when allocated again.
 */
static void restore_range(struct testfs *tf, u8 *dev, loff_t s, loff_t t,
			  bool model)
{
	/* only the window holds the map's contents (testfs_set_contents()) */
	loff_t ws = max_t(loff_t, s, tf->win_start);
	loff_t wt = min_t(loff_t, t, tf->win_end);
	loff_t at = s; /* the model is right below this */
	unsigned int idx;

	for (idx = 0; idx < tf->nr_ext0; idx++) {
		const struct testfs_extent *e = &tf->ext0[idx];
		loff_t a = max_t(loff_t, ws, e->off);
		loff_t b = min_t(loff_t, wt, e->off + (loff_t)e->len);
		u64 addr = e->addr + (a - e->off);

		if (b <= a)
			continue;
		if (model && data_type_ext(e)) {
			model_zero_upto(tf, at, a);
			testfs_pattern_fill(tf->model + a, a, b - a);
			/* (max: right in any extent order) */
			at = max(at, b);
		}
		if (e->type == IOMAP_MAPPED)
			memcpy(dev + addr, tf->model + a, b - a);
		else if (e->type == IOMAP_UNWRITTEN)
			testfs_stale_fill(dev, addr, b - a);
	}
	if (model)
		model_zero_upto(tf, at, t);
}

/* Bytes of mapped and unwritten extents in [s, t): where writes may go. */
static u64 writable_bytes(struct testfs *tf, loff_t s, loff_t t)
{
	u64 bytes = 0;
	unsigned int idx;

	for (idx = testfs_ext_find(tf, s); idx < tf->nr_ext; idx++) {
		const struct testfs_extent *e = &tf->ext[idx];
		loff_t a, b;

		if (e->off >= t)
			break;
		if (e->type != IOMAP_MAPPED && e->type != IOMAP_UNWRITTEN)
			continue;
		a = max_t(loff_t, s, e->off);
		b = min_t(loff_t, t, e->off + (loff_t)e->len);
		if (b > a)
			bytes += b - a;
	}
	return bytes;
}

static bool has_inline(struct testfs *tf)
{
	unsigned int idx;

	for (idx = 0; idx < tf->nr_ext0; idx++)
		if (tf->ext0[idx].type == IOMAP_INLINE)
			return true;
	return false;
}

bool testfs_reset(struct testfs *tf, loff_t start, loff_t end)
{
	u8 *dev = blksim_bdev_ram_data(tf->ram);
	struct blksim_bdev_counters c = { 0 };
	loff_t s, t;

	/* what a request allocates goes, as testfs_destroy() frees it */
	sb_destroy_dio_done_wq(&tf->sb);
	sim_pc_destroy(tf->inode.i_mapping);
	blksim_bdev_fault_reset(tf->bdev);
	if (!tf->ext0)
		return false;

	s = testfs_round_down(max_t(loff_t, start, 0), tf->fs_block);
	t = testfs_round_up(max_t(loff_t, end, s), tf->fs_block);
	testfs_lock(tf);
	/*
	 * A write into inline data past EOF first zeroes [i_size, pos)
	 * through the inline buffer, which lives in the model: before the
	 * request's range.
	 */
	if (s > tf->size0 && has_inline(tf))
		s = testfs_round_down(tf->size0, tf->fs_block);
	/*
	 * The request wrote only under the extents of its range (those it
	 * found and those it allocated).  A write anywhere else is a bug
	 * the data checks may not see, so make sure: the ram device counts
	 * every byte written, and more than the range holds means the
	 * device cannot be trusted for the next request.
	 */
	blksim_bdev_get_counters(tf->ram, &c);
	if (c.write_bytes > writable_bytes(tf, s, t)) {
		testfs_unlock(tf);
		return false;
	}
	/*
	 * After a pure read there is nothing to put back; after a write
	 * checked with testfs_device_holds_dio_write(), the device only:
	 * the model still holds what the device gets back (inline data
	 * excepted, which the code under test writes in the model).
	 */
	if (tf->written || c.write_bytes)
		restore_range(tf, dev, s, t,
			      tf->model_written || has_inline(tf));
	tf->written = tf->model_written = false;
	if (testfs_ext_reserve(tf, tf->nr_ext0 > tf->nr_ext ?
					   tf->nr_ext0 - tf->nr_ext :
					   0)) {
		testfs_unlock(tf);
		return false;
	}
	if (tf->nr_ext0)
		memcpy(tf->ext, tf->ext0, tf->nr_ext0 * sizeof(*tf->ext));
	tf->nr_ext = tf->nr_ext0;
	tf->next_addr = tf->next_addr0;
	testfs_unlock(tf);

	blksim_bdev_reset_counters(tf->bdev);
	blksim_bdev_reset_counters(tf->ram);
	tf->inode.i_size = tf->size0;
	atomic_set(&tf->inode.i_dio_count, 0);
	tf->mode = TESTFS_MODE_OPS;
	tf->nr_cbs = 0;
	tf->begin_error = tf->end_error = tf->fsync_error = 0;
	tf->begin_error_nth = 0;
	tf->pc_on_begin = false;
	tf->pc_on_begin_index = 0;
	tf->pc_on_begin_flags = 0;
	tf->begin_calls = tf->end_calls = tf->next_calls = 0;
	tf->end_io_calls = tf->submit_io_calls = tf->fsync_calls = 0;
	tf->allocations = tf->conversions = tf->ioends = 0;
	tf->ioend_anon = false;
	tf->end_io_flags = 0;
	tf->fsync_datasync = 0;
	return true;
}

void testfs_reset_callbacks(struct testfs *tf)
{
	pthread_mutex_lock(&tf->lock);
	tf->nr_cbs = 0;
	tf->begin_calls = tf->end_calls = tf->next_calls = 0;
	pthread_mutex_unlock(&tf->lock);
}
