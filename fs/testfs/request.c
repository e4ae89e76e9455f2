// SPDX-License-Identifier: GPL-2.0-only
/*
 * The request runner: see request.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/init.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/fserror.h>
#include <linux/iomap.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/uio.h>
#include <sim/alloc.h>
#include <sim/bdev.h>
#include <sim/bio.h>
#include <sim/engine.h>
#include <sim/trace.h>
#include <sim/fault.h>
#include <sim/iomap.h>
#include <sim/report.h>
#include <sim/stats.h>
#include "request-buf.h"
#include "request.h"

void testfs_request_init(struct testfs_request *req)
{
	memset(req, 0, sizeof(*req));
	req->fs_block = 4096;
	req->lbs = 512;
	req->size = 1 << 20;
	req->len = 4096;
	req->iovec_segs = 1;
}

const char *testfs_data_name(enum testfs_data d)
{
	switch (d) {
	case IOMAPSIM_DATA_OK:
		return "ok";
	case IOMAPSIM_DATA_ZERO:
		return "zero";
	case IOMAPSIM_DATA_MISMATCH:
		return "mismatch";
	case IOMAPSIM_DATA_UNCHECKED:
		return "unchecked";
	default:
		return "n/a";
	}
}

/*
 * The issuer's side of one async request.  One request runs at a time,
 * and ki_complete may run in any context, so it only records.
 */
static struct {
	struct kiocb *iocb;
	int calls;
	long ret;
	enum iomap_dio_comp_ctx ctx;
	loff_t ki_pos;
	bool private_set;
	/* ki_complete ran while iomap_dio_rw() had not returned yet */
	bool in_submit;
	/* IOCB_DIO_CALLER_COMP: ki_complete left ->dio_complete to us */
	bool deferred;
	bool poisoned;
	struct kiocb saved;
} issuer;

/* What a freed kiocb reads as (the kernel's slab poison byte). */
#define KIOCB_POISON 0x6b

static void runner_ki_complete(struct kiocb *iocb, long ret)
{
	if (iocb != issuer.iocb)
		return;
	sim_trace("ki_complete", "ret %ld", ret);
	issuer.calls++;
	issuer.ret = ret;
	issuer.ki_pos = iocb->ki_pos;
	issuer.private_set = READ_ONCE(iocb->private) != NULL;
	/*
	 * G-52: with caller completion ki_complete's result is a
	 * placeholder; io_complete_rw() then runs ->dio_complete() from task
	 * work, as the issuer does after its wait.
	 */
	issuer.deferred = (iocb->ki_flags & IOCB_DIO_CALLER_COMP) &&
			  iocb->dio_complete;
	if (in_interrupt())
		issuer.ctx = IOMAP_DIO_COMP_END_IO;
	else if (iomapsim_in_ioend_worker())
		issuer.ctx = IOMAP_DIO_COMP_IOEND_WORKER;
	else if (current->flags & PF_WQ_WORKER)
		issuer.ctx = IOMAP_DIO_COMP_WORKQUEUE;
	else
		issuer.ctx = IOMAP_DIO_COMP_SUBMITTER;

	/*
	 * Once ki_complete has run the issuer owns the kiocb again and may
	 * free it (io_uring recycles it at once).  If that happens before
	 * iomap_dio_rw() returned, poison it as a freed object would be, so
	 * that code still reading it shows up (its traces print the poison,
	 * and writes are caught when the copy is put back).
	 */
	if (issuer.in_submit) {
		issuer.saved = *iocb;
		memset(iocb, KIOCB_POISON, sizeof(*iocb));
		issuer.poisoned = true;
	}
}

static bool all_poison(const void *p, size_t n)
{
	const u8 *b = p;

	while (n--)
		if (*b++ != KIOCB_POISON)
			return false;
	return true;
}

/*
 * A gauge or counter by name; @cache keeps the lookup (stats register at
 * start-up and never go away), which otherwise costs a string search per
 * request.
 */
static long stat_of(const char *name, struct sim_stat **cache)
{
	long v;

	if (!*cache)
		*cache = sim_stat_find(name);
	v = *cache ? sim_stat_read(*cache) : 0;
	return v < 0 ? 0 : v;
}

static struct sim_stat *st_hit, *st_pinned, *st_live, *st_alloc;

