// SPDX-License-Identifier: GPL-2.0-only
/*
 * real-batch: `iomapsim batch`'s request lines run as system calls on a
 * real file system, so that scripts/tree-diff.sh --real can compare the
 * simulator on a tree with the kernel built from that tree (run inside a
 * UML kernel by scripts/uml-batch.sh).
 *
 *   real-batch --dir DIR [PASS] [FILE]     run each request on
 *                                          DIR/real-batch.f
 *   real-batch --parse-only [PASS] [FILE]  only say what each would run
 *
 * PASS says which lines this run answers, as one of the passes of
 * uml-batch.sh, one per block size of the file system made: --block N
 * (4096 by default) and either --others LIST (the block sizes other
 * passes answer: no line for those) or --only (no line but for N).
 *
 * Requests come one per line from FILE or standard input, in `iomapsim
 * run`'s options, split by tools/cli/args.c as `iomapsim batch` splits
 * them ('#' comments and blank lines skipped, "iomapsim run" allowed in
 * front).  Each answered
 * line is one JSON object with "line" (the input line number) first and
 * the outcome keys the simulator also prints, computed the same way:
 *
 *   ret         bytes, or -errno (sync) or the CQE's res (--async)
 *   ki_pos      the file position after it: pos + ret when ret > 0, else
 *               pos (what iomap_dio_complete() leaves in ki_pos)
 *   iter_count  len - max(ret, 0): user space sees no iterator
 *   data        "n/a" when nothing moved; a read's bytes against the file
 *               as laid out ("ok", "zero" when all of them are zero, or
 *               "mismatch"); a write's bytes and the rest of the blocks
 *               it touched read back ("ok" or "mismatch")
 *
 * A request the kernel cannot be given from user space (injected bio,
 * allocation or ->iomap_begin faults, mapping flags and inline or delalloc
 * extents, IOMAP_DIO_* flags, dio ops but the file system's own, kvec
 * iterators and bvec ones of a sync request, engine seeds and completion policies, device switches,
 * 64 KiB blocks, 4 KiB logical blocks) is answered {"line":N,
 * "unsupported":"why"}: counted apart, never compared.  A line whose
 * options are bad is {"line":N,"error":"why"}.
 *
 * The file is laid out from --size and --map as testfs lays its file out
 * (mapped: testfs_pattern_fill()'s bytes at their file offsets, written
 * with O_DIRECT so that no page stays cached; unwritten: fallocate();
 * hole: nothing), and laid out again only when the next request wants
 * another layout or a write may have changed it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <signal.h>
#include <unistd.h>
#include <liburing.h>
#include <linux/fs.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include "args.h"

/*
 * From the simulator (fs/testfs), declared with plain C types: this file
 * is built without the simulator's kernel-shaped headers, which would
 * hide the system's <linux/fs.h> that liburing needs.
 */
void testfs_pattern_fill(unsigned char *dst, long long off, size_t len);
void testfs_write_pattern_fill(unsigned char *dst, long long off, size_t len);

#define PAGE 4096
#define MAX_WORDS 512
#define REQ_TIMEOUT 20 /* seconds a request may take */
/* fs/testfs/request.h's limits */
#define RB_MAX_MAP 64
#define RB_MAX_IOV 64
#define RB_MAX_SEGS 1024 /* iovec:K, K up to 1024 (UIO_MAXIOV) */
#define RB_MAX_LEN (64ULL << 20)
#define RB_MAX_OFFSET (1LL << 30)

enum rb_type { RB_MAPPED, RB_UNWRITTEN, RB_HOLE };
enum rb_iter { RB_UBUF, RB_IOVEC, RB_BVEC };

struct rb_extent {
	int type;
	long long off, len;
};

/* One request line: what the real side runs, or why it cannot. */
struct rb_req {
	bool write, async, hipri, no_poll, unmapped;
	unsigned int fs_block;
	long long size, pos;
	size_t len, buf_offset, unmapped_from;
	struct rb_extent map[RB_MAX_MAP];
	unsigned int nr_map;
	enum rb_iter iter;
	unsigned int segs; /* iovec:K */
	unsigned int nr_iov; /* iovec:L1,L2@OFF */
	struct {
		uint32_t len;
		int32_t page_off; /* -1: right after the one before */
	} iov[RB_MAX_IOV];
	int rwf; /* RWF_* but RWF_HIPRI (hipri) */
	const char *unsupported, *error;
};

static char why_buf[1280];

/* The first reason wins: it is the one a reader looks for first. */
static void unsupported(struct rb_req *r, const char *fmt, const char *what)
{
	if (r->unsupported)
		return;
	snprintf(why_buf, sizeof(why_buf), fmt, what);
	r->unsupported = why_buf;
}

static char err_buf[1280];

static int bad(struct rb_req *r, const char *fmt, const char *what)
{
	snprintf(err_buf, sizeof(err_buf), fmt, what);
	r->error = err_buf;
	return -1;
}

