// SPDX-License-Identifier: GPL-2.0-only
/*
 * The checked fixture every suite uses (see harness.h): whatever a test
 * does, it must leave no allocation, pin, bio, work item or other gauge
 * behind, and raise no warning or context violation it did not expect.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <sim/alloc.h>
#include <sim/fault.h>
#include <sim/report.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "generation.h"
#include "harness.h"

/*
 * Linked (-u, tests/CMakeLists) into the suites of the layers that have
 * testfs; the block and sim suites have no iomap and no table.
 */
const struct iomapsim_generation *iomapsim_generation(void)
	__attribute__((weak));

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
#define MAX_TCASES 64
static struct {
	TCase *tc;
	const char *name;
} tcases[MAX_TCASES];
static int nr_tcases;

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

	BUG_ON(nr_tcases >= MAX_TCASES);
	tcases[nr_tcases].tc = tc;
	tcases[nr_tcases++].name = name;

	tcase_add_checked_fixture(tc, sim_test_setup, sim_test_teardown);
	tcase_set_timeout(tc, 60);
	return tc;
}

/* ---- the generation's expectation table (sim/testfs/generation.h) ---- */

static const char *sim_tcase_name(TCase *tc)
{
	for (int i = 0; i < nr_tcases; i++)
		if (tcases[i].tc == tc)
			return tcases[i].name;
	return "?";
}

/* "a b c" contains @name as a word, or is "*" */
static bool word_in(const char *list, const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(list, "*"))
		return true;
	for (const char *p = strstr(list, name); p; p = strstr(p + 1, name))
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

static bool entry_for(const struct gen_change *c, const char *tcase)
{
	return !strcmp(c->suite, program_invocation_short_name) &&
	       (!strcmp(c->tcase, "*") || !strcmp(c->tcase, tcase));
}

void sim_tcase_add_test(TCase *tc, const TTest *t, int start, int end)
{
	const struct iomapsim_generation *g =
		iomapsim_generation ? iomapsim_generation() : NULL;
	const char *tcase = sim_tcase_name(tc);

	for (unsigned int i = 0; g && i < g->nr_changes; i++) {
		const struct gen_change *c = &g->changes[i];

		if (c->kind != GEN_NA || !entry_for(c, tcase) ||
		    !word_in(c->tests, t->name))
			continue;
		printf("N/A in generation (%c): %s:%s:%s: %s: %s (%s)\n",
		       g->id, program_invocation_short_name, tcase, t->name,
		       c->rule, c->tree, c->upstream);
		return;
	}
	_tcase_add_test(tc, t, 0, 0, start, end);
}

/*
 * Check's report, with the failures the generation's table expects
 * reported as the rule changes they are.  Returns the number of real
 * failures: unexpected ones, and CHANGED entries of a test case that ran
 * whose failure did not show.
 */
static int report(SRunner *sr)
{
	const struct iomapsim_generation *g =
		iomapsim_generation ? iomapsim_generation() : NULL;
	TestResult **res = srunner_results(sr);
	int n = srunner_ntests_run(sr), failed = 0, changed = 0;
	unsigned int seen[64] = { 0 };

	for (int i = 0; i < n; i++) {
		TestResult *tr = res[i];
		const struct gen_change *hit = NULL;
		unsigned int k;

		if (tr_rtype(tr) == CK_PASS)
			continue;
		for (k = 0; g && k < g->nr_changes && k < ARRAY_SIZE(seen); k++) {
			const struct gen_change *c = &g->changes[k];

			if (c->kind == GEN_CHANGED &&
			    entry_for(c, tr_tcname(tr)) &&
			    strstr(tr_msg(tr), c->expect)) {
				hit = c;
				seen[k]++;
				break;
			}
		}
		if (hit) {
			changed++;
			printf("CHANGED in generation (%c): %s:%s: %s: %s (was: %s; %s)\n",
			       g->id, tr_tcname(tr), hit->rule, tr_msg(tr),
			       hit->tree, hit->baseline, hit->upstream);
			continue;
		}
		failed++;
		printf("%s:%d:%s:%s: %s\n", tr_lfile(tr), tr_lno(tr),
		       tr_rtype(tr) == CK_FAILURE ? "F" : "E", tr_tcname(tr),
		       tr_msg(tr));
	}
	for (unsigned int k = 0; g && k < g->nr_changes && k < ARRAY_SIZE(seen);
	     k++) {
		const struct gen_change *c = &g->changes[k];
		bool ran = false;

		if (c->kind != GEN_CHANGED || seen[k] ||
		    strcmp(c->suite, program_invocation_short_name))
			continue;
		for (int i = 0; i < n && !ran; i++)
			ran = entry_for(c, tr_tcname(res[i]));
		if (!ran)
			continue;
		failed++;
		printf("STALE in generation (%c): %s:%s: %s: the table expects \"%s\" (%s), but the baseline held\n",
		       g->id, program_invocation_short_name, c->tcase, c->rule,
		       c->expect, c->tree);
	}
	free(res);
	printf("%d checks: %d passed, %d changed as the generation (%c) table says, %d failed\n",
	       n, n - failed - changed, changed, g ? g->id : 'a', failed);
	return failed;
}

int sim_test_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_SILENT);
	failed = report(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
