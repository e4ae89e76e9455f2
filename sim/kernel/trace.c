// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace ring.  Records are formatted at the trace point (they are
 * small) and folded into a running hash, so determinism checks compare
 * two numbers instead of two logs.
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

/* @v in @base (10 or 16), after a '-' if @neg, at buf[n]; returns n after */
static size_t put_num(char *buf, size_t size, size_t n, unsigned long long v,
		      unsigned int base, bool neg)
{
	char digits[24];
	size_t d = 0;

	do {
		digits[d++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (neg && n < size - 1)
		buf[n++] = '-';
	while (d && n < size - 1)
		buf[n++] = digits[--d];
	return n;
}

/*
 * The arguments as vsnprintf() would print them, by hand for what trace
 * points use (%d %u %x %s with l, ll or z): vsnprintf's setup cost more
 * than a whole I/O's bookkeeping.  Anything else (flags, widths, other
 * conversions) is left to vsnprintf(): returns false, having consumed
 * nothing the caller cannot start again from a copy of @ap.
 */
static bool trace_format(char *buf, size_t size, size_t n, const char *fmt,
			 va_list ap)
{
	for (const char *f = fmt; *f; f++) {
		unsigned long long u;
		long long sv;
		int len = 0;	/* 0 int, 1 long, 2 long long, 3 size_t */

		if (*f != '%') {
			if (n < size - 1)
				buf[n++] = *f;
			continue;
		}
		f++;
		if (*f == 'l') {
			len = 1;
			if (*++f == 'l') {
				len = 2;
				f++;
			}
		} else if (*f == 'z') {
			len = 3;
			f++;
		}
		switch (*f) {
		case 'd':
			sv = len == 0 ? va_arg(ap, int) :
			     len == 1 ? va_arg(ap, long) :
			     len == 2 ? va_arg(ap, long long) :
					va_arg(ap, ssize_t);
			n = put_num(buf, size, n,
				    sv < 0 ? -(unsigned long long)sv :
					     (unsigned long long)sv,
				    10,
				    sv < 0);
			break;
		case 'u':
		case 'x':
			u = len == 0 ? va_arg(ap, unsigned int) :
			    len == 1 ? va_arg(ap, unsigned long) :
			    len == 2 ? va_arg(ap, unsigned long long) :
				       va_arg(ap, size_t);
			n = put_num(buf, size, n, u, *f == 'x' ? 16 : 10,
				    false);
			break;
		case 's': {
			const char *str = va_arg(ap, const char *);

			if (len)
				return false;
			if (!str)
				str = "(null)";
			while (*str && n < size - 1)
				buf[n++] = *str++;
			break;
		}
		case '%':
			if (len)
				return false;
			if (n < size - 1)
				buf[n++] = '%';
			break;
		default:
			return false;
		}
	}
	buf[n] = '\0';
	return true;
}

/*
 * Fold @len bytes of @buf into the running hash, a word at a time (a
 * multiply per byte was most of what a trace point cost); xor-shift so
 * that high bytes reach the low bits too.
 */
static void hash_record(const char *buf, size_t len)
{
	u64 w;

	for (; len >= 8; buf += 8, len -= 8) {
		memcpy(&w, buf, 8);
		hash = (hash ^ w) * 0x100000001b3ULL;
		hash ^= hash >> 29;
	}
	/* the tail, its length in the top byte: where the record ends */
	w = 0;
	memcpy(&w, buf, len);
	hash = (hash ^ w ^ (u64)len << 56) * 0x100000001b3ULL;
	hash ^= hash >> 29;
}

void __sim_trace(const char *event, const char *fmt, ...)
{
	char buf[TRACE_LEN];
	size_t n;
	va_list ap, again;

	n = trace_prefix(buf, sizeof(buf), event);
	va_start(ap, fmt);
	va_copy(again, ap);
	if (!trace_format(buf, sizeof(buf), n, fmt, ap))
		vsnprintf(buf + n, sizeof(buf) - n, fmt, again);
	va_end(again);
	va_end(ap);
	n += strlen(buf + n);

	pthread_mutex_lock(&trace_lock);
	memcpy(ring[nr_records % TRACE_RING], buf, n + 1);
	hash_record(buf, n);
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
