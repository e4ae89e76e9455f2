// SPDX-License-Identifier: GPL-2.0-only
/*
 * iomapsim run: one direct I/O request against testfs on the deterministic
 * engine, its outcome printed as one JSON object.  The options and the
 * JSON keys are a contract (scripts read them); the work is done by the request
 * runner in fs/testfs/request.c, which the tests and the fuzzer share.
 *
 * Exit status: 0 when the request ran, whatever its result; 2 with one
 * line on stderr when the arguments are bad; 1 when --trace-json's file
 * cannot be written (the outcome is printed all the same).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/fs.h>
#include <linux/iomap.h>
#include <linux/pagemap.h>
#include <sim/bdev.h>
#include <sim/engine.h>
#include <sim/iomap.h>
#include <sim/iomap_fs.h>
#include <sim/report.h>
#include <sim/trace.h>
#include "cli.h"
#include <sim/iomap_features.h>
#include "request.h"

/*
 * The one line that says why the options are bad: kept here rather than
 * printed, so that `iomapsim batch` can put it into the line's error
 * object and go on, while `iomapsim run` prints it and exits 2.
 */
static char run_err[320];

static int bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(run_err, sizeof(run_err), fmt, ap);
	va_end(ap);
	return 2;
}

const char *cli_run_error(void)
{
	return run_err;
}

/* A word of an option's value and what it stands for (0: not built in). */
struct flag_name {
	const char *name;
	unsigned int val;
};

static const struct flag_name map_types[] = {
	{ "mapped", IOMAP_MAPPED },	{ "unwritten", IOMAP_UNWRITTEN },
	{ "hole", IOMAP_HOLE },		{ "inline", IOMAP_INLINE },
	{ "delalloc", IOMAP_DELALLOC },
};

static const struct flag_name map_flags[] = {
	{ "new", IOMAP_F_NEW },	    { "shared", IOMAP_F_SHARED },
	{ "dirty", IOMAP_F_DIRTY }, { "integrity", IOMAP_F_INTEGRITY },
	{ "stale", IOMAP_F_STALE }, { "atomic", IOMAP_F_ATOMIC_BIO },
};

/* The entry of @names named @s, in any case, or NULL. */
static const struct flag_name *find_name(const struct flag_name *names,
					 size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(s, names[i].name))
			return &names[i];
	return NULL;
}

/*
 * The flag @s names in @names or'ed into *@out: 0, 1 when it names none,
 * 2 (the error told) when the iomap code linked in lacks it.
 */
static int add_flag(const char *opt, const char *arg,
		    const struct flag_name *names, size_t n, const char *s,
		    unsigned int *out)
{
	const struct flag_name *f = find_name(names, n, s);

	if (!f)
		return 1;
	/* a flag the iomap code linked in does not have */
	if (!f->val)
		return bad(
			"%s %s: %s is not in this build's iomap code (see --version)",
			opt, arg, f->name);
	*out |= f->val;
	return 0;
}

/* TYPE:OFF:LEN[:FLAG+FLAG] */
static int parse_map(const char *arg, struct testfs_extent *e)
{
	char buf[256], *f[4], *type, *off, *len, *flags;
	const struct flag_name *t;
	uint64_t v;
	int n = cli_split_colons(arg, buf, sizeof(buf), f, 4);

	if (n < 0)
		return bad("--map %s: too long", arg);
	if (n < 3 || n > 4)
		return bad("--map %s: want TYPE:OFF:LEN[:FLAG+FLAG]", arg);
	type = f[0];
	off = f[1];
	len = f[2];
	flags = f[3];
	memset(e, 0, sizeof(*e));
	t = find_name(map_types, ARRAY_SIZE(map_types), type);
	if (!t)
		return bad(
			"--map %s: type must be mapped, unwritten, hole, inline or delalloc",
			arg);
	e->type = t->val;
	if (!cli_parse_u64(off, &v))
		return bad("--map %s: bad offset '%s'", arg, off);
	e->off = v;
	if (!cli_parse_u64(len, &v) || !v)
		return bad("--map %s: bad length '%s'", arg, len);
	e->len = v;
	e->addr = TESTFS_ADDR_AUTO;
	if (flags) {
		char *f, *fs = NULL;
		unsigned int fl = 0;
		int rc;

		for (f = strtok_r(flags, "+", &fs); f;
		     f = strtok_r(NULL, "+", &fs)) {
			rc = add_flag("--map", arg, map_flags,
				      ARRAY_SIZE(map_flags), f, &fl);
			if (rc == 1)
				return bad(
					"--map %s: flag '%s' is not one of new, shared, dirty, integrity, stale, atomic",
					arg, f);
			if (rc)
				return rc;
			e->flags = fl;
		}
	}
	return 0;
}

