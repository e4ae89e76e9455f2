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
 *    polling is for.  A trial runs the two arms, polling and sleeping,
 *    in alternating stretches of POLL_GOV_BLOCK cycles and compares
 *    their mean cycle, which is what the client's IOPS are the inverse
 *    of.  Not the median: polling makes the common cycle shorter and,
 *    where the worker spins on a CPU the client wanted, a few cycles far
 *    longer, and only the mean sees both.  Long stretches, of which the
 *    first POLL_GOV_SKIP cycles are not counted: the scheduler takes
 *    that long to settle where it puts the client and the worker after
 *    the other arm (in short ones the sleeping arm measured a third
 *    slower than a poll=0 mount runs).  Polling wins only by
 *    GOV_MARGIN_PCT or more, and only if it got to poll at all (see
 *    "Who" below).  A trial that lone cycles are too rare to finish in
 *    a second is decided on what it has, or for sleeping if that is too
 *    little.  The winner then runs POLL_GOV_RUN cycles, and the next
 *    trial starts; a trial's polling cycles are 256 in about 8,700, so
 *    where polling loses, the mount runs within half a percent of
 *    poll=0.
 *  - How long.  Each site's window is twice the moving average of the
 *    waits that hit, plus slack, doubled after a miss, never above the
 *    poll= bound; a site whose windows hit less than one time in four
 *    is off until the next trial.
 *  - Who.  A worker polls only while a CPU would otherwise be idle:
 *    runnable threads (/proc/loadavg's count, sampled at most once a
 *    millisecond per site) other than itself and the pollers, plus the
 *    pollers, must leave one CPU free for it.
 *
 * Windows, hits, time spent, polls refused for want of an idle CPU,
 * trials and their mean cycles go to the mount's stats (sfs_poll_stat()).
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
#include "sfs.h"

#define GOV_MARGIN_PCT	3	/* polling must beat sleeping by this */
#define GOV_MAX_CYCLE_NS 10000000 /* longer: the client paused */
#define GOV_SLACK_NS	5000	/* added to twice the mean wait */
#define GOV_MIN_US	5
#define GOV_HIT_ONE	256	/* hit_rate of a site that always hits */
#define GOV_HIT_OFF	(GOV_HIT_ONE / 4)
#define GOV_SAMPLE_NS	1000000	/* loadavg sampled this often */
/*
 * A trial not done in this long (lone cycles are rare under load) is
 * decided on what it has, if each arm has GOV_MIN_SAMPLES; else sleeping
 * wins.
 */
#define GOV_TRIAL_NS	1000000000ull
#define GOV_MIN_SAMPLES	8

uint64_t poll_gov_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* Every site on, its window the bound: where a trial starts from. */
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
	g->trial = max_us > 0;
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

/* Under lock: both arms measured; pick the winner and run it. */
static void trial_decide(struct poll_gov *g)
{
	bool enough = g->nr[0] >= GOV_MIN_SAMPLES &&
		      g->nr[1] >= GOV_MIN_SAMPLES;
	uint64_t on = enough ? g->sum_ns[1] / g->nr[1] : 0;
	uint64_t off = enough ? g->sum_ns[0] / g->nr[0] : 0;
	/* a polling arm that never got to poll (no idle CPU) is void */
	bool win = enough && LOAD(g->windows) &&
		   on * 100 < off * (100 - GOV_MARGIN_PCT);

	STORE(g->on, win);
	sfs_poll_stat(SFS_POLL_TRIALS, 1);
	if (win)
		sfs_poll_stat(SFS_POLL_TRIALS_WON, 1);
	sfs_poll_stat(SFS_POLL_ON, win);
	sfs_poll_stat(SFS_POLL_CYCLE_POLLING_NS, on);
	sfs_poll_stat(SFS_POLL_CYCLE_SLEEPING_NS, off);
	g->trial = false;
	g->cycles = 0;
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
	now = poll_gov_now_ns();
	pthread_mutex_lock(&g->lock);
	last = LOAD(g->last_ns);
	if (g->trial && last && g->last_keep &&
	    now - last < GOV_MAX_CYCLE_NS) {
		unsigned int arm = g->last_on;

		if (g->nr[arm] < POLL_GOV_SAMPLES) {
			g->sum_ns[arm] += now - last;
			g->nr[arm]++;
		}
		if (g->nr[0] == POLL_GOV_SAMPLES &&
		    g->nr[1] == POLL_GOV_SAMPLES)
			trial_decide(g);
	}
	/* a trial's second runs from its first lone cycle */
	if (g->trial && !g->trial_ns)
		g->trial_ns = now;
	else if (g->trial && now - g->trial_ns > GOV_TRIAL_NS)
		trial_decide(g);
	STORE(g->last_ns, now);
	if (g->trial) {
		/* stretches of one arm, then the other, polling first */
		on = !((g->cycles / POLL_GOV_BLOCK) & 1);
		g->last_keep = g->cycles % POLL_GOV_BLOCK >= POLL_GOV_SKIP;
		/* an arm already full waits for the other one */
		if (g->nr[on] == POLL_GOV_SAMPLES)
			g->last_keep = false;
		g->cycles++;
	} else {
		on = LOAD(g->on);
		g->last_keep = false;
		if (++g->cycles >= POLL_GOV_RUN) {
			g->trial = true;
			g->trial_ns = 0;
			g->cycles = 0;
			g->nr[0] = g->nr[1] = 0;
			g->sum_ns[0] = g->sum_ns[1] = 0;
			STORE(g->windows, 0);
			sites_reset(g);
		}
	}
	g->last_on = on;
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
	uint64_t now = poll_gov_now_ns();
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
	sfs_poll_stat(SFS_POLL_IDLE_CPUS, idle);
	return idle;
}

unsigned int poll_gov_begin(struct poll_gov *g, enum poll_site site)
{
	unsigned int w = g->max_us ? LOAD(g->win_us[site]) : 0;
	unsigned int idle, n;

	if (!w)
		return 0;
	idle = idle_cpus(g, site);
	n = LOAD(g->spinning);
	do {
		if (n + 1 > idle) {
			sfs_poll_stat(SFS_POLL_NO_IDLE_CPU, 1);
			return 0;
		}
	} while (!__atomic_compare_exchange_n(&g->spinning, &n, n + 1, true,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return w;
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
		sfs_poll_stat(SFS_POLL_WINDOWS, 1);
		sfs_poll_stat(SFS_POLL_SPENT_NS, (long)spent_ns);
		if (hit)
			sfs_poll_stat(SFS_POLL_HITS, 1);
	}
	/* racy read-modify-writes between workers: estimates, not counts */
	rate = LOAD(g->hit_rate[site]);
	rate = rate - rate / 16 + (hit ? GOV_HIT_ONE / 16 : 0);
	STORE(g->hit_rate[site], rate);
	if (rate < GOV_HIT_OFF) {
		STORE(g->win_us[site], 0);
		return;
	}
	win = LOAD(g->win_us[site]);
	if (hit) {
		gap = LOAD(g->gap_ns[site]);
		gap = gap ? gap - gap / 8 + (unsigned int)(spent_ns / 8) :
			    (unsigned int)spent_ns;
		STORE(g->gap_ns[site], gap);
		win = (2 * gap + GOV_SLACK_NS) / 1000;
	} else {
		win *= 2;
	}
	if (win < GOV_MIN_US)
		win = GOV_MIN_US;
	if (win > g->max_us)
		win = g->max_us;
	/* a site switched off stays off until the next trial */
	if (LOAD(g->win_us[site]))
		STORE(g->win_us[site], win);
}