/* TYPE:OFF:LEN[:FLAGS]; only what a real file can be given. */
static int parse_map(struct rb_req *r, const char *arg)
{
	char buf[256], *f[4], *type, *flags;
	struct rb_extent *e;
	uint64_t o, l;
	int n;

	if (r->nr_map >= RB_MAX_MAP)
		return bad(r, "--map %s: too many extents", arg);
	n = cli_split_colons(arg, buf, sizeof(buf), f, 4);
	if (n < 0)
		return bad(r, "--map %s: too long", arg);
	if (n < 3 || n > 4 || !cli_parse_u64(f[1], &o) ||
	    !cli_parse_u64(f[2], &l) || !l)
		return bad(r, "--map %s: want TYPE:OFF:LEN[:FLAG+FLAG]", arg);
	type = f[0];
	flags = f[3];
	e = &r->map[r->nr_map++];
	e->off = o;
	e->len = l;
	if (!strcasecmp(type, "mapped"))
		e->type = RB_MAPPED;
	else if (!strcasecmp(type, "unwritten"))
		e->type = RB_UNWRITTEN;
	else if (!strcasecmp(type, "hole"))
		e->type = RB_HOLE;
	else if (!strcasecmp(type, "inline") || !strcasecmp(type, "delalloc"))
		/* the file system decides these, a file cannot be asked */
		unsupported(r, "extent type: %s", type);
	else
		return bad(r, "--map %s: unknown type", arg);
	/* IOMAP_F_*: the file system's to set, never the caller's */
	if (flags)
		unsupported(r, "mapping flag: %s", flags);
	return 0;
}

/* RWF_* for an `--iocb` list; what has none is not expressible. */
static int parse_iocb(struct rb_req *r, const char *arg)
{
	char buf[256], *t, *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return bad(r, "--iocb %s: too long", arg);
	strcpy(buf, arg);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(t, "NOWAIT"))
			r->rwf |= RWF_NOWAIT;
		else if (!strcasecmp(t, "HIPRI"))
			r->hipri = true;
		else if (!strcasecmp(t, "DSYNC"))
			r->rwf |= RWF_DSYNC;
		else if (!strcasecmp(t, "SYNC"))
			r->rwf |= RWF_SYNC;
		else if (!strcasecmp(t, "ATOMIC") ||
			 !strcasecmp(t, "CALLER_COMP"))
			/*
			 * RWF_ATOMIC came after 6.1; IOCB_DIO_CALLER_COMP is
			 * io_uring's to set, never a caller's
			 */
			unsupported(r, "iocb flag: IOCB_%s", t);
		else
			return bad(r, "--iocb: unknown flag '%s'", t);
	}
	return 0;
}

/* --iter iovec:L1,L2@OFF,...: as `iomapsim run` reads it (tools/cli/run.c) */
static int parse_iov_list(struct rb_req *r, const char *arg)
{
	char buf[1024], *save = NULL, *tok;
	unsigned int n = 0;

	if (strlen(arg) >= sizeof(buf))
		return bad(r, "--iter iovec:%s: too long", arg);
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		const char *off;

		if (n >= RB_MAX_IOV)
			return bad(r, "--iter iovec:%s: too many segments",
				   arg);
		switch (cli_parse_iov_seg(tok, &r->iov[n].len,
					  &r->iov[n].page_off, &off)) {
		case -1:
			return bad(r, "--iter iovec:%s: bad segment length",
				   arg);
		case -2:
			return bad(r, "--iter iovec:%s: bad page offset", arg);
		}
		n++;
	}
	if (!n)
		return bad(r, "--iter iovec:%s: no segments", arg);
	r->nr_iov = n;
	r->segs = n;
	r->iter = RB_IOVEC;
	return 0;
}

/* --fault: only a source or destination the kernel cannot pin */
static int parse_fault(struct rb_req *r, const char *arg)
{
	uint64_t v;

	if (!strncmp(arg, "unmapped:", 9)) {
		if (!cli_parse_u64(arg + 9, &v) || v > RB_MAX_LEN)
			return bad(r, "--fault %s: want unmapped:OFF", arg);
		r->unmapped = true;
		r->unmapped_from = v;
		return 0;
	}
	if (!strncmp(arg, "bio-error:", 10) ||
	    !strncmp(arg, "alloc-fail:", 11) ||
	    !strncmp(arg, "short-pin:", 10) ||
	    !strncmp(arg, "begin-error:", 12)) {
		/* the simulator injects these inside the kernel */
		unsupported(r, "injected fault: %s", arg);
		return 0;
	}
	return bad(r, "--fault %s: unknown fault", arg);
}

