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

void __sim_trace(const char *event, const char *fmt, ...) __printf(2, 3);
#define sim_trace(event, fmt, ...)                                    \
	do {                                                          \
		if (unlikely(sim_trace_on))                           \
			__sim_trace(event, fmt, ##__VA_ARGS__);       \
	} while (0)

void sim_trace_enable(bool on);
void sim_trace_reset(void);
/* Records since the last reset and a hash over all of them. */
u64 sim_trace_count(void);
u64 sim_trace_hash(void);
/* Print the last @n records (0: all kept) as "seq ctx cpu event: args". */
void sim_trace_dump(FILE *out, unsigned int n);
/* Copy out record @i counting back from the newest (0), false if gone. */
bool sim_trace_get(unsigned int back, char *buf, size_t len);

#endif /* _SIM_TRACE_H */
