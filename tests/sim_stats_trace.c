// SPDX-License-Identifier: GPL-2.0-only
/* Named counters and the trace ring. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sim/rand.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "harness.h"

DEFINE_SIM_STAT(test_counter, "test_counter");
DEFINE_SIM_GAUGE(test_gauge, "test_gauge");

START_TEST(test_counter_registered_by_name)
{
	sim_stat_inc(&test_counter);
	sim_stat_add(&test_counter, 4);
	ck_assert_int_eq(sim_stat_get("test_counter"), 5);
	ck_assert_ptr_eq(sim_stat_find("test_counter"), &test_counter);
	ck_assert_int_eq(sim_stat_get("no_such_counter"), -1);
}
END_TEST

START_TEST(test_reset_spares_gauges)
{
	sim_stat_inc(&test_counter);
	sim_stat_inc(&test_gauge);
	sim_stats_reset();
	ck_assert_int_eq(sim_stat_read(&test_counter), 0);
	ck_assert_int_eq(sim_stat_read(&test_gauge), 1);
	sim_stat_dec(&test_gauge);
}
END_TEST

START_TEST(test_json_output_sorted)
{
	char buf[8192];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	char *a, *b;

	sim_stat_add(&test_counter, 3);
	sim_stats_print_json(f);
	fclose(f);
	ck_assert_int_eq(buf[0], '{');
	ck_assert_ptr_nonnull(strstr(buf, "\"test_counter\": 3"));
	a = strstr(buf, "\"test_counter\"");
	b = strstr(buf, "\"test_gauge\"");
	ck_assert_ptr_nonnull(b);
	ck_assert(a < b);
}
END_TEST

START_TEST(test_gauge_leak_fails_teardown)
{
	/* teardown compares gauges with their start: this must fail */
	sim_stat_inc(&test_gauge);
}
END_TEST

START_TEST(test_trace_records_context_and_args)
{
	char line[200];

	sim_trace("iomap_dio_rw_begin", "pos=%d count=%d", 4096, 512);
	ck_assert_uint_eq(sim_trace_count(), 1);
	ck_assert(sim_trace_get(0, line, sizeof(line)));
	ck_assert_str_eq(line, "T0 iomap_dio_rw_begin: pos=4096 count=512");
	ck_assert(!sim_trace_get(1, line, sizeof(line)));
}
END_TEST

