// SPDX-License-Identifier: GPL-2.0-only
/*
 * The checked fixture every suite uses (see harness.h): whatever a test
 * does, it must leave no allocation, pin, bio, work item or other gauge
 * behind, and raise no warning or context violation it did not expect.
 */
#include <errno.h>
#include <unistd.h>
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

/* One test run, from Check's TAP log: "[not ]ok N - file:tcase:test: msg" */
struct run_result {
	bool ok;
	char file[256];
	char tcase[64], test[96];
	const char *msg;
};

static bool parse_tap(char *l, struct run_result *r)
{
	char *p, *f[3];
	int i;

	l[strcspn(l, "\n")] = 0;
	r->ok = !strncmp(l, "ok ", 3);
	if (!r->ok && strncmp(l, "not ok ", 7))
		return false;
	p = strstr(l, " - ");
	if (!p)
		return false;
	p += 3;
	for (i = 0; i < 3; i++) {
		f[i] = p;
		p = strchr(p, ':');
		if (!p)
			return false;
		*p++ = 0;
	}
	snprintf(r->file, sizeof(r->file), "%s", f[0]);
	snprintf(r->tcase, sizeof(r->tcase), "%s", f[1]);
	snprintf(r->test, sizeof(r->test), "%s", f[2]);
	r->msg = p + (*p == ' ');
	return true;
}

/*
 * The rules a test says it covers: the "covers ..." comment above its
 * START_TEST in @file, so that a failure names the SEMANTICS rules it
 * breaks.  Empty if there is none.
 */
static void covers_of(const char *file, const char *test, char *out,
		      size_t len)
{
	char want[128], l[512], cov[256] = "";
	FILE *f = fopen(file, "r");

	out[0] = 0;
	if (!f)
		return;
	snprintf(want, sizeof(want), "START_TEST(%s)", test);
	while (fgets(l, sizeof(l), f)) {
		char *c = strstr(l, "covers ");

		if (c) {
			c[strcspn(c, ":*\n")] = 0;
			snprintf(cov, sizeof(cov), "%s", c);
		} else if (strstr(l, want)) {
			snprintf(out, len, " (%s)", cov);
			break;
		} else if (strstr(l, "END_TEST")) {
			cov[0] = 0;
		}
	}
	fclose(f);
}

/*
 * The CHANGED entry for this test: the one whose failure message matches
 * when it failed, else the first one listing it.
 */
static const struct gen_change *
changed_entry(const struct iomapsim_generation *g, const struct run_result *r,
	      unsigned int *idx)
{
	const struct gen_change *first = NULL;

	for (unsigned int k = 0; g && k < g->nr_changes; k++) {
		const struct gen_change *c = &g->changes[k];

		if (c->kind == GEN_NA || !entry_for(c, r->tcase) ||
		    !word_in(c->tests, r->test))
			continue;
		if (!r->ok && strstr(r->msg, c->expect)) {
			*idx = k;
			return c;
		}
		if (!first) {
			first = c;
			*idx = k;
		}
	}
	return first;
}

/*
 * Check's report, with the failures the generation's table expects
 * reported as the rule changes they are.  Returns the number of real
 * failures: unexpected ones, a test the table lists failing another way,
 * and a test it lists that passed (the tree kept the baseline there, or
 * the table is stale).
 */
static int report(FILE *tap)
{
	const struct iomapsim_generation *g =
		iomapsim_generation ? iomapsim_generation() : NULL;
	int n = 0, failed = 0, changed = 0;
	unsigned int seen[128] = { 0 }, ran[128] = { 0 };
	char line[4096], cov[300];

	while (fgets(line, sizeof(line), tap)) {
		struct run_result r;
		const struct gen_change *c;
		unsigned int k = UINT_MAX;

		if (!parse_tap(line, &r))
			continue;
		n++;
		c = changed_entry(g, &r, &k);
		if (r.ok && !c)
			continue;
		/* every entry listing this test ran, not only the matched one */
		for (unsigned int j = 0; g && j < g->nr_changes &&
		     j < ARRAY_SIZE(ran); j++)
			if (g->changes[j].kind != GEN_NA &&
			    entry_for(&g->changes[j], r.tcase) &&
			    word_in(g->changes[j].tests, r.test))
				ran[j]++;
		if (r.ok && c->some_iterations)
			continue;
		if (r.ok) {
			failed++;
			printf("%s:STALE:%s:%s: generation (%c) table, %s: expects \"%s\" (%s), but the baseline held\n",
			       r.file, r.tcase, r.test, g->id,
			       c->rule, c->expect, c->tree);
			continue;
		}
		if (c && strstr(r.msg, c->expect)) {
			changed++;
			if (k < ARRAY_SIZE(seen))
				seen[k]++;
			printf("%s in generation (%c): %s:%s: %s: %s (was: %s; %s)\n",
			       c->kind == GEN_BUG ? "KNOWN BUG" : "CHANGED",
			       g->id, r.tcase, r.test, c->rule,
			       c->tree, c->baseline, c->upstream);
			continue;
		}
		failed++;
		covers_of(r.file, r.test, cov, sizeof(cov));
		printf("%s:F:%s:%s: %s%s\n", r.file, r.tcase, r.test, r.msg,
		       cov);
		if (c)
			printf("  (generation (%c) table, %s, expects \"%s\" here)\n",
			       g->id, c->rule, c->expect);
	}
	/* a loop test that kept the baseline in every iteration */
	for (unsigned int k = 0; g && k < g->nr_changes && k < ARRAY_SIZE(seen);
	     k++) {
		const struct gen_change *c = &g->changes[k];

		if (!ran[k] || seen[k] || !c->some_iterations)
			continue;
		failed++;
		printf("%s:STALE:%s:%s: generation (%c) table, %s: expects \"%s\" (%s) in some iteration, but the baseline held in all\n",
		       program_invocation_short_name, c->tcase, c->tests, g->id,
		       c->rule, c->expect, c->tree);
	}
	if (changed)
		printf("%d checks: %d passed, %d changed as the generation (%c) table says, %d failed\n",
		       n, n - failed - changed, changed, g->id, failed);
	else
		printf("%d checks: %d passed, %d failed\n", n, n - failed,
		       failed);
	return failed;
}

int sim_test_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	char tap[] = "/tmp/iomapsim-tap.XXXXXX";
	int fd = mkstemp(tap), failed;
	FILE *f;

	if (fd < 0) {
		perror("iomapsim harness: mkstemp");
		return EXIT_FAILURE;
	}
	close(fd);
	/* the TAP log names every test run, passed or not */
	srunner_set_tap(sr, tap);
	srunner_run_all(sr, CK_SILENT);
	srunner_free(sr);
	f = fopen(tap, "r");
	unlink(tap);
	if (!f) {
		perror("iomapsim harness: TAP log");
		return EXIT_FAILURE;
	}
	failed = report(f);
	fclose(f);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
