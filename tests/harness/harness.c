// SPDX-License-Identifier: GPL-2.0-only
/*
 * The checked fixture every suite uses (see harness.h): whatever a test
 * does, it must leave no allocation, pin, bio, work item or other gauge
 * behind, and raise no warning or context violation it did not expect.
 */
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <sim/alloc.h>
#include <sim/fault.h>
#include <sim/report.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "expect.h"
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

void sim_test_setup_threaded(void)
{
	struct sim_engine_opts o = { .kind = SIM_ENGINE_THREADED,
				     .nr_cpus = 4 };

	sim_test_setup_opts(&o);
}

void sim_test_teardown(void)
{
	char bad[512] = "";
	size_t n = 0;

	sim_fault_arm(false);
	sim_engine_drain();
	/* what the layers set up for their callers goes back first */
	sim_do_exitcalls();
	for (int i = 0; i < nr_checks; i++)
		checks[i]();
	for (int i = 0; i < nr_gauges; i++) {
		long now = sim_stat_read(gauges[i].stat);

		if (now != gauges[i].start && n < sizeof(bad))
			n += snprintf(bad + n, sizeof(bad) - n, " %s %ld->%ld",
				      gauges[i].stat->name, gauges[i].start,
				      now);
	}
	if (n)
		sim_alloc_report_leaks_since_mark(stderr);
	ck_assert_msg(!n, "not back to zero at teardown:%s", bad);
	ck_assert_msg(sim_warnings() == expect_warn,
		      "%ld WARN_ON hit(s), %ld expected: %s", sim_warnings(),
		      expect_warn, sim_report_last());
	ck_assert_msg(sim_context_violations() == expect_viol,
		      "%ld context violation(s), %ld expected: %s",
		      sim_context_violations(), expect_viol, sim_report_last());
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

TCase *sim_tcase_fixture(const char *name, void (*setup)(void),
			 void (*teardown)(void))
{
	TCase *tc = tcase_create(name);

	BUG_ON(nr_tcases >= MAX_TCASES);
	tcases[nr_tcases].tc = tc;
	tcases[nr_tcases++].name = name;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	return tc;
}

TCase *sim_tcase_threaded(const char *name)
{
	return sim_tcase_fixture(name, sim_test_setup_threaded,
				 sim_test_teardown);
}

TCase *sim_tcase(const char *name)
{
	return sim_tcase_fixture(name, sim_test_setup, sim_test_teardown);
}

/* ---- the expectation table (expect.h) ------------------------------------ */

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

/* an entry of this build for @tcase:@test of this program, of @na kind */
static bool entry_for(const struct expect *e, const char *tcase,
		      const char *test, bool na)
{
	return e->applies && (e->kind == EXPECT_NA) == na &&
	       !strcmp(e->suite, program_invocation_short_name) &&
	       (!strcmp(e->tcase, "*") || !strcmp(e->tcase, tcase)) &&
	       word_in(e->tests, test);
}

static const char *const kind_names[] = {
	[EXPECT_CHANGED] = "CHANGED",
	[EXPECT_NA] = "N/A",
	[EXPECT_BUG] = "KNOWN BUG",
};

/*
 * The verdict of each test, one line each, appended to the file named by
 * IOMAPSIM_VERDICTS (scripts/check-tree.sh counts them and writes KTAP):
 * "VERDICT<TAB>suite<TAB>tcase<TAB>test<TAB>detail".
 */
static void verdict(const char *v, const char *tcase, const char *test,
		    const char *fmt, ...)
{
	const char *path = getenv("IOMAPSIM_VERDICTS");
	char detail[1024];
	va_list ap;
	FILE *f;

	if (!path || !*path)
		return;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	for (char *p = detail; *p; p++)
		if (*p == '\t' || *p == '\n')
			*p = ' ';
	f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "%s\t%s\t%s\t%s\t%s\n", v, program_invocation_short_name,
		tcase, test, detail);
	fclose(f);
}

static int nr_na;

/* tests that said they are N/A and returned: Check saw them pass */
static char na_tests[MAX_TCASES][160];
static int nr_na_tests;

void sim_test_na(const char *tcase, const char *test, const char *why)
{
	printf("N/A (%s): %s:%s:%s\n", why, program_invocation_short_name,
	       tcase, test);
	verdict("NA", tcase, test, "%s", why);
	nr_na++;
	if (nr_na_tests < MAX_TCASES)
		snprintf(na_tests[nr_na_tests++], sizeof(na_tests[0]), "%s:%s",
			 tcase, test);
}

static bool said_na(const char *tcase, const char *test)
{
	char name[sizeof(na_tests[0])];

	snprintf(name, sizeof(name), "%s:%s", tcase, test);
	for (int i = 0; i < nr_na_tests; i++)
		if (!strcmp(na_tests[i], name))
			return true;
	return false;
}

void sim_tcase_add_test(TCase *tc, const TTest *t, int start, int end)
{
	const char *tcase = sim_tcase_name(tc);

	for (unsigned int i = 0; i < expect_table_len; i++) {
		const struct expect *e = &expect_table[i];

		if (!entry_for(e, tcase, t->name, true))
			continue;
		printf("N/A (%s): %s:%s:%s: %s: %s (%s)\n", e->when,
		       program_invocation_short_name, tcase, t->name, e->rule,
		       e->changed, e->upstream);
		verdict("NA", tcase, t->name, "%s", e->when);
		nr_na++;
		return;
	}
	_tcase_add_test(tc, t, 0, 0, start, end);
}

