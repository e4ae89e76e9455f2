/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The FUSE workers' poll governor (poll-gov.c): whether a worker that
 * left the mount idle busy-polls, where, and how long.  A host header.
 */
#ifndef _SFS_POLL_GOV_H
#define _SFS_POLL_GOV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

enum poll_site {
	POLL_REQ,	/* /dev/fuse, for the next request */
	POLL_CQE,	/* the worker's ring, for its read's completion */
	POLL_SITES,
};

/* Cycles measured per arm in a trial, and cycles between trials. */
#define POLL_GOV_SAMPLES	192
#define POLL_GOV_BLOCK		128	/* cycles an arm runs at a stretch */
#define POLL_GOV_SKIP		32	/* of which the first are not counted */
#define POLL_GOV_RUN		8192

struct poll_gov {
	unsigned int max_us;	/* poll=: the bound, 0: never poll */
	unsigned int ncpu;	/* CPUs this process may run on */
	int loadavg_fd;		/* /proc/loadavg, -1: count no others */

	pthread_mutex_t lock;	/* the trial's bookkeeping below */
	bool trial;		/* measuring, not running the winner */
	uint64_t trial_ns;	/* its first lone cycle, 0: none yet */
	unsigned int cycles;	/* in this trial or run */
	bool last_on;		/* the arm of the cycle last_ns began */
	bool last_keep;		/* and whether it is a sample */
	uint64_t sum_ns[2];	/* [on] the sampled cycles' total */
	unsigned int nr[2];	/* [on] how many */

	/* atomics, read on every cycle without the lock */
	uint64_t last_ns;	/* the last lone request's arrival, 0: none */
	bool on;		/* the last trial's winner */
	unsigned int win_us[POLL_SITES];   /* 0: the site is off */
	unsigned int gap_ns[POLL_SITES];   /* EWMA of hits' wait */
	unsigned int hit_rate[POLL_SITES]; /* EWMA, 256 = every one */
	unsigned int spinning;	/* workers in a window now */
	unsigned int windows;	/* opened since the trial began */
	unsigned int idle_cpus[POLL_SITES];
	uint64_t sampled_ns[POLL_SITES];
};

/* @max_us: the poll= bound (0: the governor never lets anyone poll). */
void poll_gov_init(struct poll_gov *g, unsigned int max_us);
void poll_gov_destroy(struct poll_gov *g);
/*
 * A worker received a request; @lone: nothing else was in service or in
 * flight.  Returns whether this request's cycle polls (its completion,
 * then the next request), as the running trial or its winner says.
 */
bool poll_gov_arrival(struct poll_gov *g, bool lone);
/*
 * The window to poll @site for, in microseconds, or 0: the site does not
 * pay, or no CPU is idle for another poller.  Non-zero takes a poller's
 * place that poll_gov_end() gives back.
 */
unsigned int poll_gov_begin(struct poll_gov *g, enum poll_site site);
/*
 * The window ended: @polled (it was opened at all), @hit (the event came
 * inside it), @spent_ns busy.
 */
void poll_gov_end(struct poll_gov *g, enum poll_site site, bool polled,
		  bool hit, uint64_t spent_ns);
uint64_t poll_gov_now_ns(void);

#endif /* _SFS_POLL_GOV_H */
