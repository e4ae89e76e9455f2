// SPDX-License-Identifier: GPL-2.0-only
/*
 * Direct writes ended through ioends (G-54): testfs's --dops ioend plays
 * XFS's zoned write path.  A block-aligned write gets an
 * IOMAP_F_ANON_WRITE mapping, ->submit_io places each bio on new blocks
 * and makes it an ioend of iomap_ioend_bioset, and the bio's end queues
 * the ioend to testfs's ioend worker, which remaps the range and calls
 * iomap_finish_ioends() -> iomap_finish_ioend_direct(): the bio's share
 * of the dio ends there with inline_completion, so the dio completes in
 * that worker unless an error or cached pages set IOMAP_DIO_COMP_WORK
 * again (G-49, G-51).  Code without iomap_finish_ioend_direct() has none
 * of this: every case is N/A there (tests/harness/expect.c).
 */
#include <stdlib.h>
#include <sim/stats.h>
#include "iomap_common.h"

/* code without the flag has no ioend completion: every case is N/A */
#ifdef IOMAP_F_ANON_WRITE
#define ANON_WRITE IOMAP_F_ANON_WRITE
#else
#define ANON_WRITE 0
#endif

/* A block-aligned write of 16 KiB at 8 KiB, the out-of-place kind. */
static void ioend_req(struct testfs_request *r, bool async)
{
	req_write(r, 8192, 16384, async);
	r->dops = TESTFS_DOPS_IOEND;
}

/* The first ->iomap_begin went out of place, and every bio via the fs. */
static void expect_out_of_place(const struct testfs_outcome *o)
{
	const struct testfs_cb *cb = cb_at(o, 0);

	ck_assert_int_eq(cb->op, TESTFS_CB_BEGIN);
	ck_assert_msg(cb->iomap.flags & ANON_WRITE,
		      "mapping flags 0x%x: no IOMAP_F_ANON_WRITE",
		      cb->iomap.flags);
	ck_assert_uint_gt(o->bios, 0);
	ck_assert_uint_eq(o->submit_io_calls, o->bios);
	ck_assert_uint_eq(o->bios_dops_set, o->bios);
	ck_assert_uint_eq(o->bios_fs_bio_set, 0);
	ck_assert_uint_eq(o->allocations, o->bios);
}

/*
 * covers G-54: a write through ioends lands on new blocks, the file maps
 * them once the ioend worker ran, and a read returns what was written.
 */
START_TEST(test_write_reads_back)
{
	struct testfs *tf = tf_mkfs(NULL, 0, TESTFS_DOPS_IOEND);
	u8 *w = aligned_alloc(4096, 16384), *rd = aligned_alloc(4096, 16384);
	struct testfs_extent before, after;

	for (unsigned int i = 0; i < 16384; i++)
		w[i] = (u8)(i * 13 + 7);
	ck_assert(testfs_lookup(tf, 8192, &before));
	ck_assert_int_eq(tf_dio(tf, true, 8192, w, 16384), 16384);
	ck_assert_uint_ge(tf->ioends, 1);
	ck_assert(testfs_lookup(tf, 8192, &after));
	ck_assert_int_eq(after.type, IOMAP_MAPPED);
	ck_assert_msg(after.addr != before.addr + (8192 - before.off),
		      "the write went in place (addr 0x%llx)",
		      (unsigned long long)after.addr);
	memset(rd, 0, 16384);
	ck_assert_int_eq(tf_dio(tf, false, 8192, rd, 16384), 16384);
	ck_assert_msg(!memcmp(w, rd, 16384), "read back differs");
	free(w);
	free(rd);
	testfs_destroy(tf);
}
END_TEST

/*
 * covers G-54, G-51, G-50: an async overwrite completes in the ioend
 * worker: inline_completion drops the COMP_WORK nothing re-sets, so
 * ki_complete runs there, not on s_dio_done_wq.  A sync kiocb waits: the
 * worker only wakes it, and the completion runs in the submitter.
 */
START_TEST(test_completion_context_async_sync)
{
	enum iomap_dio_comp_ctx want = _i ? IOMAP_DIO_COMP_IOEND_WORKER :
					    IOMAP_DIO_COMP_SUBMITTER;
	struct testfs_request r;
	struct testfs_outcome o;

	ioend_req(&r, _i);
	run_ret(&r, &o, 16384);
	ck_assert_int_eq(o.queued, r.async);
	ck_assert_int_eq(o.completion, want);
	if (r.async)
		ck_assert_int_eq(o.ki_complete_ctx, want);
	ck_assert_int_eq(o.punted, 0);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	ck_assert_int_eq(o.ki_pos, r.pos + 16384);
	expect_out_of_place(&o);
}
END_TEST

