// SPDX-License-Identifier: GPL-2.0-only
/*
 * The generic direct I/O path, docs/rules.md 3.G "Entry and early returns"
 * (G-01..G-18): what iomap_dio_rw() makes of __iomap_dio_rw()'s result,
 * the dio's first state, reads at EOF, NOWAIT, OVERWRITE_ONLY, O_SYNC and
 * O_DSYNC, page-cache writeback and invalidation, and inode_dio_begin()
 * once every early check passed.
 */
#include <linux/bio.h>
#include "iomap_generic.h"

/*
 * Run @r, which must return @ret before it maps anything: the checks
 * before the loop decide it, ->iomap_begin is never called.
 */
static void run_before_mapping(const struct testfs_request *r,
			       struct testfs_outcome *o, ssize_t ret)
{
	run_ret(r, o, ret);
	ck_assert_uint_eq(o->begin_calls, 0);
}

/* covers G-07: a read at or past EOF returns 0, touching nothing */
START_TEST(test_read_at_eof)
{
	static const loff_t pos[] = { 256 << 10, (256 << 10) + 4096 };
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.pos = pos[_i];
	run_before_mapping(&r, &o, 0);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_NONE);
	ck_assert_int_eq(o.ki_pos, pos[_i]);
	ck_assert_uint_eq(o.iter_count, 8192);
}
END_TEST

/* covers G-05: FORCE_WAIT makes an async request wait and return */
START_TEST(test_force_wait)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.async = true;
	r.dio_flags = IOMAP_DIO_FORCE_WAIT;
	run_ok(&r, &o);
	ck_assert(!o.queued);
	ck_assert_int_eq(o.ret, 8192);
	ck_assert_int_eq(o.ki_complete_calls, 0);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_SUBMITTER);
	ck_assert(!o.wq_created);
}
END_TEST

/* covers G-09, K-07: NOWAIT read over a dirty page is -EAGAIN up front */
START_TEST(test_read_nowait_dirty)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.ki_flags = IOCB_NOWAIT;
	req_page(&r, 3, SIM_PC_DIRTY);
	run_before_mapping(&r, &o, -EAGAIN);
	ck_assert_int_eq(o.fserror_reports, 0);
}
END_TEST

/* covers G-06: NOWAIT reaches ->iomap_begin as IOMAP_NOWAIT */
START_TEST(test_read_nowait_flags)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.ki_flags = IOCB_NOWAIT;
	run_ret(&r, &o, 8192);
	ck_assert_uint_eq(cb_at(&o, 0)->flags, IOMAP_DIRECT | IOMAP_NOWAIT);
}
END_TEST

/* covers G-03, G-17: allocation failures inside the call */
START_TEST(test_alloc_failures)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.alloc_fail_nth = 1; /* the dio */
	run_ret(&r, &o, -ENOMEM);
	ck_assert_int_eq(o.alloc_injected, 1);
	ck_assert_uint_eq(o.begin_calls, 0);

	r.async = true;
	r.alloc_fail_nth = 2; /* the completion workqueue */
	run_ok(&r, &o);
	ck_assert(!o.queued);
	ck_assert_int_eq(o.ret, -ENOMEM);
	ck_assert(!o.wq_created);
	ck_assert_uint_eq(o.begin_calls, 0);
}
END_TEST

/* covers G-11: OVERWRITE_ONLY refuses anything touching EOF up front */
START_TEST(test_overwrite_only_eof)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.dio_flags = IOMAP_DIO_OVERWRITE_ONLY;
	r.pos = (256 << 10) - 2048;
	run_before_mapping(&r, &o, -EAGAIN);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_NONE);
}
END_TEST

/*
 * covers G-11 on its edges: a write ending exactly at i_size is allowed,
 * one starting exactly at i_size, or ending one byte past it, is not.
 */
START_TEST(test_overwrite_only_eof_edges)
{
	static const struct {
		loff_t pos;
		size_t len;
		long ret;
	} c[] = {
		{ (256 << 10) - 4096, 4096, 4096 },
		{ (256 << 10) - 4096, 4096 + 512, -EAGAIN },
		{ 256 << 10, 4096, -EAGAIN },
	};
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.dio_flags = IOMAP_DIO_OVERWRITE_ONLY;
	req_map(&r, IOMAP_MAPPED, 0, 512 << 10, 0);
	r.pos = c[_i].pos;
	r.len = c[_i].len;
	run_ret(&r, &o, c[_i].ret);
	ck_assert_uint_eq(o.begin_calls, c[_i].ret > 0 ? 1 : 0);
	ck_assert_int_eq(o.i_size, 256 << 10);
}
END_TEST

