// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ->iomap_next() integration discussed in the simple-path thread
 * (N-06..N-14), run side by side with the baseline: which
 * callbacks each style costs per request, and that results do not
 * depend on the style.
 */
#include <sim/trace.h>
#include "iomap_common.h"

static void base_req(struct testfs_request *r, enum testfs_iomap_mode m)
{
	req_init(r);
	r->mode = m;
	r->pos = 8192;
	r->len = 4096;
}

static void expect_cbs(const struct testfs_outcome *o,
		       const enum testfs_cb_op *ops, unsigned int n)
{
	unsigned int i;

	ck_assert_uint_eq(o->nr_cbs, n);
	for (i = 0; i < n; i++)
		ck_assert_msg(o->cbs[i].op == ops[i],
			      "callback %u is %d, not %d", i, o->cbs[i].op,
			      ops[i]);
}

/* Run @r, which must take the simple path and return @ret. */
static void run_simple(const struct testfs_request *r, struct testfs_outcome *o,
		       long ret)
{
	run_ok(r, o);
	ck_assert(o->simple);
	ck_assert_int_eq(o->ret, ret);
}

/* Run @r, which must leave the simple path for @why. */
static void run_fallback(const struct testfs_request *r,
			 struct testfs_outcome *o, enum iomap_simple_reason why)
{
	run_ok(r, o);
	ck_assert(!o->simple);
	ck_assert_int_eq(o->fallback, why);
}

/*
 * covers S-12, S-24, N-08, N-09, N-11, N-12, N-13: the callbacks a simple
 * 4 KiB read costs in each style (what the thread's measurements were
 * about): baseline begin+end; the iomap_iter version next(begin) then
 * next(end) (N-08); with NO_IOMAP_END only next(begin); the N-13
 * iomap_dio_rw_begin with NO_IOMAP_END only the raw begin.
 */
START_TEST(test_callback_cost_per_style)
{
	static const enum testfs_cb_op ops_cbs[] = { TESTFS_CB_BEGIN,
						     TESTFS_CB_END };
	static const enum testfs_cb_op next_cbs[] = {
		TESTFS_CB_NEXT, TESTFS_CB_BEGIN, TESTFS_CB_NEXT, TESTFS_CB_END
	};
	static const enum testfs_cb_op next_noend_cbs[] = { TESTFS_CB_NEXT,
							    TESTFS_CB_BEGIN };
	static const enum testfs_cb_op begin_cbs[] = { TESTFS_CB_BEGIN };
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r, TESTFS_MODE_OPS);
	run_ok(&r, &o);
	ck_assert(o.simple);
	expect_cbs(&o, ops_cbs, 2);

	base_req(&r, TESTFS_MODE_NEXT);
	run_simple(&r, &o, 4096);
	expect_cbs(&o, next_cbs, 4);
	ck_assert_int_eq(o.cbs[3].written, 4096);

	r.dio_flags = IOMAP_DIO_NO_IOMAP_END;
	run_ok(&r, &o);
	ck_assert(o.simple);
	expect_cbs(&o, next_noend_cbs, 2);

	base_req(&r, TESTFS_MODE_BEGIN);
	r.dio_flags = IOMAP_DIO_NO_IOMAP_END;
	run_simple(&r, &o, 4096);
	expect_cbs(&o, begin_cbs, 1);
}
END_TEST

/* covers N-12: the baseline ignores NO_IOMAP_END, ->iomap_end still runs */
START_TEST(test_baseline_ignores_no_end)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r, TESTFS_MODE_OPS);
	r.dio_flags = IOMAP_DIO_NO_IOMAP_END;
	run_ok(&r, &o);
	ck_assert(o.simple);
	ck_assert_uint_eq(o.end_calls, 1);
	r.no_simple = true;
	run_ok(&r, &o);
	ck_assert_uint_eq(o.end_calls, 1);
}
END_TEST

/* covers N-13: without NO_IOMAP_END rw_begin never tries the simple path */
START_TEST(test_rw_begin_needs_no_end)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r, TESTFS_MODE_BEGIN);
	run_fallback(&r, &o, IOMAP_SIMPLE_DIO_FLAGS);
	ck_assert_int_eq(o.ret, 4096);
	/* the generic path walks with ->iomap_next */
	ck_assert_uint_eq(o.next_calls, 2);
	ck_assert_uint_eq(o.begin_calls, 1);
	ck_assert_uint_eq(o.end_calls, 1);
}
END_TEST