static int validate(const struct testfs_request *req, char *err, size_t errlen)
{
	if (req->pos < 0 || req->pos > IOMAPSIM_MAX_OFFSET) {
		snprintf(err, errlen, "pos %lld: must be 0..%lld",
			 (long long)req->pos, (long long)IOMAPSIM_MAX_OFFSET);
		return -EINVAL;
	}
	if (req->len > IOMAPSIM_MAX_LEN) {
		snprintf(err, errlen, "len %zu: at most %lu", req->len,
			 IOMAPSIM_MAX_LEN);
		return -EINVAL;
	}
	if (req->size < 0 || req->size > IOMAPSIM_MAX_OFFSET) {
		snprintf(err, errlen, "size %lld: must be 0..%lld",
			 (long long)req->size, (long long)IOMAPSIM_MAX_OFFSET);
		return -EINVAL;
	}
	if (req->dma_alignment && (!is_power_of_2(req->dma_alignment + 1ull) ||
				   req->dma_alignment >= PAGE_SIZE)) {
		snprintf(err, errlen,
			 "dma-alignment %u: a mask 2^n - 1 below %lu please",
			 req->dma_alignment, PAGE_SIZE);
		return -EINVAL;
	}
	if (req->buf_offset >= (1 << 20)) {
		snprintf(err, errlen, "buf-offset %zu: below 1 MiB please",
			 req->buf_offset);
		return -EINVAL;
	}
	if (req->nr_map > IOMAPSIM_MAX_MAP ||
	    req->nr_bio_faults > IOMAPSIM_MAX_FAULTS ||
	    req->nr_pc > IOMAPSIM_MAX_PC) {
		snprintf(err, errlen, "too many map entries, faults or pages");
		return -EINVAL;
	}
	/*
	 * Unmapped memory is honoured where user pages are pinned, which is
	 * all a direct write does with its source; a read (which also
	 * copies or zeroes into the buffer), a bounced write (which copies)
	 * and kernel-memory iterators would touch it unchecked.
	 */
	/* io_uring asks for caller completion on async writes only */
	if ((req->ki_flags & IOCB_DIO_CALLER_COMP) &&
	    (!IOMAPSIM_DIO_CALLER_COMP || !req->write || !req->async)) {
		snprintf(
			err, errlen, "%s",
			IOMAPSIM_DIO_CALLER_COMP ?
				"CALLER_COMP: an async write only" :
				"--iocb CALLER_COMP: IOMAP_DIO_CALLER_COMP is not in this build's iomap code (see --version)");
		return -EINVAL;
	}
	if (req->unmapped &&
	    (!req->write || (req->dio_flags & IOMAP_DIO_BOUNCE) ||
	     (req->iter != IOMAPSIM_ITER_UBUF &&
	      req->iter != IOMAPSIM_ITER_IOVEC) ||
	     offset_in_page(req->buf_offset + req->unmapped_from))) {
		snprintf(
			err, errlen,
			"unmapped:%zu: a direct write from a ubuf or iovec, not bounced, unmapped from a page boundary",
			req->unmapped_from);
		return -EINVAL;
	}
	return 0;
}

static void set_completion(struct testfs *tf, enum testfs_complete c)
{
	enum blksim_completion how = c == IOMAPSIM_COMPLETE_INLINE ?
					     BLKSIM_COMPLETE_INLINE :
					     BLKSIM_COMPLETE_IRQ;

	blksim_set_completion(tf->bdev, how);
	blksim_set_completion(tf->ram, how);
	switch (c) {
	case IOMAPSIM_COMPLETE_DEFERRED:
		sim_engine_set_policy(SIM_SCHED_DEFERRED);
		break;
	case IOMAPSIM_COMPLETE_RANDOM:
		sim_engine_set_policy(SIM_SCHED_RANDOM);
		break;
	default:
		sim_engine_set_policy(SIM_SCHED_IRQ);
		break;
	}
}

/*
 * The queue limits a request may choose (--dma-alignment, --no-poll) are
 * plain fields of a kept device: set for each request, on the device
 * iomap sees and the one under it.
 */
static void set_queue(struct testfs *tf, const struct testfs_request *req)
{
	struct block_device *d[] = { tf->bdev, tf->ram };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(d); i++) {
		struct queue_limits *lim = &bdev_get_queue(d[i])->limits;

		lim->dma_alignment = req->dma_alignment ?: SECTOR_SIZE - 1;
		if (req->no_poll)
			lim->features &= ~BLK_FEAT_POLL;
		else
			lim->features |= BLK_FEAT_POLL;
	}
}