enum {
	OPT_FS_BLOCK = 256,
	OPT_LBS,
	OPT_SIZE,
	OPT_MAP,
	OPT_ENCRYPTED,
	OPT_DOPS,
	OPT_OP,
	OPT_POS,
	OPT_LEN,
	OPT_ITER,
	OPT_BUF_OFFSET,
	OPT_IOCB,
	OPT_ASYNC,
	OPT_DIO_FLAGS,
	OPT_DONE_BEFORE,
	OPT_NO_SIMPLE,
	OPT_NO_SIMPLE_MOUNT,
	OPT_FAULT,
	OPT_COMPLETE,
	OPT_SEED,
	OPT_IOMAP,
	OPT_WRITE_CACHE,
	OPT_FUA,
	OPT_TRACE,
	OPT_TRACE_JSON,
	OPT_DMA_ALIGNMENT,
	OPT_NO_POLL,
};

/* tools/cli/run.c's run_opts, every one: an option is never "unknown" here */
static const struct option opts[] = {
	{ "fs-block", required_argument, NULL, OPT_FS_BLOCK },
	{ "lbs", required_argument, NULL, OPT_LBS },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "map", required_argument, NULL, OPT_MAP },
	{ "encrypted", no_argument, NULL, OPT_ENCRYPTED },
	{ "dops", required_argument, NULL, OPT_DOPS },
	{ "op", required_argument, NULL, OPT_OP },
	{ "pos", required_argument, NULL, OPT_POS },
	{ "len", required_argument, NULL, OPT_LEN },
	{ "iter", required_argument, NULL, OPT_ITER },
	{ "buf-offset", required_argument, NULL, OPT_BUF_OFFSET },
	{ "iocb", required_argument, NULL, OPT_IOCB },
	{ "async", no_argument, NULL, OPT_ASYNC },
	{ "dio-flags", required_argument, NULL, OPT_DIO_FLAGS },
	{ "done-before", required_argument, NULL, OPT_DONE_BEFORE },
	{ "no-simple", no_argument, NULL, OPT_NO_SIMPLE },
	{ "no-simple-mount", no_argument, NULL, OPT_NO_SIMPLE_MOUNT },
	{ "fault", required_argument, NULL, OPT_FAULT },
	{ "complete", required_argument, NULL, OPT_COMPLETE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "iomap", required_argument, NULL, OPT_IOMAP },
	{ "write-cache", no_argument, NULL, OPT_WRITE_CACHE },
	{ "fua", no_argument, NULL, OPT_FUA },
	{ "trace", no_argument, NULL, OPT_TRACE },
	{ "trace-json", required_argument, NULL, OPT_TRACE_JSON },
	{ "dma-alignment", required_argument, NULL, OPT_DMA_ALIGNMENT },
	{ "no-poll", no_argument, NULL, OPT_NO_POLL },
	{ NULL, 0, NULL, 0 },
};

static int parse_number(struct rb_req *r, int c, const char *arg,
			bool *len_given)
{
	uint64_t v;

	if (!cli_parse_u64(arg, &v))
		return bad(r, "'%s' is not a number", arg);
	switch (c) {
	case OPT_FS_BLOCK:
		/*
		 * XFS and ext4 take 1, 2 and 4 KiB blocks on 4 KiB pages
		 * (uml-batch.sh makes one file system of each); the rest
		 * would need larger pages
		 */
		if (v != 1024 && v != 2048 && v != 4096)
			unsupported(r, "file system block: %s", arg);
		else
			r->fs_block = v;
		break;
	case OPT_LBS:
		/* ubd's logical block is 512 bytes */
		if (v != 512)
			unsupported(r, "logical block: %s", arg);
		break;
	case OPT_SIZE:
		if (v > RB_MAX_OFFSET)
			return bad(r, "--size %s: too large", arg);
		r->size = (long long)v;
		break;
	case OPT_POS:
		if (v > RB_MAX_OFFSET)
			return bad(r, "--pos %s: too large", arg);
		r->pos = (long long)v;
		break;
	case OPT_LEN:
		if (v > RB_MAX_LEN)
			unsupported(r, "request length: %s", arg);
		r->len = v;
		*len_given = true;
		break;
	case OPT_BUF_OFFSET:
		if (v > RB_MAX_LEN)
			return bad(r, "--buf-offset %s: too large", arg);
		r->buf_offset = v;
		break;
	case OPT_DONE_BEFORE:
		/* what a caller did earlier in the same kiocb: in-kernel */
		if (v)
			unsupported(r, "done before: %s", arg);
		break;
	}
	return 0;
}

/* --iter: ubuf, bvec (registered buffers), iovec:K or iovec:L1,L2,... */
static int parse_iter(struct rb_req *r, const char *arg)
{
	uint64_t segs;

	switch (cli_parse_iter(arg, &segs)) {
	case CLI_ITER_UBUF:
		r->iter = RB_UBUF;
		break;
	case CLI_ITER_BVEC:
		r->iter = RB_BVEC;
		break;
	case CLI_ITER_KVEC:
		/* kernel callers' iterator (nfsd, the loop) */
		unsupported(r, "%s", "iterator: ITER_KVEC");
		break;
	case CLI_ITER_IOVEC:
		r->iter = RB_IOVEC;
		r->segs = segs;
		r->nr_iov = 0;
		break;
	case CLI_ITER_IOVEC_LIST:
		if (parse_iov_list(r, arg + 6))
			return -1;
		break;
	default:
		return bad(r, "--iter %s: unknown", arg);
	}
	return 0;
}