static const struct flag_name iocb_names[] = {
	{ "NOWAIT", IOCB_NOWAIT }, { "HIPRI", IOCB_HIPRI },
	{ "DSYNC", IOCB_DSYNC },   { "SYNC", IOCB_SYNC | IOCB_DSYNC },
	{ "ATOMIC", IOCB_ATOMIC }, { "CALLER_COMP", IOCB_DIO_CALLER_COMP },
};

static const struct flag_name dio_names[] = {
	{ "FORCE_WAIT", IOMAP_DIO_FORCE_WAIT },
	{ "OVERWRITE_ONLY", IOMAP_DIO_OVERWRITE_ONLY },
	{ "PARTIAL", IOMAP_DIO_PARTIAL },
	{ "FSBLOCK_ALIGNED", IOMAP_DIO_FSBLOCK_ALIGNED },
	{ "BOUNCE", IOMAP_DIO_BOUNCE },
	{ "NO_IOMAP_END", IOMAP_DIO_NO_IOMAP_END },
};

static int parse_list(const char *opt, const char *arg,
		      const struct flag_name *names, size_t n,
		      unsigned int *out)
{
	char buf[256], *t, *save = NULL;
	size_t i;

	if (strlen(arg) >= sizeof(buf))
		return bad("%s %s: too long", opt, arg);
	strcpy(buf, arg);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int rc = add_flag(opt, arg, names, n, t, out);

		if (rc == 1) {
			char all[256] = "";

			for (i = 0; i < n; i++) {
				strcat(all, names[i].name);
				if (i + 1 < n)
					strcat(all, ",");
			}
			return bad("%s: unknown flag '%s' (known: %s)", opt, t,
				   all);
		}
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * bio-error:..., alloc-fail:N, short-pin:N:BYTES, unmapped:OFF,
 * begin-error:ERRNO
 */
static int parse_fault(const char *arg, struct testfs_request *req)
{
	char err[160];
	uint64_t a, b;

	if (!strncmp(arg, "alloc-fail:", 11)) {
		if (!cli_parse_u64(arg + 11, &a) || !a)
			return bad("--fault %s: want alloc-fail:N with N >= 1",
				   arg);
		req->alloc_fail_nth = a;
		return 0;
	}
	if (!strncmp(arg, "short-pin:", 10)) {
		/* short-pin, N, BYTES */
		char buf[64], *f[3];
		int nr = cli_split_colons(arg, buf, sizeof(buf), f, 3);

		if (nr < 0)
			return bad("--fault %s: too long", arg);
		if (nr != 3 || !cli_parse_u64(f[1], &a) || !a ||
		    !cli_parse_u64(f[2], &b))
			return bad("--fault %s: want short-pin:N:BYTES", arg);
		req->short_pin_nth = a;
		req->short_pin_bytes = b;
		return 0;
	}
	if (!strncmp(arg, "unmapped:", 9)) {
		if (!cli_parse_u64(arg + 9, &a) || a > IOMAPSIM_MAX_LEN)
			return bad("--fault %s: want unmapped:OFF", arg);
		req->unmapped = true;
		req->unmapped_from = a;
		return 0;
	}
	if (!strncmp(arg, "begin-error:", 12)) {
		/* begin-error, ERRNO, N; what follows N is not read */
		char buf[64], *f[3], *e, *n;

		if (cli_split_colons(arg, buf, sizeof(buf), f, 3) < 0)
			return bad("--fault %s: too long", arg);
		e = f[1];
		n = f[2];
		req->begin_error = testfs_parse_errno(e);
		if (!req->begin_error)
			return bad(
				"--fault %s: want begin-error:ERRNO (a name like EIO or a number)",
				arg);
		req->begin_error_nth = 1;
		if (n) {
			if (!cli_parse_u64(n, &a) || !a || a > 1000)
				return bad("--fault %s: bad call number '%s'",
					   arg, n);
			req->begin_error_nth = a;
		}
		return 0;
	}
	if (!strncmp(arg, "bio-error:", 10)) {
		if (blksim_bdev_fault_check(arg, err, sizeof(err)) < 0)
			return bad("--fault %s: %s", arg, err);
		if (req->nr_bio_faults >= IOMAPSIM_MAX_FAULTS)
			return bad("--fault: at most %d bio faults",
				   IOMAPSIM_MAX_FAULTS);
		req->bio_faults[req->nr_bio_faults++] = arg;
		return 0;
	}
	return bad(
		"--fault %s: want bio-error:N[:STATUS], alloc-fail:N, short-pin:N:BYTES, unmapped:OFF or begin-error:ERRNO",
		arg);
}

/*
 * --iter iovec:L1,L2@OFF,...: explicit segment lengths; a segment with
 * @OFF starts OFF bytes into a page of its own (see request.h).
 */
static int parse_iov_list(const char *arg, struct testfs_request *req)
{
	char buf[1024], *save = NULL, *tok;
	unsigned int n = 0;

	if (strlen(arg) >= sizeof(buf))
		return bad("--iter iovec:%s: too long", arg);
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		const char *off;
		uint32_t len;
		int32_t page_off;

		if (n >= IOMAPSIM_MAX_IOV)
			return bad("--iter iovec:%s: at most %d segments", arg,
				   IOMAPSIM_MAX_IOV);
		switch (cli_parse_iov_seg(tok, &len, &page_off, &off)) {
		case -1:
			return bad("--iter iovec:%s: bad segment length '%s'",
				   arg, tok);
		case -2:
			return bad(
				"--iter iovec:%s: bad page offset '%s' (0..4095)",
				arg, off);
		}
		req->iov[n].len = len;
		req->iov[n].page_off = page_off;
		n++;
	}
	if (!n)
		return bad("--iter iovec:%s: no segments", arg);
	req->nr_iov = n;
	req->iovec_segs = n;
	req->iter = IOMAPSIM_ITER_IOVEC;
	return 0;
}

