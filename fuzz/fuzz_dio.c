// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_dio: one direct I/O request per input, through the request runner
 * the unit tests and `iomapsim run` use (fs/testfs/request.c), checked by
 * oracles that catch the bugs that matter here - a wrong return value,
 * stale data, a leaked bio, a completion called twice, a sleep in
 * interrupt context - not only crashes.
 *
 * The input (dio_codec.h) chooses the file system geometry, i_size, the
 * extent map with its flags, encryption, dio ops, the iomap entry point,
 * op, position, length, iterator type and layout, buffer offset, IOCB_*
 * and IOMAP_DIO_* flags, done_before, sync or async, the simple path
 * switch, a fault plan (bio errors, allocation failures, short pins,
 * ->iomap_begin errors), the completion policy and the engine's seed.
 *
 * Oracles, each a fuzz_fail() that prints the `iomapsim run` line:
 *  1. no crash, no sanitizer report (the ASan+UBSan build);
 *  2. accounting back to zero: live bios, pinned pages, i_dio_count,
 *     queued work, allocations (every gauge, and the runner's leak count);
 *  3. no context violation, no deadlock, no WARN_ON (inputs whose map
 *     makes ->iomap_begin return IOMAP_F_STALE, a file system bug the
 *     kernel warns about, are not run: see stale_map());
 *  4. data: what a read returns is exactly the reference model of the
 *     file (the pattern where data is mapped, zeroes in holes and
 *     unwritten extents) and any other byte the read touched in the buffer
 *     is file data too, never stale device contents; a write never
 *     changes its source buffer, and the runner finds the written blocks
 *     on the device as its model says;
 *  5. ki_complete exactly once for a queued request and never otherwise,
 *     in the context the rules give (an error completion is punted to the
 *     workqueue, G-51/S-28; a successful read completes in bio completion
 *     context); the return value agrees with ki_pos and the iterator
 *     (G-55..G-60, S-29..S-31), never returns bytes past EOF for a read;
 *     the simple path only takes eligible requests (S-01..S-07) and is
 *     all-or-nothing; the path is observed (did __iomap_dio_rw() begin),
 *     and the fallback reason's mirror must agree with it, the bios come
 *     from the path's own bio_set (S-33, G-32);
 *  6. differential: an eligible request run again with the simple path off
 *     gives the same return value, data, ki_pos and iterator state;
 *  7. determinism: the same input run twice gives the same outcome, the
 *     same data and the same trace (hash and length).
 */
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <linux/iomap.h>
#include <linux/kernel.h>
#include <sim/engine.h>
#include <sim/report.h>
#include <sim/stats.h>
#include <sim/trace.h>

#include <sim/iomap_features.h>
#include "dio_codec.h"
#include "fuzz_common.h"

struct run {
	int rc;
	char err[256];
	struct testfs_outcome out;
	u64 trace_hash, trace_count;
	long split_errors; /* bios the block layer refused to split */
	long build_errors; /* bios that could not be built */
	u8 *buf; /* the caller's buffer afterwards (len bytes) */
	/*
	 * check_outcome() found a read's buffer exactly the file's bytes up
	 * to the result and untouched after it: two such runs with the same
	 * result hold the same bytes.
	 */
	bool read_exact;
};

static struct dio_input cur;
static struct run runs[3];
/*
 * Each run's buffer is the runner's own memory (no copy afterwards):
 * page aligned, room for any decoded offset (16 bits) and length: up to
 * DIO_MAX_BUF, not DIO_MAX_LEN.  A request the runner refuses for being
 * too long still has its bytes marked (run_once()), and with rows sized
 * for DIO_MAX_LEN that memset ran on into the next row.
 */
#define RUN_MEM_SIZE (IOMAPSIM_BUF_MEM_SIZE(0xffff, DIO_MAX_BUF) + 4 * 8192)
static u8 bufs[3][RUN_MEM_SIZE] __attribute__((aligned(4096)));
/* explicit iovec segments apart in memory, gathered in order */
static u8 gathered[3][DIO_MAX_BUF];

static bool have_outcome;

/* The command line, and what the first run gave when there is one. */
static void describe(FILE *out, void *arg)
{
	dio_print_cmdline(arg, out);
	if (have_outcome) {
		fputs("\nfirst run: ", out);
		testfs_outcome_print_json(&runs[0].out, out);
	}
}

/*
 * bufs[0] is kept laid out as a read's fill (0xee, what the runner puts
 * under a read's bytes) everywhere but in @dirty, the spans the last runs
 * on it may have written: a read there first puts back only the dirty
 * bytes among its own (those an earlier request touched), instead of
 * filling its whole length; a read that failed before moving data
 * touched none.  A few spans, not one: an exact read leaves only the
 * bytes it read dirty, and the next request's bytes are often in the
 * middle of what is left.
 */
struct span {
	size_t lo, hi; /* empty when hi <= lo */
};

#define NR_DIRTY 8
struct spans {
	unsigned int nr;
	struct span s[NR_DIRTY]; /* in address order, apart */
};

static struct spans dirty;
/* @dirty as it was outside the running input's bytes */
static struct spans dirty_outside;
static bool bufs0_laid_out;

/* Join the nearest spans of @sp until a span can be cut in two again. */
static void spans_trim(struct spans *sp)
{
	while (sp->nr > NR_DIRTY - 1) {
		unsigned int i, best = 0;

		for (i = 1; i + 1 < sp->nr; i++)
			if (sp->s[i + 1].lo - sp->s[i].hi <
			    sp->s[best + 1].lo - sp->s[best].hi)
				best = i;
		sp->s[best].hi = sp->s[best + 1].hi;
		memmove(&sp->s[best + 1], &sp->s[best + 2],
			(sp->nr - best - 2) * sizeof(sp->s[0]));
		sp->nr--;
	}
}

/* @sp and [@lo, @hi), or a little more (spans join when too many). */
static void span_add(struct spans *sp, size_t lo, size_t hi)
{
	unsigned int i, k = 0;

	if (lo >= hi)
		return;
	/* the spans before it, it with those it meets, those after */
	while (k < sp->nr && sp->s[k].hi < lo)
		k++;
	for (i = k; i < sp->nr && sp->s[i].lo <= hi; i++) {
		lo = min(lo, sp->s[i].lo);
		hi = max(hi, sp->s[i].hi);
	}
	memmove(&sp->s[k + 1], &sp->s[i], (sp->nr - i) * sizeof(sp->s[0]));
	sp->nr = sp->nr - (i - k) + 1;
	sp->s[k] = (struct span){ lo, hi };
	spans_trim(sp);
}

/*
 * Where bufs[0] holds a write's source, the write pattern of the file
 * offsets at @base + index: consecutive writes are mostly mutants of one
 * input, at the same position in the same place, and lay out only what
 * is not there yet.  Every run of a write checks its whole source
 * (changed_source()), so what is kept was checked unchanged.
 */
static struct {
	loff_t base;
	struct span sp; /* empty: nothing kept */
} src;

/* bufs[0]'s [@lo, @hi) no longer holds the source: keep the larger rest */
static void src_cut(size_t lo, size_t hi)
{
	size_t a = max(src.sp.lo, lo), b = min(src.sp.hi, hi);

	if (a >= b)
		return;
	if (a - src.sp.lo >= src.sp.hi - b)
		src.sp.hi = a;
	else
		src.sp.lo = b;
}

/* Lay @in's source out in bufs[0] where it is not already. */
static void src_lay_out(const struct testfs_request *r)
{
	size_t lo = r->buf_offset, hi = lo + r->len;
	loff_t base = r->pos - (loff_t)lo;

	if (src.base != base || src.sp.hi < lo || src.sp.lo > hi ||
	    src.sp.hi <= src.sp.lo) {
		testfs_write_pattern_fill(bufs[0] + lo, r->pos, r->len);
		src.base = base;
		src.sp = (struct span){ lo, hi };
		return;
	}
	if (lo < src.sp.lo)
		testfs_write_pattern_fill(bufs[0] + lo, base + lo,
					  src.sp.lo - lo);
	if (hi > src.sp.hi)
		testfs_write_pattern_fill(bufs[0] + src.sp.hi, base + src.sp.hi,
					  hi - src.sp.hi);
	src.sp.lo = min(src.sp.lo, lo);
	src.sp.hi = max(src.sp.hi, hi);
}

/* The fill over bufs[0]'s [@lo, @hi); @dirty keeps what is left. */
static void bufs0_clean(size_t lo, size_t hi)
{
	struct spans left = { 0 };

	src_cut(lo, hi);
	if (!bufs0_laid_out) {
		memset(bufs[0], 0xee, RUN_MEM_SIZE);
		bufs0_laid_out = true;
		dirty.nr = 0;
		src.sp = (struct span){ 0, 0 };
		return;
	}
	for (unsigned int i = 0; i < dirty.nr; i++) {
		struct span d = dirty.s[i];
		size_t a = max(d.lo, lo), b = min(d.hi, hi);

		if (a >= b) {
			left.s[left.nr++] = d;
			continue;
		}
		memset(bufs[0] + a, 0xee, b - a);
		if (d.lo < a)
			left.s[left.nr++] = (struct span){ d.lo, a };
		if (b < d.hi)
			left.s[left.nr++] = (struct span){ b, d.hi };
	}
	/* one span cut in two: at most one more than there were */
	dirty = left;
	spans_trim(&dirty);
}

/* Where in its memory a request's bytes can be: its own, or its segments'. */
static struct span request_span(const struct testfs_request *req, bool apart)
{
	if (apart)
		return (struct span){ 0, testfs_buf_mem_size(req) };
	return (struct span){ req->buf_offset, req->buf_offset + req->len };
}

/*
 * Run @in once on a freshly seeded engine, as `iomapsim run` does.  With
 * @own_check, what a read returns is left to check_outcome(), against
 * the file model (the runner's own comparison would say the same).
 */
static struct sim_stat *split_error_stat, *build_error_stat;

/* A counter of the simulator's, found by name the first time. */
static long stat_now(struct sim_stat **st, const char *name)
{
	if (!*st)
		*st = sim_stat_find(name);
	return *st ? (long)sim_stat_read(*st) : 0;
}

static void run_once(const struct dio_input *in, bool no_simple, bool own_check,
		     struct run *r, u8 *buf, bool filled)
{
	struct sim_engine_opts eo = { .kind = SIM_ENGINE_DET,
				      .seed = in->seed };
	struct testfs_request req = in->req;

	req.no_simple |= no_simple;
	req.reads_checked = own_check;
	req.buf_mem = buf;
	req.buf_mem_size = RUN_MEM_SIZE;
	req.buf_filled = filled;
	r->buf = buf + req.buf_offset;
	r->err[0] = '\0';
	r->read_exact = false;
	FUZZ_CHECK(!sim_engine_init(&eo), "engine did not start");
	sim_task_set_cpu(0);
	sim_trace_reset();
	r->split_errors = stat_now(&split_error_stat, "bio_split_error");
	r->build_errors = stat_now(&build_error_stat, "bio_iov_build_failed");
	r->rc = testfs_run(&req, &r->out, r->err, sizeof(r->err));
	r->split_errors = stat_now(&split_error_stat, "bio_split_error") -
			  r->split_errors;
	r->build_errors = stat_now(&build_error_stat, "bio_iov_build_failed") -
			  r->build_errors;
	if (testfs_iov_gather(&req, buf, gathered[r - runs]))
		r->buf = gathered[r - runs];
	/* what a request the runner refused leaves there is not its data */
	if (r->rc) {
		FUZZ_CHECK(r->buf != buf + req.buf_offset ||
				   req.buf_offset + req.len <= RUN_MEM_SIZE,
			   "a refused request's %zu bytes at %zu run past its "
			   "buffer",
			   req.len, req.buf_offset);
		memset(r->buf, 0x5a, req.len);
	}
	if (buf == bufs[0]) {
		struct span sp =
			request_span(&req, r->buf != buf + req.buf_offset);

		span_add(&dirty, sp.lo, sp.hi);
		if (r->rc || !filled)
			src_cut(sp.lo, sp.hi);
	}
	r->trace_hash = sim_trace_hash();
	r->trace_count = sim_trace_count();
}

/* ---- the reference model of the file ---------------------------------- */

static long moved_of(const struct testfs_request *r, const struct run *run);

/*
 * @exact's read on bufs[0] was exact (the file's bytes up to its result,
 * the fill after): of @in's bytes only those it read are dirty, besides
 * what was dirty outside them.
 */
static void dirty_after_exact(const struct dio_input *in,
			      const struct run *exact)
{
	size_t off = in->req.buf_offset;

	dirty = dirty_outside;
	span_add(&dirty, off, off + moved_of(&in->req, exact));
}

/*
 * Run @in again on the memory @prev ran on (bufs[0], not gathered),
 * @prev's read exact: putting back the bytes it read lays the buffer out
 * as the runner would.
 */
static void run_again(const struct dio_input *in, const struct run *prev,
		      struct run *r, bool no_simple)
{
	size_t off = in->req.buf_offset;

	dirty_after_exact(in, prev);
	bufs0_clean(off, off + in->req.len);
	run_once(in, no_simple, true, r, bufs[0], true);
}

/* After the input's runs: the last one on bufs[0], if an exact read. */
static void bufs0_settle(const struct dio_input *in, const struct run *last)
{
	if (!in->req.write && last->read_exact &&
	    last->buf == bufs[0] + in->req.buf_offset)
		dirty_after_exact(in, last);
}

static bool has_flag(const struct testfs_request *r, u16 flag)
{
	for (unsigned int i = 0; i < r->nr_map; i++)
		if (r->map[i].flags & flag)
			return true;
	return false;
}

/*
 * The oracles' own byte loops are not the code under test: keep coverage
 * instrumentation (and its comparison hooks) out of them.
 */
#ifdef __clang__
/* and never inlined: the attribute does not follow the code into callers */
#define NO_COVERAGE __attribute__((no_sanitize("coverage"), __noinline__))
#else
#define NO_COVERAGE
#endif

static u8 expect[DIO_MAX_BUF];
/* expect[] holds this input's file_model() up to here */
static size_t expect_len;

/*
 * What reads of file range [r->pos + from, r->pos + to) must return, into
 * expect[from..to): the pattern where data lives (mapped, delalloc and
 * inline extents, or every block up to i_size with the default map),
 * zeroes elsewhere.
 */
static NO_COVERAGE void file_model(const struct testfs_request *r, size_t from,
				   size_t to)
{
	loff_t pos = r->pos + (loff_t)from, end = r->pos + (loff_t)to;
	u8 *out = expect + from; /* file offset pos */

	if (!r->nr_map) {
		loff_t data_end = ALIGN((u64)r->size, (u64)r->fs_block);
		loff_t zero_from = max(pos, data_end);

		if (pos < data_end)
			testfs_pattern_fill(out, pos, min(end, data_end) - pos);
		if (end > zero_from)
			memset(out + (zero_from - pos), 0, end - zero_from);
		return;
	}
	/*
	 * The data extents' pieces in file order, zeroes only between them:
	 * the request ran, so the map passed testfs's checks and its
	 * extents do not overlap.
	 */
	struct {
		loff_t s, t;
	} seg[IOMAPSIM_MAX_MAP];
	unsigned int n = 0;
	loff_t at = pos;

	for (unsigned int i = 0; i < r->nr_map; i++) {
		const struct testfs_extent *e = &r->map[i];
		loff_t s = max(pos, e->off);
		loff_t t = min(end, e->off + (loff_t)e->len);
		unsigned int k;

		if (s >= t ||
		    (e->type != IOMAP_MAPPED && e->type != IOMAP_DELALLOC &&
		     e->type != IOMAP_INLINE))
			continue;
		for (k = n++; k && seg[k - 1].s > s; k--)
			seg[k] = seg[k - 1];
		seg[k].s = s;
		seg[k].t = t;
	}
	for (unsigned int k = 0; k < n; k++) {
		if (seg[k].s > at)
			memset(out + (at - pos), 0, seg[k].s - at);
		testfs_pattern_fill(out + (seg[k].s - pos), seg[k].s,
				    seg[k].t - seg[k].s);
		at = seg[k].t;
	}
	if (at < end)
		memset(out + (at - pos), 0, end - at);
}

/*
 * expect[] up to @n: what a run's data oracle compares (a read's first
 * @n bytes), made once per input and only as far as some run needs it
 * (most reads past EOF or into short data need a few bytes).
 */
static NO_COVERAGE void expect_upto(const struct testfs_request *r, size_t n)
{
	if (n <= expect_len)
		return;
	file_model(r, expect_len, n);
	expect_len = n;
}

/* what the runner fills a read's buffer with (build_iter()) */
static u8 untouched_fill[DIO_MAX_BUF];

static void __attribute__((constructor)) untouched_init(void)
{
	memset(untouched_fill, 0xee, sizeof(untouched_fill));
}

/* First byte of buf[from..to) that is neither untouched nor file data. */
static NO_COVERAGE size_t stray_byte(const u8 *buf, size_t from, size_t to)
{
	typedef u8 v16u __attribute__((vector_size(16)));
	typedef signed char v16s __attribute__((vector_size(16)));
	const v16u untouched = (v16u){ 0 } + 0xee;
	size_t i = from;

	/*
	 * 64 bytes at a time, 16 to a vector compare, without a branch per
	 * vector: a byte is stray when it differs from both the untouched
	 * fill and the file.  Short reads leave most of their buffer to
	 * this scan.
	 */
	for (; i + 64 <= to; i += 64) {
		v16s bad = { 0 };
		u64 lo, hi;

		for (size_t k = 0; k < 64; k += 16) {
			v16u w, e;

			memcpy(&w, buf + i + k, 16);
			memcpy(&e, expect + i + k, 16);
			bad |= (w != untouched) & (w != e);
		}
		memcpy(&lo, &bad, 8);
		memcpy(&hi, (u8 *)&bad + 8, 8);
		if (lo | hi)
			break;
	}
	for (; i < to; i++)
		if (buf[i] != 0xee && buf[i] != expect[i])
			return i;
	return to;
}

/* First byte of a write's source buffer that is not what was written. */
static NO_COVERAGE size_t changed_source(const struct testfs_request *r,
					 const u8 *buf)
{
	return testfs_write_pattern_diff(buf, r->pos, r->len);
}

static NO_COVERAGE size_t first_diff(const u8 *a, const u8 *b, size_t n)
{
	size_t i = 0;

	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* The bytes a checked call moved (what check_outcome() calls moved). */
static long moved_of(const struct testfs_request *r, const struct run *run)
{
	return run->out.ret > 0 ? run->out.ret - (long)r->done_before : 0;
}

/*
 * A read's buffer holds the file's bytes up to its result and the
 * untouched fill after it (expect[] is this input's file model).
 */
static NO_COVERAGE bool read_is_exact(const struct testfs_request *r,
				      const struct run *run)
{
	size_t moved = moved_of(r, run);

	if (moved > r->len)
		return false;
	expect_upto(r, moved);
	return !memcmp(run->buf, expect, moved) &&
	       !memcmp(run->buf + moved, untouched_fill, r->len - moved);
}

/* S-01..S-07 (and the sim switches): may the simple path take it? */
static bool simple_eligible(const struct testfs_request *r)
{
	/* what differs between iomap codes (<sim/iomap_features.h>) */
	const unsigned int refuses = IOMAPSIM_SIMPLE_REFUSES_FLAGS;

	if (IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_NONE)
		return false;
	/* --dops ioend reads go without dops, as XFS's do */
	if ((r->dops && r->dops != TESTFS_DOPS_IOEND) || r->done_before ||
	    r->write)
		return false;
	if (!r->len) /* S-03 */
		return IOMAPSIM_EMPTY_READ_SIMPLE && !r->no_simple &&
		       !r->no_simple_mount && !(r->dio_flags & refuses);
	if (r->len > r->fs_block) /* s_blocksize */
		return false;
	if (r->dio_flags & refuses) /* S-05, S-08 */
		return false;
	if (r->pos + (loff_t)r->len > r->size || r->encrypted)
		return false;
	if (r->no_simple || r->no_simple_mount)
		return false;
	/* N-13: iomap_dio_rw_begin() offers only NO_IOMAP_END requests */
	if (r->mode == TESTFS_MODE_BEGIN &&
	    !(r->dio_flags & IOMAP_DIO_NO_IOMAP_END))
		return false;
	return true;
}

/*
 * Fault plans count events (the Nth allocation, pin, ->iomap_begin call),
 * and the two paths make different numbers of them, so such a plan means
 * different things to each: those inputs are not compared.  A bio error
 * is fine (one bio either way), and so is an ->iomap_begin error on the
 * first call unless it asks for a fallback itself (-ENOTBLK, S-12).
 */
/*
 * K9, the kernel's behaviour, reported: under IOCB_NOWAIT the simple path
 * sets REQ_NOWAIT on its bio (S-22, and the vfs tree), the generic
 * path on none of its bios.  A REQ_NOWAIT bio that must be split to the
 * queue's limits ends with BLK_STS_AGAIN (B-30), so a read whose one bio
 * needs a split (more segments than max_segments) is -EAGAIN on the simple
 * path and succeeds on the generic path.  The caller retries without
 * NOWAIT, as io_uring does.  Reproducer: fuzz/known/dio/k9-nowait-split,
 * i.e. iomapsim run --fs-block 4096 --lbs 512 --size 61504
 * --dma-alignment 15 --iomap next --op read --pos 8192 --len 4096
 * --iter iovec:256 --buf-offset 62592 --iocb NOWAIT --seed 270336
 */
static bool nowait_split_refused(const struct testfs_request *r,
				 const struct run *simple)
{
	return (r->ki_flags & IOCB_NOWAIT) && simple->out.simple &&
	       simple->out.ret == -EAGAIN && simple->split_errors > 0;
}

static bool differential_fair(const struct testfs_request *r)
{
	if (r->alloc_fail_nth || r->short_pin_nth)
		return false;
	if (r->begin_error &&
	    (r->begin_error_nth > 1 || r->begin_error == -ENOTBLK))
		return false;
	return true;
}

/*
 * Known issues: inputs that hit a reported problem outside the code under
 * test are skipped (counted, docs/fuzzing.md), so that the campaign finds
 * new bugs instead of the same one.  Each names its reproducer; delete the
 * entry once it is fixed and the reproducer is under regressions/.
 *
 * K2 (fixed): an async HIPRI request that must wait in the submitter
 * (FORCE_WAIT, or G-43/G-44 forcing the wait) polls its bio and then
 * sleeps, and nobody polls; the engine used to report a deadlock.  The
 * block layer now ends such a bio at the request timeout, as nvme_timeout
 * polls the queue (bio_poll_timeout); fuzz/regressions/dio/
 * k2-hipri-force-wait keeps it so.
 */
/*
 * K4 (fixed): IOMAP_DIO_BOUNCE with a sub-block write sent the zeroing
 * bio (the shared zero folio) through the bouncing end_io, whose unbounce
 * freed the zero folio: kernel BUG "kfree(): free of memory not from the
 * allocator".  It was the simulator's bio_iov_iter_unbounce(): the
 * kernel's bio_free_folios() skips the zero folio.  fuzz/regressions/dio/
 * bounce-zeroing-* keep it fixed.
 */
/*
 * Not an issue but a contract: IOMAP_F_STALE is iomap's own "remap needed"
 * flag; a file system returning it from ->iomap_begin is buggy, and the
 * kernel warns (N-01) and remaps for as long as it keeps doing so without
 * progress (N-03), which testfs's "stale" extents do for ever once a bio
 * error stops progress: a livelock in the kernel as here.  Such inputs
 * only show the warning, which tests/iomap_iter.c covers.
 */
static bool stale_map(const struct testfs_request *r)
{
	return has_flag(r, IOMAP_F_STALE);
}

/*
 * An IOMAP_F_ATOMIC_BIO write whose bio can come out short: the kernel's
 * WARN_ON_ONCE in iomap_dio_bio_iter_one() fires for it as here.  The VFS
 * admits an atomic write only as one user buffer no larger than the
 * device's unit (generic_atomic_write_valid()), so what is left is a
 * buffer that faults part way, which the kernel answers with that WARN
 * too; tests/iomap_generic_loop.c (test_atomic_short_bio_releases_pins)
 * covers it, and that its pins are released (K8).  A bounced one is
 * short when a bounce folio cannot be had: bio_iov_iter_bounce_write()
 * stops at the first folio_alloc_greedy() that fails and submits what
 * it has, as the kernel's does under fail_page_alloc.
 */
static bool atomic_short_bio(const struct testfs_request *r)
{
	return r->write && has_flag(r, IOMAP_F_ATOMIC_BIO) &&
	       (r->short_pin_nth || r->iter != IOMAPSIM_ITER_UBUF ||
		r->len > r->atomic_max ||
		((r->dio_flags & IOMAP_DIO_BOUNCE) && r->alloc_fail_nth));
}

/*
 * Inline data across a page boundary: code with iomap_inline_data_valid()
 * (G-22, older trees) warns and fails with -EIO, as the kernel would for
 * a file system that broke that contract (gfs2 and erofs keep inline
 * data within a page).  testfs's inline data lies in its page-aligned
 * model at the extent's file offset.
 */
static bool inline_across_page(const struct testfs_request *r)
{
	if (!IOMAPSIM_INLINE_ONE_PAGE)
		return false;
	for (unsigned int i = 0; i < r->nr_map; i++)
		if (r->map[i].type == IOMAP_INLINE &&
		    offset_in_page(r->map[i].off) + r->map[i].len > PAGE_SIZE)
			return true;
	return false;
}

/*
 * K11, finding 0004: code that checks the memory while building the bio
 * (bio_iov_iter_get_pages() with a DMA mask) refuses a later IOVEC
 * segment off the alignment after taking the ones before it, and leaves
 * the iterator past them; iomap's re-expansion then sends the next pass's
 * iov_iter_npages() off the end of the iovec array: heap bytes decide
 * nr_vecs (the determinism oracle fails), and ASan stops on the read.
 */
static bool iov_refused_past_segments(const struct testfs_request *r)
{
	return IOMAPSIM_DMA_CHECKED_AT_BUILD &&
	       testfs_iov_later_misaligned(r, r->dma_alignment ?: 511);
}

/*
 * Finding 0006: code that punts error completions but allocates
 * s_dio_done_wq only for writes queues a failed async read's completion
 * on NULL, and the simulated task oopses as the kernel would.  Any async
 * read may fail (an injected fault, a misaligned buffer, a pin), so on
 * such code none is run: each would stop the campaign on the same bug.
 */
static bool read_error_null_wq(const struct testfs_request *r)
{
	return IOMAPSIM_ERROR_PUNT && !IOMAPSIM_READ_WQ && !r->write &&
	       r->async;
}

/*
 * An out-of-place write (--dops ioend: the ioend remaps what it wrote)
 * needs bios of whole file system blocks.  IOMAP_DIO_FSBLOCK_ALIGNED asks
 * iomap for them; code without it splits where the memory does, so only
 * a logical block as large as the file system block gives them, and a
 * file system of that code asked that much of its device.  testfs
 * warns on a remap of part of a block.
 */
static bool ioend_sub_block(const struct testfs_request *r)
{
	return r->write && r->dops == TESTFS_DOPS_IOEND &&
	       !IOMAPSIM_FSBLOCK_ALIGNED && r->lbs < r->fs_block;
}

static const char *known_issue(const struct testfs_request *r)
{
	if (stale_map(r))
		return "stale mapping from ->iomap_begin (file system bug)";
	/* K7: see docs/fuzzing.md */
	if (r->write && has_flag(r, IOMAP_F_INTEGRITY) &&
	    IOMAPSIM_INTEGRITY_WRITE_NEEDS_PROFILE)
		return "IOMAP_F_INTEGRITY write on a device without integrity";
	if (atomic_short_bio(r))
		return "atomic write the VFS would refuse, or a faulting buffer";
	if (inline_across_page(r))
		return "inline data across a page (file system contract)";
	if (iov_refused_past_segments(r))
		return "a later segment off the DMA alignment (K11)";
	if (read_error_null_wq(r))
		return "an async read on code that carries finding 0006";
	if (ioend_sub_block(r))
		return "out-of-place write without whole-block bios (fs contract)";

	return NULL;
}

static unsigned long nr_known;

/* A deadlock aborts the process: say what the input was first. */
static void deadlock_hook(void)
{
	fuzz_fail(__FILE__, __LINE__, "deadlock: %s", sim_report_last());
}

/* ---- the oracles ------------------------------------------------------- */

/*
 * A bounced read into user pages releases them in bio completion context,
 * which may sleep: the kernel leaves it to the file system to complete
 * such requests in process context (tests/iomap_generic_completion.c,
 * test_bounce_read_user_needs_offload).  testfs does not, so for exactly
 * these inputs the kernel would hit the sleeping-lock report too.
 */
static bool violation_expected(const struct testfs_request *r)
{
	return !r->write && (r->dio_flags & IOMAP_DIO_BOUNCE) &&
	       (r->iter == IOMAPSIM_ITER_UBUF ||
		r->iter == IOMAPSIM_ITER_IOVEC);
}

/*
 * A known gap in the runner's write check (fs/testfs), reported: the
 * device legitimately differs from testfs's model, so its "mismatch" is
 * not a finding for these writes (every other oracle still applies).
 *
 * K5: a write into an inline extent that starts past i_size zeroes
 * [i_size, pos) through the inline buffer first (the memset in
 * iomap_dio_inline_iter(), as upstream, which assumes inline data at
 * offset 0); testfs keeps inline data inside its model of the whole
 * file, so that memset clears the model over other extents whose device
 * blocks keep their data.  No real file system has inline data past
 * offset 0.  Reproducer: fuzz/known/dio/k5-runner-inline-past-eof, i.e.
 * iomapsim run --size 0 --map mapped:0:16384 --map inline:16384:4096
 * --op write --pos 1024 --len 20480
 */
static const char *runner_model_gap(const struct testfs_request *r)
{
	loff_t end = r->pos + (loff_t)r->len;

	if (!r->write)
		return NULL;
	for (unsigned int i = 0; i < r->nr_map; i++) {
		const struct testfs_extent *e = &r->map[i];

		if (e->type == IOMAP_INLINE && e->off < end &&
		    e->off + (loff_t)e->len > r->pos &&
		    max(r->pos, e->off) > r->size)
			return "K5";
	}
	return NULL;
}

/*
 * K6, in the code under test (upstream's shape, reported): a write whose
 * mapping ends mid-block because its next bio could not be built (pages
 * not pinned, or fewer than a logical block's worth fit) goes on with the
 * next mapping.  When that block needs zeroing (unwritten, or new), the
 * next mapping zeroes the block's head again (G-30), over the bytes the
 * previous mapping just wrote; its own bio fails the same way and the
 * tail zeroing's 0 replaces the error (G-38), so the request reports
 * those bytes written while the device holds zeroes.  Only the data
 * oracle is excused, and only for a short write ending mid-block in such
 * a block.  tests/iomap_generic_loop.c test_short_write_keeps_its_head;
 * reproducers: fuzz/known/dio/k6-*.
 */
static bool rezeroed_head(const struct testfs_request *r, long moved)
{
	loff_t end = r->pos + moved;

	if (!r->write || moved <= 0 || (size_t)moved >= r->len ||
	    !(end % r->fs_block))
		return false;
	for (unsigned int i = 0; i < r->nr_map; i++) {
		const struct testfs_extent *e = &r->map[i];

		if (e->off < end && e->off + (loff_t)e->len >= end)
			return e->type == IOMAP_UNWRITTEN ||
			       (e->flags & IOMAP_F_NEW);
	}
	return false;
}

/*
 * Finding tail-zeroing-replaces-error, in the code under test (upstream's
 * shape; xfs on this machine's 6.18 kernel answers the same,
 * tests/oracle-kernel.c, tests/findings/dio-write-efault.c): a write
 * whose first bio cannot be built (its source cannot be pinned, a piece
 * shorter than a logical block is all it would hold after the length
 * trim, a bounce buffer cannot be allocated, or in kernel-source mode the
 * DMA check refuses it) in a pass that
 * starts mid-block, where the block needs zeroing (unwritten, new, or at
 * or past EOF): the pass falls through to the sub-block tail zeroing,
 * whose "ret = iomap_dio_zero()" replaces the error with 0 (G-38); with
 * nothing copied, iomap_iter() stops and the write returns 0 (or
 * done_before).  Only the "nothing written, no error" oracle is excused,
 * only for a sub-block start and a run where a bio could not be built.
 * Reproducer: fuzz/known/dio/k10-tail-zeroing-replaces-error.
 */
static bool tail_zeroing_replaced_error(const struct testfs_request *r,
					const struct run *run)
{
	return r->write && run->build_errors > 0 && r->pos % r->fs_block;
}

/*
 * Where a queued request that failed may complete: writes in the dio
 * workqueue, reads where the code punts them (G-51, G-61, S-28); code
 * without "iomap: always run error completions in user context" ends a
 * failed read in end_io like any other.  Also in process
 * context by the two ways that skip the workqueue: an ioend write whose
 * bios all succeeded completes in the ioend worker, and an error its
 * completion makes there (->end_io, the O_DSYNC flush) stays (G-54); a
 * caller-completion write completes in the issuer's task whatever its
 * error (G-52).
 */
static bool error_completion_ok(const struct testfs_request *r,
				const struct testfs_outcome *o)
{
	bool punted = IOMAPSIM_ERROR_PUNT || r->write;

	if (o->completion ==
	    (punted ? IOMAP_DIO_COMP_WORKQUEUE : IOMAP_DIO_COMP_END_IO))
		return true;
	/* without the error punt the ioend worker completes a failed dio too */
	if (o->completion == IOMAP_DIO_COMP_IOEND_WORKER)
		return !IOMAPSIM_ERROR_PUNT || o->fsync_calls ||
		       o->end_io_calls;
	return o->completion == IOMAP_DIO_COMP_SUBMITTER &&
	       (r->ki_flags & IOCB_DIO_CALLER_COMP);
}

/* 2, 3: accounting, contexts, warnings */
static void check_accounting(const struct testfs_request *r,
			     const struct testfs_outcome *o)
{
	FUZZ_CHECK(o->leaks == 0, "%ld object(s)/pin(s)/bio(s) leaked",
		   o->leaks);
	FUZZ_CHECK(o->i_dio_count == 0, "i_dio_count %d after the request",
		   o->i_dio_count);
	FUZZ_CHECK(o->context_violations == 0 || violation_expected(r),
		   "context violation: %s", sim_report_last());
	FUZZ_CHECK(o->deadlocks == 0, "deadlock: %s", sim_report_last());
	FUZZ_CHECK(o->warnings == 0,
		   "%ld WARN_ON(s) the kernel would not hit: %s", o->warnings,
		   sim_report_last());
	FUZZ_CHECK(o->iter_count <= r->len, "iterator grew to %zu",
		   o->iter_count);
}

/* 5: ki_complete, completion context */
static void check_completion(const struct testfs_request *r,
			     const struct testfs_outcome *o)
{
	long ret = o->ret;

	FUZZ_CHECK(!o->queued || r->async, "-EIOCBQUEUED for a sync kiocb");
	FUZZ_CHECK(o->ki_complete_calls == (o->queued ? 1 : 0),
		   "ki_complete called %d time(s), request %s",
		   o->ki_complete_calls, o->queued ? "queued" : "not queued");
	FUZZ_CHECK(o->completions <= 1, "completion ran %d times",
		   o->completions);
	if (o->queued) {
		FUZZ_CHECK(o->ki_pos_at_complete == o->ki_pos,
			   "ki_pos moved after ki_complete: %lld -> %lld",
			   (long long)o->ki_pos_at_complete,
			   (long long)o->ki_pos);
		FUZZ_CHECK(
			ret >= 0 || error_completion_ok(r, o),
			"error completion (%ld) ran in %s (G-51, G-52, G-54, "
			"G-61, S-28)",
			ret, iomap_dio_comp_ctx_name(o->completion) ?: "none");
		FUZZ_CHECK(ret < 0 || r->write ||
				   o->completion == IOMAP_DIO_COMP_END_IO,
			   "read completion ran in %s, not bio completion "
			   "context (G-51, S-27)",
			   iomap_dio_comp_ctx_name(o->completion) ?: "none");
		/*
		 * G-54: ioend completion clears COMP_WORK in the ioend
		 * worker, which is process context too: the size update
		 * runs there unless an error or cached pages re-set it.
		 * G-52: a pass that starts at or past EOF drops caller
		 * completion; one that starts inside EOF keeps it, even when
		 * its mapping takes it past EOF, and nothing else does
		 */
		FUZZ_CHECK(!r->write || r->pos + (loff_t)r->len <= r->size ||
				   o->completion == IOMAP_DIO_COMP_WORKQUEUE ||
				   (r->dops == TESTFS_DOPS_IOEND &&
				    o->completion ==
					    IOMAP_DIO_COMP_IOEND_WORKER) ||
				   ((r->ki_flags & IOCB_DIO_CALLER_COMP) &&
				    o->completion == IOMAP_DIO_COMP_SUBMITTER &&
				    r->pos < r->size),
			   "size-extending write completed in %s (G-14, G-52, "
			   "G-54)",
			   iomap_dio_comp_ctx_name(o->completion) ?: "none");
		/* G-54: its bios end in the ioend worker, never in end_io */
		FUZZ_CHECK(!r->write || r->dops != TESTFS_DOPS_IOEND ||
				   o->completion != IOMAP_DIO_COMP_END_IO,
			   "write ended through ioends completed in end_io "
			   "(G-54)");
	}
	FUZZ_CHECK(o->completion != IOMAP_DIO_COMP_IOEND_WORKER ||
			   (r->write && r->dops == TESTFS_DOPS_IOEND),
		   "a dio completed in an ioend worker it never used (G-54)");
}

/* 5: return value, ki_pos, iterator */
static void check_result(const struct testfs_request *r, const struct run *run,
			 long moved)
{
	const struct testfs_outcome *o = &run->out;
	long ret = o->ret, db = r->done_before;
	size_t consumed = r->len - min(o->iter_count, r->len);

	FUZZ_CHECK(ret != -EIOCBQUEUED && ret >= -4095, "final result %ld",
		   ret);
	FUZZ_CHECK(ret <= (long)(r->len + db), "returned %ld for %zu bytes",
		   ret, r->len);
	FUZZ_CHECK(ret <= 0 || ret > db,
		   "done_before %ld added to a non-positive result (G-57)", db);
	/*
	 * G-58: a dsync write whose generic_write_sync() fails returns the
	 * error with ki_pos already advanced by what was written.
	 */
	FUZZ_CHECK(o->ki_pos == r->pos + moved ||
			   (ret < 0 && r->write && (r->ki_flags & IOCB_DSYNC) &&
			    o->ki_pos == r->pos + (loff_t)consumed),
		   "ki_pos %lld, expected %lld for result %ld (G-55, G-56)",
		   (long long)o->ki_pos, (long long)(r->pos + moved), ret);
	FUZZ_CHECK(ret < 0 || consumed == (size_t)moved,
		   "iterator consumed %zu bytes for result %ld", consumed, ret);
	if (!r->len)
		FUZZ_CHECK(ret == 0, "empty request returned %ld (G-02)", ret);
	/*
	 * A direct write moves something or fails: "nothing written, no
	 * error" makes a caller that retries short writes spin for ever.
	 * The one 0 iomap means is G-44's: ->iomap_begin said -ENOTBLK, and
	 * the file system does the rest with buffered I/O.
	 */
	FUZZ_CHECK(!r->write || !r->len || ret < 0 || moved > 0 ||
			   r->begin_error == -ENOTBLK ||
			   tail_zeroing_replaced_error(r, run),
		   "a direct write of %zu bytes returned %ld: nothing "
		   "written and no error",
		   r->len, ret);
	if (!r->write) {
		/* only the dio allocation (G-03) comes before G-07 */
		FUZZ_CHECK(r->pos < r->size || ret == 0 ||
				   (ret == -ENOMEM && r->alloc_fail_nth),
			   "read at or past EOF returned %ld (G-07)", ret);
		FUZZ_CHECK(r->pos + moved <= max(r->size, r->pos),
			   "read returned %ld bytes past EOF %lld (G-55)",
			   moved, (long long)r->size);
	}
}

/* the path is observed; the reason mirror must agree with it */
static void check_path(const struct testfs_request *r,
		       const struct testfs_outcome *o)
{
	long ret = o->ret;

	FUZZ_CHECK(!o->why_mismatch,
		   "fallback reason mirror contradicts the observed path "
		   "(S-01..S-07)");
	if (o->simple)
		FUZZ_CHECK(!o->bios_fs_bio_set && !o->bios_dops_set,
			   "simple path used a generic bio_set (S-33)");
	else if (o->fallback != IOMAP_SIMPLE_SHORT_PIN)
		FUZZ_CHECK(!o->bios_simple_pool,
			   "generic path used the simple path's bio_set");
	if (r->dops == TESTFS_DOPS_BIO_SET ||
	    (r->dops == TESTFS_DOPS_IOEND && r->write))
		FUZZ_CHECK(!o->bios_fs_bio_set,
			   "bios from fs_bio_set despite dops->bio_set (G-32)");
	if (o->simple) {
		FUZZ_CHECK(simple_eligible(r),
			   "simple path took an ineligible request "
			   "(S-01..S-07)");
		FUZZ_CHECK(ret < 0 || ret == (long)r->len,
			   "simple path returned %ld of %zu (S-31)", ret,
			   r->len);
	}
}

/* 4: data */
static void check_data(const struct testfs_request *r, struct run *run,
		       long moved)
{
	const struct testfs_outcome *o = &run->out;
	long ret = o->ret;

	FUZZ_CHECK(o->data != IOMAPSIM_DATA_MISMATCH || runner_model_gap(r) ||
			   rezeroed_head(r, moved),
		   "the runner's data check failed (%s)",
		   r->write ? "device contents" : "read data");
	if (r->write) {
		size_t i = changed_source(r, run->buf);

		FUZZ_CHECK(i == r->len,
			   "write changed its source buffer at byte %zu", i);
		return;
	}
	/* the same for every run of the input */
	expect_upto(r, moved);
	if (memcmp(run->buf, expect, moved)) {
		size_t i = first_diff(run->buf, expect, moved);

		fuzz_fail(__FILE__, __LINE__,
			  "read byte %zu (file offset %lld) is %#x, the file "
			  "holds %#x",
			  i, (long long)(r->pos + i), run->buf[i], expect[i]);
	}
	/* most often the read never got there: all of it untouched */
	run->read_exact =
		(size_t)moved >= r->len ||
		!memcmp(run->buf + moved, untouched_fill, r->len - moved);
	if (!run->read_exact) {
		size_t i;

		expect_upto(r, r->len);
		i = stray_byte(run->buf, moved, r->len);

		FUZZ_CHECK(i == r->len,
			   "read wrote %#x at buffer byte %zu past its result "
			   "%ld: neither untouched nor file data (%#x)",
			   i < r->len ? run->buf[i] : 0, i, ret,
			   i < r->len ? expect[i] : 0);
	}
}

static void check_outcome(const struct dio_input *in, struct run *run)
{
	const struct testfs_request *r = &in->req;
	const struct testfs_outcome *o = &run->out;
	long ret = o->ret, db = r->done_before;
	long moved = ret > 0 ? ret - db : 0; /* bytes this call did */

	check_accounting(r, o);
	check_completion(r, o);
	check_result(r, run, moved);
	check_path(r, o);
	check_data(r, run, moved);
}

/* The parts of two outcomes that must be identical for the same input. */
static void check_same(const struct run *a, const struct run *b,
		       const struct testfs_request *r, bool full,
		       const char *what)
{
	const struct testfs_outcome *x = &a->out, *y = &b->out;

	FUZZ_CHECK(a->rc == b->rc, "%s: setup %d vs %d", what, a->rc, b->rc);
	FUZZ_CHECK(x->ret == y->ret, "%s: result %ld vs %ld", what, x->ret,
		   y->ret);
	FUZZ_CHECK(x->ki_pos == y->ki_pos, "%s: ki_pos %lld vs %lld", what,
		   (long long)x->ki_pos, (long long)y->ki_pos);
	/*
	 * S-19 where the simple read checks the DMA alignment as it builds
	 * its bio: refused for its memory (-EINVAL), it leaves the iterator
	 * past what it extracted (<sim/iomap_features.h>)
	 */
	FUZZ_CHECK(x->iter_count == y->iter_count ||
			   (x->ret == -EINVAL &&
			    IOMAPSIM_SIMPLE_EINVAL_MOVES_ITER),
		   "%s: iterator count %zu vs %zu", what, x->iter_count,
		   y->iter_count);
	if (r->write)
		/*
		 * Both ran on the same memory (the source is laid out once,
		 * buf_filled), and the first run's check found it the
		 * pattern: the second's must still be.
		 */
		FUZZ_CHECK(changed_source(r, b->buf) == r->len,
			   "%s: buffers differ", what);
	else if (a->read_exact)
		/*
		 * The first run's bytes were the file's up to the (equal)
		 * result and untouched after it, so the second's must be:
		 * the same comparison, and @b may lie where @a lay.
		 */
		FUZZ_CHECK(b->read_exact || read_is_exact(r, b),
			   "%s: buffers differ", what);
	else
		FUZZ_CHECK(!memcmp(a->buf, b->buf, r->len),
			   "%s: buffers differ", what);
	if (!full)
		return;
	FUZZ_CHECK(x->queued == y->queued && x->simple == y->simple &&
			   x->fallback == y->fallback && x->bios == y->bios &&
			   x->cache_hits == y->cache_hits &&
			   x->punted == y->punted &&
			   x->ki_complete_calls == y->ki_complete_calls &&
			   x->completion == y->completion &&
			   x->data == y->data && x->warnings == y->warnings &&
			   x->context_violations == y->context_violations &&
			   x->leaks == y->leaks &&
			   x->begin_calls == y->begin_calls &&
			   x->end_calls == y->end_calls &&
			   x->i_size == y->i_size &&
			   x->ki_flags_after == y->ki_flags_after,
		   "%s: outcomes differ", what);
	FUZZ_CHECK(a->trace_count == b->trace_count &&
			   a->trace_hash == b->trace_hash,
		   "%s: traces differ (%llu records %#llx vs %llu %#llx)", what,
		   (unsigned long long)a->trace_count,
		   (unsigned long long)a->trace_hash,
		   (unsigned long long)b->trace_count,
		   (unsigned long long)b->trace_hash);
}

/*
 * The codec must round-trip whatever it decoded, or the seed corpus
 * (built by encoding the unit tests' requests) would not mean what the
 * tests meant.
 */
static void check_codec(const struct dio_input *in)
{
	static u8 enc[DIO_MAX_INPUT];
	static struct dio_input back;
	const struct testfs_request *a = &in->req, *b = &back.req;
	char why[128];
	size_t n;

	FUZZ_CHECK(!dio_encode(a, in->seed, enc, &n, why, sizeof(why)),
		   "codec: a decoded request does not encode: %s", why);
	dio_decode(enc, n, &back);
	FUZZ_CHECK(a->fs_block == b->fs_block && a->lbs == b->lbs &&
			   a->size == b->size && a->pos == b->pos &&
			   a->len == b->len && a->iter == b->iter &&
			   (a->iter != IOMAPSIM_ITER_IOVEC ||
			    a->iovec_segs == b->iovec_segs) &&
			   a->buf_offset == b->buf_offset &&
			   a->ki_flags == b->ki_flags &&
			   a->dio_flags == b->dio_flags &&
			   a->done_before == b->done_before &&
			   a->write == b->write && a->async == b->async &&
			   a->no_simple == b->no_simple &&
			   a->no_simple_mount == b->no_simple_mount &&
			   a->encrypted == b->encrypted &&
			   a->write_cache == b->write_cache &&
			   a->fua == b->fua && a->dops == b->dops &&
			   a->mode == b->mode && a->complete == b->complete &&
			   in->seed == back.seed && a->nr_map == b->nr_map &&
			   !memcmp(a->map, b->map,
				   a->nr_map * sizeof(a->map[0])) &&
			   a->nr_bio_faults == b->nr_bio_faults &&
			   a->alloc_fail_nth == b->alloc_fail_nth &&
			   a->short_pin_nth == b->short_pin_nth &&
			   a->short_pin_bytes == b->short_pin_bytes &&
			   a->begin_error == b->begin_error &&
			   (!a->begin_error ||
			    a->begin_error_nth == b->begin_error_nth),
		   "codec: decode(encode(request)) differs");
	for (unsigned int i = 0; i < a->nr_bio_faults; i++)
		FUZZ_CHECK(!strcmp(a->bio_faults[i], b->bio_faults[i]),
			   "codec: fault %s became %s", a->bio_faults[i],
			   b->bio_faults[i]);
}

static void report_known(void)
{
	if (nr_known)
		fprintf(stderr,
			"fuzz_dio: %lu input(s) skipped as known "
			"issues (see known_issue())\n",
			nr_known);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	atexit(report_known);
	atexit(testfs_runner_teardown);
	struct sim_engine_opts eo = { .kind = SIM_ENGINE_DET, .seed = 1 };

	/* counted, not printed: an oracle failure prints what matters */
	sim_report_quiet(true);
	sim_engine_init(&eo);
	sim_engine_set_deadlock_hook(deadlock_hook);
	return 0;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct dio_input *in = &cur;
	const struct run *last;
	bool reuse, filled = false;

	have_outcome = false;
	expect_len = 0;
	dio_decode(data, size, in);
	fuzz_set_describer(describe, in);
	check_codec(in);
	/* N-06..N-14: the proposal entry points, absent from every tree */
	/* and flags the iomap code linked in lacks: not expressible here */
	if ((in->req.mode != TESTFS_MODE_OPS && !IOMAPSIM_PROPOSAL) ||
	    in->missing) {
		fuzz_set_describer(NULL, NULL);
		return 0;
	}
	if (known_issue(&in->req)) {
		nr_known++;
		fuzz_set_describer(NULL, NULL);
		return 0;
	}
	/*
	 * The runner keeps a testfs per geometry across requests: have it
	 * built before the gauges are read, so that they compare this
	 * input's requests only (a refused geometry shows in run_once()).
	 */
	testfs_runner_prepare(&in->req, runs[0].err, sizeof(runs[0].err));
	fuzz_accounting_begin();

	/* a read's fill is there but where the last runs wrote */
	if (!in->req.write) {
		struct span sp =
			request_span(&in->req, testfs_iov_apart(&in->req));

		bufs0_clean(sp.lo, sp.hi);
		filled = true;
	} else if (!testfs_iov_apart(&in->req)) {
		src_lay_out(&in->req);
		filled = true;
	}
	dirty_outside = dirty;
	run_once(in, false, true, &runs[0], bufs[0], filled);
	if (!runs[0].rc) {
		have_outcome = true;
		check_outcome(in, &runs[0]);

		/*
		 * 7: determinism.  A write's source, checked unchanged by
		 * check_outcome(), is used again where it lies; so is an
		 * exact read's buffer, its read bytes put back to the fill.
		 */
		reuse = in->req.write ||
			(runs[0].read_exact &&
			 runs[0].buf == bufs[0] + in->req.buf_offset);
		if (in->req.write)
			run_once(in, false, true, &runs[1], bufs[0], true);
		else if (reuse)
			run_again(in, &runs[0], &runs[1], false);
		else
			run_once(in, false, true, &runs[1], bufs[1], false);
		check_same(&runs[0], &runs[1], &in->req, true,
			   "same input twice");
		/* (check_same() found it exact as the first was) */
		runs[1].read_exact = reuse && !in->req.write;
		last = &runs[1];

		/* 6: differential */
		if (simple_eligible(&in->req) && differential_fair(&in->req)) {
			/* run 1 lies there, exact (check_same()) */
			if (reuse)
				run_again(in, &runs[1], &runs[2], true);
			else
				run_once(in, true, true, &runs[2], bufs[2],
					 false);
			FUZZ_CHECK(!runs[2].rc, "generic rerun refused: %s",
				   runs[2].err);
			check_outcome(in, &runs[2]);
			if (!nowait_split_refused(&in->req, &runs[0]))
				check_same(&runs[0], &runs[2], &in->req, false,
					   "simple path vs generic path");
			last = &runs[2];
		}
		if (reuse)
			bufs0_settle(in, last);
	}
	fuzz_accounting_check(0, violation_expected(&in->req) ? -1 : 0, NULL);
	fuzz_set_describer(NULL, NULL);
	return 0;
}

/* For the replay driver: the command line, and the outcome as JSON. */
void fuzz_describe_input(const u8 *data, size_t size, FILE *out)
{
	static struct dio_input in;

	dio_decode(data, size, &in);
	dio_print_cmdline(&in, out);
}

void fuzz_json_input(const u8 *data, size_t size, FILE *out)
{
	static struct dio_input in;

	dio_decode(data, size, &in);
	if (in.req.mode != TESTFS_MODE_OPS && !IOMAPSIM_PROPOSAL) {
		/* `iomapsim run --iomap next|begin` refuses it the same way */
		fprintf(out,
			"refused: --iomap: the proposal entry points are not in this build's iomap code\n");
		return;
	}
	if (in.missing) {
		/* as `iomapsim run` refuses the flag */
		fprintf(out, "refused: %s is not in this build's iomap code\n",
			in.missing);
		return;
	}
	/* as `iomapsim run` prints it, the runner's data check included */
	run_once(&in, false, false, &runs[0], bufs[0], false);
	if (runs[0].rc)
		fprintf(out, "refused: %s\n", runs[0].err);
	else
		testfs_outcome_print_json(&runs[0].out, out);
}
