// SPDX-License-Identifier: GPL-2.0-only
/*
 * The generic direct I/O path, docs/rules.md 3.G "Bio completion and the
 * completion ways" and "iomap_dio_complete" (G-48..G-61): in the
 * submitter, inline in end_io or punted to s_dio_done_wq (errors, size
 * changes, new blocks, cached pages), that workqueue made on first need,
 * bounce buffers copied back and the zero folio kept, done_before, the
 * post-write invalidation, a failing sync, and what the workqueue leaves
 * in kiocb->private.
 */
#include <linux/bio.h>
#include "iomap_generic.h"

/* covers G-17, G-51: an async read completes inline from end_io */
START_TEST(test_async_read_inline)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.async = true;
	run_ok(&r, &o);
	ck_assert(o.queued);
	ck_assert_int_eq(o.ret, 8192);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_END_IO);
	ck_assert_int_eq(o.punted, 0);
	ck_assert(o.wq_created); /* G-17: created for reads too */
	ck_assert(!o.private_at_complete);
}
END_TEST

/* covers G-51: an async read error goes to the workqueue */
START_TEST(test_async_read_error_punted)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.async = true;
	req_fault(&r, "bio-error:1");
	run_ok(&r, &o);
	ck_assert(o.queued);
	ck_assert_int_eq(o.ret, -EIO);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_WORKQUEUE);
	ck_assert_int_eq(o.punted, 1);
}
END_TEST

/* covers G-48a: an async read of holes only never calls ki_complete */
START_TEST(test_async_holes_complete_in_submitter)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.async = true;
	req_map(&r, IOMAP_HOLE, 0, 65536, 0);
	run_ok(&r, &o);
	ck_assert(!o.queued);
	ck_assert_int_eq(o.ret, 8192);
	ck_assert_int_eq(o.ki_complete_calls, 0);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_SUBMITTER);
	ck_assert(o.wq_created);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_ZERO);
}
END_TEST

/* covers G-49: a bounced read from a kernel buffer */
START_TEST(test_bounce_read_kvec)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.iter = IOMAPSIM_ITER_KVEC;
	r.dio_flags = IOMAP_DIO_BOUNCE;
	run_ret(&r, &o, 8192);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	ck_assert_uint_eq(o.bios, 1);
}
END_TEST

/*
 * A bounced read into user pages unpins (and dirties) them in bio
 * completion context, which may sleep: the kernel requires the file
 * system to move such completions to process context.  Without that the
 * simulator reports each page's sleeping lock.
 */
START_TEST(test_bounce_read_user_needs_offload)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.dio_flags = IOMAP_DIO_BOUNCE;
	run_expect(&r, &o, 0, 2);
	ck_assert_int_eq(o.ret, 8192);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);

	r.complete = IOMAPSIM_COMPLETE_INLINE;
	run_expect(&r, &o, 0, 2);
}
END_TEST

/* covers G-57: done_before is added to the result, never to ki_pos */
START_TEST(test_done_before)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.done_before = 4096;
	run_ret(&r, &o, 8192 + 4096);
	ck_assert_int_eq(o.ki_pos, 8192 + 8192);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* covers G-57: done_before is not added to an error */
START_TEST(test_done_before_error)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.done_before = 4096;
	req_fault(&r, "bio-error:1");
	run_ret(&r, &o, -EIO);
}
END_TEST

/* covers G-51: an async overwrite with no cached pages completes inline */
START_TEST(test_async_overwrite_inline)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.async = true;
	run_ok(&r, &o);
	ck_assert(o.queued);
	ck_assert_int_eq(o.ret, 4096);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_END_IO);
	ck_assert_int_eq(o.punted, 0);
}
END_TEST

/* covers G-51: cached pages anywhere in the file send it to the queue */
START_TEST(test_async_overwrite_cached_pages)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.async = true;
	req_page(&r, 40, 0);
	run_ret(&r, &o, 4096);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_WORKQUEUE);
	ck_assert_int_eq(o.punted, 1);
	ck_assert_uint_eq(o.pc.invalidated, 0); /* page 40 is out of range */
}
END_TEST

/* covers G-27, G-51: new blocks need completion work */
START_TEST(test_async_write_hole_punted)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.async = true;
	req_map(&r, IOMAP_HOLE, 0, 65536, 0);
	run_ret(&r, &o, 4096);
	ck_assert_uint_eq(o.dev.write_bios, 1); /* aligned: nothing to zero */
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_WORKQUEUE);
}
END_TEST

/* covers G-14: an extending async write completes in the workqueue */
START_TEST(test_async_extend_end_io)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.async = true;
	r.dops = TESTFS_DOPS_END_IO;
	r.pos = (256 << 10) - 2048;
	r.len = 4096;
	run_ok(&r, &o);
	ck_assert(o.queued);
	ck_assert_int_eq(o.ret, 4096);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_WORKQUEUE);
	ck_assert_int_eq(o.i_size, (256 << 10) + 2048);
	ck_assert_uint_eq(o.end_io_calls, 1);
}
END_TEST

/*
 * covers G-14 alone: an async write past EOF into blocks already mapped
 * (no IOMAP_F_NEW, no ->end_io, no O_DSYNC, no page cache: no other
 * reason to punt) still completes in the workqueue, since the size update
 * needs process context.  One block short of the edge it does not.
 */
