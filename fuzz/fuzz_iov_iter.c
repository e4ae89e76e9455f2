// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_iov_iter: struct iov_iter operations against a model
 * (docs/rules.md 3.I, I-01..I-12).
 *
 * The input builds one iterator (UBUF, IOVEC, KVEC, BVEC or DISCARD, either
 * direction) over segments carved from a page-aligned arena, then runs a
 * sequence of operations on it: advance, revert, truncate, reexpand, the
 * copies and zeroing, npages, alignment, is_aligned and page extraction
 * (with injected short pins and allocation failures).  After every
 * operation the iterator must stand where the model says (count, current
 * segment, nr_segs, iov_offset), the arena must hold exactly what the
 * model's shadow copy holds, and the return value must be the model's.
 * At the end no page may stay pinned, no allocation live, and no WARN_ON
 * may have fired except the ones the input asked for (a copy in the wrong
 * direction warns, as in the kernel).
 *
 * The model is tests/model/iov_iter_model.c, the one the unit tests check
 * against; iter_input.c builds the iterator (shared with fuzz_bio_pages).
 *
 * Input: an 8-byte header (type, direction, segment count, flags, count
 * trim, arena offset), 4 bytes per segment (gap, length, BVEC page
 * offset), then operations of 1 opcode byte plus arguments until the
 * input ends.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/bvec.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <sim/fault.h>

#include "iter_input.h"

#define MAX_OPS 64
#define XFER_SIZE 65536 /* copy buffers: a u16 length always fits */
#define MAX_EXTRACT_PAGES 64

static char src_buf[XFER_SIZE];
static char dst_buf[XFER_SIZE];
static char page_buf[4 * PAGE_SIZE] __aligned(PAGE_SIZE);

struct state {
	struct iter_state is;
	long warnings; /* WARN_ONs the input provoked on purpose */
	unsigned int op;
};

static void describe(FILE *out, void *arg)
{
	struct state *s = arg;

	fprintf(out, "%s iterator, %u segment(s), %zu bytes, op #%u",
		iter_type_name[s->is.m.type], s->is.m.nr, s->is.data, s->op);
}

/* ---- operations ------------------------------------------------------ */

enum {
	OP_ADVANCE,
	OP_REVERT,
	OP_TRUNCATE,
	OP_REEXPAND,
	OP_COPY, /* to a destination, from a source iterator */
	OP_ZERO,
	OP_COPY_PAGE,
	OP_WRONG_DIR,
	OP_NPAGES,
	OP_ALIGNMENT,
	OP_IS_ALIGNED,
	OP_EXTRACT,
	NR_OPS
};

static const char *const op_name[NR_OPS] = {
	"advance", "revert",	"truncate",   "reexpand",
	"copy",	   "zero",	"copy_page",  "wrong_dir",
	"npages",  "alignment", "is_aligned", "extract",
};

/* Bytes copied out of the iterator must be its memory, the rest as was. */
static void check_copied_out(const struct iter_state *is, size_t p,
			     const char *buf, size_t got, size_t len)
{
	iter_check_bytes(is, p, buf, got);
	for (size_t i = got; i < len; i++)
		FUZZ_CHECK(buf[i] == (char)0xee,
			   "byte %zu past the copy was overwritten", i);
}

static void op_copy(struct state *s, size_t n)
{
	struct iter_model *m = &s->is.m;
	size_t p = iter_model_pos(m), got, want;

	if (!s->is.it.data_source) {
		for (size_t i = 0; i < n; i++)
			src_buf[i] = (char)(s->op * 31 + i * 7 + 1);
		got = copy_to_iter(src_buf, n, &s->is.it);
		want = iter_model_copy(m, n);
		FUZZ_CHECK(got == want, "copy_to_iter(%zu) = %zu, model %zu", n,
			   got, want);
		if (m->type != ITER_DISCARD)
			iter_shadow_write(&s->is, p, src_buf, got);
		return;
	}
	memset(dst_buf, 0xee, n);
	got = copy_from_iter(dst_buf, n, &s->is.it);
	want = iter_model_copy(m, n);
	FUZZ_CHECK(got == want, "copy_from_iter(%zu) = %zu, model %zu", n, got,
		   want);
	check_copied_out(&s->is, p, dst_buf, got, n);
}