/*
 * A number option the real side has one value of, @only: any other is
 * @why; 0, or -1 with r->error set (@bad) when @arg is not a number.
 */
static int only_value(struct rb_req *r, const char *arg, uint64_t only,
		      const char *bad_fmt, const char *why)
{
	uint64_t v;

	if (!cli_parse_u64(arg, &v))
		return bad(r, bad_fmt, arg);
	if (v != only)
		unsupported(r, why, arg);
	return 0;
}

/*
 * The options that choose what the simulator alone can vary: the real
 * side runs what the kernel does by itself and counts the rest apart.
 * 0, -1 with r->error set, or -2 for an option this is not.
 */
static int parse_sim_only(struct rb_req *r, int c, const char *arg)
{
	switch (c) {
	case OPT_DOPS:
		/*
		 * xfs_file_dio_write() and ext4_dio_write_iter() pass their
		 * write ops (->end_io: unwritten conversion and the size
		 * update), reads pass none: testfs's "none" and "end_io" play
		 * that part (the keys compared do not depend on which); the
		 * rest are other file systems' ops
		 */
		if (strcmp(arg, "none") && strcmp(arg, "end_io"))
			unsupported(r, "dio ops: %s", arg);
		break;
	case OPT_DIO_FLAGS:
		unsupported(r, "IOMAP_DIO flags: %s", arg);
		break;
	case OPT_COMPLETE:
		if (strcmp(arg, "irq"))
			unsupported(r, "completion policy: %s", arg);
		break;
	case OPT_SEED:
		return only_value(r, arg, 1, "--seed %s: not a number",
				  "engine seed: %s");
	case OPT_IOMAP:
		if (strcmp(arg, "ops"))
			unsupported(r, "iomap mode: %s", arg);
		break;
	case OPT_ENCRYPTED:
		unsupported(r, "%s", "encrypted inode");
		break;
	case OPT_NO_SIMPLE:
	case OPT_NO_SIMPLE_MOUNT:
		unsupported(r, "%s", "simple-path switch");
		break;
	case OPT_WRITE_CACHE:
	case OPT_FUA:
		unsupported(r, "%s", "device cache switch");
		break;
	case OPT_DMA_ALIGNMENT:
		/* ubd keeps the block layer's default mask, 511 */
		return only_value(r, arg, 511, "--dma-alignment %s: bad",
				  "DMA alignment mask: %s");
	case OPT_NO_POLL:
		/* ubd has no poll queues: every request is no-poll */
		r->no_poll = true;
		break;
	case OPT_TRACE:
	case OPT_TRACE_JSON:
		break;
	default:
		return -2;
	}
	return 0;
}

/* What a parsed request must hold together, and what UML cannot run. */
static int rb_check(struct rb_req *r, bool len_given)
{
	size_t sum = 0;

	for (unsigned int i = 0; i < r->nr_iov; i++)
		sum += r->iov[i].len;
	if (r->nr_iov && !len_given)
		r->len = sum;
	if (r->nr_iov && sum != r->len)
		return bad(r, "%s", "iovec: segments and --len differ");
	if (r->iter == RB_IOVEC && !r->nr_iov && r->len && r->segs > r->len)
		return bad(r, "%s", "iovec:K: more segments than bytes");
	/*
	 * ITER_BVEC from user space: io_uring's registered buffers
	 * (io_import_fixed()), a bvec per page from the buffer's offset on
	 * as testfs builds it; the pages are pinned at registration, so an
	 * unmapped source is no fault there
	 */
	if (r->iter == RB_BVEC && !r->async)
		unsupported(r, "%s", "iterator: ITER_BVEC of a sync kiocb");
	/*
	 * A 1 MiB write past EOF from registered buffers on an IOPOLL ring
	 * (XFS, 1 KiB blocks) never completes on UML 6.1.176 and stops the
	 * whole kernel, where the same from user memory completes: not run
	 * until that is understood
	 */
	if (r->iter == RB_BVEC && r->hipri)
		unsupported(r, "%s", "IOPOLL with registered buffers");
	if (r->iter == RB_BVEC && r->unmapped)
		unsupported(r, "%s", "unmapped registered buffer");
	/* fallocate() and the layout's writes work in whole blocks */
	for (unsigned int i = 0; i < r->nr_map; i++)
		if ((r->map[i].off | r->map[i].len) % r->fs_block) {
			unsupported(r, "%s", "extent off the block size");
			break;
		}
	if (r->unmapped && (r->buf_offset + r->unmapped_from) % PAGE)
		/* munmap() works in pages; the simulator in bytes */
		unsupported(r, "%s", "unmapped offset off a page");
	return 0;
}

