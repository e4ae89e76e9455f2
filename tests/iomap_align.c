// SPDX-License-Identifier: GPL-2.0-only
/*
 * User-buffer alignment (B-29, B-30): the block layer, not
 * iomap, refuses memory the device cannot DMA to.  When a bio is split
 * to the queue limits at submission (bio_split_rw_at()), a bvec whose
 * offset or length breaks dma_alignment (default mask 511) fails the
 * split with -EINVAL, and the bio is ended at once, in the submitter's
 * context, with BLK_STS_INVAL.  Both iomap paths meet that error during
 * submit_bio(): a sync kiocb gets -EINVAL back from the call, an async
 * one through the path's own error completion.  A single bvec within a
 * page takes the split step's fast path and is not checked at all.
 * A device without poll queues fails a polled bio (REQ_POLLED) with
 * BLK_STS_NOTSUPP the same way.
 */
#include <linux/blkdev.h>
#include <sim/iomap_features.h>
#include "iomap_common.h"

enum way {
	SIMPLE_SYNC,
	SIMPLE_ASYNC,
	GENERIC_SYNC,
	GENERIC_ASYNC,
	WRITE_SYNC,
	WRITE_ASYNC,
	NR_WAYS
};

/* the ways the iomap code under test has: no simple ones without it */
#define FIRST_WAY                                                      \
	(IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_NONE ? GENERIC_SYNC : \
							SIMPLE_SYNC)

static const char *const way_names[] = {
	"simple read, sync",   "simple read, async", "generic read, sync",
	"generic read, async", "write, sync",	     "write, async",
};

/* The 4 KiB request of B-29's measurements, taken one of six ways. */
static void way_req(struct testfs_request *r, enum way w)
{
	req_init(r);
	r->pos = 8192;
	r->len = 4096;
	r->write = w >= WRITE_SYNC;
	r->async = w == SIMPLE_ASYNC || w == GENERIC_ASYNC || w == WRITE_ASYNC;
	r->no_simple = w == GENERIC_SYNC || w == GENERIC_ASYNC;
}

/*
 * A request whose only data bio the block layer ended with @err during
 * submit_bio(): nothing reached the device, and the error came back the
 * way the path that took it delivers errors.
 */
static void expect_refused(const struct testfs_request *r,
			   const struct testfs_outcome *o, enum way w, long err)
{
	const char *name = way_names[w];

	ck_assert_msg(o->ret == err, "%s: ret %ld, want %ld", name, o->ret,
		      err);
	ck_assert_msg(o->bios == 0, "%s: the device saw %llu bio(s)", name,
		      (unsigned long long)o->bios);
	ck_assert_int_eq(o->ki_pos, r->pos);
	ck_assert_int_eq(o->i_size, r->size);
	ck_assert_int_eq(o->leaks, 0);
	ck_assert_int_eq(o->context_violations, 0);
	ck_assert_int_eq(o->completions, 1);
	if (w == SIMPLE_SYNC || w == SIMPLE_ASYNC) {
		ck_assert_msg(o->simple, "%s: took the generic path", name);
	} else {
		ck_assert(!o->simple);
	}
	if (w == SIMPLE_ASYNC) {
		/*
		 * S-path async: the end_io sees an error and punts to
		 * s_dio_done_wq, whose worker calls ki_complete; the call
		 * itself returned -EIOCBQUEUED.
		 */
		ck_assert(o->queued);
		ck_assert_int_eq(o->direct_ret, -EIOCBQUEUED);
		ck_assert_int_eq(o->ki_complete_calls, 1);
		ck_assert_int_eq(o->ki_complete_ret, err);
		ck_assert_int_eq(o->punted, 1);
		ck_assert_int_eq(o->completion, IOMAP_DIO_COMP_WORKQUEUE);
	} else {
		/*
		 * Sync, or a generic dio whose every bio ended during
		 * submission: the submitter drops the last reference and
		 * completes it itself, returning the error; no ki_complete
		 * even for an async kiocb (G-40's "all done" case).
		 */
		ck_assert_msg(!o->queued, "%s: queued", name);
		ck_assert_int_eq(o->direct_ret, err);
		ck_assert_int_eq(o->ki_complete_calls, 0);
		ck_assert_int_eq(o->punted, 0);
		ck_assert_int_eq(o->completion, IOMAP_DIO_COMP_SUBMITTER);
	}
}

static void expect_done(const struct testfs_request *r,
			const struct testfs_outcome *o, enum way w)
{
	ck_assert_msg(o->ret == (long)r->len, "%s: ret %ld", way_names[w],
		      o->ret);
	ck_assert_int_eq(o->data, IOMAPSIM_DATA_OK);
	ck_assert_uint_ge(o->bios, 1);
	ck_assert_int_eq(o->ki_pos, r->pos + (loff_t)r->len);
	if (w == SIMPLE_SYNC || w == SIMPLE_ASYNC)
		ck_assert(o->simple);
}