/* Where parse_run_args() puts what the options say. */
struct run_parse {
	struct testfs_request *req;
	uint64_t *seed;
	bool *trace;
	const char **trace_json;
	bool *help;
	bool len_given;
	const struct run_opt *opt; /* the option being parsed */
};

/* The options that take a number, for opt_number(). */
enum run_num {
	RUN_FS_BLOCK,
	RUN_LBS,
	RUN_SIZE,
	RUN_POS,
	RUN_LEN,
	RUN_BUF_OFFSET,
	RUN_DONE_BEFORE,
};

/*
 * An option of `iomapsim run` (and of a line of `iomapsim batch`):
 * @arg is the shape of its value in --help, NULL for an option without
 * one; @help its description, a line a line ("" for none), NULL to leave
 * the option off --help's list (it is described with the one before);
 * @usage replaces "--NAME ARG" as the list's left column.  A left column
 * wider than the list's is followed by two blanks, or three where the
 * description starts with one (--iter's and --complete's defaults).
 * @parse takes the option; opt_number() reads @num, opt_switch() @flag.
 */
struct run_opt {
	const char *name;
	const char *arg;
	const char *help;
	int (*parse)(struct run_parse *p, const char *name, const char *arg);
	const char *usage;
	enum run_num num;
	size_t flag; /* offsetof() a bool in struct testfs_request */
};

/*
 * @arg's place among the words of the option's value, p->opt->arg
 * ("a|b|c"), or -1 with the error told: "--NAME ARG: want a, b or c".
 */
static int pick(const struct run_parse *p, const char *arg)
{
	const char *w, *sep;
	char want[128];
	size_t n, len = 0;
	int i = 0;

	for (w = p->opt->arg;; w += n + 1, i++) {
		n = strcspn(w, "|");
		if (strlen(arg) == n && !strncmp(w, arg, n))
			return i;
		if (!w[n])
			break;
	}
	for (w = p->opt->arg; len < sizeof(want); w += n + 1) {
		n = strcspn(w, "|");
		sep = w[n] ? ", " : " or ";
		len += snprintf(want + len, sizeof(want) - len, "%s%.*s",
				len ? sep : "", (int)n, w);
		if (!w[n])
			break;
	}
	bad("--%s %s: want %s", p->opt->name, arg, want);
	return -1;
}

