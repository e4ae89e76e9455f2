// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace ring.  A trace point keeps its arguments raw (the format
 * string is parsed once, the first time it is seen) and folds them into a
 * running hash, so determinism checks compare two numbers instead of two
 * logs; records become text only when someone reads them.  A format with
 * anything but %d %u %x %s (with l, ll or z) is printed at the trace
 * point instead, as are records whose strings do not fit.
 *
 * The hash identifies a trace within one process: it mixes in where the
 * event name and format live, not their text.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <sim/engine.h>
#include <sim/trace.h>

#define TRACE_RING 4096
#define TRACE_LEN 160 /* a record as text, with its NUL, at most */
#define TRACE_ARGS 12
#define TRACE_STRS 64 /* the copied %s arguments of one record */
#define FMT_SLOTS 512 /* formats seen, an open-addressed table */

/* one conversion: 'd', 'u', 'x' or 's', and l (1), ll (2) or z (3) */
struct conv {
	char type;
	u8 len;
};

struct fmt_spec {
	const char *fmt; /* NULL: free slot */
	bool eager; /* not ours: vsnprintf() at the trace point */
	u8 nr;
	struct conv c[TRACE_ARGS];
};

struct trace_rec {
	const char *event;
	const struct fmt_spec *spec; /* NULL: text holds the arguments */
	char tag;
	unsigned int cpu;
	union {
		struct {
			u64 v[TRACE_ARGS]; /* %s: offset into strs */
			char strs[TRACE_STRS];
		} a;
		char text[TRACE_LEN];
	};
};

bool sim_trace_on = true;
unsigned int sim_watch = SIM_WATCH_TRACE | SIM_WATCH_COUNT;
static unsigned int watch_epoch;

static struct trace_rec ring[TRACE_RING];
static struct fmt_spec fmts[FMT_SLOTS];
static u64 nr_records;
static u64 hash = 0xcbf29ce484222325ULL;
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The ring is the simulator's, no kernel structure: only real threads
 * (the threaded engine) can meet in it; the deterministic engine runs
 * everything on one.  Returns whether it locked, for ring_unlock().
 */
static bool ring_lock(void)
{
	bool threaded = sim_engine_threaded();

	if (threaded)
		pthread_mutex_lock(&trace_lock);
	return threaded;
}

static void ring_unlock(bool locked)
{
	if (locked)
		pthread_mutex_unlock(&trace_lock);
}

/* ---- formats ------------------------------------------------------- */

/* What @fmt asks for, if it is only what compile() knows. */
static bool compile(const char *fmt, struct fmt_spec *sp)
{
	sp->nr = 0;
	for (const char *f = fmt; *f; f++) {
		u8 len = 0;

		if (*f != '%')
			continue;
		f++;
		if (*f == '%')
			continue;
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
		if (*f != 'd' && *f != 'u' && *f != 'x' && *f != 's')
			return false;
		if ((*f == 's' && len) || sp->nr == TRACE_ARGS)
			return false;
		sp->c[sp->nr++] = (struct conv){ *f, len };
	}
	return true;
}

/* The compiled @fmt (trace_lock held); NULL when the table is full. */
static const struct fmt_spec *spec_of(const char *fmt)
{
	unsigned long h = (unsigned long)fmt * 0x9e3779b97f4a7c15ULL >> 55;

	for (unsigned int i = 0; i < FMT_SLOTS; i++) {
		struct fmt_spec *sp = &fmts[(h + i) % FMT_SLOTS];

		if (sp->fmt == fmt)
			return sp;
		if (!sp->fmt) {
			sp->fmt = fmt;
			sp->eager = !compile(fmt, sp);
			return sp;
		}
	}
	return NULL;
}

/* ---- text ---------------------------------------------------------- */

