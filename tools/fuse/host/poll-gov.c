// SPDX-License-Identifier: GPL-2.0-only
/*
 * The poll governor of the FUSE workers.  A worker that leaves the mount
 * idle may busy-poll its ring for the read it waits for, then /dev/fuse
 * for the next request, rather than sleep: a CPU that went idle (in a
 * VM, a halted vCPU) can take far longer to get back to it than the
 * client takes to send the next request.  Whether that pays depends on
 * the machine: where a wake-up is cheap, or the client needs the CPU
 * the worker spins on, it costs a third of the requests at queue depth
 * one.  So nothing is fixed here; the workers measure and decide, as
 * io_uring's hybrid polling sizes its sleep from the completion times it
 * sees and NAPI busy polling spends a budget:
 *
 *  - Whether.  A lone request's cycle (its arrival to the next lone
 *    request's arrival: service, wait and the client's turn) is what
 *    polling is for, and the client's IOPS are the inverse of its mean
 *    (not its median: polling makes the common cycle shorter and, where
 *    the worker spins on a CPU the client wanted, a few cycles far
 *    longer).  The arms, polling and sleeping, run in epochs of
 *    POLL_GOV_EPOCH lone cycles (about a third of a second at queue
 *    depth one), of which the first POLL_GOV_SKIP are not counted; each
 *    epoch's mean is that arm's figure.  After one epoch of each, and
 *    then after each epoch that explores the arm not chosen, polling is
 *    chosen if its mean beats the other arm's last one by
 *    GOV_MARGIN_PCT, and only if it got to poll at all (see "Who").
 *    The winner runs for `backoff` epochs before the loser is explored
 *    again: four after the first decision, one after a change of mind,
 *    four times more after each confirmation, up to
 *    POLL_GOV_BACKOFF_MAX; a polling epoch that
 *    comes out slower than sleeping's last ends the run at once, and
 *    one whose first quarter of samples is already GOV_CUT_PCT slower
 *    ends there.  Long
 *    epochs because short ones mislead: measured on this project's
 *    2-CPU virtual machine (2026-12-01) in alternating stretches of 128
 *    cycles, polling beat sleeping by a fifth in every trial, yet whole
 *    runs of it served a tenth fewer reads than poll=0; the arm that
 *    follows sleeping seems to run on CPU time the sleeping left unused
 *    and the arm that follows polling to pay for it.  An epoch that lone
 *    cycles are too rare to finish in a second ends with what it has;
 *    too little, and its arm has no figure, which loses.  Where polling
 *    loses, polling takes two epochs of a mount's first 24 (about
 *    eight seconds at queue depth one), the second of them cut short
 *    where it loses by GOV_CUT_PCT, and fewer after.
 *  - How long.  Each site's window is twice the moving average of the
 *    waits that hit, plus slack, doubled after a miss, never above the
 *    poll= bound; a site whose windows hit less than one time in four
 *    is off until polling starts again after sleeping.
 *  - Who.  A worker polls only while a CPU would otherwise be idle:
 *    runnable threads (/proc/loadavg's count, sampled at most once a
 *    millisecond per site) other than itself and the pollers, plus the
 *    pollers, must leave one CPU free for it.
 *
 * Windows, hits, time spent, polls refused for want of an idle CPU,
 * decisions ("trials") and the arms' mean cycles go to the mount's stats
 * (fusevfs_poll_stat()).
 *
 * A host file: system headers only.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "poll-gov.h"
#include "fusevfs.h"

#define GOV_MARGIN_PCT 3 /* polling must beat sleeping by this */
#define GOV_CUT_PCT 10 /* a polling epoch this much slower ends */
#define GOV_MAX_CYCLE_NS 10000000 /* longer: the client paused */
#define GOV_SLACK_NS 5000 /* added to twice the mean wait */
#define GOV_MIN_US 5
#define GOV_HIT_ONE 256 /* hit_rate of a site that always hits */
#define GOV_HIT_OFF (GOV_HIT_ONE / 4)
#define GOV_SAMPLE_NS 1000000 /* loadavg sampled this often */
/*
 * An epoch not done in this long (lone cycles are rare under load) ends
 * with what it has; with fewer than GOV_MIN_SAMPLES its arm has no mean.
 */
#define GOV_EPOCH_NS 1000000000ull
#define GOV_MIN_SAMPLES 8

uint64_t poll_gov_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* Every site on, its window the bound: where polling starts from. */
static void sites_reset(struct poll_gov *g)
{
	for (int s = 0; s < POLL_SITES; s++) {
		STORE(g->win_us[s], g->max_us);
		STORE(g->gap_ns[s], 0);
		STORE(g->hit_rate[s], GOV_HIT_ONE);
	}
}