/* Run @r taken way @w and check it was refused with @err, or done (0). */
static void try_req(struct testfs_request *r, enum way w, long err)
{
	struct testfs_outcome o;

	run_ok(r, &o);
	if (err)
		expect_refused(r, &o, w, err);
	else
		expect_done(r, &o, w);
}

/* The 4 KiB request @buf_offset bytes into a page of a @mask device. */
static void try_buf(enum way w, unsigned int mask, size_t buf_offset,
		    enum testfs_complete c, long err)
{
	struct testfs_request r;

	way_req(&r, w);
	r.dma_alignment = mask;
	r.buf_offset = buf_offset;
	r.complete = c;
	try_req(&r, w, err);
}

static const enum testfs_complete completes[] = {
	IOMAPSIM_COMPLETE_IRQ,
	IOMAPSIM_COMPLETE_INLINE,
	IOMAPSIM_COMPLETE_DEFERRED,
	IOMAPSIM_COMPLETE_RANDOM,
};

/*
 * 1, 8 and 511 bytes past a page: EINVAL every way, every completion
 * order; 512 and 2048 past: the default mask takes them.
 */
START_TEST(test_default_mask)
{
	static const struct {
		size_t off;
		long err;
	} cases[] = {
		{ 1, -EINVAL }, { 8, -EINVAL }, { 511, -EINVAL },
		{ 512, 0 },	{ 2048, 0 },
	};
	unsigned int k, c;

	for (k = 0; k < ARRAY_SIZE(cases); k++)
		for (c = 0; c < ARRAY_SIZE(completes); c++)
			try_buf(_i, 0, cases[k].off, completes[c],
				cases[k].err);
}
END_TEST

/*
 * A device with mask 3 (NVMe) takes 4 bytes past, not 2; one with mask
 * 4095 refuses 512 bytes past and takes a whole page.
 */
START_TEST(test_device_masks)
{
	try_buf(_i, 3, 4, IOMAPSIM_COMPLETE_IRQ, 0);
	try_buf(_i, 3, 2, IOMAPSIM_COMPLETE_IRQ, -EINVAL);
	try_buf(_i, 4095, 512, IOMAPSIM_COMPLETE_IRQ, -EINVAL);
	try_buf(_i, 4095, 0, IOMAPSIM_COMPLETE_IRQ, 0);
}
END_TEST

/* explicit iovec segments: offs[i] >= 0 starts one in a page of its own */
static void try_iov(enum way w, const u32 *lens, const s32 *offs, long err)
{
	struct testfs_request r;
	unsigned int i;

	way_req(&r, w);
	for (r.len = 0, i = 0; i < 2; r.len += lens[i], i++)
		r.iov[i] = (typeof(r.iov[i])){ .len = lens[i],
					       .page_off = offs[i] };
	r.iter = IOMAPSIM_ITER_IOVEC;
	r.nr_iov = r.iovec_segs = 2;
	/* reads of 8 KiB are not simple with 4 KiB blocks */
	if (r.len > 4096)
		r.no_simple = true;
	try_req(&r, w, err);
}

/*
 * Two segments: a second one 1 byte into its page is refused (the bio
 * holding both is refused whole, nothing reaches the device); only the
 * offset wrong (3584, then 512 bytes 1 byte into a page: every length
 * clears the mask) is refused too.  Segments of 100 + 3996 bytes (B-30):
 * the total is aligned, but each bvec's length must clear the mask as
 * well; next to each other in memory or apart does not matter here, where
 * every segment is extracted into bvecs of its own.
 */
START_TEST(test_segments)
{
	static const u32 pages[] = { 4096, 4096 }, tail[] = { 3584, 512 },
			 odd[] = { 100, 3996 }, even[] = { 512, 3584 };
	static const s32 next[] = { -1, -1 }, at0[] = { -1, 0 },
			 at1[] = { -1, 1 }, at512[] = { -1, 512 };
	enum way w = _i;

	if (w == SIMPLE_SYNC || w == SIMPLE_ASYNC) {
		/* 8 KiB: generic; the simple ways have nothing to add */
	} else {
		try_iov(w, pages, at1, -EINVAL);
		try_iov(w, pages, at512, 0);
	}
	try_iov(w, tail, at1, -EINVAL);
	try_iov(w, tail, at0, 0);
	try_iov(w, odd, next, -EINVAL);
	try_iov(w, odd, at0, -EINVAL);
	try_iov(w, even, next, 0);
	try_iov(w, even, at0, 0);
}
END_TEST

/*
 * One bvec that ends within a page needs no split, and the split step's
 * fast path (bio_may_need_split()) checks nothing: a 512-byte request 1
 * byte into a page reaches the device and succeeds; 4095 bytes in, it
 * crosses into the next page, makes two bvecs and is checked.
 * Kernel-memory iterators meet the same check (no-copy BVEC included).
 */
