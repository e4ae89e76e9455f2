// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE workers' poll governor (tools/fuse/host/poll-gov.c) driven as
 * the loop drives it, with lone cycles whose length depends on the arm
 * it picks: it must settle on the faster arm, refuse a poller beyond the
 * idle CPUs, size windows from the waits that hit, switch off a site
 * that misses, and count all of it in the stats.  And the mount's
 * poll= option: auto, a bound, 0, and what it refuses.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sim/stats.h>
#include "harness.h"
#include "iomapsim-mount.h"
#include "poll-gov.h"

static struct poll_gov g;

/*
 * The governor's clock, advanced by the cycles' lengths exactly: what it
 * decides does not depend on how busy the machine running the test is.
 */
static uint64_t clock_ns = 10000000000ull;

static uint64_t test_clock(void)
{
	return clock_ns;
}

static void spend_ns(uint64_t ns)
{
	clock_ns += ns;
}

static void gov_init(unsigned int max_us, unsigned int ncpu)
{
	poll_gov_init(&g, max_us);
	/* no other thread counted runnable: ncpu idle CPUs, exactly */
	if (g.loadavg_fd >= 0)
		close(g.loadavg_fd);
	g.loadavg_fd = -1;
	g.ncpu = ncpu;
	for (int s = 0; s < POLL_SITES; s++)
		g.idle_cpus[s] = ncpu;
	g.now_ns = test_clock;
	/* short epochs: the same rules, in milliseconds */
	g.epoch_len = 48;
	g.epoch_skip = 8;
}

/*
 * A client at queue depth one as the governor sees it: a polling cycle
 * lasts @on_us (every @stall_every-th one 2 ms: the worker spun on the
 * CPU the client wanted), a sleeping one @off_us; a polling cycle opens
 * a completion window that hits after 2 us, unless @no_poll (no CPU was
 * idle for it).
 */
struct load {
	unsigned int on_us, off_us;
	unsigned int stall_every;
	bool no_poll;
	unsigned int polled; /* polling cycles so far */
};

static bool load_cycle(struct load *ld)
{
	bool on = poll_gov_arrival(&g, true);
	unsigned int us = ld->off_us;

	if (on && !ld->no_poll) {
		unsigned int w = poll_gov_begin(&g, POLL_CQE);

		ck_assert_uint_gt(w, 0);
		ck_assert_uint_le(w, g.max_us);
		poll_gov_end(&g, POLL_CQE, true, true, 2000);
	}
	if (on) {
		ld->polled++;
		us = ld->stall_every && !(ld->polled % ld->stall_every) ?
			     2000 :
			     ld->on_us;
	}
	spend_ns(us * 1000ull);
	return on;
}

/* Lone cycles until the next decision; its arrival already follows it. */
static void load_until_decided(struct load *ld)
{
	long trials = sim_stat_get("fuse_poll_trials");
	int i;

	for (i = 0; i < 400 && sim_stat_get("fuse_poll_trials") == trials; i++)
		load_cycle(ld);
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials"), trials + 1);
}

static bool cycle(unsigned int on_us, unsigned int off_us)
{
	return load_cycle(&(struct load){ .on_us = on_us, .off_us = off_us });
}

static void run_until_decided(unsigned int on_us, unsigned int off_us)
{
	load_until_decided(&(struct load){ .on_us = on_us, .off_us = off_us });
}

/*
 * The first decision comes after an epoch of each arm, polling first;
 * the winner then runs four epochs, every cycle of them, then the loser
 * is explored for one, and a confirmation makes the winner's run four
 * times longer.
 */