/* covers N-10: an error exit finishes the mapping with written = 0 */
START_TEST(test_error_finish)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r, TESTFS_MODE_NEXT);
	r.lbs = 4096;
	r.pos = 512;
	r.len = 512;
	run_simple(&r, &o, -EINVAL);
	ck_assert_uint_eq(o.end_calls, 1);
	ck_assert_int_eq(cb_at(&o, 3)->written, 0);
	ck_assert_uint_eq(o.begin_calls, 1); /* no new mapping fetched */

	r.dio_flags = IOMAP_DIO_NO_IOMAP_END; /* N-12: skipped */
	run_ret(&r, &o, -EINVAL);
	ck_assert_uint_eq(o.end_calls, 0);
}
END_TEST

/* covers N-08..N-10, S-38: a hole falls back through ->iomap_next too */
START_TEST(test_fallback_next)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r, _i ? TESTFS_MODE_BEGIN : TESTFS_MODE_NEXT);
	r.dio_flags = _i ? IOMAP_DIO_NO_IOMAP_END : 0;
	req_map(&r, IOMAP_HOLE, 0, 65536, 0);
	run_fallback(&r, &o, IOMAP_SIMPLE_NOT_MAPPED);
	ck_assert_int_eq(o.ret, 4096);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_ZERO);
	ck_assert_uint_eq(o.begin_calls, 2);
	ck_assert_uint_eq(o.end_calls, _i ? 1 : 2);
}
END_TEST

/* covers S-20 under the proposal: short pin falls back, data intact */
START_TEST(test_short_pin_next)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r, TESTFS_MODE_NEXT);
	pin_first_page_only(&r);
	run_ok(&r, &o);
	ck_assert_int_eq(o.fallback, IOMAP_SIMPLE_SHORT_PIN);
	ck_assert_int_eq(o.ret, 4096);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	ck_assert_uint_eq(o.iter_count, 0);
}
END_TEST

/* covers N-13: the raw begin's errors come back unchanged */
START_TEST(test_rw_begin_errors)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r, TESTFS_MODE_BEGIN);
	r.dio_flags = IOMAP_DIO_NO_IOMAP_END;
	r.begin_error = -EIO;
	r.begin_error_nth = 1;
	run_simple(&r, &o, -EIO);

	r.begin_error = -ENOTBLK; /* the fallback code from the fs */
	run_ok(&r, &o);
	ck_assert(!o.simple);
	ck_assert_int_eq(o.ret, 4096);
}
END_TEST

/* async completion is the same in every style */
START_TEST(test_async_styles)
{
	static const enum testfs_iomap_mode m[] = { TESTFS_MODE_OPS,
						    TESTFS_MODE_NEXT,
						    TESTFS_MODE_BEGIN };
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r, m[_i]);
	r.dio_flags = IOMAP_DIO_NO_IOMAP_END;
	r.async = true;
	run_ok(&r, &o);
	ck_assert(o.simple);
	ck_assert(o.queued);
	ck_assert_int_eq(o.ret, 4096);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_END_IO);
}
END_TEST

/* The offset the newest iomap_dio_rw_queued trace record printed. */
static bool queued_trace_offset(char *off, size_t len)
{
	char line[200];
	unsigned int i;

	for (i = 0; sim_trace_get(i, line, sizeof(line)); i++) {
		const char *p = strstr(line, "iomap_dio_rw_queued");

		if (p && (p = strstr(p, "offset "))) {
			snprintf(off, len, "%.*s", (int)strcspn(p + 7, " "),
				 p + 7);
			return true;
		}
	}
	return false;
}

/*
 * The sketch of the ->iomap_next() simple path traces the queued request
 * with iocb->ki_pos after submit_bio(); when the bio completes during
 * submission, ki_complete has already handed the kiocb back (io_uring may
 * have freed it).  The runner poisons a kiocb completed that early, so
 * the trace shows the read of the dead kiocb; the merged code traces its
 * own copy of the position.
 */
START_TEST(test_queued_trace_after_complete)
{
	struct testfs_request r;
	struct testfs_outcome o;
	char off[64];

	base_req(&r, TESTFS_MODE_OPS);
	r.async = true;
	r.complete = IOMAPSIM_COMPLETE_INLINE;
	sim_trace_enable(true);
	run_ok(&r, &o);
	ck_assert(o.queued);
	ck_assert(queued_trace_offset(off, sizeof(off)));
	ck_assert_str_eq(off, "0x2000");
	ck_assert(!o.kiocb_written_after_complete);

	r.mode = TESTFS_MODE_NEXT;
	run_ok(&r, &o);
	ck_assert(o.queued);
	ck_assert_int_eq(o.ret, 4096);
	ck_assert(queued_trace_offset(off, sizeof(off)));
	ck_assert_str_eq(off, "0x6b6b6b6b6b6b6b6b");
}
END_TEST