static unsigned int polled_pending(struct testfs *tf)
{
	return blksim_polled_pending(tf->bdev) + blksim_polled_pending(tf->ram);
}

/*
 * The issuer waits for an async request: it runs interrupts and workers,
 * and for a polled request reaps the polled bio itself (io_uring's iopoll
 * loop).  It polls only while an ended polled bio is waiting, so it never
 * dereferences a bio that completed some other way.
 */
static void wait_async(struct testfs *tf, struct kiocb *iocb)
{
	while (!issuer.calls) {
		if (READ_ONCE(iocb->private) && polled_pending(tf)) {
			int reaped;

			iomap_dio_obs_polling(true);
			reaped = iocb_bio_iopoll(iocb, NULL, 0);
			iomap_dio_obs_polling(false);
			/*
			 * A poll that found nothing to reap (the queue lost
			 * BLK_FEAT_POLL, or the bio is not the polled one)
			 * lets time pass, as io_uring's loop does between
			 * polls, so the request timeout can end the bio
			 * (bio_poll_timeout); polling again at once spun.
			 */
			if (reaped > 0)
				continue;
		}
		if (!sim_engine_step())
			break;
	}
}

static bool all_zero(const u8 *p, size_t n)
{
	/* zero if the first byte is and every byte equals the one before */
	return !n || (!p[0] && !memcmp(p, p + 1, n - 1));
}

static enum testfs_data check_data(struct testfs *tf,
				   const struct testfs_request *req,
				   const u8 *data, long done)
{
	if (done <= 0)
		return IOMAPSIM_DATA_NA;
	if ((size_t)(req->pos + done) > tf->model_size)
		return IOMAPSIM_DATA_MISMATCH;

	if (!req->write) {
		if (req->reads_checked)
			return IOMAPSIM_DATA_UNCHECKED;
		if (memcmp(data, tf->model + req->pos, done))
			return IOMAPSIM_DATA_MISMATCH;
		return all_zero(data, done) ? IOMAPSIM_DATA_ZERO :
					      IOMAPSIM_DATA_OK;
	}

	/*
	 * A write: what reads would now return must be the data written,
	 * and the rest of each touched block must be what it was (or zero
	 * for new blocks): compare the device under the written blocks
	 * with what the model would hold after the write.
	 */
	return testfs_device_holds_dio_write(tf, req->pos, data, done,
					     req->size) ?
		       IOMAPSIM_DATA_OK :
		       IOMAPSIM_DATA_MISMATCH;
}

/*
 * A few testfs, kept across requests, one per device geometry (logical
 * block size, write cache, FUA, atomic limit).  Building one (the ram
 * device, its pattern, the model) is most of what a request costs, so the
 * runner creates it once, testfs_reset() undoes each request on it and
 * testfs_recycle() lays another request's map out on the same device.
 * Everything a request's outcome depends on is put back exactly, so a
 * request gives the same outcome and trace whether its testfs is new or
 * reused.  A device with a volatile write cache is kept too: only its
 * media image (what a power failure would leave), which the runner never
 * looks at, carries over.  testfs_reset() also takes the bio fault rules
 * away and restarts their numbering, which traces show.
 * Single threaded, like the rest of the runner.
 *
 * 32 slots: the fuzzer's inputs spread over 16 geometries (4 logical
 * block sizes, write cache, FUA), and a new device costs page faults over
 * everything it touches; the kept ones take a few dozen MiB in all.
 */
#define RUNNER_SLOTS 32

DEFINE_SIM_STAT(runner_stat_new, "runner_testfs_new");
DEFINE_SIM_STAT(runner_stat_recycled, "runner_testfs_recycled");

struct runner_slot {
	struct testfs *tf;
	bool stale; /* destroy before the next use */
	unsigned long used; /* when last used, for eviction */
	struct testfs_opts key;
	struct testfs_extent map[IOMAPSIM_MAX_MAP];
};

static struct {
	struct runner_slot slot[RUNNER_SLOTS];
	struct runner_slot *cur; /* the last request's */
	unsigned long clock;
} cache;

static void slot_evict(struct runner_slot *sl)
{
	if (sl->tf)
		testfs_destroy(sl->tf);
	sl->tf = NULL;
	sl->stale = false;
}

static void cache_evict(void)
{
	for (unsigned int i = 0; i < RUNNER_SLOTS; i++)
		slot_evict(&cache.slot[i]);
	cache.cur = NULL;
}