START_TEST(test_polling_chosen_where_it_shortens_the_cycle)
{
	gov_init(100, 2);
	for (unsigned int i = 0; i < g.epoch_len; i++)
		ck_assert(cycle(100, 400));
	ck_assert(!cycle(100, 400));
	run_until_decided(100, 400);
	ck_assert(g.on);
	ck_assert_int_eq(sim_stat_get("fuse_poll_on"), 1);
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials_won"), 1);
	ck_assert_int_lt(sim_stat_get("fuse_poll_cycle_polling_ns"),
			 sim_stat_get("fuse_poll_cycle_sleeping_ns"));
	/* the decision's arrival began the winner's four epochs */
	for (unsigned int i = 1; i < 4 * g.epoch_len; i++)
		ck_assert(cycle(100, 400));
	/* the loser explored for an epoch, then confirmed: sixteen */
	for (unsigned int i = 0; i < g.epoch_len; i++)
		ck_assert(!cycle(100, 400));
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials"), 1);
	ck_assert(cycle(100, 400));
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials"), 2);
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials_won"), 2);
	ck_assert_uint_eq(g.backoff, 16);
	for (unsigned int i = 1; i < 16 * g.epoch_len; i++)
		ck_assert(cycle(100, 400));
	ck_assert(!cycle(100, 400));
	poll_gov_destroy(&g);
}
END_TEST

/* Polling cycles from here to the arrival that stops polling. */
static unsigned int polled_until_sleeping(unsigned int on_us,
					  unsigned int off_us)
{
	unsigned int n = 0;

	while (cycle(on_us, off_us))
		ck_assert_uint_le(++n, g.epoch_len);
	return n;
}

/*
 * Sleeping wins; exploring polling again, four epochs later, ends a
 * quarter of its samples in, polling already 10 % slower than sleeping:
 * every further cycle of it would cost the client.
 */
START_TEST(test_sleeping_chosen_where_polling_costs)
{
	gov_init(100, 2);
	run_until_decided(400, 100);
	ck_assert(!g.on);
	ck_assert_int_eq(sim_stat_get("fuse_poll_on"), 0);
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials_won"), 0);
	for (unsigned int i = 1; i < 4 * g.epoch_len; i++)
		ck_assert(!cycle(400, 100));
	/* explored again after four epochs, cut short, then sixteen */
	ck_assert_uint_eq(polled_until_sleeping(400, 100),
			  g.epoch_skip + g.epoch_len / 4);
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials"), 2);
	ck_assert(!g.on);
	ck_assert_uint_eq(g.backoff, 16);
	for (unsigned int i = 1; i < 16 * g.epoch_len; i++)
		ck_assert(!cycle(400, 100));
	ck_assert(cycle(400, 100));
	poll_gov_destroy(&g);
}
END_TEST

/* Polling less than 10 % behind is measured for its whole epoch. */
START_TEST(test_polling_close_behind_runs_its_epoch)
{
	gov_init(100, 2);
	run_until_decided(108, 100);
	ck_assert(!g.on);
	for (unsigned int i = 1; i < 4 * g.epoch_len; i++)
		ck_assert(!cycle(108, 100));
	ck_assert_uint_eq(polled_until_sleeping(108, 100), g.epoch_len);
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials"), 2);
	poll_gov_destroy(&g);
}
END_TEST

/*
 * The mean decides, not the median: polling cycles of 100 us with one in
 * eight taking 2 ms (the worker spun on the CPU the client needed) have
 * the shorter median but a mean of 337 us, worse than sleeping's 200 us:
 * the client's IOPS are the inverse of the mean.
 */
START_TEST(test_sleeping_chosen_where_polling_stalls_some_cycles)
{
	struct load ld = { .on_us = 100, .off_us = 200, .stall_every = 8 };

	gov_init(100, 2);
	load_until_decided(&ld);
	ck_assert(!g.on);
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials_won"), 0);
	ck_assert_int_gt(sim_stat_get("fuse_poll_cycle_polling_ns"),
			 sim_stat_get("fuse_poll_cycle_sleeping_ns"));
	poll_gov_destroy(&g);
}
END_TEST

/*
 * Polling that won and then, running, comes out slower than sleeping's
 * last epoch stops at the end of that epoch, not after the whole run,
 * and is tried again soon.
 */
START_TEST(test_polling_that_stops_paying_stops)
{
	gov_init(100, 2);
	run_until_decided(100, 400);
	ck_assert(g.on);
	ck_assert_uint_eq(g.backoff, 4);
	/* now polling costs: the first of its four epochs ends the run */
	run_until_decided(600, 400);
	ck_assert(!g.on);
	ck_assert_uint_eq(g.backoff, 1);
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials"), 2);
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials_won"), 1);
	/* and the loser is explored again after one */
	for (unsigned int i = 1; i < g.epoch_len; i++)
		ck_assert(!cycle(600, 400));
	ck_assert(cycle(600, 400));
	poll_gov_destroy(&g);
}
END_TEST

