// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace ring as a timeline: its text records ("seq ctx+cpu event: args",
 * as sim_trace_dump() and the mount's .iomapsim/trace print them) turned
 * into the Chrome trace-event JSON that Perfetto, chrome://tracing and
 * speedscope open.
 *
 * Built on the ring's records only, not on iomap's internals, so that it
 * reads any kernel direct-io.c the tracepoints come from.  Time is the
 * record's sequence number (TS_STEP microseconds a record): the
 * deterministic engine's own logical time, so the same seed gives the
 * same file byte for byte.
 *
 * Tracks: one per simulated CPU and context (task, hard IRQ, softirq,
 * workqueue worker).  Slices: iomap_dio_rw (dio_rw_begin to the file
 * system's dio_rw_return) with the path taken nested in it, and each work
 * item.  Each bio is an async slice from block_bio_queue to
 * block_bio_complete with a flow arrow from a "submit_bio" slice on the
 * submitting track to a "bio_endio" slice on the completing one; a
 * workqueue punt is a flow from "queue_work" to the work.  Bios are
 * matched by device, sector and size, first in first out, as blkparse
 * does; work items by workqueue name, first in first out.  Everything
 * else is an instant event on its track.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sim/trace.h>
#include "cli.h"

#define TS_STEP 10 /* microseconds per record */
#define MARK_DUR 4 /* the short slices flows are bound to */

enum rec_kind {
	R_OTHER,
	R_DIO_BEGIN,
	R_DIO_RETURN,
	R_BIO_QUEUE,
	R_BIO_COMPLETE,
	R_QUEUE_WORK,
	R_WORK_START,
	R_WORK_END,
	R_SKIP,
};

struct rec {
	unsigned long long seq;
	unsigned int tid;
	char tag;
	unsigned int cpu;
	enum rec_kind kind;
	char *event;
	char *args;
	long peer; /* bio queue <-> complete, queue_work <-> work start */
};

struct recs {
	struct rec *r;
	size_t nr, cap;
};

static const char *const ctx_names[] = { "task", "hardirq", "softirq",
					 "kworker" };

static int tag_index(char tag)
{
	switch (tag) {
	case 'T':
		return 0;
	case 'H':
		return 1;
	case 'S':
		return 2;
	case 'W':
		return 3;
	default:
		return -1;
	}
}

static const struct {
	const char *event;
	enum rec_kind kind;
} kinds[] = {
	{ "iomap_dio_rw_begin", R_DIO_BEGIN },
	{ "dio_rw_return", R_DIO_RETURN },
	{ "block_bio_queue", R_BIO_QUEUE },
	{ "block_bio_complete", R_BIO_COMPLETE },
	{ "workqueue_queue_work", R_QUEUE_WORK },
	{ "workqueue_execute_start", R_WORK_START },
	{ "workqueue_execute_end", R_WORK_END },
	/* the engine's own bookkeeping: which event it picked */
	{ "sched_event", R_SKIP },
};

/* One ring line into @r; false for anything else (comments, JSON, ...). */
static bool parse_line(char *line, struct rec *r)
{
	char *p = line, *end, *colon;
	int idx;

	while (*p == ' ')
		p++;
	r->seq = strtoull(p, &end, 10);
	if (end == p || *end != ' ')
		return false;
	p = end + 1;
	idx = tag_index(*p);
	if (idx < 0)
		return false;
	r->tag = *p++;
	r->cpu = strtoul(p, &end, 10);
	if (end == p || *end != ' ' || r->cpu > 4096)
		return false;
	p = end + 1;
	colon = strstr(p, ": ");
	if (!colon || colon == p || memchr(p, ' ', colon - p))
		return false;
	*colon = '\0';
	r->tid = r->cpu * 4 + idx;
	r->kind = R_OTHER;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(p, kinds[i].event))
			r->kind = kinds[i].kind;
	r->event = strdup(p);
	r->args = strdup(colon + 2);
	r->peer = -1;
	return r->event && r->args;
}

static int read_recs(FILE *in, struct recs *rs)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, in)) >= 0) {
		struct rec r;

		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (!parse_line(line, &r))
			continue;
		if (rs->nr == rs->cap) {
			size_t c = rs->cap ? rs->cap * 2 : 256;
			struct rec *nr = realloc(rs->r, c * sizeof(*nr));

			if (!nr) {
				free(line);
				return -ENOMEM;
			}
			rs->r = nr;
			rs->cap = c;
		}
		rs->r[rs->nr++] = r;
	}
	free(line);
	return 0;
}