/* The words of one request line into @r; 0, or -1 with r->error set. */
static int rb_parse(int argc, char **argv, struct rb_req *r)
{
	bool len_given = false;
	const char *opt;
	int c, rc;

	memset(r, 0, sizeof(*r));
	r->fs_block = 4096;
	r->size = 1 << 20;
	r->len = 4096;
	r->segs = 1;
	opterr = 0;
	optind = 0; /* 0: glibc starts over, as for a new argv */
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		const char *arg = optarg;

		opt = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
		switch (c) {
		case OPT_FS_BLOCK:
		case OPT_LBS:
		case OPT_SIZE:
		case OPT_POS:
		case OPT_LEN:
		case OPT_BUF_OFFSET:
		case OPT_DONE_BEFORE:
			rc = parse_number(r, c, arg, &len_given);
			break;
		case OPT_MAP:
			rc = parse_map(r, arg);
			break;
		case OPT_OP:
			if (strcmp(arg, "read") && strcmp(arg, "write"))
				return bad(r, "--op %s: want read or write",
					   arg);
			r->write = !strcmp(arg, "write");
			rc = 0;
			break;
		case OPT_ITER:
			rc = parse_iter(r, arg);
			break;
		case OPT_IOCB:
			rc = parse_iocb(r, arg);
			break;
		case OPT_ASYNC:
			r->async = true;
			rc = 0;
			break;
		case OPT_FAULT:
			rc = parse_fault(r, arg);
			break;
		case ':':
			return bad(r, "%s: needs a value", opt);
		default:
			rc = parse_sim_only(r, c, arg);
			if (rc == -2)
				return bad(r, "unknown option '%s'", opt);
		}
		if (rc)
			return -1;
	}
	if (optind < argc)
		return bad(r, "unexpected argument '%s'", argv[optind]);
	return rb_check(r, len_given);
}

/* ---- the buffer, laid out as fs/testfs/request-buf.c lays it ---------- */

static unsigned char *mem;
static size_t mem_size;

/* Where explicit segment @i starts, given where the one before ended. */
static size_t seg_start(const struct rb_req *r, unsigned int i, size_t end)
{
	if (!i)
		return r->buf_offset;
	if (r->iov[i].page_off < 0)
		return end;
	return (end + PAGE - 1) / PAGE * PAGE + (size_t)r->iov[i].page_off;
}

static size_t buf_mem_size(const struct rb_req *r)
{
	size_t end = 0;

	if (r->iter != RB_IOVEC || !r->nr_iov)
		end = r->buf_offset + r->len;
	else
		for (unsigned int i = 0; i < r->nr_iov; i++)
			end = seg_start(r, i, end) + r->iov[i].len;
	return (end + PAGE - 1) / PAGE * PAGE + PAGE;
}

/* The request's segments in @iov (at most RB_MAX_SEGS); how many. */
static unsigned int build_iov(const struct rb_req *r, struct iovec *iov)
{
	size_t end = 0, off = 0, base;
	unsigned int i, k;

	if (r->iter == RB_IOVEC && r->nr_iov) {
		for (i = 0; i < r->nr_iov; i++) {
			size_t s = seg_start(r, i, end);

			iov[i].iov_base = mem + s;
			iov[i].iov_len = r->iov[i].len;
			end = s + r->iov[i].len;
		}
		return r->nr_iov;
	}
	k = r->iter == RB_IOVEC ? r->segs : 1;
	/* equal pieces of one buffer, the last takes the remainder */
	base = r->len / k;
	for (i = 0; i < k; i++) {
		size_t n = i + 1 < k ? base : r->len - off;

		iov[i].iov_base = mem + r->buf_offset + off;
		iov[i].iov_len = n;
		off += n;
	}
	return k;
}

static struct io_uring ring, poll_ring;
static bool ring_ok, poll_ring_ok, registered;

/* The buffer memory as io_uring's fixed buffer 0 of both rings. */
static void register_mem(void)
{
	struct iovec all = { mem, mem_size };

	registered = true;
	if (ring_ok) {
		io_uring_unregister_buffers(&ring);
		registered = !io_uring_register_buffers(&ring, &all, 1);
	}
	if (poll_ring_ok) {
		io_uring_unregister_buffers(&poll_ring);
		registered = registered &&
			     !io_uring_register_buffers(&poll_ring, &all, 1);
	}
}

static int grow_mem(size_t need)
{
	if (need <= mem_size)
		return 0;
	if (mem)
		munmap(mem, mem_size);
	mem_size = need < (8 << 20) ? 8 << 20 : need;
	mem = mmap(NULL, mem_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		mem = NULL;
		mem_size = 0;
		return -1;
	}
	register_mem();
	return 0;
}

/* ---- the file ----------------------------------------------------------- */

static int fd = -1;
static char layout[8192]; /* the layout the file has, "" after a write */
static unsigned char *scratch; /* aligned, for the layout and read-back */
static size_t scratch_size;

static int grow_scratch(size_t need)
{
	if (need <= scratch_size)
		return 0;
	free(scratch);
	scratch_size = need;
	scratch = aligned_alloc(PAGE, need);
	return scratch ? 0 : -1;
}

