// SPDX-License-Identifier: GPL-2.0-only
/* Kernel helper shims: error pointers, atomics, refcounts, bit and
 * alignment macros, container_of, WARN_ON_ONCE counting. */
#include <signal.h>
#include <string.h>
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/refcount.h>
#include <sim/report.h>
#include "harness.h"

struct outer {
	int a;
	long b;
	char inner[24];
};

START_TEST(test_err_ptr_round_trip)
{
	void *p = ERR_PTR(-ENOMEM);

	ck_assert(IS_ERR(p));
	ck_assert(IS_ERR_OR_NULL(p));
	ck_assert_int_eq(PTR_ERR(p), -ENOMEM);
	ck_assert_int_eq(PTR_ERR_OR_ZERO(p), -ENOMEM);
	ck_assert(IS_ERR(ERR_PTR(-MAX_ERRNO)));
	ck_assert(!IS_ERR(ERR_PTR(-MAX_ERRNO - 1)));
}
END_TEST

START_TEST(test_err_ptr_valid_and_null)
{
	int x = 0;

	ck_assert(!IS_ERR(&x));
	ck_assert(!IS_ERR_OR_NULL(&x));
	ck_assert(IS_ERR_OR_NULL(NULL));
	ck_assert(!IS_ERR(NULL));
	ck_assert_int_eq(PTR_ERR_OR_ZERO(&x), 0);
	ck_assert_int_eq(PTR_ERR_OR_ZERO(NULL), 0);
}
END_TEST

START_TEST(test_kernel_internal_errnos)
{
	/* values user space never sees, as in include/linux/errno.h */
	ck_assert_int_eq(EIOCBQUEUED, 529);
	ck_assert_int_eq(ENOTSUPP, 524);
	ck_assert_int_eq(ENOTBLK, 15);
	ck_assert_int_eq(EAGAIN, 11);
}
END_TEST

START_TEST(test_container_of)
{
	struct outer o;

	ck_assert_ptr_eq(container_of(&o.inner[0], struct outer, inner), &o);
	ck_assert_ptr_eq(container_of(&o.b, struct outer, b), &o);
}
END_TEST

START_TEST(test_align_macros)
{
	ck_assert_uint_eq(ALIGN(4097UL, 4096), 8192);
	ck_assert_uint_eq(ALIGN(4096UL, 4096), 4096);
	ck_assert_uint_eq(ALIGN_DOWN(4097UL, 512), 4096);
	ck_assert(IS_ALIGNED(8192UL, 4096));
	ck_assert(!IS_ALIGNED(8193UL, 512));
	ck_assert_uint_eq(round_up(1000U, 512), 1024);
	ck_assert_uint_eq(round_down(1000U, 512), 512);
	ck_assert_uint_eq(DIV_ROUND_UP(4097, 4096), 2);
	ck_assert_uint_eq(BIT(17), 0x20000);
	ck_assert_uint_eq(GENMASK(7, 4), 0xf0);
	ck_assert(is_power_of_2(4096));
	ck_assert(!is_power_of_2(4095));
	ck_assert_int_eq(min(3, 7), 3);
	ck_assert_int_eq(max_t(long, -1, 2), 2);
}
END_TEST

START_TEST(test_atomic_ops)
{
	atomic_t a = ATOMIC_INIT(1);
	atomic_long_t l = ATOMIC_INIT(5);
	int old = 2;

	ck_assert_int_eq(atomic_inc_return(&a), 2);
	ck_assert(!atomic_dec_and_test(&a));
	ck_assert(atomic_dec_and_test(&a));
	ck_assert_int_eq(atomic_cmpxchg(&a, 0, 7), 0);
	ck_assert_int_eq(atomic_read(&a), 7);
	ck_assert(!atomic_try_cmpxchg(&a, &old, 9));
	ck_assert_int_eq(old, 7); /* failed try_cmpxchg reports the value */
	ck_assert(atomic_try_cmpxchg(&a, &old, 9));
	ck_assert_int_eq(atomic_read(&a), 9);
	ck_assert_int_eq(atomic_long_xchg(&l, 3), 5);
	ck_assert_int_eq(atomic_long_read(&l), 3);
}
END_TEST