/* The value of @key ("key=value" or "key value") in @args, into @out. */
static bool field(const char *args, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = args; (p = strstr(p, key)); p += kl) {
		size_t n = 0;

		if ((p != args && p[-1] != ' ') ||
		    (p[kl] != '=' && p[kl] != ' '))
			continue;
		p += kl + 1;
		while (p[n] && p[n] != ' ' && n + 1 < len) {
			out[n] = p[n];
			n++;
		}
		out[n] = '\0';
		return n > 0;
	}
	return false;
}

/* "dev sector size" of a bio record, its identity for matching. */
static void bio_key(const struct rec *r, char *key, size_t len)
{
	char dev[64] = "", sector[32] = "", size[32] = "";

	field(r->args, "dev", dev, sizeof(dev));
	field(r->args, "sector", sector, sizeof(sector));
	field(r->args, "size", size, sizeof(size));
	snprintf(key, len, "%s %s %s", dev, sector, size);
}

/* Pair bio submissions with completions and punts with work items. */
static void match(struct recs *rs)
{
	for (size_t i = 0; i < rs->nr; i++) {
		struct rec *r = &rs->r[i];
		char key[160], other[160], wq[64], owq[64];

		if (r->kind == R_BIO_QUEUE) {
			bio_key(r, key, sizeof(key));
			for (size_t j = i + 1; j < rs->nr; j++) {
				struct rec *c = &rs->r[j];

				if (c->kind != R_BIO_COMPLETE || c->peer >= 0)
					continue;
				bio_key(c, other, sizeof(other));
				if (!strcmp(key, other)) {
					r->peer = j;
					c->peer = i;
					break;
				}
			}
		} else if (r->kind == R_QUEUE_WORK) {
			if (!field(r->args, "wq", wq, sizeof(wq)))
				continue;
			for (size_t j = i + 1; j < rs->nr; j++) {
				struct rec *c = &rs->r[j];

				if (c->kind != R_WORK_START || c->peer >= 0 ||
				    !field(c->args, "wq", owq, sizeof(owq)) ||
				    strcmp(wq, owq))
					continue;
				r->peer = j;
				c->peer = i;
				break;
			}
		}
	}
}

/* ---- output ---------------------------------------------------------- */

struct out {
	FILE *f;
	bool first;
};

/*
 * One event: @ph, @name, @cat on track @tid at @ts; @extra is more JSON
 * members (with a leading comma) or "", @args the record text or NULL.
 */
static void emit(struct out *o, const char *ph, const char *name,
		 const char *cat, unsigned int tid, unsigned long long ts,
		 const char *extra, const struct rec *r)
{
	fputs(o->first ? "\n" : ",\n", o->f);
	o->first = false;
	fprintf(o->f, "{\"ph\":\"%s\",\"name\":", ph);
	cli_json_string(o->f, name);
	fprintf(o->f, ",\"cat\":\"%s\",\"pid\":1,\"tid\":%u,\"ts\":%llu%s", cat,
		tid, ts, extra);
	if (r) {
		fprintf(o->f, ",\"args\":{\"seq\":%llu,\"event\":", r->seq);
		cli_json_string(o->f, r->event);
		fputs(",\"args\":", o->f);
		cli_json_string(o->f, r->args);
		fputc('}', o->f);
	}
	fputc('}', o->f);
}

/* Open slices per track, innermost last, so that every B gets its E. */
#define MAX_DEPTH 16
struct track {
	bool used;
	unsigned int depth;
	const char *open[MAX_DEPTH];
};

struct tracks {
	struct track *t;
	unsigned int nr;
};

static struct track *track_of(struct tracks *ts, unsigned int tid)
{
	if (tid >= ts->nr) {
		unsigned int n = tid + 16;
		struct track *t = realloc(ts->t, n * sizeof(*t));

		if (!t)
			return NULL;
		memset(t + ts->nr, 0, (n - ts->nr) * sizeof(*t));
		ts->t = t;
		ts->nr = n;
	}
	ts->t[tid].used = true;
	return &ts->t[tid];
}

