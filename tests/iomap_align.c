// SPDX-License-Identifier: GPL-2.0-only
/*
 * User-buffer alignment (SEMANTICS B-29, B-30): the block layer, not
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
#include "iomap_common.h"

enum way { SIMPLE_SYNC, SIMPLE_ASYNC, GENERIC_SYNC, GENERIC_ASYNC,
	   WRITE_SYNC, WRITE_ASYNC, NR_WAYS };

static const char *const way_names[] = {
	"simple read, sync", "simple read, async", "generic read, sync",
	"generic read, async", "write, sync", "write, async",
};

/* The 4 KiB request the issue starts from, taken one of six ways. */
static void way_req(struct iomapsim_request *r, enum way w)
{
	req_init(r);
	r->pos = 8192;
	r->len = 4096;
	r->write = w >= WRITE_SYNC;
	r->async = w == SIMPLE_ASYNC || w == GENERIC_ASYNC ||
		   w == WRITE_ASYNC;
	r->no_simple = w == GENERIC_SYNC || w == GENERIC_ASYNC;
}

/*
 * A request whose only data bio the block layer ended with @err during
 * submit_bio(): nothing reached the device, and the error came back the
 * way the path that took it delivers errors.
 */
static void expect_refused(const struct iomapsim_request *r,
			   const struct iomapsim_outcome *o, enum way w,
			   long err)
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

static void expect_done(const struct iomapsim_request *r,
			const struct iomapsim_outcome *o, enum way w)
{
	ck_assert_msg(o->ret == (long)r->len, "%s: ret %ld", way_names[w],
		      o->ret);
	ck_assert_int_eq(o->data, IOMAPSIM_DATA_OK);
	ck_assert_uint_ge(o->bios, 1);
	ck_assert_int_eq(o->ki_pos, r->pos + (loff_t)r->len);
	if (w == SIMPLE_SYNC || w == SIMPLE_ASYNC)
		ck_assert(o->simple);
}

/* 1, 8 and 511 bytes past a page: EINVAL every way, every completion */
static const size_t bad_offs[] = { 1, 8, 511 };
static const enum iomapsim_complete completes[] = {
	IOMAPSIM_COMPLETE_IRQ, IOMAPSIM_COMPLETE_INLINE,
	IOMAPSIM_COMPLETE_DEFERRED, IOMAPSIM_COMPLETE_RANDOM,
};

START_TEST(test_misaligned_offset_refused)
{
	unsigned int w = _i % NR_WAYS, k;

	for (k = 0; k < ARRAY_SIZE(bad_offs) * ARRAY_SIZE(completes); k++) {
		struct iomapsim_request r;
		struct iomapsim_outcome o;

		way_req(&r, w);
		r.buf_offset = bad_offs[k % ARRAY_SIZE(bad_offs)];
		r.complete = completes[k / ARRAY_SIZE(bad_offs)];
		run_ok(&r, &o);
		expect_refused(&r, &o, w, -EINVAL);
	}
}
END_TEST

/* 512 and 2048 bytes past a page: the default mask takes them */
START_TEST(test_sector_offsets_accepted)
{
	static const size_t offs[] = { 512, 2048 };
	unsigned int w = _i % NR_WAYS, k;

	for (k = 0; k < ARRAY_SIZE(offs) * ARRAY_SIZE(completes); k++) {
		struct iomapsim_request r;
		struct iomapsim_outcome o;

		way_req(&r, w);
		r.buf_offset = offs[k % ARRAY_SIZE(offs)];
		r.complete = completes[k / ARRAY_SIZE(offs)];
		run_ok(&r, &o);
		expect_done(&r, &o, w);
	}
}
END_TEST

/* a device with mask 3 (NVMe) takes 4 bytes past, not 2 */
START_TEST(test_mask3_device)
{
	unsigned int w = _i % NR_WAYS;
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	way_req(&r, w);
	r.dma_alignment = 3;
	r.buf_offset = 4;
	run_ok(&r, &o);
	expect_done(&r, &o, w);

	r.buf_offset = 2;
	run_ok(&r, &o);
	expect_refused(&r, &o, w, -EINVAL);
}
END_TEST

/* a device with mask 4095 refuses 512 bytes past, takes a whole page */
START_TEST(test_mask4095_device)
{
	unsigned int w = _i % NR_WAYS;
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	way_req(&r, w);
	r.dma_alignment = 4095;
	r.buf_offset = 512;
	run_ok(&r, &o);
	expect_refused(&r, &o, w, -EINVAL);

	r.buf_offset = 0;
	run_ok(&r, &o);
	expect_done(&r, &o, w);
}
END_TEST

/* explicit iovec segments: @off is a page offset of its own */
static void set_iov(struct iomapsim_request *r, unsigned int n,
		    const u32 *lens, const s32 *offs)
{
	unsigned int i;

	r->iter = IOMAPSIM_ITER_IOVEC;
	r->nr_iov = n;
	r->iovec_segs = n;
	r->len = 0;
	for (i = 0; i < n; i++) {
		r->iov[i].len = lens[i];
		r->iov[i].page_off = offs[i];
		r->len += lens[i];
	}
}

/*
 * A second segment 1 byte into its page: refused.  (Reads of 8 KiB are
 * not simple with 4 KiB blocks, so the "simple" ways run generic here.)
 */
