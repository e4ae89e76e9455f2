// SPDX-License-Identifier: GPL-2.0-only
/*
 * iomapsim bench: what a direct I/O costs here, by path and by layer.
 *
 * Runs the workload generator (fs/testfs/workload.c) and prints IOPS,
 * nanoseconds and kernel heap allocations per request.  With --profile it
 * runs itself again under valgrind's callgrind, collecting only the
 * measured part (wl_measure()), on the deterministic engine, and prints
 * instructions per request by layer and the functions with the most
 * instructions of their own.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include <sim/iomap_features.h>
#include "bench-profile.h"
#include "workload.h"

static const char usage_text[] =
	"usage: iomapsim bench [OPTIONS]\n"
	"\n"
	"Direct I/O on the test file system: IOPS, ns and heap allocations per\n"
	"request; --profile adds instructions per request by layer (callgrind).\n"
	"\n"
	"  --op read|write          (read)\n"
	"  --size BYTES             per request (4k)\n"
	"  --qd N                   requests in flight per submitter (1)\n"
	"  --submitters N           simulated CPUs submitting (1)\n"
	"  --mode sync|async|polled sync: no ki_complete; async: ki_complete;\n"
	"                           polled: IOCB_HIPRI, reaped by iocb_bio_iopoll (sync)\n"
	"  --simple on|off          the simple path allowed (on)\n"
	"  --iomap ops|next|begin   iomap_dio_rw, _rw_next or _rw_begin (ops)\n"
	"  --no-iomap-end           IOMAP_DIO_NO_IOMAP_END (N-12; _rw_begin tries\n"
	"                           the simple path only with it, N-13)\n"
	"  --dev null|ram|file      the device (null)\n"
	"  --latency TIME           null device completion latency, e.g. 10us (0)\n"
	"  --path FILE              the file device's file or block device\n"
	"  --file-size BYTES        the file (16m)\n"
	"  --sequential             offsets in order (default: random)\n"
	"  --count N                requests measured (100000)\n"
	"  --duration TIME          or for this long (threaded engine), e.g. 2s\n"
	"  --warmup N               requests before measuring (count/10, <= 10000)\n"
	"  --seed N                 offsets and engine (1)\n"
	"  --engine det|threaded    deterministic: one thread, exact counts;\n"
	"                           threaded: real threads, wall-clock IOPS (det)\n"
	"  --iowq                   async requests go through an io-wq, hashed per\n"
	"                           inode as io_uring does (threaded engine)\n"
	"  --parallel-write on|off  FMODE_DIO_PARALLEL_WRITE on the file (off)\n"
	"  --iopoll                 the ring is IORING_SETUP_IOPOLL (io-wq hashing)\n"
	"  --profile                instructions per request by layer (callgrind,\n"
	"                           deterministic engine; count defaults to 20000)\n"
	"  --top N                  functions listed with --profile (12)\n";

enum {
	OPT_OP = 256,
	OPT_SIZE,
	OPT_QD,
	OPT_SUBMITTERS,
	OPT_MODE,
	OPT_SIMPLE,
	OPT_IOMAP,
	OPT_DEV,
	OPT_LATENCY,
	OPT_PATH,
	OPT_FILE_SIZE,
	OPT_SEQ,
	OPT_COUNT,
	OPT_DURATION,
	OPT_WARMUP,
	OPT_SEED,
	OPT_ENGINE,
	OPT_IOWQ,
	OPT_PARALLEL,
	OPT_IOPOLL,
	OPT_PROFILE,
	OPT_TOP,
	OPT_HELP,
	OPT_PROFILE_CHILD,
	OPT_NO_END,
};

static const struct option long_opts[] = {
	{ "op", required_argument, NULL, OPT_OP },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "qd", required_argument, NULL, OPT_QD },
	{ "submitters", required_argument, NULL, OPT_SUBMITTERS },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "simple", required_argument, NULL, OPT_SIMPLE },
	{ "iomap", required_argument, NULL, OPT_IOMAP },
	{ "no-iomap-end", no_argument, NULL, OPT_NO_END },
	{ "dev", required_argument, NULL, OPT_DEV },
	{ "latency", required_argument, NULL, OPT_LATENCY },
	{ "path", required_argument, NULL, OPT_PATH },
	{ "file-size", required_argument, NULL, OPT_FILE_SIZE },
	{ "sequential", no_argument, NULL, OPT_SEQ },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "iowq", no_argument, NULL, OPT_IOWQ },
	{ "parallel-write", required_argument, NULL, OPT_PARALLEL },
	{ "iopoll", no_argument, NULL, OPT_IOPOLL },
	{ "profile", no_argument, NULL, OPT_PROFILE },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "help", no_argument, NULL, OPT_HELP },
	/* internal: the run under callgrind */
	{ "profile-child", no_argument, NULL, OPT_PROFILE_CHILD },
	{ NULL, 0, NULL, 0 },
};

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "iomapsim bench: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 2;
}

