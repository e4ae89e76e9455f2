/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The trace ring: tracepoint-like events ("iomap_dio_rw_begin", "bio_endio",
 * ...), each stamped with a sequence number, context and simulated CPU.
 * Arguments must not contain pointers or times, so that a deterministic
 * run's trace (and its running hash) is identical for the same seed.
 * The event name and the format are kept by address until the record is
 * read: string constants only.
 */
#ifndef _SIM_TRACE_H
#define _SIM_TRACE_H

#include <stdio.h>
#include <linux/compiler.h>
#include <linux/types.h>

extern bool sim_trace_on;

/*
 * Whether the ring records: the test a tracepoint's static key makes.  A
 * relaxed atomic load (a plain move on x86): the mount's control file
 * turns tracing on and off while workers run trace points.
 */
static inline bool sim_tracing(void)
{
	return unlikely(__atomic_load_n(&sim_trace_on, __ATOMIC_RELAXED));
}

void __sim_trace(const char *event, const char *fmt, ...) __printf(2, 3);
#define sim_trace(event, fmt, ...)                              \
	do {                                                    \
		if (sim_tracing())                              \
			__sim_trace(event, fmt, ##__VA_ARGS__); \
	} while (0)

void sim_trace_enable(bool on);

/*
 * Who watches the hooks that feed more than the trace ring (a layer's
 * counters, a per-request observer): a mask, SIM_WATCH_TRACE while the
 * ring records (sim_trace_enable()), the other bits as their owners set
 * them.  Such a hook tests sim_watched() as the kernel tests a tracepoint's
 * static key: one load and one predictable branch, no call and no argument
 * evaluated, when nobody watches.  Counting is on by default, as tracing
 * is (the mount's stats show the counters); a benchmark turns both off.
 */
#define SIM_WATCH_TRACE (1u << 0)
#define SIM_WATCH_OBSERVER (1u << 1) /* a per-request observer */
#define SIM_WATCH_COUNT (1u << 2) /* counters fed by the hooks */

extern unsigned int sim_watch;

static inline bool sim_watched(void)
{
	return unlikely(__atomic_load_n(&sim_watch, __ATOMIC_RELAXED) != 0);
}

static inline bool sim_watch_counting(void)
{
	return __atomic_load_n(&sim_watch, __ATOMIC_RELAXED) & SIM_WATCH_COUNT;
}

void sim_watch_set(unsigned int bits, bool on);
/*
 * Bumped each time the mask leaves 0: state a hook recorded for a request
 * before then may be missing its other half (hooks skipped while nobody
 * watched), so it is not trusted.
 */
unsigned int sim_watch_epoch(void);
void sim_trace_reset(void);
/* Records since the last reset and a hash over all of them. */
u64 sim_trace_count(void);
u64 sim_trace_hash(void);
/* Print the last @n records (0: all kept) as "seq ctx cpu event: args". */
void sim_trace_dump(FILE *out, unsigned int n);
/* Copy out record @i counting back from the newest (0), false if gone. */
bool sim_trace_get(unsigned int back, char *buf, size_t len);

#endif /* _SIM_TRACE_H */