START_TEST(test_async_extend_mapped_isolated)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.async = true;
	req_map(&r, IOMAP_MAPPED, 0, 512 << 10, 0);
	r.pos = (256 << 10) - 4096 * _i;
	r.len = 4096;
	run_ok(&r, &o);
	ck_assert(o.queued);
	ck_assert_int_eq(o.ret, 4096);
	ck_assert_uint_eq(o.allocations, 0);
	ck_assert_uint_eq(o.dev.write_bios, 1);
	ck_assert_int_eq(o.completion,
			 _i ? IOMAP_DIO_COMP_END_IO : IOMAP_DIO_COMP_WORKQUEUE);
	ck_assert_int_eq(o.punted, _i ? 0 : 1);
}
END_TEST

/* covers G-55, K-10: pages cached during the write are dropped after */
START_TEST(test_post_write_invalidation)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.pc_on_begin = true;
	r.pc_begin = (struct testfs_pc_page){ 2, 0 };
	run_ret(&r, &o, 4096);
	ck_assert_uint_eq(o.pc.invalidated, 1);
	ck_assert_uint_eq(o.pc.stale_warnings, 0);

	/* one that will not go only warns: the write still worked */
	r.pc_begin.flags = SIM_PC_BUSY;
	run_ret(&r, &o, 4096);
	ck_assert_uint_eq(o.pc.stale_warnings, 1);
}
END_TEST

/* covers G-58: a failing sync is the result, though ki_pos moved */
START_TEST(test_fsync_error)
{
	struct testfs_request r;
	struct testfs_outcome o;

	dsync_req(&r, true, false);
	r.fsync_error = -EIO;
	run_ret(&r, &o, -EIO);
	ck_assert_int_eq(o.ki_pos, 8192 + 4096);
	ck_assert_int_eq(o.fserror_reports, 0); /* the dio itself succeeded */
}
END_TEST

/* covers G-49: a bounced write */
START_TEST(test_bounce_write)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.len = 16384;
	r.dio_flags = IOMAP_DIO_BOUNCE;
	r.async = _i;
	run_ret(&r, &o, 16384);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/*
 * covers G-30, G-38, G-40: a bounced sub-block write past EOF sends a tail
 * zeroing bio built on the shared zero folio through the bouncing end_io;
 * unbouncing frees the bounce pages but never the zero folio, as the
 * kernel's bio_free_folios() skips it (fuzz finding, formerly K4).
 */
START_TEST(test_bounce_write_zeroing_keeps_zero_folio)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.size = 4096;
	req_map(&r, IOMAP_MAPPED, 0, 65536, 0);
	r.pos = 4096;
	r.len = 512;
	r.dio_flags = IOMAP_DIO_BOUNCE;
	run_ret(&r, &o, 512);
	ck_assert_uint_eq(o.dev.write_bios, 2); /* data, then tail zeroing */
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/*
 * covers G-27 alone: an async write into a hole inside EOF allocates new
 * blocks (IOMAP_F_NEW), whose recording needs process context: the
 * workqueue, with no size change, no ->end_io and no O_DSYNC to add a
 * reason of their own.
 */
START_TEST(test_async_new_blocks_punt)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.async = true;
	req_map(&r, IOMAP_HOLE, 0, 65536, 0);
	req_map(&r, IOMAP_MAPPED, 65536, (256 << 10) - 65536, 0);
	r.pos = 8192;
	r.len = 4096;
	run_ret(&r, &o, 4096);
	ck_assert_uint_eq(o.allocations, 1);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_WORKQUEUE);
}
END_TEST

/*
 * covers G-53: a completion punted to the workqueue leaves kiocb->private
 * as it was (the polled bio), where an inline one clears it first.
 */
START_TEST(test_workqueue_keeps_private)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.len = 4096;
	r.async = true;
	r.ki_flags = IOCB_HIPRI;
	run_ok(&r, &o);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_END_IO);
	ck_assert(!o.private_at_complete);

	req_fault(&r, "bio-error:1:IOERR");
	run_ret(&r, &o, -EIO);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_WORKQUEUE);
	ck_assert(o.private_at_complete);
}
END_TEST

/*
 * covers K-06: s_dio_done_wq is made by the first async request and never
 * for sync ones.
 */
START_TEST(test_dio_done_wq_lazy)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	run_ok(&r, &o);
	ck_assert(!o.wq_created);
	r.async = true;
	run_ok(&r, &o);
	ck_assert(o.wq_created);
}
END_TEST

static Suite *generic_completion_suite(void)
{
	Suite *s = suite_create("iomap_generic_completion");
	TCase *tc;

	tc = sim_tcase("reads");
	sim_tcase_add(tc, test_async_read_inline, test_async_read_error_punted,
		      test_async_holes_complete_in_submitter,
		      test_bounce_read_kvec,
		      test_bounce_read_user_needs_offload, test_done_before,
		      test_done_before_error);
	suite_add_tcase(s, tc);

	tc = sim_tcase("writes");
	sim_tcase_add(tc, test_async_overwrite_inline,
		      test_async_overwrite_cached_pages,
		      test_async_write_hole_punted, test_async_extend_end_io,
		      test_async_new_blocks_punt, test_workqueue_keeps_private,
		      test_dio_done_wq_lazy);
	tcase_add_loop_test(tc, test_async_extend_mapped_isolated, 0, 2);
	sim_tcase_add(tc, test_post_write_invalidation, test_fsync_error);
	tcase_add_loop_test(tc, test_bounce_write, 0, 2);
	tcase_add_test(tc, test_bounce_write_zeroing_keeps_zero_folio);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(generic_completion_suite)