START_TEST(test_fast_path_and_kernel_iters)
{
	static const enum testfs_iter iters[] = { IOMAPSIM_ITER_KVEC,
						  IOMAPSIM_ITER_BVEC };
	struct testfs_request r;
	unsigned int k;

	way_req(&r, _i);
	r.len = 512;
	r.buf_offset = 1;
	try_req(&r, _i, 0);
	r.buf_offset = 4095;
	try_req(&r, _i, -EINVAL);

	for (k = 0; k < ARRAY_SIZE(iters); k++) {
		way_req(&r, _i);
		r.iter = iters[k];
		r.buf_offset = 8;
		try_req(&r, _i, -EINVAL);
		r.buf_offset = 512;
		try_req(&r, _i, 0);
	}
}
END_TEST

/*
 * The same memory, 1 byte into a page, under a sub-block write into a
 * hole (1 KiB at 512): the head and tail of its block are zeroed around
 * the data bio.  The embedded copy checks nothing for one bvec within a
 * page, as above, and writes it; code that checks the memory up front
 * (bdev_iter_is_aligned()) or while building the bio (G-33, B-29) must
 * fail it with -EINVAL.  The tail zeroing of code whose iomap_dio_zero()
 * returns an int replaces the second (G-38, K10).
 */
START_TEST(test_subblock_write_off_dma_alignment)
{
	const bool checked = IOMAPSIM_DMA_CHECKED_UPFRONT ||
			     IOMAPSIM_DMA_CHECKED_AT_BUILD;
	struct testfs_request r;
	struct testfs_outcome o;

	way_req(&r, _i);
	r.size = 1 << 20;
	req_map(&r, IOMAP_HOLE, 0, r.size, 0);
	r.pos = 512;
	r.len = 1024;
	r.buf_offset = 1;
	run_ok(&r, &o);
	ck_assert_msg(o.ret == (checked ? -EINVAL : 1024), ": ret %ld", o.ret);
	ck_assert_int_eq(o.ki_pos, checked ? r.pos : r.pos + 1024);
	ck_assert_int_eq(o.leaks, 0);
	ck_assert_int_eq(o.context_violations, 0);
	if (!checked)
		ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/*
 * 33 segments of 32 KiB and one of 512 bytes 1 byte into a page: the
 * first bio takes 32 segments, the second one more and then meets the
 * misaligned one.  Wherever that is refused (the split of the one bio
 * holding both, or the extraction, or the check up front) the write
 * fails with -EINVAL, and the iterator may count no more than its
 * remaining segments hold (I-05): an iterator past them sends the next
 * walk (iov_iter_npages() in the next pass) off the end of the array.
 */
START_TEST(test_refused_bio_keeps_iterator_on_segments)
{
	struct testfs_request r;
	struct testfs_outcome o;

	req_init(&r);
	r.size = 2 << 20;
	r.write = true;
	r.iter = IOMAPSIM_ITER_IOVEC;
	r.nr_iov = r.iovec_segs = 34;
	for (unsigned int k = 0; k < 33; k++)
		r.iov[k] = (typeof(r.iov[k])){ .len = 32768, .page_off = -1 };
	r.iov[33] = (typeof(r.iov[33])){ .len = 512, .page_off = 1 };
	r.len = 33 * 32768 + 512;
	run_ret(&r, &o, -EINVAL);
	ck_assert_msg(
		!o.iter_past_segments,
		"the iterator counts %zu bytes, more than its segments hold",
		o.iter_count);
	ck_assert_int_eq(o.leaks, 0);
}
END_TEST

/*
 * A queue without poll support (a loop device): an async IOCB_HIPRI
 * request's bio is REQ_POLLED and ends with BLK_STS_NOTSUPP at
 * submission (blk_mq_submit_bio()), -EOPNOTSUPP; a sync one is never
 * polled and is not affected.
 */
START_TEST(test_no_poll_device)
{
	struct testfs_request r;

	way_req(&r, _i);
	r.ki_flags = IOCB_HIPRI;
	r.no_poll = true;
	try_req(&r, _i, r.async ? -EOPNOTSUPP : 0);
	r.no_poll = false;
	try_req(&r, _i, 0);
}
END_TEST

static Suite *align_suite(void)
{
	Suite *s = suite_create("iomap_align");
	TCase *tc = sim_tcase("align");

	tcase_add_loop_test(tc, test_default_mask, FIRST_WAY, NR_WAYS);
	tcase_add_loop_test(tc, test_device_masks, FIRST_WAY, NR_WAYS);
	tcase_add_loop_test(tc, test_segments, FIRST_WAY, NR_WAYS);
	tcase_add_loop_test(tc, test_fast_path_and_kernel_iters, FIRST_WAY,
			    NR_WAYS);
	tcase_add_loop_test(tc, test_subblock_write_off_dma_alignment,
			    WRITE_SYNC, NR_WAYS);
	tcase_add_test(tc, test_refused_bio_keeps_iterator_on_segments);
	tcase_add_loop_test(tc, test_no_poll_device, FIRST_WAY, NR_WAYS);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(align_suite)