void testfs_runner_teardown(void)
{
	cache_evict();
	testfs_buf_kept_free();
	sim_engine_drain();
	iomapsim_dio_exit();
	blksim_bio_drain_caches();
}

/* each test ends with no testfs kept, so its gauges return to zero */
sim_exitcall(testfs_runner_teardown);

/*
 * Every request's device is at least this big, so that one device serves
 * them all (testfs_recycle()); anonymous memory, paid for where touched.
 */
#define IOMAPSIM_DEV_SIZE (16ULL << 20)
/* ... and models 4 MiB of file: requests at other offsets fit the same */
#define IOMAPSIM_MODEL_SPAN (4ULL << 20)

/*
 * What a request can touch: a read, its own sectors (direct reads move
 * exactly the iterator's bytes); a write, the blocks of its range (sub-
 * block zeroing writes whole blocks, testfs_reset() puts them back), and
 * [i_size, pos) of a write into inline data past EOF, which is zeroed
 * first.  Only there do model and device get the map's contents.
 */
static void request_window(const struct testfs_request *req, loff_t *start,
			   loff_t *end)
{
	u64 grain = !req->write	  ? SECTOR_SIZE :
		    req->fs_block ? req->fs_block :
				    4096;
	u64 s = ALIGN_DOWN((u64)req->pos, grain);
	unsigned int i;

	if (req->write && s > (u64)req->size) {
		for (i = 0; i < req->nr_map; i++)
			if (req->map[i].type == IOMAP_INLINE)
				s = ALIGN_DOWN((u64)req->size, grain);
	}
	*start = s;
	*end = max(ALIGN((u64)req->pos + req->len, grain), s + grain);
}

static void request_opts(const struct testfs_request *req,
			 struct testfs_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->fs_block = req->fs_block;
	o->lbs = req->lbs;
	o->size = req->size;
	if (req->nr_map) {
		o->map = req->map;
		o->nr_map = req->nr_map;
	}
	o->encrypted = req->encrypted;
	o->dops = req->dops;
	o->no_simple = req->no_simple_mount;
	o->sync_mount = req->sync_mount;
	o->write_cache = req->write_cache;
	o->fua = req->fua;
	o->atomic_max = req->atomic_max;
	o->max_offset = req->pos + req->len;
	request_window(req, &o->window_start, &o->window_end);
	o->min_dev_size = IOMAPSIM_DEV_SIZE;
	o->min_span = IOMAPSIM_MODEL_SPAN;
	o->reusable = true;
}

/*
 * testfs_create() sizes the model and device from the block-rounded
 * max(size, max_offset, min_span) (and the map): requests that agree on
 * it get the same testfs.
 */
static loff_t span_key(const struct testfs_opts *o)
{
	u64 fsb = o->fs_block ? o->fs_block : 4096;
	u64 span = max_t(u64, max(o->size, o->max_offset), o->min_span);

	return DIV_ROUND_UP(span, fsb) * fsb;
}

/* What only a new device gives: a slot serves one such geometry. */
static bool same_device(const struct testfs_opts *k,
			const struct testfs_opts *o)
{
	return k->lbs == o->lbs && k->write_cache == o->write_cache &&
	       k->fua == o->fua && k->atomic_max == o->atomic_max;
}

/* The same map, model and device: the contents are right as they are. */
static bool slot_same_layout(const struct runner_slot *sl,
			     const struct testfs_opts *o)
{
	const struct testfs_opts *k = &sl->key;

	/* i_size shapes only the default map; testfs_retune() sets it */
	return sl->tf && !sl->stale && same_device(k, o) &&
	       k->fs_block == o->fs_block &&
	       (o->nr_map || k->size == o->size) && k->nr_map == o->nr_map &&
	       (!o->nr_map ||
		!memcmp(sl->map, o->map, o->nr_map * sizeof(*o->map))) &&
	       span_key(k) == span_key(o);
}

static bool slot_matches(const struct runner_slot *sl,
			 const struct testfs_opts *o)
{
	const struct testfs_opts *k = &sl->key;

	return slot_same_layout(sl, o) && k->size == o->size &&
	       k->encrypted == o->encrypted && k->dops == o->dops &&
	       k->no_simple == o->no_simple && k->sync_mount == o->sync_mount;
}

/*
 * The testfs for @req: a kept one as it is if it fits, else one for the
 * same device recycled, else a new one in a free (or the least recently
 * used) slot.
 */