/*
 * covers G-54: a write past EOF sets COMP_WORK at entry (the size update
 * needs process context), which inline_completion clears: the ioend
 * worker is that context, and ->end_io extends i_size there.
 */
START_TEST(test_async_extending_write_in_ioend_worker)
{
	struct testfs_request r;
	struct testfs_outcome o;

	ioend_req(&r, true);
	r.pos = r.size;
	run_ret(&r, &o, 16384);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_IOEND_WORKER);
	ck_assert_int_eq(o.punted, 0);
	ck_assert_int_eq(o.i_size, r.size + 16384);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	ck_assert_uint_eq(o.end_io_calls, 1);
	expect_out_of_place(&o);
}
END_TEST

/*
 * covers G-54, G-51: cached pages of the file set COMP_WORK again after
 * inline_completion cleared it, and the dio is punted to s_dio_done_wq.
 */
START_TEST(test_cached_pages_punt_to_workqueue)
{
	struct testfs_request r;
	struct testfs_outcome o;

	ioend_req(&r, true);
	req_page(&r, 40, 0);
	run_ret(&r, &o, 16384);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_WORKQUEUE);
	ck_assert_int_eq(o.ki_complete_ctx, IOMAP_DIO_COMP_WORKQUEUE);
	ck_assert_int_eq(o.punted, 1);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/*
 * covers G-54, G-49, G-51: a device error reaches the dio through the
 * ioend's io_error (iomap_finish_ioends(ioend, error)); an error sets
 * COMP_WORK again, so an async dio is punted, and a sync one returns it.
 */
START_TEST(test_device_error_via_io_error)
{
	struct testfs_request r;
	struct testfs_outcome o;

	ioend_req(&r, _i);
	req_fault(&r, "bio-error:1:NOSPC");
	run_ret(&r, &o, -ENOSPC);
	if (r.async) {
		ck_assert(o.queued);
		ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_WORKQUEUE);
		ck_assert_int_eq(o.ki_complete_ret, -ENOSPC);
		ck_assert_int_eq(o.punted, 1);
	} else {
		ck_assert(!o.queued);
		ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_SUBMITTER);
	}
	ck_assert_int_eq(o.ki_pos, r.pos);
	ck_assert_int_eq(o.fserror_reports, FSERROR_REPORTS(1));
	expect_out_of_place(&o);
}
END_TEST

/*
 * covers G-54: iomap_finish_ioend_direct() returns the bio's bvec count
 * (read before the bio is put), which iomap_finish_ioends() batches by:
 * a bvec iterator of 4 pages is one bio of 4 bvecs.
 */
START_TEST(test_bvec_count_returned)
{
	struct testfs_request r;
	struct testfs_outcome o;
	long before = sim_stat_get("iomap_ioend_bvecs");

	ioend_req(&r, true);
	r.iter = IOMAPSIM_ITER_BVEC;
	run_ret(&r, &o, 16384);
	ck_assert_uint_eq(o.bios, 1);
	ck_assert_int_eq(sim_stat_get("iomap_ioend_bvecs") - before, 4);
}
END_TEST

/*
 * covers G-54, G-30: a write that is not block aligned stays in place
 * (XFS would buffer it), still ended through an ioend, with its sub-block
 * zeroing bios (G-30, G-38) going the same way; reads go without dops,
 * as XFS's do.
 */
START_TEST(test_unaligned_in_place_and_reads)
{
	struct testfs_request r;
	struct testfs_outcome o;

	ioend_req(&r, true);
	req_map(&r, IOMAP_HOLE, 0, 65536, 0);
	r.pos = 8192 + 512;
	r.len = 1024;
	run_ret(&r, &o, 1024);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_IOEND_WORKER);
	ck_assert(!(cb_at(&o, 0)->iomap.flags & ANON_WRITE));
	ck_assert_uint_eq(o.bios, 3);
	ck_assert_uint_eq(o.bios_dops_set, 3);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);

	ioend_req(&r, true);
	r.write = false;
	run_ret(&r, &o, 16384);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_END_IO);
	ck_assert_uint_eq(o.submit_io_calls, 0);
	ck_assert_uint_eq(o.bios_dops_set, 0);
}
END_TEST

static Suite *ioend_suite(void)
{
	Suite *s = suite_create("iomap_ioend");
	TCase *tc = sim_tcase("ioend");

	tcase_add_test(tc, test_write_reads_back);
	tcase_add_loop_test(tc, test_completion_context_async_sync, 0, 2);
	sim_tcase_add(tc, test_async_extending_write_in_ioend_worker,
		      test_cached_pages_punt_to_workqueue);
	tcase_add_loop_test(tc, test_device_error_via_io_error, 0, 2);
	sim_tcase_add(tc, test_bvec_count_returned,
		      test_unaligned_in_place_and_reads);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(ioend_suite)