void sim_tcase_add_tests(TCase *tc, const TTest *const *tests)
{
	for (; *tests; tests++)
		sim_tcase_add_test(tc, *tests, 0, 1);
}

void sim_suite_add_tests(Suite *s, TCase *tc, const TTest *const *tests)
{
	sim_tcase_add_tests(tc, tests);
	suite_add_tcase(s, tc);
}

Suite *sim_suite_tests(const char *name, TCase *tc, const TTest *const *tests)
{
	Suite *s = suite_create(name);

	sim_suite_add_tests(s, tc, tests);
	return s;
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
 * START_TEST in @file, so that a failure names the rules (docs/rules.md) it
 * breaks.  Empty if there is none.
 */
static void covers_of(const char *file, const char *test, char *out, size_t len)
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
 * The CHANGED or KNOWN BUG entry for this test: the one whose failure
 * message matches when it failed, else the first one listing it.
 */
static const struct expect *changed_entry(const struct run_result *r,
					  unsigned int *idx)
{
	const struct expect *first = NULL;

	for (unsigned int k = 0; k < expect_table_len; k++) {
		const struct expect *e = &expect_table[k];

		if (!entry_for(e, r->tcase, r->test, false))
			continue;
		if (!r->ok && strstr(r->msg, e->expect)) {
			*idx = k;
			return e;
		}
		if (!first) {
			first = e;
			*idx = k;
		}
	}
	return first;
}

/*
 * Check's report, with the failures the expectation table explains
 * reported as the rule changes or known bugs they are.  Returns the
 * number of real failures: unexplained ones, a test the table lists
 * failing another way, and a test it lists that passed (the code kept
 * the baseline there, or the table is stale).
 */
int sim_test_report(FILE *tap)
{
	int n = 0, failed = 0, changed = 0, bugs = 0;
	unsigned int seen[128] = { 0 }, ran[128] = { 0 };
	char line[4096], cov[300];

	while (fgets(line, sizeof(line), tap)) {
		struct run_result r;
		const struct expect *e;
		unsigned int k = UINT_MAX;

		if (!parse_tap(line, &r) || (r.ok && said_na(r.tcase, r.test)))
			continue;
		n++;
		e = changed_entry(&r, &k);
		if (r.ok && !e) {
			verdict("PASS", r.tcase, r.test, "");
			continue;
		}
		/* every entry listing this test ran, not only the matched one */
		for (unsigned int j = 0;
		     j < expect_table_len && j < ARRAY_SIZE(ran); j++)
			if (entry_for(&expect_table[j], r.tcase, r.test, false))
				ran[j]++;
		if (r.ok && e->some_iterations) {
			verdict("PASS", r.tcase, r.test, "");
			continue;
		}
		if (r.ok) {
			failed++;
			printf("%s:STALE:%s:%s: %s, %s: expects \"%s\" (%s), but the baseline held\n",
			       r.file, r.tcase, r.test, e->when, e->rule,
			       e->expect, e->changed);
			verdict("STALE", r.tcase, r.test, "%s: %s", e->rule,
				e->expect);
			continue;
		}
		if (e && strstr(r.msg, e->expect)) {
			if (e->kind == EXPECT_BUG)
				bugs++;
			else
				changed++;
			if (k < ARRAY_SIZE(seen))
				seen[k]++;
			printf("%s (%s): %s:%s: %s: %s (was: %s; %s)\n",
			       kind_names[e->kind], e->when, r.tcase, r.test,
			       e->rule, e->changed, e->baseline, e->upstream);
			verdict(e->kind == EXPECT_BUG ? "KNOWN_BUG" : "CHANGED",
				r.tcase, r.test, "%s: %s", e->rule,
				e->kind == EXPECT_BUG ? e->upstream :
							e->changed);
			continue;
		}
		failed++;
		covers_of(r.file, r.test, cov, sizeof(cov));
		printf("%s:F:%s:%s: %s%s\n", r.file, r.tcase, r.test, r.msg,
		       cov);
		verdict("FAIL", r.tcase, r.test, "%s%s", r.msg, cov);
		if (e)
			printf("  (expectation %s, %s, wants \"%s\" here)\n",
			       e->when, e->rule, e->expect);
	}
	/* a loop test that kept the baseline in every iteration */
	for (unsigned int k = 0; k < expect_table_len && k < ARRAY_SIZE(seen);
	     k++) {
		const struct expect *e = &expect_table[k];

		if (!ran[k] || seen[k] || !e->some_iterations)
			continue;
		failed++;
		printf("%s:STALE:%s:%s: %s, %s: expects \"%s\" (%s) in some iteration, but the baseline held in all\n",
		       program_invocation_short_name, e->tcase, e->tests,
		       e->when, e->rule, e->expect, e->changed);
		verdict("STALE", e->tcase, e->tests, "%s: %s in no iteration",
			e->rule, e->expect);
	}
	printf("%d checks: %d passed, %d changed as expected, %d known bugs, %d not applicable, %d failed\n",
	       n + nr_na, n - failed - changed - bugs, changed, bugs, nr_na,
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
	failed = sim_test_report(f);
	fclose(f);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