/* "10us", "2s", "500ns", "1ms", a bare number is nanoseconds. */
static bool parse_time_ns(const char *s, uint64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = { { "ns", 1 },
		      { "us", 1000 },
		      { "ms", 1000000 },
		      { "s", 1000000000ULL },
		      { "", 1 } };
	char *end;
	unsigned long long v;
	size_t i;

	if (!cli_parse_ull(s, 10, &v, &end))
		return false;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			if (v > ~0ULL / units[i].ns)
				return false;
			*out = v * units[i].ns;
			return true;
		}
	return false;
}

static bool parse_on_off(const char *s, bool *out)
{
	if (!strcmp(s, "on") || !strcmp(s, "1")) {
		*out = true;
		return true;
	}
	if (!strcmp(s, "off") || !strcmp(s, "0")) {
		*out = false;
		return true;
	}
	return false;
}

static int pick(const char *s, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static const char *const mode_names[] = { "sync", "async", "polled" };
static const char *const dev_names[] = { "null", "ram", "file" };
static const char *const iomap_names[] = { "ops", "next", "begin" };

static void print_result(const struct wl_opts *o, const struct wl_result *r)
{
	double per = r->ios ? (double)r->ns / r->ios : 0;

	printf("%s %u B, %s, qd %u x %u submitter(s), simple=%d, iomap %s, %s device",
	       o->write ? "write" : "read", o->size, mode_names[o->mode], o->qd,
	       o->submitters, o->simple, iomap_names[o->iomap_mode],
	       dev_names[o->dev]);
	if (o->latency_ns)
		printf(" (latency %llu ns)", (unsigned long long)o->latency_ns);
	printf(", %s engine%s\n", o->threaded ? "threaded" : "deterministic",
	       o->dio_flags & IOMAP_DIO_NO_IOMAP_END ? ", NO_IOMAP_END" : "");
	printf("  requests      %llu (%llu errors, %llu on the simple path)\n",
	       (unsigned long long)r->ios, (unsigned long long)r->errors,
	       (unsigned long long)r->simple);
	printf("  IOPS          %.0f\n", per ? 1e9 / per : 0);
	printf("  ns per I/O    %.1f (wall clock / requests)\n", per);
	printf("  CPU ns per I/O %.1f (%s)\n",
	       r->ios ? (double)r->cpu_ns / r->ios : 0,
	       o->threaded ? "every thread's CPU time / requests" :
			     "one thread: the whole stack, waiting excluded");
	printf("  allocs per I/O %.3f (kernel heap, steady state)\n",
	       r->ios ? (double)r->allocs / r->ios : 0);
	if (o->iowq)
		printf("  io-wq         %s, %llu item(s) hashed, at most %u running at once\n",
		       r->hashed ? "hashed per inode" : "not hashed",
		       (unsigned long long)r->hashed, r->max_parallel);
}

/* What cmd_bench() is asked for besides the workload. */
struct bench_args {
	struct wl_opts o;
	bool profile, child, warmup_set, help;
	unsigned int top;
};

/* The field of struct bench_args an option sets: where and how wide. */
#define BENCH_FIELD(f) \
	offsetof(struct bench_args, f), sizeof(((struct bench_args *)NULL)->f)

/*
 * The number options: the field each sets, the values it takes and what a
 * bad one is told.
 */
static const struct {
	int opt;
	size_t off, width;
	uint64_t min, max;
	const char *bad;
} bench_nums[] = {
	{ OPT_SIZE, BENCH_FIELD(o.size), 1, 1u << 20,
	  "--size %s: 1 .. 1m bytes" },
	{ OPT_QD, BENCH_FIELD(o.qd), 1, 4096, "--qd %s: 1 .. 4096" },
	{ OPT_SUBMITTERS, BENCH_FIELD(o.submitters), 1, 64,
	  "--submitters %s: 1 .. 64" },
	{ OPT_FILE_SIZE, BENCH_FIELD(o.file_size), 1, UINT64_MAX,
	  "--file-size %s: bytes" },
	{ OPT_COUNT, BENCH_FIELD(o.count), 1, UINT64_MAX,
	  "--count %s: a positive number" },
	{ OPT_WARMUP, BENCH_FIELD(o.warmup), 0, UINT64_MAX,
	  "--warmup %s: a number" },
	{ OPT_SEED, BENCH_FIELD(o.seed), 0, UINT64_MAX, "--seed %s: a number" },
	{ OPT_TOP, BENCH_FIELD(top), 0, 100000, "--top %s: 0 .. 100000" },
};

/* The options that set a bool of struct bench_args (--warmup as well). */
static const struct {
	int opt;
	size_t off;
} bench_flags[] = {
	{ OPT_SEQ, offsetof(struct bench_args, o.sequential) },
	{ OPT_WARMUP, offsetof(struct bench_args, warmup_set) },
	{ OPT_IOWQ, offsetof(struct bench_args, o.iowq) },
	{ OPT_IOPOLL, offsetof(struct bench_args, o.ring_iopoll) },
	{ OPT_PROFILE, offsetof(struct bench_args, profile) },
	{ OPT_PROFILE_CHILD, offsetof(struct bench_args, child) },
};

/* Store @v into the unsigned field @width bytes wide at @field. */
static void bench_store(void *field, size_t width, uint64_t v)
{
	if (width == sizeof(unsigned int))
		*(unsigned int *)field = (unsigned int)v;
	else
		*(u64 *)field = v;
}

/*
 * Option @c if it is a number option or one that sets a bool, into @b:
 * 0 taken, 2 bad (the reason printed), -1 when @c is neither.
 */
static int bench_opt_table(int c, const char *arg, struct bench_args *b)
{
	bool taken = false;
	uint64_t v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bench_nums); i++) {
		if (bench_nums[i].opt != c)
			continue;
		if (!cli_parse_u64(arg, &v) || v < bench_nums[i].min ||
		    v > bench_nums[i].max)
			return bad(bench_nums[i].bad, arg);
		bench_store((char *)b + bench_nums[i].off, bench_nums[i].width,
			    v);
		taken = true;
	}
	for (i = 0; i < ARRAY_SIZE(bench_flags); i++) {
		if (bench_flags[i].opt != c)
			continue;
		*(bool *)((char *)b + bench_flags[i].off) = true;
		taken = true;
	}
	return taken ? 0 : -1;
}