/* A polling arm that never got a CPU to poll on is no evidence. */
START_TEST(test_void_polling_arm_loses)
{
	struct load ld = { .on_us = 100, .off_us = 400, .no_poll = true };

	gov_init(100, 2);
	load_until_decided(&ld);
	ck_assert(!g.on);
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials_won"), 0);
	poll_gov_destroy(&g);
}
END_TEST

/*
 * An epoch lone cycles are too rare to finish (under load) ends after a
 * second with what it has: too little, and its arm has no figure, so
 * sleeping wins.
 */
START_TEST(test_unfinished_epochs_decided_for_sleeping)
{
	gov_init(100, 2);
	ck_assert(poll_gov_arrival(&g, true));
	ck_assert(!poll_gov_arrival(&g, false));
	g.epoch_ns -= 2000000000ull;
	/* the polling epoch ended empty: sleeping's */
	ck_assert(!poll_gov_arrival(&g, true));
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials"), 0);
	g.epoch_ns -= 2000000000ull;
	ck_assert(!poll_gov_arrival(&g, true));
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials"), 1);
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials_won"), 0);
	ck_assert(!g.on);
	poll_gov_destroy(&g);
}
END_TEST

/* Under load nobody polls, and no cycle is measured across it. */
START_TEST(test_no_polling_under_load)
{
	gov_init(100, 2);
	for (int i = 0; i < 1000; i++)
		ck_assert(!poll_gov_arrival(&g, false));
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials"), 0);
	ck_assert_uint_eq(g.last_ns, 0);
	poll_gov_destroy(&g);
}
END_TEST

START_TEST(test_no_more_pollers_than_idle_cpus)
{
	unsigned int w1, w2;

	gov_init(100, 1);
	w1 = poll_gov_begin(&g, POLL_REQ);
	ck_assert_uint_eq(w1, 100);
	/* the one idle CPU has its poller */
	w2 = poll_gov_begin(&g, POLL_CQE);
	ck_assert_uint_eq(w2, 0);
	ck_assert_int_eq(sim_stat_get("fuse_poll_no_idle_cpu"), 1);
	poll_gov_end(&g, POLL_REQ, true, true, 1000);
	ck_assert_uint_gt(poll_gov_begin(&g, POLL_CQE), 0);
	poll_gov_end(&g, POLL_CQE, false, false, 0);
	ck_assert_uint_eq(g.spinning, 0);
	/* no CPU idle at all */
	g.idle_cpus[POLL_REQ] = 0;
	g.sampled_ns[POLL_REQ] = g.now_ns();
	ck_assert_uint_eq(poll_gov_begin(&g, POLL_REQ), 0);
	ck_assert_int_eq(sim_stat_get("fuse_poll_no_idle_cpu"), 2);
	poll_gov_destroy(&g);
}
END_TEST

START_TEST(test_windows_sized_by_hits_and_counted)
{
	unsigned int w;

	gov_init(200, 2);
	/* hits after 10 us: twice that plus 5 us of slack */
	for (int i = 0; i < 40; i++) {
		ck_assert_uint_gt(poll_gov_begin(&g, POLL_REQ), 0);
		poll_gov_end(&g, POLL_REQ, true, true, 10000);
	}
	w = poll_gov_begin(&g, POLL_REQ);
	ck_assert_uint_eq(w, 25);
	/* a miss doubles it */
	poll_gov_end(&g, POLL_REQ, true, false, 25000);
	ck_assert_uint_eq(g.win_us[POLL_REQ], 50);
	ck_assert_int_eq(sim_stat_get("fuse_poll_windows"), 41);
	ck_assert_int_eq(sim_stat_get("fuse_poll_hits"), 40);
	ck_assert_int_eq(sim_stat_get("fuse_poll_spent_ns"),
			 40 * 10000 + 25000);
	/* the bound holds */
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_gt(poll_gov_begin(&g, POLL_REQ), 0);
		poll_gov_end(&g, POLL_REQ, true, false, 1000);
	}
	ck_assert_uint_eq(g.win_us[POLL_REQ], 200);
	/* the other site is its own */
	ck_assert_uint_eq(g.win_us[POLL_CQE], 200);
	poll_gov_destroy(&g);
}
END_TEST