static struct testfs *get_testfs(const struct testfs_request *req, char *err,
				 size_t errlen)
{
	struct runner_slot *sl, *pick = NULL;
	struct testfs_opts o;
	struct testfs *tf = NULL;
	unsigned int i;

	request_opts(req, &o);
	for (i = 0; i < RUNNER_SLOTS; i++) {
		sl = &cache.slot[i];
		if (slot_matches(sl, &o)) {
			tf = sl->tf;
			goto found;
		}
		if (sl->tf && same_device(&sl->key, &o))
			pick = sl;
	}
	/* only i_size, the inode's and super block's flags or dio ops differ */
	if (pick && slot_same_layout(pick, &o) &&
	    !testfs_retune(pick->tf, &o, err, errlen)) {
		sl = pick;
		tf = sl->tf;
		goto found;
	}
	/* a new map on the same device is much cheaper than a new device */
	if (pick && !pick->stale &&
	    !testfs_recycle(pick->tf, &o, err, errlen)) {
		sim_stat_inc(&runner_stat_recycled);
		sl = pick;
		tf = sl->tf;
		goto found;
	}
	if (!pick) {
		pick = &cache.slot[0];
		for (i = 0; i < RUNNER_SLOTS; i++) {
			sl = &cache.slot[i];
			if (!sl->tf || sl->used < pick->used)
				pick = sl;
			if (!sl->tf)
				break;
		}
	}
	sl = pick;
	slot_evict(sl);
	err[0] = '\0';
	tf = testfs_create(&o, err, errlen);
	if (IS_ERR(tf))
		return tf;
	sim_stat_inc(&runner_stat_new);
	sl->tf = tf;
found:
	/* a kept or retuned one still has the last request's window */
	if (testfs_set_window(tf, o.window_start, o.window_end)) {
		slot_evict(sl);
		snprintf(err, errlen, "testfs: out of memory");
		return ERR_PTR(-ENOMEM);
	}
	sl->used = ++cache.clock;
	sl->key = o;
	sl->key.map = NULL;
	if (o.nr_map)
		memcpy(sl->map, o.map, o.nr_map * sizeof(*o.map));
	cache.cur = sl;
	return tf;
}

/*
 * What outlives a request: the simple path's pool, which the kernel sets
 * up at boot (fs_initcall), and the testfs @req runs on, kept for the
 * next request that wants the same one.
 */
static struct testfs *runner_setup(const struct testfs_request *req, char *err,
				   size_t errlen)
{
	int rc = iomapsim_dio_init();

	if (rc) {
		snprintf(err, errlen, "iomapsim_dio_init: %d", rc);
		return ERR_PTR(rc);
	}
	return get_testfs(req, err, errlen);
}

int testfs_runner_prepare(const struct testfs_request *req, char *err,
			  size_t errlen)
{
	struct testfs *tf = runner_setup(req, err, errlen);

	return IS_ERR(tf) ? PTR_ERR(tf) : 0;
}

/*
 * After a request: free what it allocated and undo it on the kept
 * testfs.  One that cannot be reset exactly is destroyed only at the
 * next use, so that a caller's gauges taken around requests (the
 * fuzzer's) see the same objects before and after.
 */
static void put_testfs(struct testfs *tf, const struct testfs_request *req)
{
	if (!testfs_reset(tf, req->pos, req->pos + (loff_t)req->len))
		cache.cur->stale = true;
}

/*
 * Whether @i counts more than its remaining segments hold, walking no
 * further than nr_segs (I-05: a segmented iterator's count never exceeds
 * them).  UBUF and DISCARD have no segment array to run off.
 */
static bool iter_past_segments(const struct iov_iter *i)
{
	size_t held = 0;

	for (unsigned long k = 0; k < i->nr_segs; k++) {
		if (iter_is_iovec(i))
			held += iter_iov(i)[k].iov_len;
		else if (iov_iter_is_kvec(i))
			held += i->kvec[k].iov_len;
		else if (iov_iter_is_bvec(i))
			held += i->bvec[k].bv_len;
		else
			return false;
	}
	return i->count > held - min(held, i->iov_offset);
}

/*
 * The gauges testfs_run() reads before a request, so that its outcome
 * counts only what the request itself did or left behind.
 */
struct run_gauges {
	long warnings, violations, deadlocks, fserrors;
	long cache_hits, live, pins, bios;
	long bio_allocs, fs_set_allocs, dops_set_allocs, split_allocs;
};