/* covers G-11: a pure overwrite passes IOMAP_OVERWRITE_ONLY down */
START_TEST(test_overwrite_only_ok)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.dio_flags = IOMAP_DIO_OVERWRITE_ONLY;
	run_ret(&r, &o, 4096);
	ck_assert(cb_at(&o, 0)->flags & IOMAP_OVERWRITE_ONLY);
}
END_TEST

/* covers G-11: the file system refuses what would not be an overwrite */
START_TEST(test_overwrite_only_refused)
{
	static const u16 types[] = { IOMAP_HOLE, IOMAP_UNWRITTEN };
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.dio_flags = IOMAP_DIO_OVERWRITE_ONLY;
	req_map(&r, types[_i], 0, 65536, 0);
	run_ret(&r, &o, -EAGAIN);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.fserror_reports, 0);
}
END_TEST

/* covers G-06: a NOWAIT write that would allocate is -EAGAIN */
START_TEST(test_write_nowait_alloc)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.ki_flags = IOCB_NOWAIT;
	req_map(&r, IOMAP_HOLE, 0, 65536, 0);
	run_ret(&r, &o, -EAGAIN);
	ck_assert_uint_eq(o.allocations, 0);
	ck_assert_int_eq(o.fserror_reports, 0);
}
END_TEST

/* covers G-15, K-08: NOWAIT with any cached page in range is -EAGAIN */
START_TEST(test_write_nowait_cached)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.ki_flags = IOCB_NOWAIT;
	req_page(&r, 2, 0);
	run_before_mapping(&r, &o, -EAGAIN);
}
END_TEST

/* covers G-15, K-08: cached pages are written back and dropped first */
START_TEST(test_write_invalidates)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	req_page(&r, 2, SIM_PC_DIRTY);
	run_ret(&r, &o, 4096);
	ck_assert_uint_eq(o.pc.writebacks, 1);
	ck_assert_uint_eq(o.pc.invalidated, 1);
}
END_TEST

/* covers G-15: a page that cannot go means -ENOTBLK (buffered fallback) */
START_TEST(test_write_invalidate_busy)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	req_page(&r, 2, SIM_PC_BUSY);
	run_before_mapping(&r, &o, -ENOTBLK);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.fserror_reports, 0);
}
END_TEST

/* covers G-15: untorn (atomic) writes retry instead: -EAGAIN */
START_TEST(test_write_invalidate_busy_atomic)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	req_page(&r, 2, SIM_PC_BUSY);
	r.ki_flags = IOCB_ATOMIC;
	run_before_mapping(&r, &o, -EAGAIN);
}
END_TEST

/* covers K-09: a writeback error during invalidation is -ENOTBLK too */
START_TEST(test_write_invalidate_wb_error)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	req_page(&r, 2, SIM_PC_DIRTY | SIM_PC_WB_ERROR);
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, -ENOTBLK);
}
END_TEST

/* covers G-13: O_SYNC never writes through, it syncs everything */
START_TEST(test_sync_full)
{
	struct testfs_request r;
	struct testfs_outcome o;

	dsync_req(&r, true, true);
	r.ki_flags |= IOCB_SYNC;
	run_ret(&r, &o, 4096);
	ck_assert_uint_eq(o.dev.fua_bios, 0);
	ck_assert_uint_eq(o.fsync_calls, 1);
	ck_assert_int_eq(o.fsync_datasync, 0);
}
END_TEST

/* covers K-02: a synchronous mount makes every write dsync */
START_TEST(test_sync_mount)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.sync_mount = true;
	r.write_cache = true;
	run_ret(&r, &o, 4096);
	ck_assert_uint_eq(o.fsync_calls, 1);
}
END_TEST

/*
 * covers G-01: __iomap_dio_rw()'s NULL is 0 (an empty read), its error
 * pointer the errno (OVERWRITE_ONLY past EOF), and a dio is completed in
 * the submitter for a sync request.
 */
