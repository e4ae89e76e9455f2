// SPDX-License-Identifier: GPL-2.0-only
/*
 * Warnings, BUGs, context violations and deadlocks: printed like the
 * kernel's splats (with a user-space backtrace) and counted, so tests and
 * fuzz oracles can fail on them.
 */
#include <execinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <sim/report.h>
#include <sim/trace.h>

static long nr_warnings;
static long nr_violations;
static long nr_deadlocks;
static bool quiet;
static char last_report[256];
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Quiet (a fuzzer counting reports, an oracle printing the one it fails
 * on): a warning's or context violation's line is made only when asked
 * for (sim_report_last()), from what it was told, all of it string
 * constants: a bounced read into user pages reports every page.
 */
static struct {
	const char *fmt; /* NULL: last_report is the line */
	const char *what, *file, *func;
	int line;
} lazy;

static const char *ctx_name(void)
{
	switch (sim_ctx) {
	case SIM_CTX_HARDIRQ:
		return "hardirq";
	case SIM_CTX_SOFTIRQ:
		return "softirq";
	default:
		return (current->flags & PF_WQ_WORKER) ? "worker" : "task";
	}
}

static void backtrace_print(void)
{
	void *frames[32];
	int n = backtrace(frames, ARRAY_SIZE(frames));

	fputs("Call Trace:\n", stderr);
	backtrace_symbols_fd(frames + 2 > frames + n ? frames : frames + 2,
			     n > 2 ? n - 2 : n, STDERR_FILENO);
}

/* Remember the first line of a report; print it unless quiet. */
static void report(const char *fmt, ...) __printf(1, 2);
static void report(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&report_lock);
	lazy.fmt = NULL;
	va_start(ap, fmt);
	vsnprintf(last_report, sizeof(last_report), fmt, ap);
	va_end(ap);
	if (!__atomic_load_n(&quiet, __ATOMIC_RELAXED)) {
		fprintf(stderr, "%s\n", last_report);
		fprintf(stderr, "CPU: %d PID: %d Comm: %s Context: %s\n",
			raw_smp_processor_id(), current->pid, current->comm,
			ctx_name());
		backtrace_print();
	}
	pthread_mutex_unlock(&report_lock);
}

/* The line of a warning or violation: now, or when asked for if quiet. */
static void report_site(const char *fmt, const char *what, const char *file,
			int line, const char *func)
{
	if (__atomic_load_n(&quiet, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&report_lock);
		lazy.fmt = fmt;
		lazy.what = what;
		lazy.file = file;
		lazy.line = line;
		lazy.func = func;
		pthread_mutex_unlock(&report_lock);
		return;
	}
	report(fmt, what, file, line, func);
}

void sim_warn_hit(const char *file, int line, const char *func,
		  const char *cond, bool print)
{
	__atomic_fetch_add(&nr_warnings, 1, __ATOMIC_RELAXED);
	sim_trace("sim_warning", "%s at %s:%d", func, file, line);
	if (print)
		report_site("WARNING: %s at %s:%d %s()", cond, file, line,
			    func);
}

void sim_bug_hit(const char *file, int line, const char *func, const char *cond)
{
	__atomic_store_n(&quiet, false, __ATOMIC_RELAXED);
	report("kernel BUG at %s:%d %s(): %s", file, line, func, cond);
	abort();
}

void sim_context_violation(const char *what, const char *file, int line,
			   const char *func)
{
	__atomic_fetch_add(&nr_violations, 1, __ATOMIC_RELAXED);
	sim_trace("sim_context_violation", "%s in %s at %s:%d", what, func,
		  file, line);
	report_site("BUG: %s at %s:%d %s()", what, file, line, func);
}

void sim_deadlock(const char *file, int line, const char *func)
{
	__atomic_fetch_add(&nr_deadlocks, 1, __ATOMIC_RELAXED);
	sim_trace("sim_deadlock", "%s at %s:%d", func, file, line);
	report("INFO: task %s blocked for ever at %s:%d %s(): nothing left "
	       "to run can wake it (deterministic engine)",
	       current->comm, file, line, func);
}

long sim_warnings(void)
{
	return __atomic_load_n(&nr_warnings, __ATOMIC_RELAXED);
}

long sim_context_violations(void)
{
	return __atomic_load_n(&nr_violations, __ATOMIC_RELAXED);
}

long sim_deadlocks(void)
{
	return __atomic_load_n(&nr_deadlocks, __ATOMIC_RELAXED);
}

void sim_report_reset(void)
{
	__atomic_store_n(&nr_warnings, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&nr_violations, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&nr_deadlocks, 0, __ATOMIC_RELAXED);
	pthread_mutex_lock(&report_lock);
	last_report[0] = '\0';
	lazy.fmt = NULL;
	pthread_mutex_unlock(&report_lock);
}

bool sim_report_quiet(bool q)
{
	return __atomic_exchange_n(&quiet, q, __ATOMIC_RELAXED);
}

const char *sim_report_last(void)
{
	pthread_mutex_lock(&report_lock);
	if (lazy.fmt) {
		snprintf(last_report, sizeof(last_report), lazy.fmt, lazy.what,
			 lazy.file, lazy.line, lazy.func);
		lazy.fmt = NULL;
	}
	pthread_mutex_unlock(&report_lock);
	return last_report;
}

void sim_printk(const char *level, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_load_n(&quiet, __ATOMIC_RELAXED) && strcmp(level, "err") &&
	    strcmp(level, "emerg"))
		return;
	pthread_mutex_lock(&report_lock);
	fprintf(stderr, "[%s cpu%d %s] ", level, raw_smp_processor_id(),
		ctx_name());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&report_lock);
}