static void run_gauges_read(struct run_gauges *g, struct testfs *tf)
{
	g->warnings = sim_warnings();
	g->violations = sim_context_violations();
	g->deadlocks = sim_deadlocks();
	g->fserrors = sim_fserror_count();
	g->cache_hits = stat_of("bio_cache_hit", &st_hit);
	/* cache_hits counts this request's hits: start with empty caches */
	blksim_bio_drain_caches();
	g->live = sim_alloc_live();
	g->pins = stat_of("pages_pinned", &st_pinned);
	g->bios = stat_of("bio_live", &st_live);
	g->bio_allocs = stat_of("bio_alloc", &st_alloc);
	g->fs_set_allocs = atomic_long_read(&fs_bio_set.sim_allocs);
	g->dops_set_allocs =
		atomic_long_read(&testfs_dops_bio_set(tf)->sim_allocs);
	g->split_allocs = blksim_split_allocs();
}

/* What the request scripts the file system's callbacks to do. */
static void testfs_script(struct testfs *tf, const struct testfs_request *req)
{
	tf->mode = req->mode;
	tf->begin_error = req->begin_error;
	tf->begin_error_nth = req->begin_error_nth;
	tf->end_error = req->end_error;
	tf->fsync_error = req->fsync_error;
	tf->pc_on_begin = req->pc_on_begin;
	tf->pc_on_begin_index = req->pc_begin.index;
	tf->pc_on_begin_flags = req->pc_begin.flags;
}

/*
 * The kernel-side faults the request asks for; returns whether the
 * allocation fault is armed (run_faults_clear() disarms it).
 */
static bool run_faults_set(const struct testfs_request *req,
			   const struct testfs_buf *b)
{
	if (req->short_pin_nth)
		sim_fault_short_pin_set(req->short_pin_nth,
					req->short_pin_bytes);
	if (req->unmapped)
		sim_fault_unmapped_set((unsigned long)b->data +
				       req->unmapped_from);
	if (!req->alloc_fail_nth)
		return false;
	sim_fault_alloc_set(
		&(struct sim_fault_alloc){ .nth = req->alloc_fail_nth });
	sim_fault_arm(true);
	return true;
}

/*
 * The direct call itself, as a file system's ->read_iter or ->write_iter
 * makes it, and for -EIOCBQUEUED the wait for ki_complete.
 */
static ssize_t run_dio(struct testfs *tf, const struct testfs_request *req,
		       const struct testfs_buf *b, struct kiocb *iocb,
		       struct iov_iter *iter, struct iomap_dio_obs *obs,
		       struct testfs_outcome *out)
{
	bool armed;
	ssize_t ret;

	memset(iocb, 0, sizeof(*iocb));
	iocb->ki_filp = &tf->file;
	iocb->ki_pos = req->pos;
	iocb->ki_flags = IOCB_DIRECT | req->ki_flags |
			 (req->write ? IOCB_WRITE : 0);
	if (req->async)
		iocb->ki_complete = runner_ki_complete;
	memset(&issuer, 0, sizeof(issuer));
	issuer.iocb = iocb;

	armed = run_faults_set(req, b);
	iomap_dio_obs_start(obs);
	issuer.in_submit = true;
	tf->dio_private = req->private_data ? tf : NULL;
	ret = testfs_dio_rw(
		tf, iocb, iter,
		req->dio_flags | (req->no_simple ? IOMAPSIM_DIO_NO_SIMPLE : 0),
		req->done_before);
	issuer.in_submit = false;
	tf->dio_private = NULL;
	if (issuer.poisoned) {
		out->kiocb_written_after_complete =
			!all_poison(iocb, sizeof(*iocb));
		*iocb = issuer.saved;
	}
	if (armed) {
		sim_fault_arm(false);
		out->alloc_injected = sim_fault_alloc_injected();
		out->alloc_seen = sim_fault_alloc_seen();
		sim_fault_alloc_set(&(struct sim_fault_alloc){ 0 });
	}
	out->direct_ret = ret;
	out->ki_flags_after = iocb->ki_flags;

	if (ret == -EIOCBQUEUED)
		wait_async(tf, iocb);
	if (issuer.deferred) {
		/* io_req_rw_complete(): the real result, in task context */
		issuer.ret = iocb->dio_complete(iocb->private);
		iocb->dio_complete = NULL;
		issuer.ki_pos = iocb->ki_pos;
	}
	sim_engine_drain();
	iomap_dio_obs_stop();
	if (req->short_pin_nth)
		sim_fault_short_pin_set(0, 0);
	if (req->unmapped)
		sim_fault_unmapped_set(0);
	return ret;
}