START_TEST(test_misaligned_second_segment)
{
	static const u32 lens[] = { 4096, 4096 };
	static const s32 bad[] = { -1, 1 }, good[] = { -1, 512 };
	unsigned int w = _i % NR_WAYS;
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	way_req(&r, w);
	r.no_simple = true;
	set_iov(&r, 2, lens, bad);
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, -EINVAL);
	ck_assert_int_eq(o.leaks, 0);
	ck_assert_int_eq(o.context_violations, 0);
	ck_assert_int_eq(o.ki_complete_calls, 0);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_SUBMITTER);
	/*
	 * One bio holds both segments: the first is fine, the bio is
	 * refused whole, so nothing reaches the device.
	 */
	ck_assert_uint_eq(o.bios, 0);

	set_iov(&r, 2, lens, good);
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, 8192);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/*
 * Only the offset is wrong: 3584 bytes, then 512 bytes 1 byte into a
 * page of their own; every length clears the mask, the second bvec's
 * offset does not.
 */
START_TEST(test_misaligned_offset_only)
{
	static const u32 lens[] = { 3584, 512 };
	static const s32 bad[] = { -1, 1 }, good[] = { -1, 0 };
	unsigned int w = _i % NR_WAYS;
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	way_req(&r, w);
	set_iov(&r, 2, lens, bad);
	run_ok(&r, &o);
	expect_refused(&r, &o, w, -EINVAL);
	set_iov(&r, 2, lens, good);
	run_ok(&r, &o);
	expect_done(&r, &o, w);
}
END_TEST

/*
 * Segments of 100 + 3996 bytes (B-30): the total is aligned, but each
 * bvec's length must clear the mask as well; whether the two lie next to
 * each other in memory or apart does not matter here, where every
 * segment is extracted into bvecs of its own.  512 + 3584 is fine.
 */
START_TEST(test_misaligned_segment_lengths)
{
	static const u32 bad_lens[] = { 100, 3996 }, good_lens[] = { 512, 3584 };
	static const s32 next[] = { -1, -1 }, apart[] = { -1, 0 };
	unsigned int w = _i % NR_WAYS;
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	way_req(&r, w);
	set_iov(&r, 2, bad_lens, next);
	run_ok(&r, &o);
	expect_refused(&r, &o, w, -EINVAL);
	set_iov(&r, 2, bad_lens, apart);
	run_ok(&r, &o);
	expect_refused(&r, &o, w, -EINVAL);

	set_iov(&r, 2, good_lens, next);
	run_ok(&r, &o);
	expect_done(&r, &o, w);
	set_iov(&r, 2, good_lens, apart);
	run_ok(&r, &o);
	expect_done(&r, &o, w);
}
END_TEST

/*
 * One bvec that ends within a page needs no split, and the split step's
 * fast path (bio_may_need_split()) checks nothing: a 512-byte request 1
 * byte into a page reaches the device and succeeds.
 */
START_TEST(test_single_bvec_fast_path)
{
	unsigned int w = _i % NR_WAYS;
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	way_req(&r, w);
	r.len = 512;
	r.buf_offset = 1;
	run_ok(&r, &o);
	expect_done(&r, &o, w);
	ck_assert_uint_eq(o.bios, 1);

	/* crossing into the next page makes two bvecs: checked, refused */
	r.buf_offset = 4095;
	run_ok(&r, &o);
	expect_refused(&r, &o, w, -EINVAL);
}
END_TEST

/* kernel-memory iterators meet the same check (no-copy BVEC included) */
START_TEST(test_kernel_iterators)
{
	static const enum iomapsim_iter iters[] = { IOMAPSIM_ITER_KVEC,
						    IOMAPSIM_ITER_BVEC };
	unsigned int w = _i % NR_WAYS, k;

	for (k = 0; k < ARRAY_SIZE(iters); k++) {
		struct iomapsim_request r;
		struct iomapsim_outcome o;

		way_req(&r, w);
		r.iter = iters[k];
		r.buf_offset = 8;
		run_ok(&r, &o);
		expect_refused(&r, &o, w, -EINVAL);
		r.buf_offset = 512;
		run_ok(&r, &o);
		expect_done(&r, &o, w);
	}
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
	unsigned int w = _i % NR_WAYS;
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	way_req(&r, w);
	r.ki_flags = IOCB_HIPRI;
	r.no_poll = true;
	run_ok(&r, &o);
	if (r.async)
		expect_refused(&r, &o, w, -EOPNOTSUPP);
	else
		expect_done(&r, &o, w);

	r.no_poll = false;
	run_ok(&r, &o);
	expect_done(&r, &o, w);
}
END_TEST

static Suite *align_suite(void)
{
	Suite *s = suite_create("iomap_align");
	TCase *tc = sim_tcase("align");

	tcase_add_loop_test(tc, test_misaligned_offset_refused, 0, NR_WAYS);
	tcase_add_loop_test(tc, test_sector_offsets_accepted, 0, NR_WAYS);
	tcase_add_loop_test(tc, test_mask3_device, 0, NR_WAYS);
	tcase_add_loop_test(tc, test_mask4095_device, 0, NR_WAYS);
	tcase_add_loop_test(tc, test_misaligned_second_segment, 0, NR_WAYS);
	tcase_add_loop_test(tc, test_misaligned_offset_only, 0, NR_WAYS);
	tcase_add_loop_test(tc, test_misaligned_segment_lengths, 0, NR_WAYS);
	tcase_add_loop_test(tc, test_single_bvec_fast_path, 0, NR_WAYS);
	tcase_add_loop_test(tc, test_kernel_iterators, 0, NR_WAYS);
	tcase_add_loop_test(tc, test_no_poll_device, 0, NR_WAYS);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(align_suite)