START_TEST(test_cmpxchg_plain)
{
	void *slot = NULL;
	int x, y;

	/* the sb_init_dio_done_wq pattern: only the first install wins */
	ck_assert_ptr_eq(cmpxchg(&slot, NULL, &x), NULL);
	ck_assert_ptr_eq(cmpxchg(&slot, NULL, &y), &x);
	ck_assert_ptr_eq(slot, &x);
	ck_assert_ptr_eq(xchg(&slot, &y), &x);
	ck_assert_ptr_eq(READ_ONCE(slot), &y);
}
END_TEST

START_TEST(test_refcount)
{
	refcount_t r = REFCOUNT_INIT(1);

	refcount_inc(&r);
	ck_assert_uint_eq(refcount_read(&r), 2);
	ck_assert(!refcount_dec_and_test(&r));
	ck_assert(refcount_dec_and_test(&r));
	ck_assert(!refcount_inc_not_zero(&r));
	ck_assert_uint_eq(refcount_read(&r), 0);
}
END_TEST

START_TEST(test_refcount_underflow_warns)
{
	refcount_t r = REFCOUNT_INIT(0);

	sim_test_expect_warnings(1);
	ck_assert(!refcount_dec_and_test(&r));
	ck_assert_int_eq(sim_warnings(), 1);
}
END_TEST

static int warn_site(int v)
{
	return WARN_ON_ONCE(v > 1);
}

START_TEST(test_warn_on_once_counts_every_hit)
{
	sim_test_expect_warnings(3);
	ck_assert(!warn_site(0));
	ck_assert(warn_site(2));
	ck_assert(warn_site(3));
	ck_assert(warn_site(4));
	/* printed once, counted every time */
	ck_assert_int_eq(sim_warnings(), 3);
	ck_assert_ptr_nonnull(strstr(sim_report_last(), "v > 1"));
}
END_TEST

START_TEST(test_warn_on_returns_condition)
{
	sim_test_expect_warnings(1);
	ck_assert_int_eq(WARN_ON(0), 0);
	ck_assert_int_eq(WARN_ON(5 == 5), 1);
}
END_TEST

static void bug_child(void)
{
	BUG_ON(1 + 1 == 2);
}

START_TEST(test_bug_on_aborts)
{
	/* Check runs this in a child and expects SIGABRT */
	sim_report_quiet(true);
	bug_child();
}
END_TEST

/* covers K-01: a kiocb is sync exactly when it has no ki_complete */
static void some_complete(struct kiocb *iocb, long ret)
{
}

START_TEST(test_is_sync_kiocb)
{
	struct kiocb iocb = { 0 };

	ck_assert(is_sync_kiocb(&iocb));
	iocb.ki_complete = some_complete;
	ck_assert(!is_sync_kiocb(&iocb));
}
END_TEST

/* covers K-03: i_blocksize() is 1 << i_blkbits, whatever s_blocksize says */
START_TEST(test_i_blocksize)
{
	struct super_block sb = { .s_blocksize = 4096 };
	struct inode inode = { .i_sb = &sb, .i_blkbits = 10 };

	ck_assert_uint_eq(i_blocksize(&inode), 1024);
	inode.i_blkbits = 16;
	ck_assert_uint_eq(i_blocksize(&inode), 65536);
}
END_TEST

static Suite *helpers_suite(void)
{
	Suite *s = suite_create("kernel_helpers");
	TCase *tc = sim_tcase("helpers");

	sim_tcase_add(tc, test_err_ptr_round_trip, test_is_sync_kiocb,
		      test_i_blocksize, test_err_ptr_valid_and_null,
		      test_kernel_internal_errnos, test_container_of,
		      test_align_macros, test_atomic_ops, test_cmpxchg_plain,
		      test_refcount, test_refcount_underflow_warns,
		      test_warn_on_once_counts_every_hit,
		      test_warn_on_returns_condition);
	tcase_add_test_raise_signal(tc, test_bug_on_aborts, SIGABRT);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(helpers_suite)
