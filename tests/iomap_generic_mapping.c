// SPDX-License-Identifier: GPL-2.0-only
/*
 * The generic direct I/O path, docs/rules.md 3.G "Mapping loop": how
 * iomap_iter() walks the mappings and iomap_dio_iter() dispatches them
 * (G-19..G-22, G-28, G-41, N-02): one mapping per extent, holes and
 * unwritten extents zero-filled, inline data copied, delalloc refused,
 * the iterator cut to each mapping, IOCB_HIPRI kept for the first mapping
 * only, ->iomap_end errors after progress.
 */
#include <linux/bio.h>
#include "iomap_generic.h"

/* covers G-19, G-20, G-41: one mapping per extent, one bio per mapping */
START_TEST(test_read_multi_extent)
{
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	gen_req(&r);
	r.pos = 4096;
	r.len = 40960;
	three_extents(&r);
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, 40960);
	ck_assert_uint_eq(o.bios, 3);
	ck_assert_uint_eq(o.begin_calls, 3);
	ck_assert_uint_eq(o.end_calls, 3);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	/* N-02: ->iomap_end sees each mapping's progress */
	ck_assert_int_eq(cb_at(&o, 1)->op, TESTFS_CB_END);
	ck_assert_int_eq(cb_at(&o, 1)->pos, 4096);
	ck_assert_int_eq(cb_at(&o, 1)->written, 12288);
	ck_assert_int_eq(cb_at(&o, 3)->written, 16384);
	ck_assert_int_eq(cb_at(&o, 5)->written, 12288);
}
END_TEST

/* covers G-21: a hole between mapped extents reads as zeroes */
START_TEST(test_read_hole_between)
{
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	gen_req(&r);
	r.pos = 0;
	r.len = 49152;
	req_map(&r, IOMAP_MAPPED, 0, 16384, 0);
	req_map(&r, IOMAP_HOLE, 16384, 16384, 0);
	req_map(&r, IOMAP_MAPPED, 32768, 65536, 0);
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, 49152);
	ck_assert_uint_eq(o.bios, 2);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* covers G-20, G-21: unwritten extents read as zeroes, no bio */
START_TEST(test_read_unwritten)
{
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	gen_req(&r);
	req_map(&r, IOMAP_UNWRITTEN, 0, 65536, 0);
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, 8192);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_ZERO);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_SUBMITTER);
}
END_TEST

/* covers G-22: inline data is copied, no bio */
START_TEST(test_read_inline)
{
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	gen_req(&r);
	r.pos = 0;
	req_map(&r, IOMAP_INLINE, 0, 16384, 0);
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, 8192);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* covers G-20: delalloc is -EIO, reported as a file error */
START_TEST(test_read_delalloc)
{
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	gen_req(&r);
	req_map(&r, IOMAP_DELALLOC, 0, 65536, 0);
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, -EIO);
	ck_assert_int_eq(o.fserror_reports, FSERROR_REPORTS(1));
	ck_assert_int_eq(o.ki_pos, 8192);
}
END_TEST

/* covers G-19, G-37: a single-bio async HIPRI read is polled */
START_TEST(test_async_hipri_single_bio)
{
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	gen_req(&r);
	r.async = true;
	r.ki_flags = IOCB_HIPRI;
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, 8192);
	ck_assert_uint_eq(o.dev.polled_bios, 1);
	ck_assert(!(o.ki_flags_after & IOCB_HIPRI)); /* G-19 */
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_END_IO);
}
END_TEST

/* covers G-19, G-36: only the first mapping's bio can be polled */
START_TEST(test_async_hipri_multi_mapping)
{
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	gen_req(&r);
	r.async = true;
	r.ki_flags = IOCB_HIPRI;
	r.pos = 0;
	r.len = 32768;
	three_extents(&r);
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, 32768);
	ck_assert_uint_eq(o.bios, 2);
	ck_assert_uint_eq(o.dev.polled_bios, 1);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* covers N-02: ->iomap_end errors after progress are ignored */
START_TEST(test_end_error_ignored)
{
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	gen_req(&r);
	r.end_error = -EIO;
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, 8192);
}
END_TEST

/* covers G-22: inline writes copy into the inode and extend i_size */
START_TEST(test_write_inline)
{
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	write_req(&r);
	r.size = 1000;
	r.pos = 2048;
	r.len = 1024;
	req_map(&r, IOMAP_INLINE, 0, 4096, 0);
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, 1024);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.i_size, 3072);
}
END_TEST

/*
 * Inline data of any length: a read past it gets the bytes up to
 * i_size; a write inside it lands in the inline buffer; neither builds a
 * bio.
 */
START_TEST(test_inline_byte_length)
{
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	gen_req(&r);
	r.size = 100;
	r.pos = 0;
	r.len = 512;
	req_map(&r, IOMAP_INLINE, 0, 100, 0);
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, 100);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);

	write_req(&r);
	r.size = 50;
	r.pos = 60;
	r.len = 40;
	req_map(&r, IOMAP_INLINE, 0, 100, 0);
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, 40);
	ck_assert_int_eq(o.i_size, 100);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);

	/*
	 * The rest of inline data's block is its own: a write there would
	 * need the data moved out to a block first (gfs2's unstuffing),
	 * which testfs does not do: -EOPNOTSUPP, and no block allocated
	 * over the inline data (fuzz/regressions/dio/
	 * runner-inline-tail-block-write).
	 */
	r.size = 262144;
	r.pos = 3584;
	r.len = 8192;
	r.nr_map = 0;
	req_map(&r, IOMAP_INLINE, 0, 3328, 0);
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, -EOPNOTSUPP);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_uint_eq(o.allocations, 0);
}
END_TEST

/*
 * covers G-28: the iterator is cut to each mapping while its bio is
 * built (a 4 KiB mapping gives a 4 KiB bio even though 8 KiB are asked
 * for) and given back the rest after (the hole then reads as zeroes).
 */
START_TEST(test_iter_truncated_per_mapping)
{
	struct iomapsim_request r;
	struct iomapsim_outcome o;

	gen_req(&r);
	r.pos = 0;
	r.len = 8192;
	req_map(&r, IOMAP_MAPPED, 0, 4096, 0);
	req_map(&r, IOMAP_HOLE, 4096, 4096, 0);
	req_map(&r, IOMAP_MAPPED, 8192, (256 << 10) - 8192, 0);
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, 8192);
	ck_assert_uint_eq(o.bios, 1);
	ck_assert_uint_eq(o.dev.read_bytes, 4096);
	ck_assert_uint_eq(o.iter_count, 0);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

static Suite *generic_mapping_suite(void)
{
	Suite *s = suite_create("iomap_generic_mapping");
	TCase *tc;

	tc = sim_tcase("reads");
	tcase_add_test(tc, test_read_multi_extent);
	tcase_add_test(tc, test_read_hole_between);
	tcase_add_test(tc, test_read_unwritten);
	tcase_add_test(tc, test_read_inline);
	tcase_add_test(tc, test_read_delalloc);
	tcase_add_test(tc, test_async_hipri_single_bio);
	tcase_add_test(tc, test_async_hipri_multi_mapping);
	tcase_add_test(tc, test_end_error_ignored);
	suite_add_tcase(s, tc);

	tc = sim_tcase("writes");
	tcase_add_test(tc, test_iter_truncated_per_mapping);
	tcase_add_test(tc, test_write_inline);
	tcase_add_test(tc, test_inline_byte_length);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(generic_mapping_suite)
