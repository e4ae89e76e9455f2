// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace ring.  Records are formatted at the trace point (they are
 * small) and folded into a running FNV-1a hash, so determinism checks
 * compare two numbers instead of two logs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <sim/trace.h>

#define TRACE_RING 4096
#define TRACE_LEN 160

bool sim_trace_on = true;

static char ring[TRACE_RING][TRACE_LEN];
static u64 nr_records;
static u64 hash = 0xcbf29ce484222325ULL;
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const ctx_tag[] = {
	[SIM_CTX_TASK] = "T",
	[SIM_CTX_SOFTIRQ] = "S",
	[SIM_CTX_HARDIRQ] = "H",
};

/*
 * "<context><cpu> <event>: " into @buf, as snprintf would, by hand: it
 * opens every record, and a second printf per trace point was a good part
 * of what tracing cost.
 */
static int trace_prefix(char *buf, size_t size, const char *event)
{
	const char *tag = sim_ctx == SIM_CTX_TASK &&
					  (current->flags & PF_WQ_WORKER) ?
				  "W" :
				  ctx_tag[sim_ctx];
	unsigned int cpu = raw_smp_processor_id();
	char digits[12];
	size_t n = 0, d = 0;

	do
		digits[d++] = '0' + cpu % 10;
	while ((cpu /= 10));
	while (*tag && n < size - 1)
		buf[n++] = *tag++;
	while (d && n < size - 1)
		buf[n++] = digits[--d];
	if (n < size - 1)
		buf[n++] = ' ';
	while (*event && n < size - 1)
		buf[n++] = *event++;
	for (const char *p = ": "; *p && n < size - 1; p++)
		buf[n++] = *p;
	buf[n] = '\0';
	return n;
}

void __sim_trace(const char *event, const char *fmt, ...)
{
	char buf[TRACE_LEN];
	int n;
	va_list ap;

	n = trace_prefix(buf, sizeof(buf), event);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);

	pthread_mutex_lock(&trace_lock);
	memcpy(ring[nr_records % TRACE_RING], buf, sizeof(buf));
	for (const unsigned char *p = (const unsigned char *)buf; *p; p++)
		hash = (hash ^ *p) * 0x100000001b3ULL;
	hash = (hash ^ '\n') * 0x100000001b3ULL;
	nr_records++;
	pthread_mutex_unlock(&trace_lock);
}

void sim_trace_enable(bool on)
{
	__atomic_store_n(&sim_trace_on, on, __ATOMIC_RELAXED);
}

void sim_trace_reset(void)
{
	pthread_mutex_lock(&trace_lock);
	nr_records = 0;
	hash = 0xcbf29ce484222325ULL;
	pthread_mutex_unlock(&trace_lock);
}

u64 sim_trace_count(void)
{
	u64 n;

	pthread_mutex_lock(&trace_lock);
	n = nr_records;
	pthread_mutex_unlock(&trace_lock);
	return n;
}

u64 sim_trace_hash(void)
{
	u64 h;

	pthread_mutex_lock(&trace_lock);
	h = hash;
	pthread_mutex_unlock(&trace_lock);
	return h;
}

bool sim_trace_get(unsigned int back, char *buf, size_t len)
{
	bool ok = false;

	pthread_mutex_lock(&trace_lock);
	if (back < nr_records && back < TRACE_RING) {
		snprintf(buf, len, "%s", ring[(nr_records - 1 - back) % TRACE_RING]);
		ok = true;
	}
	pthread_mutex_unlock(&trace_lock);
	return ok;
}

void sim_trace_dump(FILE *out, unsigned int n)
{
	u64 first;

	pthread_mutex_lock(&trace_lock);
	first = nr_records > TRACE_RING ? nr_records - TRACE_RING : 0;
	if (n && nr_records - first > n)
		first = nr_records - n;
	for (u64 i = first; i < nr_records; i++)
		fprintf(out, "%6llu %s\n", (unsigned long long)i,
			ring[i % TRACE_RING]);
	pthread_mutex_unlock(&trace_lock);
}