/*
 * An option whose value is a word or a time: 0 taken, 2 bad (the reason
 * printed), -1 not one of them.
 */
static int bench_opt_word(int c, const char *arg, struct wl_opts *o)
{
	uint64_t ns;
	int ret;

	switch (c) {
	case OPT_OP:
		if (!strcmp(arg, "read") || !strcmp(arg, "write"))
			o->write = arg[0] == 'w';
		else
			return bad("--op %s: read or write", arg);
		return 0;
	case OPT_MODE:
		if ((ret = pick(arg, mode_names, 3)) < 0)
			return bad("--mode %s: sync, async or polled", arg);
		o->mode = ret;
		return 0;
	case OPT_SIMPLE:
		if (!parse_on_off(arg, &o->simple))
			return bad("--simple %s: on or off", arg);
		return 0;
	case OPT_IOMAP:
		if ((ret = pick(arg, iomap_names, 3)) < 0)
			return bad("--iomap %s: ops, next or begin", arg);
		/* N-06..N-14 exist only in the embedded copy */
		if (ret != TESTFS_MODE_OPS && !IOMAPSIM_PROPOSAL)
			return bad(
				"--iomap %s: the proposal entry points are not in this build's iomap code (see iomapsim --version)",
				arg);
		o->iomap_mode = ret;
		return 0;
	case OPT_NO_END:
		o->dio_flags |= IOMAP_DIO_NO_IOMAP_END;
		return 0;
	case OPT_DEV:
		if ((ret = pick(arg, dev_names, 3)) < 0)
			return bad("--dev %s: null, ram or file", arg);
		o->dev = ret;
		return 0;
	case OPT_LATENCY:
		if (!parse_time_ns(arg, &ns))
			return bad("--latency %s: a time, e.g. 10us", arg);
		o->latency_ns = ns;
		return 0;
	case OPT_PATH:
		o->path = arg;
		return 0;
	case OPT_DURATION:
		if (!parse_time_ns(arg, &ns) || !ns)
			return bad("--duration %s: a time, e.g. 2s", arg);
		o->duration_ns = ns;
		return 0;
	case OPT_ENGINE:
		if (!strcmp(arg, "det") || !strcmp(arg, "deterministic"))
			o->threaded = false;
		else if (!strcmp(arg, "threaded"))
			o->threaded = true;
		else
			return bad("--engine %s: det or threaded", arg);
		return 0;
	case OPT_PARALLEL:
		if (!parse_on_off(arg, &o->parallel_write))
			return bad("--parallel-write %s: on or off", arg);
		return 0;
	}
	return -1;
}

