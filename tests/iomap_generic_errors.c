// SPDX-License-Identifier: GPL-2.0-only
/*
 * The generic direct I/O path, docs/rules.md 3.G "After the loop": what
 * the walk's result becomes (G-42..G-47, G-56): the EOF revert, PARTIAL
 * and the -ENOTBLK fallback with the progress they keep, errors from
 * ->iomap_begin and from bios (the first one wins and discards the
 * progress), and -EAGAIN, which is not reported as a file error.
 */
#include <linux/bio.h>
#include "iomap_generic.h"

/*
 * An 8 KiB read from the start over two mappings, the page of the second
 * one not pinning: the first mapping is done when the fault comes.
 */
static void unpinned_second_mapping_req(struct testfs_request *r)
{
	gen_req(r);
	r->pos = 0;
	r->len = 8192;
	req_map(r, IOMAP_MAPPED, 0, 4096, 0);
	req_map(r, IOMAP_MAPPED, 4096, 65536, 0);
	pin_first_page_only(r);
}

/* covers G-42, G-55: a read across an unaligned EOF is trimmed */
START_TEST(test_read_eof_trim_unaligned)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.size = (256 << 10) - 100;
	r.pos = (256 << 10) - 8192;
	run_ret(&r, &o, 8192 - 100);
	ck_assert_int_eq(o.ki_pos, r.size);
	ck_assert_uint_eq(o.iter_count, 100); /* reverted past EOF */
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* covers G-42: a read past the last extent zero-fills, then trims */
START_TEST(test_read_eof_trim_hole_after)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.pos = (256 << 10) - 4096;
	run_ret(&r, &o, 4096);
	ck_assert_uint_eq(o.iter_count, 4096);
	ck_assert_uint_eq(o.bios, 1);
	ck_assert_uint_eq(o.begin_calls, 2);
}
END_TEST

/* covers G-49, G-56: one failing bio of three fails the whole read */
START_TEST(test_read_bio_error_multi)
{
	struct testfs_request r;
	struct testfs_outcome o;

	three_extents_req(&r, 49152);
	req_fault(&r, "bio-error:2:MEDIUM");
	run_ret(&r, &o, -ENODATA);
	ck_assert_uint_eq(o.bios, 3);
	ck_assert_int_eq(o.ki_pos, 0);
	ck_assert_int_eq(o.fserror_reports, FSERROR_REPORTS(1));
	if (IOMAPSIM_FSERROR) {
		ck_assert_int_eq(o.fserror_last.type, FSERR_DIRECTIO_READ);
		ck_assert_int_eq(o.fserror_last.len, 49152);
	}
}
END_TEST

/* covers G-47: with several failing bios the first error wins */
START_TEST(test_first_error_wins)
{
	struct testfs_request r;
	struct testfs_outcome o;

	three_extents_req(&r, 49152);
	req_fault(&r, "bio-error:1:NOSPC");
	req_fault(&r, "bio-error:2:MEDIUM");
	run_ret(&r, &o, -ENOSPC);
}
END_TEST

/* covers G-43: PARTIAL turns a late -EFAULT into the bytes done so far */
START_TEST(test_partial)
{
	struct testfs_request r;
	struct testfs_outcome o;

	unpinned_second_mapping_req(&r);
	r.dio_flags = IOMAP_DIO_PARTIAL;
	run_ret(&r, &o, 4096);
	ck_assert_int_eq(o.ki_pos, 4096);
	ck_assert_uint_eq(o.iter_count, 4096);
	ck_assert_int_eq(o.fserror_reports, 0);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);

	/* without PARTIAL the fault is the result, and is reported */
	r.dio_flags = 0;
	run_ret(&r, &o, -EFAULT);
	ck_assert_int_eq(o.ki_pos, 0);
	ck_assert_int_eq(o.fserror_reports, FSERROR_REPORTS(1));
}
END_TEST

/* covers G-43: PARTIAL forces a wait for an async request (not NOWAIT) */
START_TEST(test_partial_async_waits)
{
	struct testfs_request r;
	struct testfs_outcome o;

	unpinned_second_mapping_req(&r);
	r.dio_flags = IOMAP_DIO_PARTIAL;
	r.async = true;
	run_ok(&r, &o);
	ck_assert(!o.queued);
	ck_assert_int_eq(o.ret, 4096);
	ck_assert_int_eq(o.ki_complete_calls, 0);

	r.ki_flags = IOCB_NOWAIT; /* no forced wait: completes async */
	run_ok(&r, &o);
	ck_assert(o.queued);
	ck_assert_int_eq(o.ret, 4096);
}
END_TEST