/* @v in @base (10 or 16), after a '-' if @neg, at buf[n]; returns n after */
static size_t put_num(char *buf, size_t size, size_t n, unsigned long long v,
		      unsigned int base, bool neg)
{
	char digits[24];
	size_t d = 0;

	if (base == 16) {
		do {
			digits[d++] = "0123456789abcdef"[v & 15];
			v >>= 4;
		} while (v);
	} else {
		do {
			digits[d++] = '0' + v % 10;
			v /= 10;
		} while (v);
	}
	if (neg && n < size - 1)
		buf[n++] = '-';
	while (d && n < size - 1)
		buf[n++] = digits[--d];
	return n;
}

static size_t put_str(char *buf, size_t size, size_t n, const char *s)
{
	while (*s && n < size - 1)
		buf[n++] = *s++;
	return n;
}

/* "<context><cpu> <event>: " */
static size_t put_prefix(char *buf, size_t size, const struct trace_rec *r)
{
	size_t n = 0;

	buf[n++] = r->tag;
	n = put_num(buf, size, n, r->cpu, 10, false);
	n = put_str(buf, size, n, " ");
	n = put_str(buf, size, n, r->event);
	return put_str(buf, size, n, ": ");
}

/* Record @r as vsnprintf() would have printed it, into @buf. */
static void render(const struct trace_rec *r, char *buf, size_t size)
{
	const struct conv *c;
	size_t n = put_prefix(buf, size, r);
	unsigned int k = 0;

	if (!r->spec) {
		n = put_str(buf, size, n, r->text);
		buf[n] = '\0';
		return;
	}
	for (const char *f = r->spec->fmt; *f; f++) {
		u64 v;

		if (*f != '%') {
			if (n < size - 1)
				buf[n++] = *f;
			continue;
		}
		if (*++f == '%') {
			if (n < size - 1)
				buf[n++] = '%';
			continue;
		}
		while (*f == 'l' || *f == 'z')
			f++;
		c = &r->spec->c[k];
		v = r->a.v[k++];
		if (c->type == 's')
			n = put_str(buf, size, n, r->a.strs + v);
		else if (c->type == 'd')
			n = put_num(buf, size, n, (s64)v < 0 ? -v : v, 10,
				    (s64)v < 0);
		else
			n = put_num(buf, size, n, v, c->type == 'x' ? 16 : 10,
				    false);
	}
	buf[n] = '\0';
}

/* ---- recording ----------------------------------------------------- */

static inline void mix(u64 w)
{
	hash = (hash ^ w) * 0x100000001b3ULL;
	hash ^= hash >> 29;
}

/* @len bytes a word at a time, the length in the top byte of the tail */
static void mix_bytes(const char *buf, size_t len)
{
	u64 w;

	for (; len >= 8; buf += 8, len -= 8) {
		memcpy(&w, buf, 8);
		mix(w);
	}
	w = 0;
	memcpy(&w, buf, len);
	mix(w ^ (u64)len << 56);
}

/*
 * The arguments into @r, as @sp says (trace_lock held).  False when the
 * strings do not fit: the caller prints the record instead.
 */
static bool keep_args(struct trace_rec *r, const struct fmt_spec *sp,
		      va_list ap)
{
	size_t used = 0;

	for (unsigned int k = 0; k < sp->nr; k++) {
		const struct conv *c = &sp->c[k];
		const char *s;
		size_t l;
		u64 v;

		switch (c->type) {
		case 's':
			s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			l = strlen(s) + 1;
			if (used + l > TRACE_STRS)
				return false;
			memcpy(r->a.strs + used, s, l);
			v = used;
			used += l;
			break;
		case 'd':
			v = c->len == 0 ? (u64)va_arg(ap, int) :
			    c->len == 1 ? (u64)va_arg(ap, long) :
			    c->len == 2 ? (u64)va_arg(ap, long long) :
					  (u64)va_arg(ap, ssize_t);
			break;
		default:
			v = c->len == 0 ? va_arg(ap, unsigned int) :
			    c->len == 1 ? va_arg(ap, unsigned long) :
			    c->len == 2 ? va_arg(ap, unsigned long long) :
					  va_arg(ap, size_t);
			break;
		}
		r->a.v[k] = v;
		mix(v);
	}
	if (used)
		mix_bytes(r->a.strs, used);
	return true;
}

