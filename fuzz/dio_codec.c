// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_dio's input format (see dio_codec.h): decode, encode, and print as
 * an `iomapsim run` command line.  The three must agree: the replay test
 * checks decode(encode(r)) for every seed and that the printed command
 * gives the outcome the decoded request gives.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/fs.h>
#include <linux/iomap.h>
#include <linux/kernel.h>
#include <sim/bdev.h>
#include <sim/iomap_features.h>
#include "dio_codec.h"
#include "fuzz_common.h"

#define SMALL_SPAN 17 /* i_size and pos: 0..16 blocks */
#define SMALL_LEN 5 /* len: 0..4 blocks */
#define SMALL_GAP 3 /* gap before an extent: 0..2 blocks */
#define SMALL_EXT 8 /* extent length: 1..8 blocks */

#define RF_WRITE 0x1
#define RF_ASYNC 0x2
#define RF_NO_SIMPLE 0x4
#define RF_DONE_BEFORE 0x8

#define FF_ENCRYPTED 0x1
#define FF_NO_SIMPLE_MOUNT 0x2
#define FF_WRITE_CACHE 0x4
#define FF_FUA 0x8

#define SNAP_POS 0x1
#define SNAP_LEN 0x2
#define SNAP_BUF 0x4

#define DEV_MASK_BITS 0xf
#define DEV_NO_POLL 0x10

enum { K_BIO_ERROR, K_ALLOC_FAIL, K_SHORT_PIN, K_BEGIN_ERROR, NR_KINDS };

static const struct {
	unsigned int bit;
	int flag;
	const char *name;
} iocb_bits[] = {
	{ 0x01, IOCB_NOWAIT, "NOWAIT" },
	{ 0x02, IOCB_HIPRI, "HIPRI" },
	{ 0x04, IOCB_DSYNC, "DSYNC" },
	{ 0x08, IOCB_SYNC | IOCB_DSYNC, "SYNC" }, /* as `iomapsim run` */
	{ 0x10, IOCB_ATOMIC, "ATOMIC" },
};
/*
 * IOCB_DIO_CALLER_COMP: 0x20 alone among the byte's three high bits
 * (inputs stored before it carry other patterns there, which stay
 * ignored).
 */
#define IOCB_HIGH_BITS 0xe0U
#define IOCB_CALLER_COMP_BITS 0x20U

static const struct {
	unsigned int flag;
	const char *name;
} dio_bits[] = {
	{ IOMAP_DIO_FORCE_WAIT, "FORCE_WAIT" },
	{ IOMAP_DIO_OVERWRITE_ONLY, "OVERWRITE_ONLY" },
	{ IOMAP_DIO_PARTIAL, "PARTIAL" },
	{ IOMAP_DIO_FSBLOCK_ALIGNED, "FSBLOCK_ALIGNED" },
	{ IOMAP_DIO_BOUNCE, "BOUNCE" },
	{ IOMAP_DIO_NO_IOMAP_END, "NO_IOMAP_END" },
};
#define DIO_FLAGS_MASK 0x3fU

static const struct {
	u16 flag;
	const char *name;
} ext_bits[] = {
	{ IOMAP_F_NEW, "new" },	    { IOMAP_F_SHARED, "shared" },
	{ IOMAP_F_DIRTY, "dirty" }, { IOMAP_F_INTEGRITY, "integrity" },
	{ IOMAP_F_STALE, "stale" }, { IOMAP_F_ATOMIC_BIO, "atomic" },
};

static const char *const type_names[] = {
	[IOMAP_HOLE] = "hole",	   [IOMAP_DELALLOC] = "delalloc",
	[IOMAP_MAPPED] = "mapped", [IOMAP_UNWRITTEN] = "unwritten",
	[IOMAP_INLINE] = "inline",
};
static const char *const dops_names[] = { "none", "end_io", "submit_io",
					  "bio_set", "ioend" };