START_TEST(test_site_that_misses_goes_off)
{
	int n = 0;

	gov_init(100, 2);
	while (poll_gov_begin(&g, POLL_CQE)) {
		poll_gov_end(&g, POLL_CQE, true, false, 100000);
		ck_assert_int_lt(++n, 100);
	}
	/* each miss takes a sixteenth (rounded down): below 1/4 at 23 */
	ck_assert_int_eq(n, 23);
	ck_assert_uint_eq(g.win_us[POLL_CQE], 0);
	ck_assert_uint_gt(poll_gov_begin(&g, POLL_REQ), 0);
	poll_gov_end(&g, POLL_REQ, false, false, 0);
	poll_gov_destroy(&g);
}
END_TEST

START_TEST(test_poll_zero_never_polls)
{
	gov_init(0, 2);
	for (int i = 0; i < 200; i++)
		ck_assert(!poll_gov_arrival(&g, true));
	ck_assert_uint_eq(poll_gov_begin(&g, POLL_REQ), 0);
	ck_assert_uint_eq(poll_gov_begin(&g, POLL_CQE), 0);
	ck_assert_int_eq(sim_stat_get("fuse_poll_trials"), 0);
	ck_assert_int_eq(sim_stat_get("fuse_poll_no_idle_cpu"), 0);
	poll_gov_destroy(&g);
}
END_TEST

static int parse(const char *list, struct fusevfs_mount_opts *o, char *err,
		 size_t len)
{
	char buf[64];

	fusevfs_mount_opts_init(o);
	snprintf(buf, sizeof(buf), "%s", list);
	return fusevfs_mount_parse_opts(o, buf, err, len);
}

START_TEST(test_poll_option)
{
	struct fusevfs_mount_opts o;
	char err[256];

	fusevfs_mount_opts_init(&o);
	ck_assert_uint_eq(o.poll_us, IOMAPSIM_POLL_AUTO_US);
	ck_assert_int_eq(parse("poll=auto", &o, err, sizeof(err)), 0);
	ck_assert_uint_eq(o.poll_us, IOMAPSIM_POLL_AUTO_US);
	ck_assert_int_eq(parse("poll=0", &o, err, sizeof(err)), 0);
	ck_assert_uint_eq(o.poll_us, 0);
	ck_assert_int_eq(parse("poll=50", &o, err, sizeof(err)), 0);
	ck_assert_uint_eq(o.poll_us, 50);
	ck_assert_int_eq(parse("poll=10001", &o, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "bad value in mount option 'poll=10001'");
	ck_assert_int_eq(parse("poll=fast", &o, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "bad value in mount option 'poll=fast'");
}
END_TEST

static Suite *poll_gov_suite(void)
{
	Suite *s = suite_create("fuse_poll_gov");
	TCase *tc = sim_tcase("governor");

	/* trials busy-wait a few hundred cycles of at most 400 us */
	tcase_set_timeout(tc, 30);
	sim_suite_add(s, tc, test_polling_chosen_where_it_shortens_the_cycle,
		      test_sleeping_chosen_where_polling_costs,
		      test_polling_close_behind_runs_its_epoch,
		      test_sleeping_chosen_where_polling_stalls_some_cycles,
		      test_polling_that_stops_paying_stops,
		      test_void_polling_arm_loses,
		      test_unfinished_epochs_decided_for_sleeping,
		      test_no_polling_under_load,
		      test_no_more_pollers_than_idle_cpus,
		      test_windows_sized_by_hits_and_counted,
		      test_site_that_misses_goes_off,
		      test_poll_zero_never_polls, test_poll_option);
	return s;
}

SIM_TEST_MAIN(poll_gov_suite)