static int opt_number(struct run_parse *p, const char *name, const char *arg)
{
	struct testfs_request *req = p->req;
	uint64_t v;

	if (!cli_parse_u64(arg, &v))
		return bad("%s: '%s' is not a number", name, arg);
	switch (p->opt->num) {
	case RUN_FS_BLOCK:
		req->fs_block = v > 65536 ? 0 : v;
		if (!req->fs_block)
			return bad("%s %s: out of range", name, arg);
		break;
	case RUN_LBS:
		req->lbs = v > 65536 ? 0 : v;
		if (!req->lbs)
			return bad("%s %s: out of range", name, arg);
		break;
	/* --size and --pos: too large is -1, refused after the last option */
	case RUN_SIZE:
		req->size = v > IOMAPSIM_MAX_OFFSET ? -1 : (loff_t)v;
		break;
	case RUN_POS:
		req->pos = v > IOMAPSIM_MAX_OFFSET ? -1 : (loff_t)v;
		break;
	case RUN_LEN:
		req->len = v;
		p->len_given = true;
		break;
	case RUN_BUF_OFFSET:
		req->buf_offset = v;
		break;
	case RUN_DONE_BEFORE:
		req->done_before = v;
		break;
	}
	return 0;
}

/* An option without a value that sets a flag of the request. */
static int opt_switch(struct run_parse *p, const char *name, const char *arg)
{
	*(bool *)((char *)p->req + p->opt->flag) = true;
	return 0;
}

static int opt_map(struct run_parse *p, const char *name, const char *arg)
{
	struct testfs_request *req = p->req;
	int rc;

	if (req->nr_map >= IOMAPSIM_MAX_MAP)
		return bad("--map: at most %d extents", IOMAPSIM_MAX_MAP);
	rc = parse_map(arg, &req->map[req->nr_map]);
	if (rc)
		return rc;
	req->nr_map++;
	return 0;
}

static int opt_dma_alignment(struct run_parse *p, const char *name,
			     const char *arg)
{
	uint64_t v;

	if (!cli_parse_u64(arg, &v) || !v || v >= 4096 || (v & (v + 1)))
		return bad(
			"--dma-alignment %s: want a mask 2^n - 1 from 1 to 4095",
			arg);
	p->req->dma_alignment = (unsigned int)v;
	return 0;
}

static int opt_dops(struct run_parse *p, const char *name, const char *arg)
{
	int i = pick(p, arg);

	if (i < 0)
		return 2;
	p->req->dops = i;
	return 0;
}

static int opt_op(struct run_parse *p, const char *name, const char *arg)
{
	int i = pick(p, arg);

	if (i < 0)
		return 2;
	p->req->write = i == 1;
	return 0;
}

static int opt_iter(struct run_parse *p, const char *name, const char *arg)
{
	static const enum testfs_iter iters[] = {
		[CLI_ITER_UBUF] = IOMAPSIM_ITER_UBUF,
		[CLI_ITER_KVEC] = IOMAPSIM_ITER_KVEC,
		[CLI_ITER_BVEC] = IOMAPSIM_ITER_BVEC,
		[CLI_ITER_IOVEC] = IOMAPSIM_ITER_IOVEC,
	};
	struct testfs_request *req = p->req;
	uint64_t segs;
	enum cli_iter it = cli_parse_iter(arg, &segs);

	if (it == CLI_ITER_BAD)
		return bad(
			"--iter %s: want ubuf, iovec:K (1..1024), kvec or bvec",
			arg);
	if (it == CLI_ITER_IOVEC_LIST)
		return parse_iov_list(arg + 6, req);
	req->iter = iters[it];
	if (it == CLI_ITER_IOVEC) {
		req->iovec_segs = segs;
		req->nr_iov = 0;
	}
	return 0;
}

static int opt_iocb(struct run_parse *p, const char *name, const char *arg)
{
	unsigned int f = 0;
	int rc;

	rc = parse_list("--iocb", arg, iocb_names, ARRAY_SIZE(iocb_names), &f);
	if (rc)
		return rc;
	p->req->ki_flags |= f;
	return 0;
}

static int opt_dio_flags(struct run_parse *p, const char *name, const char *arg)
{
	return parse_list("--dio-flags", arg, dio_names, ARRAY_SIZE(dio_names),
			  &p->req->dio_flags);
}

static int opt_fault(struct run_parse *p, const char *name, const char *arg)
{
	return parse_fault(arg, p->req);
}