/* Parse argv into @b: 0 (with b->help for --help), else the exit status. */
static int parse_bench_args(int argc, char **argv, struct bench_args *b)
{
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		if (c == 'h' || c == OPT_HELP) {
			b->help = true;
			return 0;
		}
		ret = bench_opt_table(c, optarg, b);
		if (ret < 0)
			ret = bench_opt_word(c, optarg, &b->o);
		if (ret < 0) {
			fprintf(stderr, "try 'iomapsim bench --help'\n");
			return 2;
		}
		if (ret)
			return ret;
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (b->profile && b->o.threaded)
		return bad(
			"%s",
			"--profile counts instructions on the deterministic engine; drop --engine threaded");
	return 0;
}

/* Without --warmup, a run warms up briefly: at qd 1 a request is slow. */
static void bench_default_warmup(struct wl_opts *o)
{
	o->warmup = o->count ? o->count / 10 : 64;
	if (o->warmup > 10000)
		o->warmup = 10000;
	if (o->warmup < o->qd * o->submitters)
		o->warmup = o->qd * o->submitters;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_args b = { .o = { .simple = true, .seed = 1 }, .top = 12 };
	struct wl_opts *o = &b.o;
	struct wl_result r;
	char err[256] = "";
	int ret;

	ret = parse_bench_args(argc, argv, &b);
	if (ret)
		return ret;
	if (b.help) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (b.profile && !o->count && !o->duration_ns)
		o->count = 20000;
	ret = wl_check(o, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "iomapsim bench: %s\n", err);
		return 2;
	}
	if (!b.warmup_set)
		bench_default_warmup(o);

	ret = wl_run(o, &r, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "iomapsim bench: %s\n", err);
		return 1;
	}
	if (b.child)
		return r.errors ? 1 : 0;
	print_result(o, &r);
	if (b.profile) {
		fflush(stdout);
		ret = bench_profile(argc, argv, r.ios, b.top);
		if (ret)
			return ret;
	}
	return r.errors ? 1 : 0;
}