/* The path taken, the bios by source and the completion, from @obs. */
static void outcome_path(struct testfs_outcome *out, struct testfs *tf,
			 const struct iomap_dio_obs *obs,
			 const struct run_gauges *g)
{
	out->simple = IOMAPSIM_SIMPLE_PATH != IOMAPSIM_SIMPLE_NONE &&
		      !obs->generic;
	out->why_mismatch = obs->why_mismatch;
	out->bios_fs_bio_set =
		atomic_long_read(&fs_bio_set.sim_allocs) - g->fs_set_allocs;
	out->bios_dops_set =
		atomic_long_read(&testfs_dops_bio_set(tf)->sim_allocs) -
		g->dops_set_allocs;
	out->bios_simple_pool = stat_of("bio_alloc", &st_alloc) -
				g->bio_allocs - out->bios_fs_bio_set -
				out->bios_dops_set -
				(blksim_split_allocs() - g->split_allocs);
	if (IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_NONE)
		out->fallback = IOMAP_SIMPLE_ABSENT;
	else
		out->fallback = obs->generic ? obs->fallback : IOMAP_SIMPLE_OK;
	out->punted = obs->punted;
	out->completions = obs->completions;
	out->completion = obs->completions ? obs->completion :
					     IOMAP_DIO_COMP_NONE;
	out->simple_submitted = obs->simple_submitting;
}

/* What the file system's callbacks saw and what the inode is left with. */
static void outcome_fs(struct testfs_outcome *out, struct testfs *tf,
		       const struct run_gauges *g)
{
	blksim_bdev_get_counters(tf->bdev, &out->dev);
	out->bios = out->dev.read_bios + out->dev.write_bios;
	out->cache_hits = stat_of("bio_cache_hit", &st_hit) - g->cache_hits;
	out->begin_calls = tf->begin_calls;
	out->end_calls = tf->end_calls;
	out->next_calls = tf->next_calls;
	out->end_io_calls = tf->end_io_calls;
	out->submit_io_calls = tf->submit_io_calls;
	out->fsync_calls = tf->fsync_calls;
	out->allocations = tf->allocations;
	out->conversions = tf->conversions;
	out->end_io_flags = tf->end_io_flags;
	out->fsync_datasync = tf->fsync_datasync;
	out->nr_cbs = tf->nr_cbs;
	memcpy(out->cbs, tf->cbs,
	       min_t(size_t, tf->nr_cbs, TESTFS_MAX_CBS) * sizeof(out->cbs[0]));
	out->i_size = i_size_read(&tf->inode);
	out->i_dio_count = atomic_read(&tf->inode.i_dio_count);
	out->wq_created = tf->sb.s_dio_done_wq != NULL;
	sim_pc_get_stats(tf->inode.i_mapping, &out->pc);
	out->fserror_reports = sim_fserror_count() - g->fserrors;
	if (out->fserror_reports)
		sim_fserror_last(&out->fserror_last);
}