static int opt_complete(struct run_parse *p, const char *name, const char *arg)
{
	/* in the order of the option's words */
	static const enum testfs_complete completes[] = {
		IOMAPSIM_COMPLETE_INLINE, IOMAPSIM_COMPLETE_IRQ,
		IOMAPSIM_COMPLETE_DEFERRED, IOMAPSIM_COMPLETE_RANDOM
	};
	int i = pick(p, arg);

	if (i < 0)
		return 2;
	p->req->complete = completes[i];
	return 0;
}

static int opt_seed(struct run_parse *p, const char *name, const char *arg)
{
	if (!cli_parse_u64(arg, p->seed))
		return bad("--seed %s: not a number", arg);
	return 0;
}

static int opt_iomap(struct run_parse *p, const char *name, const char *arg)
{
	int i = pick(p, arg);

	if (i < 0)
		return 2;
	/* N-06..N-14 exist only in the embedded copy */
	if (i != TESTFS_MODE_OPS && !IOMAPSIM_PROPOSAL)
		return bad(
			"--iomap %s: the proposal entry points are not in this build's iomap code (see --version)",
			arg);
	p->req->mode = i;
	return 0;
}

static int opt_trace(struct run_parse *p, const char *name, const char *arg)
{
	*p->trace = true;
	return 0;
}

static int opt_trace_json(struct run_parse *p, const char *name,
			  const char *arg)
{
	*p->trace_json = arg;
	return 0;
}

/* --help ends the parse: what follows it is not looked at */
static int opt_help(struct run_parse *p, const char *name, const char *arg)
{
	*p->help = true;
	return 0;
}

/* The options, in the order --help lists them. */
static const struct run_opt run_opts[] = {
	{ "fs-block", "N", "file system block size (4096)", opt_number,
	  .num = RUN_FS_BLOCK },
	{ "lbs", "N", "device logical block size (512)", opt_number,
	  .num = RUN_LBS },
	{ "size", "N", "i_size (1048576)", opt_number, .num = RUN_SIZE },
	{ "map", "TYPE:OFF:LEN[:FLAG+FLAG]",
	  "extent (repeatable; TYPE mapped|unwritten|hole|inline|delalloc,\n"
	  "FLAG new|shared|dirty|integrity|stale|atomic); default: all mapped;\n"
	  "inline data may be any length; atomic (IOMAP_F_ATOMIC_BIO) gives\n"
	  "the device 64 KiB atomic writes",
	  opt_map },
	{ "encrypted", NULL, "the inode is encrypted", opt_switch,
	  .flag = offsetof(struct testfs_request, encrypted) },
	{ "dops", "none|end_io|submit_io|bio_set|ioend", "", opt_dops },
	{ "op", "read|write", "(read)", opt_op },
	{ "pos", "N", "file range (0, 4096)", opt_number, "--pos N --len N",
	  .num = RUN_POS },
	{ "len", "N", NULL, opt_number, .num = RUN_LEN },
	{ "iter", "ubuf|iovec:K|iovec:L1,L2,...|kvec|bvec",
	  " (ubuf)\n"
	  "iovec:K: K equal pieces of one buffer; iovec:L1,L2,...:\n"
	  "segments of these lengths (--len defaults to their sum),\n"
	  "each right after the one before, or with L@OFF OFF bytes\n"
	  "into a page of its own (iovec:4096,4096@1)",
	  opt_iter },
	{ "buf-offset", "N",
	  "buffer (the first segment) starts N bytes past a page boundary",
	  opt_number, .num = RUN_BUF_OFFSET },
	{ "dma-alignment", "M",
	  "device DMA alignment mask, 2^n - 1 (511); misaligned\n"
	  "buffers or segment lengths fail with EINVAL (B-29, B-30)",
	  opt_dma_alignment },
	{ "no-poll", NULL,
	  "device without poll queues: HIPRI (polled) I/O gets EOPNOTSUPP",
	  opt_switch, .flag = offsetof(struct testfs_request, no_poll) },
	{ "iocb", "LIST",
	  "NOWAIT,HIPRI,DSYNC,SYNC,ATOMIC,CALLER_COMP\n"
	  "(CALLER_COMP: an async write on code with\n"
	  "caller completion, as io_uring asks)",
	  opt_iocb },
	{ "async", NULL, "kiocb with ki_complete", opt_switch,
	  .flag = offsetof(struct testfs_request, async) },
	{ "dio-flags", "LIST",
	  "FORCE_WAIT,OVERWRITE_ONLY,PARTIAL,FSBLOCK_ALIGNED,BOUNCE,NO_IOMAP_END",
	  opt_dio_flags },
	{ "done-before", "N", "", opt_number, .num = RUN_DONE_BEFORE },
	{ "no-simple", NULL, "keep this call off the simple path (simple=0)",
	  opt_switch, .flag = offsetof(struct testfs_request, no_simple) },
	{ "no-simple-mount", NULL, "same, for the whole mount", opt_switch,
	  .flag = offsetof(struct testfs_request, no_simple_mount) },
	{ "fault", "SPEC",
	  "bio-error:N[:STATUS] | alloc-fail:N | short-pin:N:BYTES |\n"
	  "unmapped:OFF | begin-error:ERRNO[:CALL]  (repeatable);\n"
	  "unmapped:OFF: a write's source memory is unmapped (or\n"
	  "PROT_NONE) from OFF bytes past the buffer's start, a page\n"
	  "boundary: pinning stops there (0: nothing is readable)",
	  opt_fault },
	{ "complete", "inline|irq|deferred|random", " (irq)", opt_complete },
	{ "seed", "S", "deterministic engine seed (1)", opt_seed },
	{ "iomap", "ops|next|begin",
	  "baseline ops, or the ->iomap_next proposal through\n"
	  "iomap_dio_rw_next() / iomap_dio_rw_begin()  (ops)",
	  opt_iomap },
	{ "write-cache", NULL, "device with a volatile cache / with FUA",
	  opt_switch, "--write-cache, --fua",
	  .flag = offsetof(struct testfs_request, write_cache) },
	{ "fua", NULL, NULL, opt_switch,
	  .flag = offsetof(struct testfs_request, fua) },
	{ "trace", NULL, "dump the trace ring to stderr afterwards",
	  opt_trace },
	{ "trace-json", "FILE",
	  "the trace ring as a Chrome trace-event timeline", opt_trace_json },
	{ "help", NULL, NULL, opt_help },
};