void poll_gov_init(struct poll_gov *g, unsigned int max_us)
{
	cpu_set_t set;

	memset(g, 0, sizeof(*g));
	g->max_us = max_us;
	g->ncpu = 1;
	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		g->ncpu = CPU_COUNT(&set);
	g->loadavg_fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	pthread_mutex_init(&g->lock, NULL);
	g->now_ns = poll_gov_now_ns;
	g->epoch_len = POLL_GOV_EPOCH;
	g->epoch_skip = POLL_GOV_SKIP;
	/* polling first, then sleeping, then the first decision */
	g->arm = true;
	for (int s = 0; s < POLL_SITES; s++)
		g->idle_cpus[s] = g->ncpu;
	sites_reset(g);
}

void poll_gov_destroy(struct poll_gov *g)
{
	if (g->loadavg_fd >= 0)
		close(g->loadavg_fd);
	pthread_mutex_destroy(&g->lock);
}

/* Under lock: both arms have a figure, one just now; pick the winner. */
static void decide(struct poll_gov *g)
{
	uint64_t on = g->mean_ns[1], off = g->mean_ns[0];
	bool win = on && off && on * 100 < off * (100 - GOV_MARGIN_PCT);

	/*
	 * Confirmed: explore four times less often; changed: soon.  The
	 * first decision runs four: a fresh mount's exploring is what a
	 * short run sees most of.
	 */
	if (!g->backoff)
		g->backoff = 4;
	else if (win == LOAD(g->on))
		g->backoff = g->backoff * 4 < POLL_GOV_BACKOFF_MAX ?
				     g->backoff * 4 :
				     POLL_GOV_BACKOFF_MAX;
	else
		g->backoff = 1;
	STORE(g->on, win);
	fusevfs_poll_stat(FUSEVFS_POLL_TRIALS, 1);
	if (win)
		fusevfs_poll_stat(FUSEVFS_POLL_TRIALS_WON, 1);
	fusevfs_poll_stat(FUSEVFS_POLL_ON, win);
	/* the winner's epochs, this next one the first of them */
	g->arm = win;
	g->left = g->backoff - 1;
}

/* Is mean cycle @a longer than @b by @pct percent or more? */
static bool slower_by(uint64_t a, uint64_t b, unsigned int pct)
{
	return a * 100 >= b * (100 + pct);
}

/* Under lock: the running epoch is over; measure it, start the next. */
static void epoch_end(struct poll_gov *g)
{
	bool arm = g->arm, on = LOAD(g->on);
	uint64_t mean = g->nr >= GOV_MIN_SAMPLES ? g->sum_ns / g->nr : 0;

	/* a polling arm that never got to poll (no idle CPU) is void */
	if (arm && !LOAD(g->windows))
		mean = 0;
	g->mean_ns[arm] = mean;
	g->tried[arm] = true;
	fusevfs_poll_stat(arm ? FUSEVFS_POLL_CYCLE_POLLING_NS :
				FUSEVFS_POLL_CYCLE_SLEEPING_NS,
			  (long)mean);
	if (!g->tried[!arm])
		g->arm = !arm; /* the first epoch: now the other arm */
	else if (arm != on || !g->backoff)
		decide(g); /* an exploration (or the first pair) ended */
	else if (arm &&
		 (!mean || slower_by(mean, g->mean_ns[0], GOV_MARGIN_PCT)))
		decide(g); /* polling no longer pays: stop it now */
	else if (g->left)
		g->left--; /* the winner runs on */
	else
		g->arm = !arm; /* explore the loser again */
	if (g->arm && !arm)
		sites_reset(g);
	g->cycles = 0;
	g->sum_ns = 0;
	g->nr = 0;
	STORE(g->windows, 0);
}

/*
 * Under lock: the running epoch polls, and a quarter of its samples in,
 * their mean is already GOV_CUT_PCT over sleeping's last.  Short
 * stretches flatter polling (see "Whether"): one that loses even so will
 * not win, and every further cycle of it costs the client.
 */
static bool losing(const struct poll_gov *g)
{
	uint64_t off = g->mean_ns[0];

	return g->arm && off && g->nr >= g->epoch_len / 4 &&
	       slower_by(g->sum_ns, off * g->nr, GOV_CUT_PCT);
}

bool poll_gov_arrival(struct poll_gov *g, bool lone)
{
	uint64_t now, last;
	bool on;

	if (!g->max_us)
		return false;
	if (!lone) {
		/* under load: no cycle to measure, and nobody polls */
		if (LOAD(g->last_ns))
			STORE(g->last_ns, 0);
		return false;
	}
	now = g->now_ns();
	pthread_mutex_lock(&g->lock);
	last = LOAD(g->last_ns);
	if (last && g->last_keep && now - last < GOV_MAX_CYCLE_NS) {
		g->sum_ns += now - last;
		g->nr++;
	}
	if (g->cycles >= g->epoch_len ||
	    (g->cycles && now - g->epoch_ns > GOV_EPOCH_NS) || losing(g))
		epoch_end(g);
	if (!g->cycles)
		g->epoch_ns = now;
	/* the cycle this arrival begins: a sample once the epoch settled */
	g->last_keep = ++g->cycles > g->epoch_skip;
	STORE(g->last_ns, now);
	on = g->arm;
	pthread_mutex_unlock(&g->lock);
	return on;
}