START_TEST(test_dio_rw_results)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.len = 0;
	run_ret(&r, &o, 0);
	ck_assert_int_eq(o.completions, 0);
	ck_assert_uint_eq(o.begin_calls, 0);

	write_req(&r);
	r.dio_flags = IOMAP_DIO_OVERWRITE_ONLY;
	r.pos = 256 << 10;
	run_ret(&r, &o, -EAGAIN);
	ck_assert_int_eq(o.completions, 0);

	gen_req(&r);
	run_ret(&r, &o, 8192);
	ck_assert_int_eq(o.completions, 1);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_SUBMITTER);
}
END_TEST

/*
 * covers G-04: of the caller's dio_flags only FSBLOCK_ALIGNED and BOUNCE
 * are stored in the dio (what ->end_io sees); done_before is carried to
 * the result.
 */
START_TEST(test_dio_flags_masked)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.dops = TESTFS_DOPS_END_IO;
	r.dio_flags = IOMAP_DIO_FSBLOCK_ALIGNED | IOMAP_DIO_FORCE_WAIT |
		      IOMAP_DIO_PARTIAL;
	r.done_before = 512;
	run_ret(&r, &o, 8192 + 512);
	ck_assert_uint_eq(o.end_io_calls, 1);
	ck_assert(o.end_io_flags & IOMAP_DIO_FSBLOCK_ALIGNED);
	ck_assert(
		!(o.end_io_flags & (IOMAP_DIO_FORCE_WAIT | IOMAP_DIO_PARTIAL)));
}
END_TEST

/*
 * covers G-16: OVERWRITE_ONLY is checked before invalidation: a page that
 * cannot be invalidated makes an OVERWRITE_ONLY write past EOF -EAGAIN
 * (G-11), not the buffered fallback -ENOTBLK (G-15).
 */
START_TEST(test_write_check_order)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.pos = (256 << 10) - 4096;
	r.len = 8192;
	req_page(&r, 63, SIM_PC_BUSY);
	run_ret(&r, &o, -ENOTBLK);
	r.dio_flags = IOMAP_DIO_OVERWRITE_ONLY;
	run_before_mapping(&r, &o, -EAGAIN);
}
END_TEST

/*
 * covers G-18: inode_dio_begin() once, before the first mapping, and not
 * at all when an early check fails; every mapping sees the count at 1.
 */
START_TEST(test_inode_dio_begin_once)
{
	struct testfs_request r;
	struct testfs_outcome o;
	unsigned int i, begins = 0;

	three_extents_req(&r, 65536);
	run_ret(&r, &o, 65536);
	for (i = 0; i < o.nr_cbs; i++) {
		if (cb_at(&o, i)->op != TESTFS_CB_BEGIN)
			continue;
		ck_assert_int_eq(cb_at(&o, i)->dio_count, 1);
		begins++;
	}
	ck_assert_uint_ge(begins, 2);
	ck_assert_int_eq(o.i_dio_count, 0);
}
END_TEST

static Suite *generic_entry_suite(void)
{
	Suite *s = suite_create("iomap_generic_entry");
	TCase *tc;

	tc = sim_tcase("reads");
	tcase_add_loop_test(tc, test_read_at_eof, 0, 2);
	sim_tcase_add(tc, test_force_wait, test_read_nowait_dirty,
		      test_read_nowait_flags, test_alloc_failures);
	suite_add_tcase(s, tc);

	tc = sim_tcase("writes");
	sim_tcase_add(tc, test_dio_rw_results, test_dio_flags_masked,
		      test_write_check_order, test_inode_dio_begin_once,
		      test_overwrite_only_eof, test_overwrite_only_ok);
	tcase_add_loop_test(tc, test_overwrite_only_eof_edges, 0, 3);
	tcase_add_loop_test(tc, test_overwrite_only_refused, 0, 2);
	sim_tcase_add(tc, test_write_nowait_alloc, test_write_nowait_cached,
		      test_write_invalidates, test_write_invalidate_busy,
		      test_write_invalidate_busy_atomic,
		      test_write_invalidate_wb_error, test_sync_full,
		      test_sync_mount);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(generic_entry_suite)