/* getopt_long()'s value for run_opts[i] */
#define RUN_OPT_VAL(i) (256 + (i))

/* One option's entry in --help: its left column, then its description. */
static void run_usage_opt(const struct run_opt *o)
{
	const char *line = o->help, *nl;
	char left[64];

	if (o->usage)
		snprintf(left, sizeof(left), "%s", o->usage);
	else
		snprintf(left, sizeof(left), "--%s%s%s", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
	if (!*line) {
		printf("  %s\n", left);
		return;
	}
	nl = strchr(line, '\n');
	printf("  %-18s  %.*s\n", left,
	       nl ? (int)(nl - line) : (int)strlen(line), line);
	while (nl) {
		line = nl + 1;
		nl = strchr(line, '\n');
		printf("%22s%.*s\n", "",
		       nl ? (int)(nl - line) : (int)strlen(line), line);
	}
}

static void run_usage(void)
{
	printf("usage: iomapsim run [OPTIONS]\n");
	for (size_t i = 0; i < ARRAY_SIZE(run_opts); i++)
		if (run_opts[i].help)
			run_usage_opt(&run_opts[i]);
	printf("\n"
	       "The outcome is one JSON line: ret, queued, path, fallback, bios, cache_hits,\n"
	       "punted, ki_complete_calls, completion, ki_pos, iter_count,\n"
	       "iter_past_segments, data, leaks, warnings, context_violations, code.\n"
	       "\"code\" says which iomap code ran:\n"
	       "\"embedded\" (iomap/direct-io.c) or, built with -DIOMAPSIM_KERNEL_TREE, the\n"
	       "tree, its API generation and the sha256 of each file compiled from it.\n"
	       "A figure the build cannot observe is null, never made up.  Kernel-source\n"
	       "mode reads the kernel files unmodified: in generation (b) \"path\" is simple\n"
	       "when the file system's iomap_dio_read_simple() call served the request,\n"
	       "and \"fallback\" is worked out on the file system side from the request and\n"
	       "the mapping its begin function returned (the same reasons as embedded, so\n"
	       "nothing is null there today); --iomap next|begin is refused.\n"
	       "This build: %s\n",
	       iomapsim_code_text());
}

/* Parse argv into @req; 0, or 2 after printing the one error line. */
static int parse_run_args(int argc, char **argv, struct testfs_request *req,
			  uint64_t *seed, bool *trace, const char **trace_json,
			  bool *help)
{
	struct run_parse p = { .req = req,
			       .seed = seed,
			       .trace = trace,
			       .trace_json = trace_json,
			       .help = help };
	struct option longopts[ARRAY_SIZE(run_opts) + 1] = { 0 };
	int c, i, rc;

	for (i = 0; i < (int)ARRAY_SIZE(run_opts); i++)
		longopts[i] = (struct option){
			.name = run_opts[i].name,
			.has_arg = run_opts[i].arg ? required_argument :
						     no_argument,
			.val = RUN_OPT_VAL(i),
		};
	opterr = 0;
	optind = 0; /* 0: glibc starts over, as for a new argv (batch) */
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		const char *name =
			optind > 0 && optind <= argc ? argv[optind - 1] : "?";

		if (c == ':')
			return bad("%s: needs a value", name);
		if (c < RUN_OPT_VAL(0) ||
		    c >= RUN_OPT_VAL((int)ARRAY_SIZE(run_opts)))
			return bad("unknown option '%s' (try --help)", name);
		p.opt = &run_opts[c - RUN_OPT_VAL(0)];
		rc = p.opt->parse(&p, name, optarg);
		if (rc)
			return rc;
		if (*help)
			return 0;
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (req->size < 0 || req->pos < 0)
		return bad("--size and --pos must be at most %lld",
			   (long long)IOMAPSIM_MAX_OFFSET);
	/* explicit segments: the request is their sum unless --len says */
	if (req->nr_iov && !p.len_given) {
		req->len = 0;
		for (i = 0; i < (int)req->nr_iov; i++)
			req->len += req->iov[i].len;
	}
	testfs_request_atomic_device(req);
	return 0;
}

/*
 * Parse and run one request; print its outcome as one JSON line on @f,
 * with "line":@line first when @line is not 0 (`iomapsim batch`).
 * Returns 0 when it ran, 2 when the options are bad or the runner refused
 * the request (the reason in cli_run_error()), 1 when the engine did not
 * start.  --help is for `iomapsim run` only (@help_ok).
 */
int cli_run_request(int argc, char **argv, FILE *f, long line, bool help_ok)
{
	static char *json;
	static size_t json_size;
	static FILE *mem;
	struct testfs_request req;
	struct testfs_outcome out;
	struct sim_engine_opts eo = { .kind = SIM_ENGINE_DET, .seed = 1 };
	uint64_t seed = 1;
	bool trace = false, help = false;
	const char *trace_json = NULL;
	char err[256] = "";
	int rc;

	testfs_request_init(&req);
	rc = parse_run_args(argc, argv, &req, &seed, &trace, &trace_json,
			    &help);
	if (rc)
		return rc;
	if (help) {
		if (!help_ok)
			return bad("--help: not a request");
		run_usage();
		return 0;
	}

	eo.seed = seed;
	/*
	 * WARN_ONs and context violations are counted in the JSON; their
	 * backtraces only with --trace, so stdout/stderr stay scriptable.
	 */
	sim_report_quiet(!trace);
	if (sim_engine_init(&eo)) {
		snprintf(run_err, sizeof(run_err), "cannot start the engine");
		return 1;
	}
	/* a fresh request starts on CPU 0 with an empty trace ring */
	sim_task_set_cpu(0);
	sim_trace_reset();
	rc = testfs_run(&req, &out, err, sizeof(err));
	if (rc)
		return bad("%s", err[0] ? err : strerror(-rc));
	if (!line) {
		testfs_outcome_print_json(&out, f);
	} else {
		/* the outcome's object, "line" put in front of its keys */
		if (!mem)
			mem = open_memstream(&json, &json_size);
		if (!mem)
			return bad("out of memory");
		rewind(mem);
		testfs_outcome_print_json(&out, mem);
		fflush(mem);
		fprintf(f, "{\"line\":%ld,", line);
		fwrite(json + 1, 1, ftell(mem) - 1, f);
	}
	if (trace)
		sim_trace_dump(stderr, 0);
	/* the request's trace ring as a timeline (written whole or not) */
	rc = trace_json ? trace_json_write_ring(trace_json) : 0;
	if (rc) {
		snprintf(run_err, sizeof(run_err), "--trace-json %s: %s",
			 trace_json, strerror(-rc));
		return 1;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	int rc = cli_run_request(argc, argv, stdout, 0, true);

	fflush(stdout);
	testfs_runner_teardown();
	sim_engine_exit();
	if (rc)
		fprintf(stderr, "iomapsim run: %s\n", cli_run_error());
	return rc;
}