/* Runnable threads now, the reader included; 0 if unknown. */
static unsigned int runnable(struct poll_gov *g)
{
	char buf[128], *p;
	ssize_t n;

	if (g->loadavg_fd < 0)
		return 0;
	/* "0.52 0.58 0.59 RUNNABLE/TOTAL LASTPID" */
	n = pread(g->loadavg_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = buf;
	for (int field = 0; field < 3 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return p ? (unsigned int)strtoul(p, NULL, 10) : 0;
}

/* CPUs no thread but the pollers wants, as last sampled at @site. */
static unsigned int idle_cpus(struct poll_gov *g, enum poll_site site)
{
	uint64_t now = g->now_ns();
	uint64_t then = LOAD(g->sampled_ns[site]);
	unsigned int r, busy, idle;

	if (now - then < GOV_SAMPLE_NS ||
	    !__atomic_compare_exchange_n(&g->sampled_ns[site], &then, now,
					 false, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		return LOAD(g->idle_cpus[site]);
	r = runnable(g);
	/* others: neither this worker nor a poller (both counted in r) */
	busy = r > 1 + LOAD(g->spinning) ? r - 1 - LOAD(g->spinning) : 0;
	idle = busy < g->ncpu ? g->ncpu - busy : 0;
	STORE(g->idle_cpus[site], idle);
	fusevfs_poll_stat(FUSEVFS_POLL_IDLE_CPUS, idle);
	return idle;
}

/* A poller's place, if a CPU is idle for one more: counted, or false. */
static bool take_place(struct poll_gov *g, enum poll_site site)
{
	unsigned int idle = idle_cpus(g, site);
	unsigned int n = LOAD(g->spinning);

	do {
		if (n + 1 > idle) {
			fusevfs_poll_stat(FUSEVFS_POLL_NO_IDLE_CPU, 1);
			return false;
		}
	} while (!__atomic_compare_exchange_n(&g->spinning, &n, n + 1, true,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

unsigned int poll_gov_begin(struct poll_gov *g, enum poll_site site)
{
	unsigned int w = g->max_us ? LOAD(g->win_us[site]) : 0;

	return w && take_place(g, site) ? w : 0;
}

/*
 * The window after one that hit after @spent_ns (or missed): twice the
 * hits' mean wait (*@gap_ns, a moving average) and some slack, doubled
 * after a miss, within [GOV_MIN_US, @max_us].
 */
static unsigned int next_window(unsigned int win, unsigned int *gap_ns,
				bool hit, uint64_t spent_ns,
				unsigned int max_us)
{
	if (hit) {
		unsigned int gap = *gap_ns;

		gap = gap ? gap - gap / 8 + (unsigned int)(spent_ns / 8) :
			    (unsigned int)spent_ns;
		*gap_ns = gap;
		win = (2 * gap + GOV_SLACK_NS) / 1000;
	} else {
		win *= 2;
	}
	if (win < GOV_MIN_US)
		win = GOV_MIN_US;
	return win > max_us ? max_us : win;
}

void poll_gov_end(struct poll_gov *g, enum poll_site site, bool polled,
		  bool hit, uint64_t spent_ns)
{
	unsigned int rate, gap, win;

	__atomic_fetch_sub(&g->spinning, 1, __ATOMIC_RELAXED);
	if (!polled)
		return;
	__atomic_fetch_add(&g->windows, 1, __ATOMIC_RELAXED);
	if (site == POLL_REQ) {
		fusevfs_poll_stat(FUSEVFS_POLL_WINDOWS, 1);
		fusevfs_poll_stat(FUSEVFS_POLL_SPENT_NS, (long)spent_ns);
		if (hit)
			fusevfs_poll_stat(FUSEVFS_POLL_HITS, 1);
	}
	/* racy read-modify-writes between workers: estimates, not counts */
	rate = LOAD(g->hit_rate[site]);
	rate = rate - rate / 16 + (hit ? GOV_HIT_ONE / 16 : 0);
	STORE(g->hit_rate[site], rate);
	if (rate < GOV_HIT_OFF) {
		STORE(g->win_us[site], 0);
		return;
	}
	gap = LOAD(g->gap_ns[site]);
	win = next_window(LOAD(g->win_us[site]), &gap, hit, spent_ns,
			  g->max_us);
	STORE(g->gap_ns[site], gap);
	/* a site switched off stays off until polling starts again */
	if (LOAD(g->win_us[site]))
		STORE(g->win_us[site], win);
}

void poll_own_init(struct poll_gov *g, struct poll_own *w)
{
	w->us = g->max_us;
	w->gap_ns = 0;
}

unsigned int poll_own_begin(struct poll_gov *g, struct poll_own *w)
{
	return g->max_us && w->us && take_place(g, POLL_CQE) ? w->us : 0;
}

void poll_own_end(struct poll_gov *g, struct poll_own *w, bool polled, bool hit,
		  uint64_t spent_ns)
{
	__atomic_fetch_sub(&g->spinning, 1, __ATOMIC_RELAXED);
	if (polled)
		w->us = next_window(w->us, &w->gap_ns, hit, spent_ns,
				    g->max_us);
}
