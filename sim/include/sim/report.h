/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What went wrong, counted: WARN_ON hits, context violations (a sleep in
 * interrupt context or under a spinlock), deadlocks found by the
 * deterministic engine.  Each is printed with a backtrace unless quiet,
 * and counted so a test or fuzz oracle can fail on it.
 */
#ifndef _SIM_REPORT_H
#define _SIM_REPORT_H

#include <linux/types.h>

long sim_warnings(void);
long sim_context_violations(void);
long sim_deadlocks(void);
/* Set all three counters back to zero. */
void sim_report_reset(void);
/* Suppress printing (counts still go up); returns the previous setting. */
bool sim_report_quiet(bool quiet);
/* Record a context violation: "<what> at file:line" plus a backtrace. */
void sim_context_violation(const char *what, const char *file, int line,
			   const char *func);
/* The deterministic engine found a wait that nothing can satisfy. */
void sim_deadlock(const char *file, int line, const char *func);
/* Last report's first line, for tests. */
const char *sim_report_last(void);

#endif /* _SIM_REPORT_H */