int testfs_run(const struct testfs_request *req, struct testfs_outcome *out,
	       char *err, size_t errlen)
{
	struct testfs_buf b = { 0 };
	struct iomap_dio_obs obs;
	struct run_gauges g;
	struct iov_iter iter;
	struct kiocb iocb;
	struct testfs *tf;
	unsigned int i;
	ssize_t ret;
	int rc;

	memset(out, 0, offsetof(struct testfs_outcome, cbs));
	rc = validate(req, err, errlen);
	if (rc)
		return rc;

	/*
	 * The pool and a kept testfs outlive the request: set them up before
	 * the gauges are read, so that only what the request itself leaves
	 * behind counts.
	 */
	tf = runner_setup(req, err, errlen);
	if (IS_ERR(tf))
		return PTR_ERR(tf);

	run_gauges_read(&g, tf);
	testfs_script(tf, req);

	for (i = 0; i < req->nr_pc; i++) {
		rc = sim_pc_add(tf->inode.i_mapping, req->pc[i].index,
				req->pc[i].flags);
		if (rc)
			goto out_fs;
	}
	for (i = 0; i < req->nr_bio_faults; i++) {
		rc = blksim_bdev_fault_add(tf->bdev, req->bio_faults[i], err,
					   errlen);
		if (rc < 0)
			goto out_fs;
	}
	rc = testfs_buf_build(req, &b, &iter, err, errlen);
	if (rc)
		goto out_buf;
	set_completion(tf, req->complete);
	set_queue(tf, req);

	ret = run_dio(tf, req, &b, &iocb, &iter, &obs, out);

	out->queued = ret == -EIOCBQUEUED;
	out->ret = out->queued ? (issuer.calls ? issuer.ret : ret) : ret;
	/* a path is observed; code without a simple path has one path */
	outcome_path(out, tf, &obs, &g);
	out->ki_complete_calls = issuer.calls;
	out->ki_complete_ret = issuer.ret;
	out->ki_complete_ctx = issuer.ctx;
	out->ki_pos_at_complete = issuer.ki_pos;
	out->private_at_complete = issuer.private_set;
	out->ki_pos = iocb.ki_pos;
	out->iter_count = iov_iter_count(&iter);
	out->iter_past_segments = iter_past_segments(&iter);
	outcome_fs(out, tf, &g);

	rc = testfs_buf_gather(req, &b);
	if (rc)
		goto out_buf;
	/* only what this call transferred (done_before was done earlier) */
	out->data = check_data(
		tf, req, b.data,
		out->ret > 0 ? out->ret - (long)req->done_before : 0);
	if (req->data_out)
		memcpy(req->data_out, b.data, req->len);
	rc = 0;
out_buf:
	sim_engine_set_policy(SIM_SCHED_IRQ);
	testfs_buf_free(&b);
out_fs:
	/* nothing may still write to the device when it is reset */
	sim_engine_drain();
	put_testfs(tf, req);
	/* cached bios are not leaks: give them back before counting */
	blksim_bio_drain_caches();
	out->leaks = (sim_alloc_live() - g.live) +
		     (stat_of("pages_pinned", &st_pinned) - g.pins) +
		     (stat_of("bio_live", &st_live) - g.bios);
	out->warnings = sim_warnings() - g.warnings;
	out->context_violations = sim_context_violations() - g.violations;
	out->deadlocks = sim_deadlocks() - g.deadlocks;
	return rc;
}

static void json_str_or_null(FILE *f, const char *key, const char *val,
			     bool last)
{
	if (val)
		fprintf(f, "\"%s\":\"%s\"%s", key, val, last ? "" : ",");
	else
		fprintf(f, "\"%s\":null%s", key, last ? "" : ",");
}

void testfs_outcome_print_json(const struct testfs_outcome *out, FILE *f)
{
	fprintf(f, "{\"ret\":%ld,", out->ret);
	fprintf(f, "\"queued\":%s,", out->queued ? "true" : "false");
	fprintf(f, "\"path\":\"%s\",", out->simple ? "simple" : "generic");
	json_str_or_null(f, "fallback", iomap_simple_reason_name(out->fallback),
			 false);
	fprintf(f, "\"bios\":%llu,", (unsigned long long)out->bios);
	fprintf(f, "\"cache_hits\":%llu,", (unsigned long long)out->cache_hits);
	fprintf(f, "\"punted\":%d,", out->punted);
	fprintf(f, "\"ki_complete_calls\":%d,", out->ki_complete_calls);
	json_str_or_null(f, "completion",
			 iomap_dio_comp_ctx_name(out->completion), false);
	fprintf(f, "\"ki_pos\":%lld,", (long long)out->ki_pos);
	/* the inode size after the request: what a write did to it */
	fprintf(f, "\"i_size\":%lld,", (long long)out->i_size);
	fprintf(f, "\"iter_count\":%zu,", out->iter_count);
	fprintf(f, "\"iter_past_segments\":%s,",
		out->iter_past_segments ? "true" : "false");
	fprintf(f, "\"data\":\"%s\",", testfs_data_name(out->data));
	fprintf(f, "\"leaks\":%ld,", out->leaks);
	fprintf(f, "\"warnings\":%ld,", out->warnings);
	fprintf(f, "\"context_violations\":%ld,", out->context_violations);
	fprintf(f, "\"bios_fs_bio_set\":%llu,",
		(unsigned long long)out->bios_fs_bio_set);
	fprintf(f, "\"bios_dops_bio_set\":%llu,",
		(unsigned long long)out->bios_dops_set);
	fprintf(f, "\"bios_simple_pool\":%llu,",
		(unsigned long long)out->bios_simple_pool);
	fprintf(f, "\"why_mismatch\":%s,",
		out->why_mismatch ? "true" : "false");
	fprintf(f, "\"code\":%s}\n", iomapsim_code_json());
}
