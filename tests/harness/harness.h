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
#define ck_assert_msg(expr, ...)                                    \
	((expr) ? (void)0 :                                         \
		  _ck_assert_failed(__FILE__, __LINE__,             \
				    "Assertion '" #expr "' failed", \
				    ##__VA_ARGS__))

void sim_test_setup(void);
void sim_test_teardown(void);
/* Same, with chosen engine options (threaded tests). */
void sim_test_setup_opts(const struct sim_engine_opts *opts);
/* Same, on the threaded engine with four CPUs, real threads. */
void sim_test_setup_threaded(void);

void sim_test_expect_warnings(long n);
void sim_test_expect_violations(long n);
void sim_test_expect_deadlocks(long n);

/* A check a layer adds to every teardown (runs before the gauge check). */
void sim_test_add_teardown_check(void (*fn)(void));

/* A test case with the checked fixture already attached. */
TCase *sim_tcase(const char *name);

/*
 * The same with a fixture of the suite's own (a threaded engine, a
 * backend to close): @setup must call sim_test_setup() or
 * sim_test_setup_opts(), @teardown sim_test_teardown().
 */
TCase *sim_tcase_fixture(const char *name, void (*setup)(void),
			 void (*teardown)(void));
/* A test case on sim_test_setup_threaded()'s engine. */
TCase *sim_tcase_threaded(const char *name);

/*
 * Tests are added through the expectation table (expect.h): a test it
 * marks not applicable to the iomap code under test is not added.
 */
void sim_tcase_add_test(TCase *tc, const TTest *t, int start, int end);
#undef tcase_add_test
#define tcase_add_test(tc, tf) sim_tcase_add_test(tc, tf, 0, 1)
#undef tcase_add_loop_test
#define tcase_add_loop_test(tc, tf, s, e) sim_tcase_add_test(tc, tf, s, e)

/*
 * The tests of a test case as one list, in the order they run, each added
 * as tcase_add_test() adds it: sim_tcase_add(tc, test_a, test_b, ...).
 * sim_suite_add() adds them, then @tc to suite @s; sim_suite() creates
 * suite @name with that one test case, as most suites are.  START_TEST's
 * names are pointers that no static table can hold: a compound literal.
 */
#define sim_tcase_add(tc, ...) \
	sim_tcase_add_tests(tc, (const TTest *const[]){ __VA_ARGS__, NULL })
#define sim_suite_add(s, tc, ...) \
	sim_suite_add_tests(s, tc, (const TTest *const[]){ __VA_ARGS__, NULL })
#define sim_suite(name, tc, ...) \
	sim_suite_tests(name, tc, (const TTest *const[]){ __VA_ARGS__, NULL })
/* the same with a NULL-terminated array */
void sim_tcase_add_tests(TCase *tc, const TTest *const *tests);
void sim_suite_add_tests(Suite *s, TCase *tc, const TTest *const *tests);
Suite *sim_suite_tests(const char *name, TCase *tc, const TTest *const *tests);

/*
 * For suites that run their own Check runner (the mount tests): a test
 * that finds the iomap code lacks what it needs reports itself N/A
 * (printed, and counted in IOMAPSIM_VERDICTS) and returns.
 */
void sim_test_na(const char *tcase, const char *test, const char *why);

/*
 * A test of something the code under test lacks, so that it can still be
 * named when the suite is built: the expectation table (expect.h) marks it
 * N/A and it is never added; if it ever runs, it fails.
 */
#define SIM_TEST_NA(name)                                                     \
	START_TEST(name)                                                      \
	{                                                                     \
		ck_abort_msg("%s ran, but the iomap code lacks what it "      \
			     "tests: the expectation table must mark it N/A", \
			     #name);                                          \
	}                                                                     \
	END_TEST

/*
 * Run a suite: Check's fork mode unless CK_FORK=no; prints each failure
 * and a summary line, failures the expectation table explains as the rule
 * changes they are; returns the process exit status.
 */
int sim_test_run(Suite *s);

/*
 * The same report and verdicts from a TAP log Check wrote (a suite that
 * runs its own runner, srunner_set_tap()); the number of real failures.
 */
int sim_test_report(FILE *tap);

#define SIM_TEST_MAIN(suite_fn)                  \
	int main(void)                           \
	{                                        \
		return sim_test_run(suite_fn()); \
	}

#endif /* _SIM_TEST_HARNESS_H */
