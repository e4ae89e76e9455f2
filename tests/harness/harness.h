/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test harness for the Check suites.
 *
 * sim_test_setup() starts the deterministic engine (seed from
 * IOMAPSIM_SEED, default 1), clears counters and reports, and snapshots
 * every gauge (live allocations, pinned pages, live bios, outstanding work,
 * anything a layer defines with DEFINE_SIM_GAUGE).  sim_test_teardown()
 * drains the engine and fails the test if any gauge differs from its
 * snapshot (naming it, and the allocation sites still live), or if a
 * WARN_ON, context violation or deadlock occurred that the test did not
 * announce with sim_test_expect_*().
 */
#ifndef _SIM_TEST_HARNESS_H
#define _SIM_TEST_HARNESS_H

#include <check.h>
#include <sim/engine.h>

/*
 * Check's ck_assert_msg() (every ck_assert_* is built on it) records each
 * PASSING assertion's file and line with _mark_point(), a write(2) to the
 * runner's message file: a check inside a loop over a buffer cost a system
 * call per byte, most of the unit suites' run time.  A failing assertion
 * is reported exactly as before; only the "last passed point" Check prints
 * when a test dies of a signal is gone (mark_point() still sets it, and
 * the sanitizer trees print a backtrace).
 */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...)                                        \
	((expr) ? (void)0                                               \
		: _ck_assert_failed(__FILE__, __LINE__,                 \
				    "Assertion '" #expr "' failed",     \
				    ##__VA_ARGS__))

void sim_test_setup(void);
void sim_test_teardown(void);
/* Same, with chosen engine options (threaded tests). */
void sim_test_setup_opts(const struct sim_engine_opts *opts);

void sim_test_expect_warnings(long n);
void sim_test_expect_violations(long n);
void sim_test_expect_deadlocks(long n);

/* A check a layer adds to every teardown (runs before the gauge check). */
void sim_test_add_teardown_check(void (*fn)(void));

/* A test case with the checked fixture already attached. */
TCase *sim_tcase(const char *name);

/*
 * Tests are added through the generation's expectation table
 * (sim/testfs/generation.h): a test it marks not applicable is not added.
 */
void sim_tcase_add_test(TCase *tc, const TTest *t, int start, int end);
#undef tcase_add_test
#define tcase_add_test(tc, tf) sim_tcase_add_test(tc, tf, 0, 1)
#undef tcase_add_loop_test
#define tcase_add_loop_test(tc, tf, s, e) sim_tcase_add_test(tc, tf, s, e)

/*
 * Run a suite: Check's fork mode unless CK_FORK=no; prints each failure
 * and a summary line, failures the generation's table expects as the rule
 * changes they are; returns the process exit status.
 */
int sim_test_run(Suite *s);

#define SIM_TEST_MAIN(suite_fn)                  \
	int main(void)                           \
	{                                        \
		return sim_test_run(suite_fn()); \
	}

#endif /* _SIM_TEST_HARNESS_H */