/* A record reads exactly as snprintf() prints it, whatever the format. */
#define EXPECT_TRACED(fmt, ...)                                             \
	do {                                                                \
		char want[200], got[200];                                   \
		snprintf(want, sizeof(want), "T0 ev: " fmt, ##__VA_ARGS__); \
		sim_trace("ev", fmt, ##__VA_ARGS__);                        \
		ck_assert(sim_trace_get(0, got, sizeof(got)));              \
		ck_assert_str_eq(got, want);                                \
	} while (0)

START_TEST(test_trace_format_as_printf)
{
	EXPECT_TRACED("a=%d b=%d c=%u d=%x", INT_MIN, INT_MAX, UINT_MAX,
		      0xdeadbeefU);
	EXPECT_TRACED("%ld %lu %lx", LONG_MIN, ULONG_MAX, 0x123456789aUL);
	EXPECT_TRACED("%lld %llu %llx", LLONG_MIN, ULLONG_MAX, 0ULL);
	EXPECT_TRACED("%zd %zu %zx", (ssize_t)-4095, (size_t)0, SIZE_MAX);
	EXPECT_TRACED("dev=%s%s op=%s 100%%", "ram0", "", "write");
	/* what the hand-written path leaves to vsnprintf() */
	EXPECT_TRACED("%5d|%-4u|%#x|%08llx|%c|%.2s", 42, 7U, 255U, 0xabcULL,
		      'q', "xyz");
	EXPECT_TRACED("%d then %5d", 1, 2);
	/* longer than a record: cut as snprintf would at the same size */
	sim_trace("ev", "%s%s%s",
		  "0123456789012345678901234567890123456789"
		  "0123456789012345678901234567890123456789",
		  "0123456789012345678901234567890123456789"
		  "0123456789012345678901234567890123456789",
		  "tail");
	{
		char got[300];

		ck_assert(sim_trace_get(0, got, sizeof(got)));
		ck_assert_uint_eq(strlen(got), 159);
		ck_assert(!strncmp(got, "T0 ev: 0123", 11));
	}
}
END_TEST

START_TEST(test_trace_hash_depends_on_content)
{
	u64 h1, h2;

	sim_trace("ev", "a=%d", 1);
	h1 = sim_trace_hash();
	sim_trace_reset();
	sim_trace("ev", "a=%d", 2);
	h2 = sim_trace_hash();
	ck_assert_uint_ne(h1, h2);
	sim_trace_reset();
	sim_trace("ev", "a=%d", 1);
	ck_assert_uint_eq(sim_trace_hash(), h1);

	/* the same bytes cut into other records hash differently */
	sim_trace_reset();
	sim_trace("ev", "abcdefghij");
	sim_trace("ev", "k");
	h1 = sim_trace_hash();
	sim_trace_reset();
	sim_trace("ev", "abcdefghi");
	sim_trace("ev", "jk");
	ck_assert_uint_ne(sim_trace_hash(), h1);
}
END_TEST

START_TEST(test_trace_disabled_records_nothing)
{
	sim_trace_enable(false);
	sim_trace("ev", "x");
	sim_trace_enable(true);
	ck_assert_uint_eq(sim_trace_count(), 0);
}
END_TEST

/*
 * The watch mask: tracing is one of its bits, counting another (on by
 * default); the epoch moves only when the mask leaves 0, the one change
 * after which a hook may find state recorded before nobody watched.
 */
START_TEST(test_watch_mask_and_epoch)
{
	unsigned int e0;

	ck_assert_uint_eq(sim_watch, SIM_WATCH_TRACE | SIM_WATCH_COUNT);
	ck_assert(sim_watched() && sim_watch_counting());
	e0 = sim_watch_epoch();
	sim_trace_enable(false);
	ck_assert_uint_eq(sim_watch, SIM_WATCH_COUNT);
	sim_watch_set(SIM_WATCH_COUNT, false);
	ck_assert(!sim_watched() && !sim_watch_counting());
	ck_assert_uint_eq(sim_watch_epoch(), e0);
	sim_watch_set(SIM_WATCH_OBSERVER, true);
	ck_assert(sim_watched() && !sim_watch_counting());
	ck_assert_uint_eq(sim_watch_epoch(), e0 + 1);
	/* already watched: no new epoch */
	sim_watch_set(SIM_WATCH_COUNT, true);
	sim_trace_enable(true);
	ck_assert_uint_eq(sim_watch_epoch(), e0 + 1);
	sim_watch_set(SIM_WATCH_OBSERVER, false);
	ck_assert_uint_eq(sim_watch, SIM_WATCH_TRACE | SIM_WATCH_COUNT);
}
END_TEST

START_TEST(test_trace_dump_last_n)
{
	char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	for (int i = 0; i < 5; i++)
		sim_trace("ev", "i=%d", i);
	sim_trace_dump(f, 2);
	fclose(f);
	ck_assert_ptr_null(strstr(buf, "i=2"));
	ck_assert_ptr_nonnull(strstr(buf, "i=3"));
	ck_assert_ptr_nonnull(strstr(buf, "i=4"));
}
END_TEST

START_TEST(test_rand_reproducible)
{
	struct sim_rand a, b;

	sim_rand_seed(&a, 99);
	sim_rand_seed(&b, 99);
	for (int i = 0; i < 100; i++) {
		u64 x = sim_rand_below(&a, 10);

		ck_assert_uint_eq(x, sim_rand_below(&b, 10));
		ck_assert_uint_lt(x, 10);
	}
	ck_assert_uint_eq(sim_rand_below(&a, 0), 0);
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = sim_suite(
		"stats_trace", sim_tcase("stats"),
		test_counter_registered_by_name, test_reset_spares_gauges,
		test_json_output_sorted, test_trace_records_context_and_args,
		test_trace_hash_depends_on_content, test_trace_format_as_printf,
		test_trace_disabled_records_nothing, test_watch_mask_and_epoch,
		test_trace_dump_last_n, test_rand_reproducible);

	suite_add_tcase(s, sim_tcase("teardown"));
	(void)test_gauge_leak_fails_teardown;
	return s;
}

/*
 * The harness must catch a leaked gauge: run that one test in its own
 * runner and require exactly one failure.
 */
int main(void)
{
	int ret = sim_test_run(stats_suite());
	Suite *s = sim_suite("harness_catches_leak", sim_tcase("leak"),
			     test_gauge_leak_fails_teardown);
	SRunner *sr;
	int failed;

	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (failed != 1) {
		fprintf(stderr, "harness did not fail a leaked gauge\n");
		return 1;
	}
	printf("harness_catches_leak: 1 expected failure seen\n");
	return ret;
}
