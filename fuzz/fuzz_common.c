// SPDX-License-Identifier: GPL-2.0-only
/*
 * Oracle failures and accounting checks for the fuzz targets (see
 * fuzz_common.h).  Cheap on the success path: the gauge snapshot is an
 * array copy and no string is formatted unless something failed, since
 * fuzz_dio runs this tens of thousands of times a second.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <sim/alloc.h>
#include <sim/engine.h>
#include <sim/report.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "fuzz_common.h"

#define MAX_GAUGES 128

static void (*describer)(FILE *out, void *arg);
static void *describer_arg;
static const char *input_name;

static struct {
	struct sim_stat *stat;
	long start;
} gauges[MAX_GAUGES];
static int nr_gauges;
static bool gauges_listed;

void fuzz_take_header(struct fuzz_in *in, void *hdr, size_t len)
{
	size_t n = min(len, in->size);

	memset(hdr, 0, len);
	memcpy(hdr, in->data, n);
	in->pos = len < in->size ? len : in->size;
}

void fuzz_set_describer(void (*fn)(FILE *out, void *arg), void *arg)
{
	describer = fn;
	describer_arg = arg;
}

void fuzz_set_input_name(const char *name)
{
	input_name = name;
}

void fuzz_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	sim_report_quiet(false);
	fprintf(stderr, "\n==== iomapsim fuzz oracle failure ====\n");
	if (input_name)
		fprintf(stderr, "input: %s\n", input_name);
	fprintf(stderr, "%s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (describer) {
		fputs("reproduce: ", stderr);
		describer(stderr, describer_arg);
		fputc('\n', stderr);
	}
	if (sim_trace_count()) {
		fputs("last trace records:\n", stderr);
		sim_trace_dump(stderr, 40);
	}
	sim_alloc_report_leaks_since_mark(stderr);
	fflush(stderr);
	abort();
}

static void list_gauge(struct sim_stat *s, void *arg)
{
	if (s->gauge && nr_gauges < MAX_GAUGES)
		gauges[nr_gauges++].stat = s;
}

void fuzz_engine_start(void)
{
	struct sim_engine_opts o = { .kind = SIM_ENGINE_DET, .seed = 1 };

	sim_engine_init(&o);
}

void fuzz_accounting_begin(void)
{
	/* Gauges register from constructors: the list is fixed by now. */
	if (!gauges_listed) {
		sim_stats_for_each(list_gauge, NULL);
		gauges_listed = true;
	}
	for (int i = 0; i < nr_gauges; i++)
		gauges[i].start = sim_stat_read(gauges[i].stat);
	sim_report_reset();
	sim_alloc_mark();
}

static bool ignored(const char *name, const char *const *ignore)
{
	for (; ignore && *ignore; ignore++)
		if (!strcmp(name, *ignore))
			return true;
	return false;
}

void fuzz_accounting_check(long warnings, long violations,
			   const char *const *ignore)
{
	for (int i = 0; i < nr_gauges; i++) {
		long now = sim_stat_read(gauges[i].stat);

		if (now != gauges[i].start &&
		    !ignored(gauges[i].stat->name, ignore))
			fuzz_fail(__FILE__, __LINE__,
				  "accounting not back to zero: gauge %s went "
				  "%ld -> %ld",
				  gauges[i].stat->name, gauges[i].start, now);
	}
	if (violations >= 0 && sim_context_violations() != violations)
		fuzz_fail(__FILE__, __LINE__,
			  "%ld context violation(s), %ld expected: %s",
			  sim_context_violations(), violations,
			  sim_report_last());
	if (sim_deadlocks())
		fuzz_fail(__FILE__, __LINE__, "%ld deadlock(s): %s",
			  sim_deadlocks(), sim_report_last());
	if (sim_warnings() != warnings)
		fuzz_fail(__FILE__, __LINE__,
			  "%ld WARN_ON hit(s), %ld expected for this input: %s",
			  sim_warnings(), warnings, sim_report_last());
}

void fuzz_input_begin(struct fuzz_in *in, const u8 *data, size_t size,
		      void (*describe)(FILE *out, void *arg), void *arg,
		      size_t arg_size)
{
	memset(arg, 0, arg_size);
	fuzz_in_init(in, data, size);
	fuzz_accounting_begin();
	fuzz_set_describer(describe, arg);
}

void fuzz_input_end(long warnings, long violations, const char *const *ignore)
{
	fuzz_accounting_check(warnings, violations, ignore);
	fuzz_set_describer(NULL, NULL);
}

bool fuzz_quiet(bool quiet)
{
	return sim_report_quiet(quiet);
}