/*
 * The generic path gives the same result whichever way the mappings are
 * produced: reads and writes over several extents, holes, new blocks.
 */
static void fill_mixed(struct testfs_request *r, int which)
{
	req_init(r);
	req_map(r, IOMAP_MAPPED, 0, 16384, 0);
	req_map(r, IOMAP_HOLE, 16384, 16384, 0);
	req_map(r, IOMAP_UNWRITTEN, 32768, 16384, 0);
	req_map(r, IOMAP_MAPPED, 49152, (256 << 10) - 49152, 0);
	r->pos = 4096;
	r->len = 61440;
	r->write = which & 1;
	r->async = which & 2;
	if (r->write)
		r->dops = TESTFS_DOPS_END_IO;
}

START_TEST(test_styles_same_generic_result)
{
	static const enum testfs_iomap_mode m[] = { TESTFS_MODE_OPS,
						    TESTFS_MODE_NEXT,
						    TESTFS_MODE_BEGIN };
	struct testfs_request r;
	struct testfs_outcome o[3];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		fill_mixed(&r, _i);
		r.mode = m[i];
		run_ok(&r, &o[i]);
	}
	for (i = 1; i < 3; i++) {
		ck_assert_int_eq(o[i].ret, o[0].ret);
		ck_assert_int_eq(o[i].ki_pos, o[0].ki_pos);
		ck_assert_uint_eq(o[i].iter_count, o[0].iter_count);
		ck_assert_int_eq(o[i].data, o[0].data);
		ck_assert_uint_eq(o[i].bios, o[0].bios);
		ck_assert_uint_eq(o[i].begin_calls, o[0].begin_calls);
		ck_assert_uint_eq(o[i].end_calls, o[0].end_calls);
		ck_assert_int_eq(o[i].completion, o[0].completion);
		ck_assert_int_eq(o[i].i_size, o[0].i_size);
	}
	ck_assert_int_eq(o[0].ret, 61440);
	ck_assert_int_eq(o[0].data, IOMAPSIM_DATA_OK);
}
END_TEST

/*
 * covers S-08, S-16, S-23 on the proposal's simple path: NOWAIT and an
 * async HIPRI read are passed on to the bio (polled), a page that cannot
 * be pinned at all is the request's -EFAULT, a dirty cached page whose
 * writeback fails is its error, and so is a completion workqueue that
 * cannot be made.
 */
START_TEST(test_next_simple_flags_and_errors)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r, TESTFS_MODE_NEXT);
	r.ki_flags = IOCB_NOWAIT | IOCB_HIPRI;
	r.async = true;
	run_ok(&r, &o);
	ck_assert(o.simple && o.queued);
	ck_assert_int_eq(o.ki_complete_ret, 4096);
	ck_assert_uint_eq(o.dev.polled_bios, 1);

	base_req(&r, TESTFS_MODE_NEXT);
	r.short_pin_nth = 1;
	r.short_pin_bytes = 0;
	run_simple(&r, &o, -EFAULT);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_uint_eq(o.iter_count, 4096);

	base_req(&r, TESTFS_MODE_NEXT);
	req_page(&r, 2, SIM_PC_DIRTY | SIM_PC_WB_ERROR);
	run_ret(&r, &o, -EIO);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_uint_eq(o.nr_cbs, 0);

	base_req(&r, TESTFS_MODE_NEXT);
	r.async = true;
	r.alloc_fail_nth = 1; /* the completion workqueue */
	run_ok(&r, &o);
	ck_assert(!o.queued && !o.wq_created);
	ck_assert_int_eq(o.ret, -ENOMEM);
	ck_assert_uint_eq(o.bios, 0);
}
END_TEST

static Suite *next_suite(void)
{
	Suite *s = suite_create("iomap_next");
	TCase *tc = sim_tcase("next");

	sim_tcase_add(tc, test_callback_cost_per_style,
		      test_baseline_ignores_no_end, test_rw_begin_needs_no_end,
		      test_error_finish);
	tcase_add_loop_test(tc, test_fallback_next, 0, 2);
	sim_tcase_add(tc, test_short_pin_next,
		      test_next_simple_flags_and_errors, test_rw_begin_errors);
	tcase_add_loop_test(tc, test_async_styles, 0, 3);
	tcase_add_loop_test(tc, test_styles_same_generic_result, 0, 4);
	tcase_add_test(tc, test_queued_trace_after_complete);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(next_suite)