static void op_copy_page(struct state *s, size_t off, size_t n)
{
	struct iter_model *m = &s->is.m;
	struct page *pg = virt_to_page(page_buf);
	size_t p = iter_model_pos(m), got, want;

	off %= 3 * PAGE_SIZE;
	n = min(n, sizeof(page_buf) - off);
	if (!s->is.it.data_source) {
		for (size_t i = 0; i < sizeof(page_buf); i++)
			page_buf[i] = (char)(s->op * 13 + i * 3 + 5);
		got = copy_page_to_iter(pg, off, n, &s->is.it);
		want = iter_model_copy(m, n);
		FUZZ_CHECK(got == want,
			   "copy_page_to_iter(+%zu, %zu) = %zu, model %zu", off,
			   n, got, want);
		if (m->type != ITER_DISCARD)
			iter_shadow_write(&s->is, p, page_buf + off, got);
		return;
	}
	memset(page_buf, 0xee, sizeof(page_buf));
	got = copy_page_from_iter(pg, off, n, &s->is.it);
	want = iter_model_copy(m, n);
	FUZZ_CHECK(got == want,
		   "copy_page_from_iter(+%zu, %zu) = %zu, model %zu", off, n,
		   got, want);
	for (size_t i = 0; i < off; i++)
		FUZZ_CHECK(page_buf[i] == (char)0xee,
			   "page byte %zu before the copy was overwritten", i);
	check_copied_out(&s->is, p, page_buf + off, got,
			 sizeof(page_buf) - off);
}

/* A copy against the iterator's direction: WARN_ON_ONCE, nothing moves. */
static void op_wrong_dir(struct state *s, size_t n)
{
	size_t got;
	bool q = fuzz_quiet(true);

	if (s->is.it.data_source)
		got = copy_to_iter(src_buf, n, &s->is.it);
	else
		got = copy_from_iter(dst_buf, n, &s->is.it);
	fuzz_quiet(q);
	s->warnings++;
	FUZZ_CHECK(got == 0, "copy against the direction moved %zu bytes", got);
}

/* Each page holds the bytes the model says, at the right offsets. */
static void check_extracted_pages(const struct iter_model *m, size_t p,
				  struct page **pages, size_t off0, size_t got)
{
	unsigned int npages = DIV_ROUND_UP(off0 + got, PAGE_SIZE);

	for (unsigned int k = 0; k < npages; k++) {
		size_t first = k ? k * PAGE_SIZE - off0 : 0;
		size_t last = min((k + 1) * PAGE_SIZE - off0, got) - 1;
		char *base = page_address(pages[k]);

		FUZZ_CHECK(base + (off0 + first) % PAGE_SIZE ==
					   iter_model_byte_addr(m, p + first) &&
				   base + (off0 + last) % PAGE_SIZE ==
					   iter_model_byte_addr(m, p + last),
			   "extracted page %u does not hold bytes %zu..%zu", k,
			   first, last);
	}
}

static void op_extract(struct state *s, struct fuzz_in *in)
{
	struct iter_model *m = &s->is.m;
	size_t maxsize = fuzz_u16(in);
	unsigned int maxpages = 1 + fuzz_u8(in) % MAX_EXTRACT_PAGES;
	u8 how = fuzz_u8(in);
	bool own_array = how & 1, alloc_fail = !own_array && (how & 2);
	size_t pin_limit = (how & 4) ? fuzz_u16(in) : SIZE_MAX;
	bool user = iter_model_user_backed(m);
	struct page *array[MAX_EXTRACT_PAGES];
	struct page **pages = own_array ? array : NULL;
	size_t p = iter_model_pos(m), off0 = SIZE_MAX, moff0 = 0, want;
	unsigned int npages;
	ssize_t got;

	if (pin_limit != SIZE_MAX)
		sim_fault_short_pin_set(1, pin_limit);
	if (alloc_fail) {
		sim_fault_alloc_set(&(struct sim_fault_alloc){ .nth = 1 });
		sim_fault_arm(true);
	}
	got = iov_iter_extract_pages(&s->is.it, &pages, maxsize, maxpages, 0,
				     &off0);
	sim_fault_arm(false);
	sim_fault_reset();

	if (!min(maxsize, m->count)) {
		FUZZ_CHECK(got == 0, "empty extraction returned %zd", got);
		goto out;
	}
	if (m->type == ITER_DISCARD) {
		FUZZ_CHECK(got == -EFAULT, "DISCARD extraction returned %zd",
			   got);
		goto out;
	}
	if (alloc_fail) {
		FUZZ_CHECK(got == -ENOMEM,
			   "extraction with a failing page array: %zd", got);
		/* KVEC steps over empty segments before allocating */
		if (m->type == ITER_KVEC)
			while (m->k < m->nr && m->len[m->k] == m->off) {
				m->k++;
				m->off = 0;
			}
		goto out;
	}
	if (user && pin_limit == 0) {
		FUZZ_CHECK(got == -EFAULT, "failed pin returned %zd", got);
		goto out;
	}
	want = iter_model_extract_len(m, maxsize, maxpages, &moff0);
	if (user)
		want = min(want, pin_limit);
	FUZZ_CHECK(got == (ssize_t)want,
		   "%s extraction(max %zu, %u pages) = %zd, model %zu",
		   iter_type_name[m->type], maxsize, maxpages, got, want);
	FUZZ_CHECK(off0 == moff0, "extraction offset0 %zu, model %zu", off0,
		   moff0);
	npages = DIV_ROUND_UP(off0 + got, PAGE_SIZE);
	FUZZ_CHECK(npages <= maxpages, "%u pages for a cap of %u", npages,
		   maxpages);
	check_extracted_pages(m, p, pages, off0, got);
	for (unsigned int k = 0; k < npages; k++) {
		int pins = sim_page_pincount(pages[k]);

		FUZZ_CHECK(pins == (user ? 1 : 0),
			   "page %u of a %s extraction has %d pin(s)", k,
			   iter_type_name[m->type], pins);
	}
	if (user)
		unpin_user_pages(pages, npages);
	iter_model_advance(m, got);
out:
	if (!own_array)
		kfree(pages);
}