static void begin(struct out *o, struct track *t, unsigned int tid,
		  const char *name, const char *cat, unsigned long long ts,
		  const struct rec *r)
{
	if (t->depth == MAX_DEPTH)
		return;
	t->open[t->depth++] = name;
	emit(o, "B", name, cat, tid, ts, "", r);
}

static void end(struct out *o, struct track *t, unsigned int tid,
		unsigned long long ts, const struct rec *r)
{
	const char *name = t->open[--t->depth];

	emit(o, "E", name, "iomapsim", tid, ts, "", r);
}

/* Close slices down to and with the innermost named @name, if open. */
static void end_upto(struct out *o, struct track *t, unsigned int tid,
		     const char *name, unsigned long long ts,
		     const struct rec *r)
{
	unsigned int d = t->depth;

	while (d && strcmp(t->open[d - 1], name))
		d--;
	if (!d)
		return;
	while (t->depth >= d)
		end(o, t, tid, ts, t->depth == d ? r : NULL);
}

static bool is_open(const struct track *t, const char *name)
{
	for (unsigned int i = 0; i < t->depth; i++)
		if (!strcmp(t->open[i], name))
			return true;
	return false;
}

static const char *path_slice(const struct rec *r)
{
	char path[16];

	if (field(r->args, "path", path, sizeof(path)) &&
	    !strcmp(path, "simple"))
		return "simple path";
	return "generic path";
}

/* A short slice at @ts with a flow end of @ph ("s" or "f") bound to it. */
static void flow_mark(struct out *o, const char *name, const char *cat,
		      unsigned int tid, unsigned long long ts, const char *ph,
		      const char *flow, long id, const struct rec *r)
{
	char extra[96];

	snprintf(extra, sizeof(extra), ",\"dur\":%d", MARK_DUR);
	emit(o, "X", name, cat, tid, ts, extra, r);
	snprintf(extra, sizeof(extra), ",\"id\":%ld%s", id,
		 ph[0] == 'f' ? ",\"bp\":\"e\"" : "");
	emit(o, ph, flow, cat, tid, ts + 1, extra, NULL);
}

/* An instant event of record @r on its track. */
static void instant(struct out *o, const char *name, const char *cat,
		    unsigned long long ts, const struct rec *r)
{
	emit(o, "i", name, cat, r->tid, ts, ",\"s\":\"t\"", r);
}

/* "bio READ sector 16", from the bio's block_bio_queue record @q */
static void bio_name(const struct rec *q, char *name, size_t len)
{
	char op[16] = "?", sector[32] = "?";

	field(q->args, "op", op, sizeof(op));
	field(q->args, "sector", sector, sizeof(sector));
	snprintf(name, len, "bio %s sector %s", op, sector);
}