/* The request's layout, as a key: size and extents. */
static void layout_key(const struct rb_req *r, char *key, size_t len)
{
	size_t n = snprintf(key, len, "%lld", r->size);

	for (unsigned int i = 0; i < r->nr_map && n < len; i++)
		n += snprintf(key + n, len - n, " %d:%lld:%lld", r->map[i].type,
			      r->map[i].off, r->map[i].len);
}

/* What the file holds at [off, off + len) as laid out: into @dst. */
static void model_fill(const struct rb_req *r, unsigned char *dst,
		       long long off, size_t len)
{
	testfs_pattern_fill(dst, off, len);
	for (size_t i = 0; i < len; i++) {
		long long x = off + (long long)i;
		bool data = !r->nr_map && x < r->size;

		for (unsigned int j = 0; j < r->nr_map && !data; j++)
			data = r->map[j].type == RB_MAPPED &&
			       x >= r->map[j].off &&
			       x < r->map[j].off + r->map[j].len;
		if (!data || x >= r->size)
			dst[i] = 0;
	}
}

/*
 * Lay the file out for @r: empty, then i_size, then the mapped extents
 * written with O_DIRECT (whole blocks, up to the block holding EOF),
 * unwritten ones fallocate()d without moving i_size, and no page cached.
 */
static int lay_out(const struct rb_req *r)
{
	long long fsb = r->fs_block;
	long long end = (r->size + fsb - 1) / fsb * fsb;
	struct rb_extent all = { RB_MAPPED, 0, end };
	const struct rb_extent *ext = r->nr_map ? r->map : &all;
	unsigned int n = r->nr_map ? r->nr_map : 1;

	if (ftruncate(fd, 0) || ftruncate(fd, r->size))
		return -1;
	for (unsigned int i = 0; i < n; i++) {
		long long lo = ext[i].off, hi = ext[i].off + ext[i].len;

		if (ext[i].type == RB_UNWRITTEN &&
		    fallocate(fd, FALLOC_FL_KEEP_SIZE, lo, hi - lo))
			return -1;
		if (ext[i].type != RB_MAPPED)
			continue;
		/* blocks wholly past EOF: truncate would free them */
		if (hi > end)
			hi = end;
		if (lo >= hi)
			continue;
		if (grow_scratch(hi - lo))
			return -1;
		model_fill(r, scratch, lo, hi - lo);
		if (pwrite(fd, scratch, hi - lo, lo) != hi - lo)
			return -1;
	}
	/* the write of the block holding EOF moved i_size past it */
	if (ftruncate(fd, r->size) || fsync(fd) ||
	    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		return -1;
	return 0;
}

/* ---- running a request -------------------------------------------------- */

static long issue_async(const struct rb_req *r, struct iovec *iov,
			unsigned int nseg)
{
	struct io_uring *rg = r->hipri ? &poll_ring : &ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int rc;

	if (!(r->hipri ? poll_ring_ok : ring_ok))
		return -ENOSYS;
	sqe = io_uring_get_sqe(rg);
	if (r->iter == RB_BVEC) {
		if (!registered)
			return -ENOSYS;
		if (r->write)
			io_uring_prep_write_fixed(sqe, fd, iov[0].iov_base,
						  iov[0].iov_len, r->pos, 0);
		else
			io_uring_prep_read_fixed(sqe, fd, iov[0].iov_base,
						 iov[0].iov_len, r->pos, 0);
	} else if (r->iter == RB_UBUF) {
		if (r->write)
			io_uring_prep_write(sqe, fd, iov[0].iov_base,
					    iov[0].iov_len, r->pos);
		else
			io_uring_prep_read(sqe, fd, iov[0].iov_base,
					   iov[0].iov_len, r->pos);
	} else if (r->write) {
		io_uring_prep_writev(sqe, fd, iov, nseg, r->pos);
	} else {
		io_uring_prep_readv(sqe, fd, iov, nseg, r->pos);
	}
	/* IOPOLL rings set IOCB_HIPRI themselves (io_rw_init_file()) */
	sqe->rw_flags = r->rwf;
	rc = io_uring_submit_and_wait(rg, 1);
	if (rc >= 0)
		rc = io_uring_wait_cqe(rg, &cqe);
	if (rc == -EINTR) {
		/*
		 * The watchdog: no completion in REQ_TIMEOUT seconds.  The
		 * request may complete later, into a ring of its own: the
		 * next request gets a new one
		 */
		io_uring_queue_exit(rg);
		if (r->hipri)
			poll_ring_ok = !io_uring_queue_init(
				4, rg, IORING_SETUP_IOPOLL);
		else
			ring_ok = !io_uring_queue_init(4, rg, 0);
		register_mem();
		return -EINTR;
	}
	if (rc < 0)
		return rc;
	rc = cqe->res;
	io_uring_cqe_seen(rg, cqe);
	return rc;
}

static long issue_sync(const struct rb_req *r, struct iovec *iov,
		       unsigned int nseg)
{
	int rwf = r->rwf | (r->hipri ? RWF_HIPRI : 0);
	ssize_t ret;

	if (!rwf && r->iter == RB_UBUF)
		ret = r->write ? pwrite(fd, iov[0].iov_base, iov[0].iov_len,
					r->pos) :
				 pread(fd, iov[0].iov_base, iov[0].iov_len,
				       r->pos);
	else if (!rwf)
		ret = r->write ? pwritev(fd, iov, nseg, r->pos) :
				 preadv(fd, iov, nseg, r->pos);
	else
		ret = r->write ? pwritev2(fd, iov, nseg, r->pos, rwf) :
				 preadv2(fd, iov, nseg, r->pos, rwf);
	return ret < 0 ? -errno : ret;
}

static bool all_zero(const unsigned char *p, size_t n)
{
	return !n || (!p[0] && !memcmp(p, p + 1, n - 1));
}

/* A read's bytes, gathered from its segments, against the layout. */
static const char *check_read(const struct rb_req *r, const struct iovec *iov,
			      unsigned int nseg, long ret)
{
	size_t done = 0;

	if (ret <= 0)
		return "n/a";
	if (r->pos + ret > r->size || grow_scratch(2 * (size_t)ret))
		return "mismatch";
	for (unsigned int i = 0; i < nseg && done < (size_t)ret; i++) {
		size_t n = iov[i].iov_len;

		if (n > (size_t)ret - done)
			n = ret - done;
		memcpy(scratch + done, iov[i].iov_base, n);
		done += n;
	}
	model_fill(r, scratch + ret, r->pos, ret);
	if (memcmp(scratch, scratch + ret, ret))
		return "mismatch";
	return all_zero(scratch, ret) ? "zero" : "ok";
}

/*
 * A write's bytes where it put them, and the rest of each block it
 * touched as the layout had it (testfs_device_holds_dio_write()'s
 * check), read back with O_DIRECT up to the new EOF.
 */
static const char *check_write(const struct rb_req *r, long ret)
{
	long long fsb = r->fs_block;
	long long lo = r->pos / fsb * fsb;
	long long hi = (r->pos + ret + fsb - 1) / fsb * fsb;
	struct stat st;
	size_t want;

	if (ret <= 0)
		return "n/a";
	if (fstat(fd, &st) || grow_scratch(2 * (hi - lo)))
		return "mismatch";
	want = (st.st_size < hi ? st.st_size : hi) - lo;
	if (pread(fd, scratch, hi - lo, lo) != (ssize_t)want)
		return "mismatch";
	model_fill(r, scratch + (hi - lo), lo, want);
	testfs_write_pattern_fill(scratch + (hi - lo) + (r->pos - lo), r->pos,
				  ret);
	return memcmp(scratch, scratch + (hi - lo), want) ? "mismatch" : "ok";
}

static void print_outcome(long line, const struct rb_req *r, long ret,
			  const char *data)
{
	long done = ret > 0 ? ret : 0;

	printf("{\"line\":%ld,\"ret\":%ld,\"ki_pos\":%lld,"
	       "\"iter_count\":%zu,\"data\":\"%s\"}\n",
	       line, ret, r->pos + done, r->len - (size_t)done, data);
}

static int run_one(long line, const struct rb_req *r)
{
	struct iovec iov[RB_MAX_SEGS];
	unsigned int nseg;
	size_t need = buf_mem_size(r);
	char key[sizeof(layout)];
	const char *data;
	long ret;

	layout_key(r, key, sizeof(key));
	if (strcmp(key, layout)) {
		if (lay_out(r)) {
			fprintf(stderr,
				"real-batch: line %ld: cannot lay "
				"the file out: %s\n",
				line, strerror(errno));
			return -1;
		}
		strcpy(layout, key);
	}
	if (grow_mem(need))
		return -1;
	nseg = build_iov(r, iov);
	for (unsigned int i = 0, done = 0; i < nseg; i++) {
		if (r->write)
			testfs_write_pattern_fill(
				iov[i].iov_base, r->pos + done, iov[i].iov_len);
		else
			/* not zero, so that zero-filled holes show */
			memset(iov[i].iov_base, 0xee, iov[i].iov_len);
		done += iov[i].iov_len;
	}
	if (r->unmapped) {
		size_t from = r->buf_offset + r->unmapped_from;

		/*
		 * Unmapped, not PROT_NONE: UML's copy_from_user() reads a
		 * PROT_NONE page, so ext4's buffered fallback would
		 * write it there; an unmapped page faults on every kernel
		 */
		if (from < mem_size && munmap(mem + from, mem_size - from))
			return -1;
	}
	/*
	 * A request the kernel never answers would stop the batch: the
	 * watchdog interrupts the wait, and the line says -EINTR (a
	 * difference, never hidden)
	 */
	alarm(REQ_TIMEOUT);
	ret = r->async ? issue_async(r, iov, nseg) : issue_sync(r, iov, nseg);
	alarm(0);
	if (ret == -EINTR)
		fprintf(stderr,
			"real-batch: line %ld: no answer in %d s, "
			"interrupted\n",
			line, REQ_TIMEOUT);
	if (r->unmapped) {
		size_t from = r->buf_offset + r->unmapped_from;

		/* the same addresses again, for the next request */
		if (from < mem_size &&
		    mmap(mem + from, mem_size - from, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0) == MAP_FAILED)
			return -1;
	}
	if (r->write) {
		data = check_write(r, ret);
		/*
		 * Anything it wrote, allocated or converted is laid out
		 * again; a buffered fallback (ext4, R-03) leaves pages
		 */
		layout[0] = '\0';
	} else {
		data = check_read(r, iov, nseg, ret);
	}
	print_outcome(line, r, ret, data);
	return 0;
}

static void print_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void print_marked(long line, const char *key, const char *why)
{
	printf("{\"line\":%ld,\"%s\":", line, key);
	print_json_string(why);
	fputs("}\n", stdout);
}

/* The block size as a word of an --others list: ",1024," */
static const char *block_word(unsigned int b)
{
	static char w[16];

	snprintf(w, sizeof(w), ",%u,", b);
	return w;
}

static void on_alarm(int sig)
{
	(void)sig; /* only to interrupt the wait (no SA_RESTART) */
}

static int usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: real-batch --dir DIR [--block N] [--others LIST | --only] [FILE]\n"
		"       real-batch --parse-only [--block N] [--others LIST | --only] [FILE]\n"
		"  --block N: the file system's block size (4096); requests for a\n"
		"  block size in --others are left to the pass that has it (no line),\n"
		"  --only: answer only the requests for N (no other line)\n"
		"  runs `iomapsim batch` request lines as O_DIRECT system calls on\n"
		"  DIR/real-batch.f; one JSON line each: ret, ki_pos, iter_count,\n"
		"  data, or \"unsupported\" (not expressible) or \"error\".\n");
	return rc;
}