/* header byte 3: ioend is the one value past b % 4 (old inputs keep theirs) */
#define DOPS_IOEND_BYTE 4
static const char *const mode_names[] = { "ops", "next", "begin" };
static const char *const iter_names[] = { "ubuf", "iovec", "kvec", "bvec" };
static const char *const complete_names[] = { "irq", "inline", "deferred",
					      "random" };
static const char *const dir_names[] = { "", ":read", ":write" };

static u16 get16(const u8 *p)
{
	return p[0] | p[1] << 8;
}

static u32 get32(const u8 *p)
{
	return get16(p) | (u32)get16(p + 2) << 16;
}

static void put16(u8 *p, u16 v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32(u8 *p, u32 v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static u64 blocks_of(u16 v, unsigned int small, u64 limit)
{
	return v < 0x8000 ? v % small : (v & 0x7fff) % (limit + 1);
}

/*
 * An inline extent's data ends this many bytes short of its last block:
 * the parts of its gap and length codes that the small range leaves
 * unused (v / SMALL), which are zero in anything encoded before inline
 * data could be short.
 */
#define INLINE_LO (0x8000 / SMALL_GAP)

static unsigned int inline_short(u16 gap, u16 len, unsigned int fsb)
{
	if (gap >= 0x8000 || len >= 0x8000)
		return 0;
	return (gap / SMALL_GAP % INLINE_LO + INLINE_LO * (len / SMALL_EXT)) %
	       fsb;
}

static u64 tail_of(u16 t, unsigned int fsb)
{
	u64 v = t % (2ULL * fsb);

	return v >= fsb ? 0 : v;
}

/* blocks * fsb + tail, from two u16 fields */
static u64 span_of(const u8 *p, unsigned int fsb, unsigned int small, u64 limit)
{
	return blocks_of(get16(p), small, limit) * fsb +
	       tail_of(get16(p + 2), fsb);
}

static bool span_enc(u8 *p, u64 bytes, unsigned int fsb, unsigned int small,
		     u64 limit)
{
	u64 blocks = bytes / fsb;

	if (blocks > limit || blocks > 0x7fff)
		return false;
	put16(p, blocks < small ? blocks : 0x8000 | blocks);
	put16(p + 2, bytes % fsb);
	return true;
}

/* Length of the first explicit segment from its byte (0: none given). */
static size_t iov_first_len(u8 b)
{
	return b < 128 ? 4U * b : 512U * (b - 127U);
}

/* Page offset of a segment apart from its byte, and the inverse. */
static s32 iov_page_off(u8 b)
{
	return b < 128 ? b : 32 * (b - 128);
}

static int iov_page_off_enc(s32 off)
{
	if (off < 128)
		return off;
	if (off % 32 || off / 32 > 127)
		return -1;
	return 128 + off / 32;
}

/*
 * The explicit segments bytes 36..39 describe for a request of r->len
 * bytes (nothing when they do not fit: fewer bytes than segments).
 */
static void iov_layout(struct testfs_request *r, const u8 *h)
{
	unsigned int n = h[36] % 5, i;
	size_t first = iov_first_len(h[37]), rest, each, done = 0;

	if (!n || r->iter != IOMAPSIM_ITER_IOVEC || r->len < n ||
	    r->len > UINT32_MAX)
		return;
	if (!first || first > r->len - (n - 1))
		first = r->len / n;
	rest = r->len - first;
	each = n > 1 ? rest / (n - 1) : 0;
	for (i = 0; i < n; i++) {
		size_t len = !i ? first : i + 1 < n ? each : r->len - done;

		r->iov[i].len = len;
		r->iov[i].page_off =
			i && (h[38] & 1 << (i - 1)) ? iov_page_off(h[39]) : -1;
		done += len;
	}
	r->nr_iov = n;
	r->iovec_segs = n;
}

static void add_spec(struct dio_input *in, unsigned int *n, const char *fmt,
		     ...) __printf(3, 4);
static void add_spec(struct dio_input *in, unsigned int *n, const char *fmt,
		     ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(in->spec[*n], DIO_FAULT_SPEC, fmt, ap);
	va_end(ap);
	(*n)++;
}

static void decode_fault(struct dio_input *in, const u8 *f, unsigned int *n)
{
	struct testfs_request *r = &in->req;
	u8 a = f[1];
	u16 b = get16(f + 2);
	u32 c = get32(f + 4);

	switch (f[0] % NR_KINDS) {
	case K_BIO_ERROR: {
		/* any failing status (1..19); nameless ones become IOERR */
		const char *st = blksim_blk_status_name(1 + b % 19);

		if (!strcmp(st, "?"))
			st = "IOERR";
		add_spec(in, n, "bio-error:%u:%s%s", 1 + a % 16, st,
			 dir_names[c % 3]);
		r->bio_faults[r->nr_bio_faults++] = in->spec[*n - 1];
		break;
	}
	case K_ALLOC_FAIL:
		r->alloc_fail_nth = 1 + b % 256;
		add_spec(in, n, "alloc-fail:%llu",
			 (unsigned long long)r->alloc_fail_nth);
		break;
	case K_SHORT_PIN:
		r->short_pin_nth = 1 + a % 8;
		r->short_pin_bytes = c % (DIO_MAX_LEN + 1);
		add_spec(in, n, "short-pin:%llu:%zu",
			 (unsigned long long)r->short_pin_nth,
			 r->short_pin_bytes);
		break;
	default:
		r->begin_error = -(int)(b % 134 ? b % 134 : EIO);
		r->begin_error_nth = 1 + a % 8;
		add_spec(in, n, "begin-error:%d:%u", -r->begin_error,
			 r->begin_error_nth);
		break;
	}
}

/*
 * @nr_ext extents from @fin, each after the one before: one that would
 * end past DIO_MAX_SPAN is dropped, its bytes read all the same.
 */
static void decode_extents(struct dio_input *in, struct fuzz_in *fin,
			   unsigned int nr_ext)
{
	struct testfs_request *r = &in->req;
	unsigned int fsb = r->fs_block, i;
	u64 span_limit = DIO_MAX_SPAN / fsb, cursor = 0;

	for (i = 0; i < nr_ext; i++) {
		u8 e[DIO_EXT_SIZE];
		struct testfs_extent *x = &r->map[r->nr_map];
		u64 gap, len;

		for (unsigned int k = 0; k < sizeof(e); k++)
			e[k] = fuzz_u8(fin);
		gap = blocks_of(get16(e + 2), SMALL_GAP, span_limit) * fsb;
		len = (1 + blocks_of(get16(e + 4), SMALL_EXT, span_limit - 1)) *
		      fsb;
		if (cursor + gap + len > DIO_MAX_SPAN)
			continue; /* keeps the layout: later ones may fit */
		x->off = cursor + gap;
		x->type = e[0] % 5;
		x->len = len - (x->type == IOMAP_INLINE ?
					inline_short(get16(e + 2), get16(e + 4),
						     fsb) :
					0);
		in->ext_bits[r->nr_map] = e[1] &
					  ((1 << ARRAY_SIZE(ext_bits)) - 1);
		for (unsigned int k = 0; k < ARRAY_SIZE(ext_bits); k++) {
			if (!(e[1] & 1 << k))
				continue;
			x->flags |= ext_bits[k].flag;
			if (!ext_bits[k].flag)
				in->missing = ext_bits[k].name;
		}
		x->addr = TESTFS_ADDR_AUTO;
		cursor = x->off + len;
		r->nr_map++;
	}
}

void dio_decode(const u8 *data, size_t size, struct dio_input *in)
{
	struct testfs_request *r = &in->req;
	u8 h[DIO_HDR_SIZE];
	struct fuzz_in fin;
	unsigned int fsb, nr_ext, nr_faults, i, nspec = 0;
	u64 span_limit, len_limit;

	/*
	 * The request is zeroed by testfs_request_init(), once; the rest
	 * of @in (it follows the request) here.
	 */
	_Static_assert(offsetof(struct dio_input, req) == 0,
		       "the request comes first in struct dio_input");
	testfs_request_init(r);
	memset((u8 *)in + sizeof(in->req), 0, sizeof(*in) - sizeof(in->req));
	fuzz_in_init(&fin, data, size);
	fuzz_take_header(&fin, h, sizeof(h));

	fsb = 512U << (h[0] % 8);
	r->fs_block = fsb;
	r->lbs = min(512U << (h[1] % 4), fsb);
	r->encrypted = h[2] & FF_ENCRYPTED;
	r->no_simple_mount = h[2] & FF_NO_SIMPLE_MOUNT;
	r->write_cache = h[2] & FF_WRITE_CACHE;
	r->fua = h[2] & FF_FUA;
	r->dops = h[3] == DOPS_IOEND_BYTE ? TESTFS_DOPS_IOEND : h[3] % 4;
	if (r->dops == TESTFS_DOPS_IOEND && !IOMAPSIM_IOEND_DIRECT)
		in->missing = "iomap_finish_ioend_direct() (--dops ioend)";
	r->mode = h[4] % 3;
	r->write = h[5] & RF_WRITE;
	r->async = h[5] & RF_ASYNC;
	r->no_simple = h[5] & RF_NO_SIMPLE;
	r->iter = h[6] % 4;
	r->complete = h[7] % 4;

	span_limit = DIO_MAX_SPAN / fsb;
	len_limit = DIO_MAX_LEN / fsb;
	r->size = span_of(h + 8, fsb, SMALL_SPAN, span_limit);
	r->pos = span_of(h + 12, fsb, SMALL_SPAN, span_limit);
	r->len = span_of(h + 16, fsb, SMALL_LEN, len_limit);
	r->buf_offset = get16(h + 22);
	if (h[34] & SNAP_POS)
		r->pos = ALIGN_DOWN(r->pos, 512);
	if (h[34] & SNAP_LEN)
		r->len = ALIGN_DOWN(r->len, 512);
	if (h[34] & SNAP_BUF)
		r->buf_offset = ALIGN_DOWN(r->buf_offset, 512);
	r->iovec_segs = 1 + get16(h + 20) % 1024;
	if (r->len && r->iovec_segs > r->len)
		r->iovec_segs = r->len;
	if (h[5] & RF_DONE_BEFORE)
		r->done_before = get16(h + 24);
	if ((h[35] & DEV_MASK_BITS) >= 1 && (h[35] & DEV_MASK_BITS) <= 12)
		r->dma_alignment = (1U << (h[35] & DEV_MASK_BITS)) - 1;
	r->no_poll = h[35] & DEV_NO_POLL;
	iov_layout(r, h);
	for (i = 0; i < ARRAY_SIZE(iocb_bits); i++)
		if (h[26] & iocb_bits[i].bit)
			r->ki_flags |= iocb_bits[i].flag;
	if ((h[26] & IOCB_HIGH_BITS) == IOCB_CALLER_COMP_BITS) {
		r->ki_flags |= IOCB_DIO_CALLER_COMP;
		/* the runner refuses it elsewhere, as io_uring never asks */
		if (!IOMAPSIM_DIO_CALLER_COMP)
			in->missing =
				"IOMAP_DIO_CALLER_COMP (--iocb CALLER_COMP)";
		else if (!r->write || !r->async)
			in->missing = "CALLER_COMP on a sync kiocb or a read";
	}
	in->dio_bits = h[27] & DIO_FLAGS_MASK;
	for (i = 0; i < ARRAY_SIZE(dio_bits); i++) {
		if (!(in->dio_bits & 1 << i))
			continue;
		r->dio_flags |= dio_bits[i].flag;
		if (!dio_bits[i].flag)
			in->missing = dio_bits[i].name;
	}
	in->seed = get32(h + 28);

	nr_ext = h[32] % (DIO_MAX_EXT + 1);
	nr_faults = h[33] % (DIO_MAX_FAULTS + 1);
	decode_extents(in, &fin, nr_ext);
	testfs_request_atomic_device(r);
	for (i = 0; i < nr_faults; i++) {
		u8 f[DIO_FAULT_SIZE];

		for (unsigned int k = 0; k < sizeof(f); k++)
			f[k] = fuzz_u8(&fin);
		decode_fault(in, f, &nspec);
	}
}

/* ---- encoding (seed corpus) ------------------------------------------ */

static int refuse(char *why, size_t len, const char *fmt, ...) __printf(3, 4);
static int refuse(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* "bio-error:N[:STATUS][:read|:write]" into kind/a/b/c */
static bool enc_bio_fault(const char *spec, u8 *f)
{
	char buf[DIO_FAULT_SPEC], *tok, *save = NULL;
	unsigned long n;
	int st = BLK_STS_IOERR;
	unsigned int dir = 0;

	if (strlen(spec) >= sizeof(buf) || strncmp(spec, "bio-error:", 10))
		return false;
	strcpy(buf, spec + 10);
	tok = strtok_r(buf, ":", &save);
	if (!tok || !(n = strtoul(tok, NULL, 10)) || n > 16)
		return false;
	while ((tok = strtok_r(NULL, ":", &save))) {
		if (!strcasecmp(tok, "read"))
			dir = 1;
		else if (!strcasecmp(tok, "write"))
			dir = 2;
		else if ((st = blksim_blk_status_parse(tok)) < 1 || st >= 20)
			return false;
	}
	f[0] = K_BIO_ERROR;
	f[1] = n - 1;
	put16(f + 2, st - 1);
	put32(f + 4, dir);
	return true;
}

/* Bytes 36..39 for r's explicit segments, checked by decoding them. */
static int enc_iov(const struct testfs_request *r, u8 *h)
{
	struct testfs_request d = *r;
	int off = 0;
	unsigned int i;

	if (!r->nr_iov)
		return 0;
	if (r->nr_iov > 4 || r->iter != IOMAPSIM_ITER_IOVEC)
		return -EINVAL;
	h[36] = r->nr_iov;
	for (i = 0; i < 256; i++)
		if (iov_first_len(i) == r->iov[0].len)
			break;
	h[37] = i < 256 ? i : 0;
	for (i = 1; i < r->nr_iov; i++) {
		if (r->iov[i].page_off < 0)
			continue;
		off = iov_page_off_enc(r->iov[i].page_off);
		if (off < 0)
			return -EINVAL;
		h[38] |= 1 << (i - 1);
		h[39] = off;
	}
	d.nr_iov = 0;
	iov_layout(&d, h);
	if (d.nr_iov != r->nr_iov ||
	    memcmp(d.iov, r->iov, r->nr_iov * sizeof(r->iov[0])))
		return -EINVAL;
	return 0;
}

/* What the format cannot hold at all, before any byte is written. */
static int enc_refused(const struct testfs_request *r, char *why, size_t whylen)
{
	unsigned int fsb = r->fs_block, i, dflags;

	if (!is_power_of_2(fsb) || fsb < 512 || fsb > 65536 ||
	    !is_power_of_2(r->lbs) || r->lbs < 512 || r->lbs > 4096 ||
	    r->lbs > fsb)
		return refuse(why, whylen, "geometry %u/%u", fsb, r->lbs);
	if (r->nr_pc || r->sync_mount || r->end_error || r->fsync_error ||
	    r->unmapped)
		return refuse(
			why, whylen,
			"page cache, sync mount, end/fsync errors or unmapped memory");
	if (r->nr_map > DIO_MAX_EXT)
		return refuse(why, whylen, "%u extents", r->nr_map);
	if (r->buf_offset > 0xffff || r->done_before > 0xffff ||
	    r->iovec_segs < 1 || r->iovec_segs > 1024 || r->iter > 3 ||
	    (r->len && r->iter == IOMAPSIM_ITER_IOVEC &&
	     r->iovec_segs > r->len))
		return refuse(why, whylen, "buffer layout or done_before");
	for (i = 0, dflags = r->dio_flags; i < ARRAY_SIZE(dio_bits); i++)
		dflags &= ~dio_bits[i].flag;
	if (dflags)
		return refuse(why, whylen, "dio flags %#x", r->dio_flags);
	if (r->dma_alignment &&
	    (r->dma_alignment >= 4096 || !is_power_of_2(r->dma_alignment + 1)))
		return refuse(why, whylen, "dma_alignment %#x",
			      r->dma_alignment);
	return 0;
}

/* The header, DIO_HDR_SIZE bytes at @h but for the fault count (h[33]). */
static int enc_header(const struct testfs_request *r, u64 seed, u8 *h,
		      char *why, size_t whylen)
{
	unsigned int fsb = r->fs_block, i;
	u64 span_limit = DIO_MAX_SPAN / fsb, len_limit = DIO_MAX_LEN / fsb;
	int flags = r->ki_flags;

	h[0] = __builtin_ctz(fsb) - 9;
	h[1] = __builtin_ctz(r->lbs) - 9;
	h[2] = (r->encrypted ? FF_ENCRYPTED : 0) |
	       (r->no_simple_mount ? FF_NO_SIMPLE_MOUNT : 0) |
	       (r->write_cache ? FF_WRITE_CACHE : 0) | (r->fua ? FF_FUA : 0);
	h[3] = r->dops == TESTFS_DOPS_IOEND ? DOPS_IOEND_BYTE : r->dops;
	h[4] = r->mode;
	h[5] = (r->write ? RF_WRITE : 0) | (r->async ? RF_ASYNC : 0) |
	       (r->no_simple ? RF_NO_SIMPLE : 0) |
	       (r->done_before ? RF_DONE_BEFORE : 0);
	h[6] = r->iter;
	h[7] = r->complete;
	if (r->size < 0 || r->pos < 0 ||
	    !span_enc(h + 8, r->size, fsb, SMALL_SPAN, span_limit) ||
	    !span_enc(h + 12, r->pos, fsb, SMALL_SPAN, span_limit) ||
	    !span_enc(h + 16, r->len, fsb, SMALL_LEN, len_limit))
		return refuse(why, whylen, "size %lld pos %lld len %zu too big",
			      (long long)r->size, (long long)r->pos, r->len);
	put16(h + 20, r->iter == IOMAPSIM_ITER_IOVEC ? r->iovec_segs - 1 : 0);
	put16(h + 22, r->buf_offset);
	put16(h + 24, r->done_before);
	if (flags & IOCB_DIO_CALLER_COMP) {
		h[26] |= IOCB_CALLER_COMP_BITS;
		flags &= ~IOCB_DIO_CALLER_COMP;
	}
	for (i = ARRAY_SIZE(iocb_bits); i-- > 0;) {
		if ((flags & iocb_bits[i].flag) == iocb_bits[i].flag) {
			h[26] |= iocb_bits[i].bit;
			flags &= ~iocb_bits[i].flag;
		}
	}
	if (flags)
		return refuse(why, whylen, "ki_flags %#x", flags);
	for (i = 0; i < ARRAY_SIZE(dio_bits); i++)
		if (r->dio_flags & dio_bits[i].flag)
			h[27] |= 1 << i;
	h[35] = (r->dma_alignment ? __builtin_ctz(r->dma_alignment + 1) : 0) |
		(r->no_poll ? DEV_NO_POLL : 0);
	if (enc_iov(r, h))
		return refuse(why, whylen,
			      "iovec segments the format cannot give");
	if (seed > U32_MAX)
		return refuse(why, whylen, "seed");
	put32(h + 28, seed);
	h[32] = r->nr_map;
	return 0;
}

/* The extents, DIO_EXT_SIZE bytes each from *@pp, which is moved on. */
static int enc_extents(const struct testfs_request *r, u8 **pp, char *why,
		       size_t whylen)
{
	unsigned int fsb = r->fs_block, i;
	u64 cursor = 0;
	u8 *p = *pp;

	for (i = 0; i < r->nr_map; i++, p += DIO_EXT_SIZE) {
		const struct testfs_extent *x = &r->map[i];
		u64 gap, blocks, len = (x->len + fsb - 1) / fsb * fsb;
		u16 known = 0;

		for (unsigned int k = 0; k < ARRAY_SIZE(ext_bits); k++)
			known |= ext_bits[k].flag;

		if (x->addr != TESTFS_ADDR_AUTO || x->off < (loff_t)cursor ||
		    x->off % fsb || !x->len ||
		    (x->type != IOMAP_INLINE && x->len % fsb) ||
		    x->off + len > DIO_MAX_SPAN || x->type > IOMAP_INLINE ||
		    (x->flags & ~known))
			return refuse(why, whylen, "extent %u", i);
		gap = (x->off - cursor) / fsb;
		blocks = len / fsb - 1;
		p[0] = x->type;
		for (unsigned int k = 0; k < ARRAY_SIZE(ext_bits); k++)
			if (x->flags & ext_bits[k].flag)
				p[1] |= 1 << k;
		put16(p + 2, gap < SMALL_GAP ? gap : 0x8000 | gap);
		put16(p + 4, blocks < SMALL_EXT ? blocks : 0x8000 | blocks);
		if (len != x->len) {
			/* inline data short of its last block: see above */
			u64 s = len - x->len;

			if (gap >= SMALL_GAP || blocks >= SMALL_EXT ||
			    s / INLINE_LO >= 0x8000 / SMALL_EXT)
				return refuse(why, whylen, "inline extent %u",
					      i);
			put16(p + 2, gap + SMALL_GAP * (s % INLINE_LO));
			put16(p + 4, blocks + SMALL_EXT * (s / INLINE_LO));
		}
		cursor = x->off + len;
	}
	*pp = p;
	return 0;
}

/*
 * The faults, DIO_FAULT_SIZE bytes each from *@pp, which is moved on;
 * their count in *@nf.
 */
static int enc_faults(const struct testfs_request *r, u8 **pp, unsigned int *nf,
		      char *why, size_t whylen)
{
	u8 *p = *pp;
	unsigned int i;

	for (i = 0; i < r->nr_bio_faults; i++, p += DIO_FAULT_SIZE, (*nf)++)
		if (!enc_bio_fault(r->bio_faults[i], p))
			return refuse(why, whylen, "fault %s",
				      r->bio_faults[i]);
	if (r->alloc_fail_nth) {
		if (r->alloc_fail_nth > 256)
			return refuse(why, whylen, "alloc-fail");
		p[0] = K_ALLOC_FAIL;
		put16(p + 2, r->alloc_fail_nth - 1);
		p += DIO_FAULT_SIZE;
		(*nf)++;
	}
	if (r->short_pin_nth) {
		if (r->short_pin_nth > 8 || r->short_pin_bytes > DIO_MAX_LEN)
			return refuse(why, whylen, "short-pin");
		p[0] = K_SHORT_PIN;
		p[1] = r->short_pin_nth - 1;
		put32(p + 4, r->short_pin_bytes);
		p += DIO_FAULT_SIZE;
		(*nf)++;
	}
	if (r->begin_error) {
		if (r->begin_error >= 0 || -r->begin_error >= 134 ||
		    r->begin_error_nth > 8)
			return refuse(why, whylen, "begin-error");
		p[0] = K_BEGIN_ERROR;
		p[1] = (r->begin_error_nth ? r->begin_error_nth : 1) - 1;
		put16(p + 2, -r->begin_error);
		p += DIO_FAULT_SIZE;
		(*nf)++;
	}
	*pp = p;
	return 0;
}

int dio_encode(const struct testfs_request *r, u64 seed, u8 *buf, size_t *len,
	       char *why, size_t whylen)
{
	u8 *h = buf, *p = buf + DIO_HDR_SIZE;
	unsigned int nf = 0;
	int rc;

	memset(buf, 0, DIO_MAX_INPUT);
	rc = enc_refused(r, why, whylen);
	if (!rc)
		rc = enc_header(r, seed, h, why, whylen);
	if (!rc)
		rc = enc_extents(r, &p, why, whylen);
	if (rc)
		return rc;
	/* the decoder gives the device the unit atomic mappings imply */
	if (r->atomic_max != testfs_atomic_max_of(r))
		return refuse(why, whylen, "atomic write unit %u",
			      r->atomic_max);
	rc = enc_faults(r, &p, &nf, why, whylen);
	if (rc)
		return rc;
	if (nf > DIO_MAX_FAULTS)
		return refuse(why, whylen, "%u faults", nf);
	h[33] = nf;
	/* the extents and faults sit right after the header, in order */
	*len = p - buf;
	return 0;
}

/* ---- the command line ------------------------------------------------- */

void dio_print_cmdline(const struct dio_input *in, FILE *out)
{
	const struct testfs_request *r = &in->req;
	unsigned int i;
	const char *sep;

	fprintf(out, "iomapsim run --fs-block %u --lbs %u --size %lld",
		r->fs_block, r->lbs, (long long)r->size);
	for (i = 0; i < r->nr_map; i++) {
		const struct testfs_extent *x = &r->map[i];

		fprintf(out, " --map %s:%lld:%llu", type_names[x->type],
			(long long)x->off, (unsigned long long)x->len);
		sep = ":";
		for (unsigned int k = 0; k < ARRAY_SIZE(ext_bits); k++) {
			if (in->ext_bits[i] & 1 << k) {
				fprintf(out, "%s%s", sep, ext_bits[k].name);
				sep = "+";
			}
		}
	}
	if (r->encrypted)
		fputs(" --encrypted", out);
	if (r->no_simple_mount)
		fputs(" --no-simple-mount", out);
	if (r->write_cache)
		fputs(" --write-cache", out);
	if (r->fua)
		fputs(" --fua", out);
	if (r->dma_alignment)
		fprintf(out, " --dma-alignment %u", r->dma_alignment);
	if (r->no_poll)
		fputs(" --no-poll", out);
	if (r->dops)
		fprintf(out, " --dops %s", dops_names[r->dops]);
	if (r->mode)
		fprintf(out, " --iomap %s", mode_names[r->mode]);
	fprintf(out, " --op %s --pos %lld --len %zu",
		r->write ? "write" : "read", (long long)r->pos, r->len);
	if (r->iter == IOMAPSIM_ITER_IOVEC && r->nr_iov > 1) {
		sep = " --iter iovec:";
		for (i = 0; i < r->nr_iov; i++, sep = ",") {
			fprintf(out, "%s%u", sep, r->iov[i].len);
			if (r->iov[i].page_off >= 0)
				fprintf(out, "@%d", r->iov[i].page_off);
		}
	} else if (r->iter == IOMAPSIM_ITER_IOVEC)
		fprintf(out, " --iter iovec:%u", r->iovec_segs);
	else
		fprintf(out, " --iter %s", iter_names[r->iter]);
	if (r->buf_offset)
		fprintf(out, " --buf-offset %zu", r->buf_offset);
	sep = " --iocb ";
	for (i = 0; i < ARRAY_SIZE(iocb_bits); i++) {
		int f = iocb_bits[i].flag;

		/* DSYNC is implied by SYNC: name it only when alone */
		if (f == IOCB_DSYNC && (r->ki_flags & IOCB_SYNC))
			continue;
		if ((r->ki_flags & f) == f) {
			fprintf(out, "%s%s", sep, iocb_bits[i].name);
			sep = ",";
		}
	}
	if (r->ki_flags & IOCB_DIO_CALLER_COMP)
		fprintf(out, "%sCALLER_COMP", sep);
	if (r->async)
		fputs(" --async", out);
	sep = " --dio-flags ";
	for (i = 0; i < ARRAY_SIZE(dio_bits); i++) {
		if (in->dio_bits & 1 << i) {
			fprintf(out, "%s%s", sep, dio_bits[i].name);
			sep = ",";
		}
	}
	if (r->done_before)
		fprintf(out, " --done-before %zu", r->done_before);
	if (r->no_simple)
		fputs(" --no-simple", out);
	for (i = 0; i < IOMAPSIM_MAX_FAULTS && in->spec[i][0]; i++)
		fprintf(out, " --fault %s", in->spec[i]);
	fprintf(out, " --complete %s --seed %llu", complete_names[r->complete],
		(unsigned long long)in->seed);
}
