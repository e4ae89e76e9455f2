/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The FUSE workers' poll governor (poll-gov.c): whether a worker that
 * left the mount idle busy-polls, where, and how long.  A host header.
 */
#ifndef _POLL_GOV_H
#define _POLL_GOV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

enum poll_site {
	POLL_REQ, /* /dev/fuse, for the next request */
	POLL_CQE, /* the worker's ring, for its read's completion */
	POLL_SITES,
};

/*
 * Lone cycles an epoch runs one arm for, the first of them not counted,
 * and the most epochs the winner runs between two explorations.
 */
#define POLL_GOV_EPOCH 4096
#define POLL_GOV_SKIP 1024
#define POLL_GOV_BACKOFF_MAX 64

struct poll_gov {
	unsigned int max_us; /* poll=: the bound, 0: never poll */
	unsigned int ncpu; /* CPUs this process may run on */
	int loadavg_fd; /* /proc/loadavg, -1: count no others */
	unsigned int epoch_len; /* POLL_GOV_EPOCH (a test shrinks them) */
	unsigned int epoch_skip; /* POLL_GOV_SKIP */
	uint64_t (*now_ns)(void); /* poll_gov_now_ns (a test's own clock) */

	pthread_mutex_t lock; /* the epochs' bookkeeping below */
	bool arm; /* the running epoch's: polling or not */
	bool tried[2]; /* [arm] measured at least once */
	unsigned int cycles; /* arrivals in the running epoch */
	uint64_t epoch_ns; /* its first arrival */
	bool last_keep; /* the cycle last_ns began is a sample */
	uint64_t sum_ns; /* the epoch's sampled cycles' total */
	unsigned int nr; /* and how many */
	uint64_t mean_ns[2]; /* [arm] its last epoch's, 0: nothing */
	unsigned int backoff; /* epochs of the winner between explorations */
	unsigned int left; /* of them still to run before the next */
	/* atomics, read on every cycle without the lock */
	uint64_t last_ns; /* the last lone request's arrival, 0: none */
	bool on; /* the last decision's winner */
	unsigned int win_us[POLL_SITES]; /* 0: the site is off */
	unsigned int gap_ns[POLL_SITES]; /* EWMA of hits' wait */
	unsigned int hit_rate[POLL_SITES]; /* EWMA, 256 = every one */
	unsigned int spinning; /* workers in a window now */
	unsigned int windows; /* opened in the running epoch */
	unsigned int idle_cpus[POLL_SITES];
	uint64_t sampled_ns[POLL_SITES];
};

/* @max_us: the poll= bound (0: the governor never lets anyone poll). */
void poll_gov_init(struct poll_gov *g, unsigned int max_us);
void poll_gov_destroy(struct poll_gov *g);
/*
 * A worker received a request; @lone: nothing else was in service or in
 * flight.  Returns whether this request's cycle polls (its completion,
 * then the next request), as the running epoch's arm says.
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

/*
 * A poller on the CPU its own client waits on (fuse-loop.c's pinned FUSE
 * io_uring threads): its polling takes from nobody, so no trial against
 * sleeping and no shared window; only a CPU idle for it.  Its window is
 * its own, sized as the shared ones are.  poll_own_begin(): the window
 * in microseconds, or 0 (poll=0, or no CPU idle); non-zero takes a
 * poller's place, which poll_own_end() gives back.
 */
struct poll_own {
	unsigned int us; /* the next window */
	unsigned int gap_ns; /* moving average of the hits' waits */
};
void poll_own_init(struct poll_gov *g, struct poll_own *w);
unsigned int poll_own_begin(struct poll_gov *g, struct poll_own *w);
void poll_own_end(struct poll_gov *g, struct poll_own *w, bool polled, bool hit,
		  uint64_t spent_ns);

#endif /* _POLL_GOV_H */
