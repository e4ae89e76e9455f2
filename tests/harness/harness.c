// SPDX-License-Identifier: GPL-2.0-only
/*
 * The checked fixture every suite uses (see harness.h): whatever a test
 * does, it must leave no allocation, pin, bio, work item or other gauge
 * behind, and raise no warning or context violation it did not expect.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <sim/alloc.h>
#include <sim/fault.h>
#include <sim/report.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "harness.h"

#define MAX_GAUGES 128
#define MAX_CHECKS 16

static struct {
	struct sim_stat *stat;
	long start;
} gauges[MAX_GAUGES];
static int nr_gauges;
static long expect_warn, expect_viol, expect_dead;
static void (*checks[MAX_CHECKS])(void);
static int nr_checks;

static void snapshot(struct sim_stat *s, void *arg)
{
	if (!s->gauge || nr_gauges >= MAX_GAUGES)
		return;
	gauges[nr_gauges].stat = s;
	gauges[nr_gauges].start = sim_stat_read(s);
	nr_gauges++;
}

void sim_test_setup_opts(const struct sim_engine_opts *opts)
{
	ck_assert_int_eq(sim_engine_init(opts), 0);
	sim_fault_reset();
	sim_report_reset();
	sim_stats_reset();
	sim_trace_reset();
	expect_warn = expect_viol = expect_dead = 0;
	nr_gauges = 0;
	sim_stats_for_each(snapshot, NULL);
	sim_alloc_mark();
}

void sim_test_setup(void)
{
	struct sim_engine_opts o = { .kind = SIM_ENGINE_DET, .seed = 1 };
	const char *seed = getenv("IOMAPSIM_SEED");

	if (seed)
		o.seed = strtoull(seed, NULL, 0);
	sim_test_setup_opts(&o);
}

void sim_test_teardown(void)
{
	char bad[512] = "";
	size_t n = 0;

	sim_fault_arm(false);
	sim_engine_drain();
	for (int i = 0; i < nr_checks; i++)
		checks[i]();
	for (int i = 0; i < nr_gauges; i++) {
		long now = sim_stat_read(gauges[i].stat);

		if (now != gauges[i].start && n < sizeof(bad))
			n += snprintf(bad + n, sizeof(bad) - n,
				      " %s %ld->%ld", gauges[i].stat->name,
				      gauges[i].start, now);
	}
	if (n)
		sim_alloc_report_leaks_since_mark(stderr);
	ck_assert_msg(!n, "not back to zero at teardown:%s", bad);
	ck_assert_msg(sim_warnings() == expect_warn,
		      "%ld WARN_ON hit(s), %ld expected: %s", sim_warnings(),
		      expect_warn, sim_report_last());
	ck_assert_msg(sim_context_violations() == expect_viol,
		      "%ld context violation(s), %ld expected: %s",
		      sim_context_violations(), expect_viol,
		      sim_report_last());
	ck_assert_msg(sim_deadlocks() == expect_dead,
		      "%ld deadlock(s), %ld expected: %s", sim_deadlocks(),
		      expect_dead, sim_report_last());
	sim_engine_exit();
	sim_report_quiet(false);
}

void sim_test_expect_warnings(long n)
{
	expect_warn = n;
	sim_report_quiet(true);
}

void sim_test_expect_violations(long n)
{
	expect_viol = n;
	sim_report_quiet(true);
}

void sim_test_expect_deadlocks(long n)
{
	expect_dead = n;
	sim_report_quiet(true);
}

void sim_test_add_teardown_check(void (*fn)(void))
{
	for (int i = 0; i < nr_checks; i++)
		if (checks[i] == fn)
			return;
	BUG_ON(nr_checks >= MAX_CHECKS);
	checks[nr_checks++] = fn;
}

TCase *sim_tcase(const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, sim_test_setup, sim_test_teardown);
	tcase_set_timeout(tc, 60);
	return tc;
}

int sim_test_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