static int emit_events(struct out *o, struct recs *rs, struct tracks *ts)
{
	unsigned long long t0 = rs->nr ? rs->r[0].seq : 0, ts_end = 0;

	for (size_t i = 0; i < rs->nr; i++) {
		struct rec *r = &rs->r[i];
		unsigned long long now = (r->seq - t0) * TS_STEP;
		struct track *t = track_of(ts, r->tid);
		char name[160], extra[64];

		if (!t)
			return -ENOMEM;
		ts_end = now + TS_STEP;
		switch (r->kind) {
		case R_SKIP:
			break;
		case R_DIO_BEGIN:
			/* the simple path's begin, then the generic one's */
			if (!is_open(t, "iomap_dio_rw"))
				begin(o, t, r->tid, "iomap_dio_rw", "iomap",
				      now, r);
			else
				end_upto(o, t, r->tid, "simple path", now,
					 NULL);
			begin(o, t, r->tid, path_slice(r), "iomap", now, r);
			break;
		case R_DIO_RETURN:
			if (is_open(t, "iomap_dio_rw"))
				end_upto(o, t, r->tid, "iomap_dio_rw", now, r);
			else
				instant(o, r->event, "iomap", now, r);
			break;
		case R_BIO_QUEUE:
		case R_BIO_COMPLETE: {
			bool submit = r->kind == R_BIO_QUEUE;
			long id = submit ? (long)i : r->peer;

			if (r->peer < 0) {
				instant(o, submit ? "submit_bio" : "bio_endio",
					"bio", now, r);
				break;
			}
			bio_name(&rs->r[id], name, sizeof(name));
			snprintf(extra, sizeof(extra), ",\"id\":%ld", id);
			if (submit)
				emit(o, "b", name, "bio", r->tid, now, extra,
				     r);
			flow_mark(o, submit ? "submit_bio" : "bio_endio", "bio",
				  r->tid, now, submit ? "s" : "f", "bio", id,
				  r);
			if (!submit)
				emit(o, "e", name, "bio", r->tid,
				     now + MARK_DUR, extra, r);
			break;
		}
		case R_QUEUE_WORK:
			if (r->peer < 0) {
				instant(o, "punt", "punt", now, r);
				break;
			}
			flow_mark(o, "queue_work", "punt", r->tid, now, "s",
				  "punt", (long)i, r);
			break;
		case R_WORK_START:
			begin(o, t, r->tid, "work", "workqueue", now, r);
			if (r->peer >= 0) {
				snprintf(extra, sizeof(extra),
					 ",\"id\":%ld,\"bp\":\"e\"", r->peer);
				emit(o, "f", "punt", "punt", r->tid, now + 1,
				     extra, NULL);
			}
			break;
		case R_WORK_END:
			end_upto(o, t, r->tid, "work", now, r);
			break;
		default:
			instant(o, r->event,
				strncmp(r->event, "fault_", 6) &&
						strcmp(r->event,
						       "bdev_fault_inject") ?
					"trace" :
					"fault",
				now, r);
			break;
		}
	}
	/* what is still open when the ring ends, ends there */
	for (unsigned int tid = 0; tid < ts->nr; tid++)
		while (ts->t[tid].depth)
			end(o, &ts->t[tid], tid, ts_end, NULL);
	return 0;
}

static void emit_names(struct out *o, const struct tracks *ts)
{
	char extra[160];

	fputs(o->first ? "\n" : ",\n", o->f);
	o->first = false;
	fputs("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,"
	      "\"args\":{\"name\":\"iomapsim\"}}",
	      o->f);
	for (unsigned int tid = 0; tid < ts->nr; tid++) {
		if (!ts->t[tid].used)
			continue;
		snprintf(extra, sizeof(extra), "CPU%u %s", tid / 4,
			 ctx_names[tid % 4]);
		fprintf(o->f,
			",\n{\"ph\":\"M\",\"name\":\"thread_name\","
			"\"pid\":1,\"tid\":%u,\"args\":{\"name\":",
			tid);
		cli_json_string(o->f, extra);
		fprintf(o->f,
			"}},\n{\"ph\":\"M\",\"name\":"
			"\"thread_sort_index\",\"pid\":1,\"tid\":%u,"
			"\"args\":{\"sort_index\":%u}}",
			tid, tid);
	}
}

int trace_json_convert(FILE *in, FILE *out)
{
	struct recs rs = { 0 };
	struct tracks ts = { 0 };
	struct out o = { .f = out, .first = true };
	int ret;

	ret = read_recs(in, &rs);
	if (!ret) {
		match(&rs);
		fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":"
		      "{\"clock\":\"trace ring records, 10 us each\"},"
		      "\"traceEvents\":[",
		      out);
		ret = emit_events(&o, &rs, &ts);
		if (!ret) {
			emit_names(&o, &ts);
			fputs("\n]}\n", out);
		}
	}
	for (size_t i = 0; i < rs.nr; i++) {
		free(rs.r[i].event);
		free(rs.r[i].args);
	}
	free(rs.r);
	free(ts.t);
	if (!ret && (ferror(out) || fflush(out)))
		ret = -EIO;
	return ret;
}

int trace_json_to_path(FILE *in, const char *path)
{
	char tmp[4096];
	FILE *out;
	int ret;

	if (!strcmp(path, "-"))
		return trace_json_convert(in, stdout);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	out = fopen(tmp, "w");
	if (!out)
		return -errno;
	ret = trace_json_convert(in, out);
	if (fclose(out) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

int trace_json_write_ring(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int ret;

	if (!mem)
		return -ENOMEM;
	sim_trace_dump(mem, 0);
	if (fclose(mem)) {
		free(text);
		return -ENOMEM;
	}
	mem = fmemopen(text, len, "r");
	if (!mem) {
		free(text);
		return -ENOMEM;
	}
	ret = trace_json_to_path(mem, path);
	fclose(mem);
	free(text);
	return ret;
}