int main(int argc, char **argv)
{
	static char obuf[1 << 16];
	const char *dir = NULL, *file = NULL;
	char *words[MAX_WORDS + 1], *buf = NULL, path[PATH_MAX];
	bool parse_only = false, only = false;
	unsigned int block = 4096;
	char others[64] = ",";
	size_t cap = 0;
	long line = 0;
	FILE *in = stdin;
	int status = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--parse-only"))
			parse_only = true;
		else if (!strcmp(argv[i], "--only"))
			only = true;
		else if (!strcmp(argv[i], "--block") && i + 1 < argc)
			block = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--others") && i + 1 < argc &&
			 strlen(argv[i + 1]) + 3 < sizeof(others))
			snprintf(others, sizeof(others), ",%s,", argv[++i]);
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return usage(0);
		else if (argv[i][0] != '-' && !file)
			file = argv[i];
		else
			return usage(2);
	}
	if (!dir == !parse_only ||
	    (block != 1024 && block != 2048 && block != 4096))
		return usage(2);
	if (file && !(in = fopen(file, "r"))) {
		perror(file);
		return 2;
	}
	/* the outcomes go to a host folder through hostfs: in big writes */
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (dir) {
		struct sigaction sa = { .sa_handler = on_alarm };

		sigaction(SIGALRM, &sa, NULL);
		snprintf(path, sizeof(path), "%s/real-batch.f", dir);
		fd = open(path, O_CREAT | O_RDWR | O_TRUNC | O_DIRECT, 0644);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		ring_ok = !io_uring_queue_init(4, &ring, 0);
		poll_ring_ok = !io_uring_queue_init(4, &poll_ring,
						    IORING_SETUP_IOPOLL);
	}
	while (getline(&buf, &cap, in) >= 0) {
		const char *why = NULL;
		struct rb_req r;
		char **args;
		int n;

		line++;
		n = cli_split_request(buf, words, MAX_WORDS, "real-batch",
				      &args, &why);
		if (n < 0) {
			print_marked(line, "error", why);
			continue;
		}
		if (!n)
			continue;
		if (rb_parse(n, args, &r)) {
			print_marked(line, "error", r.error);
			continue;
		}
		if (!r.unsupported && r.fs_block != block) {
			/* the pass on a file system of that block answers */
			if (only || strstr(others, block_word(r.fs_block)))
				continue;
			unsupported(&r, "file system block: %s",
				    block_word(r.fs_block));
		}
		if (r.unsupported) {
			/* one pass, the main one, answers these */
			if (!only)
				print_marked(line, "unsupported",
					     r.unsupported);
			continue;
		}
		if (parse_only) {
			printf("{\"line\":%ld,\"expressible\":true}\n", line);
			continue;
		}
		if (run_one(line, &r)) {
			fprintf(stderr, "real-batch: line %ld: stopped: %s\n",
				line, strerror(errno));
			status = 1;
			break;
		}
	}
	free(buf);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	if (fflush(stdout) || ferror(stdout))
		status = 1;
	return status;
}
