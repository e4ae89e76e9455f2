// SPDX-License-Identifier: GPL-2.0-only
/*
 * Caller completion (G-52), in the trees that have it (6.6 to 6.17):
 * io_uring sets IOCB_DIO_CALLER_COMP on an async write; for a pure
 * overwrite that needs no more I/O at completion, the bio's end calls
 * ki_complete() with a placeholder and leaves iocb->dio_complete() to the
 * issuer, which runs it from task work.  The runner is that issuer
 * (--iocb CALLER_COMP).  Code without it, from before it arrived or after
 * "fs, iomap: remove IOCB_DIO_CALLER_COMP", has none of this: every case
 * is N/A there (tests/harness/expect.c).
 */
#include "iomap_common.h"

/* An async overwrite of 16 KiB at 8 KiB, inside a written file. */
static void caller_req(struct testfs_request *r)
{
	req_write(r, 8192, 16384, true);
	r->ki_flags = IOCB_DIO_CALLER_COMP;
}

/* @r writes all its 16 KiB, completed from the dio workqueue. */
static void run_punted(const struct testfs_request *r)
{
	struct testfs_outcome o;

	run_ok(r, &o);
	ck_assert_int_eq(o.ret, 16384);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_WORKQUEUE);
}

/*
 * covers G-52: a pure overwrite ends its bio in end_io, whose
 * ki_complete() gets 0; the issuer then runs ->dio_complete() in its own
 * task, where the completion and the real result come from.
 */
START_TEST(test_overwrite_completes_in_issuer)
{
	struct testfs_request r;
	struct testfs_outcome o;

	caller_req(&r);
	run_ok(&r, &o);
	ck_assert(o.queued);
	ck_assert_int_eq(o.ret, 16384);
	ck_assert_int_eq(o.ki_complete_ctx, IOMAP_DIO_COMP_END_IO);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_SUBMITTER);
	ck_assert_int_eq(o.ki_pos, 8192 + 16384);
	ck_assert_int_eq(o.punted, 0);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);

	/* the same write without the flag: the dio workqueue */
	r.ki_flags = 0;
	run_punted(&r);
}
END_TEST

/*
 * covers G-52: what needs more I/O at completion drops caller completion
 * and goes to the workqueue: O_DSYNC without FUA (the cache flush),
 * blocks that need zeroing (IOMAP_F_NEW), a pass at EOF.
 */
START_TEST(test_completion_work_drops_caller_comp)
{
	struct testfs_request r;

	caller_req(&r);
	r.ki_flags |= IOCB_DSYNC;
	r.write_cache = true;
	run_punted(&r);

	caller_req(&r);
	req_map(&r, IOMAP_MAPPED, 0, 256 << 10, IOMAP_F_NEW);
	run_punted(&r);

	caller_req(&r);
	r.pos = r.size;
	run_punted(&r);
}
END_TEST

/* The runner refuses what io_uring never asks: a read, a sync kiocb. */
START_TEST(test_only_async_writes)
{
	struct testfs_request r;
	struct testfs_outcome o;
	char err[256];

	caller_req(&r);
	r.write = false;
	ck_assert_int_eq(testfs_run(&r, &o, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "CALLER_COMP: an async write only");
	caller_req(&r);
	r.async = false;
	ck_assert_int_eq(testfs_run(&r, &o, err, sizeof(err)), -EINVAL);
}
END_TEST

static Suite *caller_comp_suite(void)
{
	Suite *s = suite_create("iomap_caller_comp");
	TCase *tc = sim_tcase("caller_comp");

	sim_tcase_add(tc, test_overwrite_completes_in_issuer,
		      test_completion_work_drops_caller_comp,
		      test_only_async_writes);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(caller_comp_suite)