/* covers G-44: -ENOTBLK from a later ->iomap_begin returns the progress */
START_TEST(test_begin_notblk_partial)
{
	struct testfs_request r;
	struct testfs_outcome o;

	three_extents_req(&r, 32768);
	r.begin_error = -ENOTBLK;
	r.begin_error_nth = 2;
	run_ret(&r, &o, 16384);
	ck_assert_int_eq(o.ki_pos, 16384);
	ck_assert_int_eq(o.fserror_reports, 0);

	r.begin_error_nth = 1; /* nothing done: 0 */
	run_ret(&r, &o, 0);
	ck_assert_int_eq(o.ki_pos, 0);
}
END_TEST

/* covers G-44: the -ENOTBLK fallback forces the wait even when async */
START_TEST(test_begin_notblk_async_waits)
{
	struct testfs_request r;
	struct testfs_outcome o;

	three_extents_req(&r, 32768);
	r.async = true;
	r.begin_error = -ENOTBLK;
	r.begin_error_nth = 2;
	run_ok(&r, &o);
	ck_assert(!o.queued);
	ck_assert_int_eq(o.ret, 16384);
	ck_assert_int_eq(o.ki_complete_calls, 0);
}
END_TEST

/* covers G-45, G-56: a later ->iomap_begin error discards the progress */
START_TEST(test_begin_error_later)
{
	struct testfs_request r;
	struct testfs_outcome o;

	three_extents_req(&r, 32768);
	r.begin_error = -EIO;
	r.begin_error_nth = 2;
	run_ret(&r, &o, -EIO);
	ck_assert_int_eq(o.ki_pos, 0);
	ck_assert_uint_eq(o.bios, 1);
	ck_assert_int_eq(o.fserror_reports, FSERROR_REPORTS(1));
}
END_TEST

/* covers G-49, K-14: a failed write bio is -EIO, reported as a write */
START_TEST(test_write_bio_error)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.async = _i;
	req_fault(&r, "bio-error:1");
	run_ret(&r, &o, -EIO);
	ck_assert_int_eq(o.ki_pos, 8192);
	ck_assert_int_eq(o.fserror_reports, FSERROR_REPORTS(1));
	if (IOMAPSIM_FSERROR)
		ck_assert_int_eq(o.fserror_last.type, FSERR_DIRECTIO_WRITE);
	if (_i)
		ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_WORKQUEUE);
}
END_TEST

/*
 * covers G-43 on its other side: with PARTIAL, a fault before anything
 * was done is still the fault, not 0.
 */
START_TEST(test_partial_no_progress)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.pos = 0;
	r.len = 8192;
	r.short_pin_nth = 1;
	r.short_pin_bytes = 0;
	r.dio_flags = IOMAP_DIO_PARTIAL;
	run_ret(&r, &o, -EFAULT);
	ck_assert_int_eq(o.ki_pos, 0);
}
END_TEST

/*
 * covers K-14: a bio refused with BLK_STS_AGAIN makes the request -EAGAIN,
 * which is "try again", not a file error: nothing is reported.
 */
START_TEST(test_again_not_reported)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.no_simple = _i;
	r.len = 4096;
	req_fault(&r, "bio-error:1:AGAIN");
	run_ret(&r, &o, -EAGAIN);
	ck_assert_int_eq(o.fserror_reports, 0);
}
END_TEST

static Suite *generic_errors_suite(void)
{
	Suite *s = suite_create("iomap_generic_errors");
	TCase *tc;

	tc = sim_tcase("reads");
	sim_tcase_add(tc, test_read_eof_trim_unaligned,
		      test_read_eof_trim_hole_after, test_read_bio_error_multi,
		      test_first_error_wins, test_partial,
		      test_partial_async_waits, test_begin_notblk_partial,
		      test_begin_notblk_async_waits, test_begin_error_later);
	suite_add_tcase(s, tc);

	tc = sim_tcase("writes");
	tcase_add_test(tc, test_partial_no_progress);
	tcase_add_loop_test(tc, test_again_not_reported, 0, 2);
	tcase_add_loop_test(tc, test_write_bio_error, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(generic_errors_suite)