static void run_op(struct state *s, struct fuzz_in *in, unsigned int op)
{
	struct iter_model *m = &s->is.m;
	size_t n, got, want;

	switch (op) {
	case OP_ADVANCE:
		n = fuzz_u16(in);
		iov_iter_advance(&s->is.it, n);
		iter_model_advance(m, n);
		break;
	case OP_REVERT:
		/* never before the start: that is a caller bug (BUG) */
		n = fuzz_u16(in);
		if (m->type == ITER_DISCARD)
			n %= s->is.data - min(m->count, s->is.data) + 1;
		else
			n %= iter_model_pos(m) + 1;
		iov_iter_revert(&s->is.it, n);
		iter_model_revert(m, n);
		break;
	case OP_TRUNCATE:
		n = fuzz_u16(in);
		iov_iter_truncate(&s->is.it, n);
		m->count = min(m->count, n);
		break;
	case OP_REEXPAND:
		/* at most what truncation removed (I-07) */
		n = fuzz_u16(in);
		if (m->type == ITER_DISCARD)
			break; /* its position is not tracked */
		n %= s->is.data - iter_model_pos(m) + 1;
		iov_iter_reexpand(&s->is.it, n);
		m->count = n;
		break;
	case OP_COPY:
		op_copy(s, fuzz_u16(in));
		break;
	case OP_ZERO: {
		size_t p = iter_model_pos(m);

		n = fuzz_u16(in);
		got = iov_iter_zero(n, &s->is.it);
		want = iter_model_copy(m, n);
		FUZZ_CHECK(got == want, "iov_iter_zero(%zu) = %zu, model %zu",
			   n, got, want);
		if (m->type != ITER_DISCARD)
			iter_shadow_write(&s->is, p, NULL, got);
		break;
	}
	case OP_COPY_PAGE:
		n = fuzz_u16(in);
		op_copy_page(s, fuzz_u16(in), n);
		break;
	case OP_WRONG_DIR:
		op_wrong_dir(s, fuzz_u16(in));
		break;
	case OP_NPAGES: {
		int maxp = 1 + fuzz_u16(in) % 300;
		int a = iov_iter_npages(&s->is.it, maxp);
		int b = iter_model_npages(m, maxp);

		FUZZ_CHECK(a == b, "iov_iter_npages(%d) = %d, model %d", maxp,
			   a, b);
		break;
	}
	case OP_ALIGNMENT:
		if (m->count && m->type != ITER_DISCARD) {
			unsigned long a = iov_iter_alignment(&s->is.it);
			unsigned long b = iter_model_alignment(m);

			/* BVEC reports bv_offset, not the address: low bits */
			FUZZ_CHECK(((a ^ b) & (PAGE_SIZE - 1)) == 0,
				   "iov_iter_alignment = %#lx, model %#lx", a,
				   b);
		}
		break;
	case OP_IS_ALIGNED: {
		u8 sh = fuzz_u8(in);
		unsigned long am = (1UL << (sh & 15) % 12) - 1;
		unsigned long lm = (1UL << (sh >> 4) % 12) - 1;
		bool a = iov_iter_is_aligned(&s->is.it, am, lm);
		bool b = iter_model_is_aligned(m, am, lm);

		FUZZ_CHECK(a == b,
			   "iov_iter_is_aligned(%#lx, %#lx) = %d, model %d", am,
			   lm, a, b);
		break;
	}
	case OP_EXTRACT:
		op_extract(s, in);
		break;
	}
}

FUZZ_ENGINE_INITIALIZE()

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct state st;
	struct state *s = &st;
	struct iter_hdr h;
	struct fuzz_in in;

	fuzz_input_begin(&in, data, size, describe, s, sizeof(*s));

	fuzz_take_header(&in, &h, sizeof(h));
	iter_build(&s->is, &h, &in, NR_TYPES);
	iter_check(&s->is, "init");

	for (s->op = 0; s->op < MAX_OPS && fuzz_more(&in); s->op++) {
		unsigned int op = fuzz_u8(&in) % NR_OPS;

		run_op(s, &in, op);
		iter_check(&s->is, op_name[op]);
	}
	fuzz_input_end(s->warnings, 0, NULL);
	return 0;
}