void __sim_trace(const char *event, const char *fmt, ...)
{
	const struct fmt_spec *sp;
	struct trace_rec *r;
	va_list ap;
	bool locked = ring_lock();

	r = &ring[nr_records % TRACE_RING];
	r->event = event;
	r->tag = sim_ctx == SIM_CTX_TASK && (current->flags & PF_WQ_WORKER) ?
			 'W' :
		 sim_ctx == SIM_CTX_SOFTIRQ ? 'S' :
		 sim_ctx == SIM_CTX_HARDIRQ ? 'H' :
					      'T';
	r->cpu = raw_smp_processor_id();
	mix((u64)(unsigned long)event);
	mix((u64)(unsigned long)fmt);
	mix((u64)r->tag << 32 | r->cpu);

	sp = spec_of(fmt);
	va_start(ap, fmt);
	r->spec = sp && !sp->eager && keep_args(r, sp, ap) ? sp : NULL;
	va_end(ap);
	if (!r->spec) {
		va_start(ap, fmt);
		vsnprintf(r->text, sizeof(r->text), fmt, ap);
		va_end(ap);
		mix_bytes(r->text, strlen(r->text));
	}
	nr_records++;
	ring_unlock(locked);
}

void sim_trace_enable(bool on)
{
	__atomic_store_n(&sim_trace_on, on, __ATOMIC_RELAXED);
	sim_watch_set(SIM_WATCH_TRACE, on);
}

void sim_watch_set(unsigned int bits, bool on)
{
	unsigned int old = __atomic_load_n(&sim_watch, __ATOMIC_RELAXED);

	/* an observer per request: no locked operation when nothing changes */
	if ((old & bits) == (on ? bits : 0))
		return;
	if (on) {
		old = __atomic_fetch_or(&sim_watch, bits, __ATOMIC_RELAXED);
		if (!old)
			__atomic_fetch_add(&watch_epoch, 1, __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_and(&sim_watch, ~bits, __ATOMIC_RELAXED);
	}
}

unsigned int sim_watch_epoch(void)
{
	return __atomic_load_n(&watch_epoch, __ATOMIC_RELAXED);
}

void sim_trace_reset(void)
{
	bool locked = ring_lock();

	nr_records = 0;
	hash = 0xcbf29ce484222325ULL;
	ring_unlock(locked);
}

/* A ring total that sim_trace() updates with the ring, read whole. */
static u64 ring_read(const u64 *total)
{
	bool locked = ring_lock();
	u64 n;

	n = *total;
	ring_unlock(locked);
	return n;
}

u64 sim_trace_count(void)
{
	return ring_read(&nr_records);
}

u64 sim_trace_hash(void)
{
	return ring_read(&hash);
}

bool sim_trace_get(unsigned int back, char *buf, size_t len)
{
	char line[TRACE_LEN];
	bool ok = false;
	bool locked = ring_lock();

	if (back < nr_records && back < TRACE_RING) {
		render(&ring[(nr_records - 1 - back) % TRACE_RING], line,
		       sizeof(line));
		snprintf(buf, len, "%s", line);
		ok = true;
	}
	ring_unlock(locked);
	return ok;
}

void sim_trace_dump(FILE *out, unsigned int n)
{
	char line[TRACE_LEN];
	u64 first;
	bool locked = ring_lock();

	first = nr_records > TRACE_RING ? nr_records - TRACE_RING : 0;
	if (n && nr_records - first > n)
		first = nr_records - n;
	for (u64 i = first; i < nr_records; i++) {
		render(&ring[i % TRACE_RING], line, sizeof(line));
		fprintf(out, "%6llu %s\n", (unsigned long long)i, line);
	}
	ring_unlock(locked);
}
