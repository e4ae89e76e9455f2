// SPDX-License-Identifier: GPL-2.0-only
/*
 * An iov_iter built from fuzz input, and its checks (see iter_input.h).
 */
#include <string.h>

#include <linux/bvec.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/uio.h>

#include "iter_input.h"

char arena[ARENA_SIZE] __aligned(PAGE_SIZE);
char shadow[ARENA_SIZE];

const char *const iter_type_name[ITER_DISCARD + 1] = {
	[ITER_UBUF] = "ubuf", [ITER_IOVEC] = "iovec",	  [ITER_KVEC] = "kvec",
	[ITER_BVEC] = "bvec", [ITER_DISCARD] = "discard",
};

/* What the header's type byte selects (enum itype). */
static const enum iter_type input_type[NR_TYPES] = {
	[T_UBUF] = ITER_UBUF, [T_IOVEC] = ITER_IOVEC,	  [T_KVEC] = ITER_KVEC,
	[T_BVEC] = ITER_BVEC, [T_DISCARD] = ITER_DISCARD,
};

#define swap_vals(a, b)              \
	do {                         \
		typeof(a) __t = (a); \
		(a) = (b);           \
		(b) = __t;           \
	} while (0)

/* ---- checks ---------------------------------------------------------- */

void iter_check_bytes(const struct iter_state *s, size_t p, const char *got,
		      size_t n)
{
	size_t same = iter_model_same_bytes(&s->m, p, got, n);

	FUZZ_CHECK(same == n,
		   "byte %zu of %zu copied out of the iterator differs from "
		   "its memory",
		   same, n);
}

void iter_check(const struct iter_state *s, const char *what)
{
	const struct iter_model *m = &s->m;
	const struct iov_iter *i = &s->it;
	const char *bad = iter_model_mismatch(m, i, s->segs);

	FUZZ_CHECK(!bad,
		   "%s: %s differs from the model: iterator count %zu, "
		   "iov_offset %zu, nr_segs %lu; model count %zu, off %zu, "
		   "segment %u of %u",
		   what, bad, i->count, i->iov_offset, i->nr_segs, m->count,
		   m->off, m->k, m->nr);
	if (s->hi > s->lo &&
	    memcmp(arena + s->lo, shadow + s->lo, s->hi - s->lo)) {
		size_t b = s->lo;

		while (arena[b] == shadow[b])
			b++;
		fuzz_fail(__FILE__, __LINE__,
			  "%s: arena byte %zu is %#x, model %#x", what, b,
			  (u8)arena[b], (u8)shadow[b]);
	}
}

/* ---- building the iterator ------------------------------------------- */

void iter_build(struct iter_state *s, const struct iter_hdr *hp,
		struct fuzz_in *in, unsigned int max_types)
{
	struct iter_model *m = &s->m;
	struct iter_hdr h = *hp;
	enum iter_type type = input_type[h.type % max_types];
	size_t len[MAX_SEGS] = { 0 }, cur_off, total = 0, trim;
	char *addr[MAX_SEGS] = { NULL };
	unsigned int want, nr, j;

	memset(s, 0, sizeof(*s));
	want = type == ITER_UBUF ? 1 : 1 + h.nr_segs % MAX_SEGS;
	cur_off = (h.base[0] | h.base[1] << 8) % PAGE_SIZE;
	s->lo = cur_off;

	for (j = 0; j < want; j++) {
		u8 gap = fuzz_u8(in);
		size_t n = fuzz_u16(in) % (MAX_SEG_LEN + 1);

		if (gap == 255)
			cur_off = ALIGN(cur_off, PAGE_SIZE);
		else
			cur_off += gap;
		if (type == ITER_BVEC && !n)
			n = 1; /* a bio_vec is never empty */
		if (cur_off + n > ARENA_SIZE)
			n = cur_off < ARENA_SIZE ? ARENA_SIZE - cur_off : 0;
		if (!n && (type == ITER_BVEC || cur_off >= ARENA_SIZE))
			break;
		addr[j] = arena + cur_off;
		len[j] = n;
		cur_off += n;
		/* how far before the data bv_page points (multi-page bvec) */
		s->bv[j].bv_offset = fuzz_u8(in) % 4;
	}
	nr = j ? j : 1;
	if (!j) {
		addr[0] = arena + s->lo;
		len[0] = type == ITER_BVEC ? 1 : 0;
	}
	s->hi = min(cur_off + 1, (size_t)ARENA_SIZE);
	if (h.flags & HF_REVERSE) {
		for (j = 0; j < nr / 2; j++) {
			swap_vals(addr[j], addr[nr - 1 - j]);
			swap_vals(len[j], len[nr - 1 - j]);
		}
	}
	for (j = 0; j < nr; j++)
		total += len[j];
	trim = (h.flags & HF_TRIM) ? (h.trim[0] | h.trim[1] << 8) : 0;
	s->data = total - min(trim, total);
	if (type == ITER_UBUF)
		len[0] = s->data; /* a UBUF is exactly its count bytes */
	iter_model_init(m, type, nr, len, addr, s->data);

	for (j = 0; j < nr; j++) {
		unsigned long a = (unsigned long)addr[j];
		unsigned long back =
			min((unsigned long)s->bv[j].bv_offset,
			    (a - (unsigned long)arena) / PAGE_SIZE);
		struct page *pg = virt_to_page(addr[j]);

		s->iov[j].iov_base = addr[j];
		s->iov[j].iov_len = len[j];
		s->kv[j].iov_base = addr[j];
		s->kv[j].iov_len = len[j];
		pg = (struct page *)((char *)pg - back * PAGE_SIZE);
		bvec_set_page(&s->bv[j], pg, len[j],
			      a - (unsigned long)page_address(pg));
	}

	switch (type) {
	case ITER_UBUF:
		iov_iter_ubuf(&s->it, h.dir & 1, addr[0], s->data);
		break;
	case ITER_IOVEC:
		iov_iter_init(&s->it, h.dir & 1, s->iov, nr, s->data);
		s->segs = s->iov;
		break;
	case ITER_KVEC:
		iov_iter_kvec(&s->it, h.dir & 1, s->kv, nr, s->data);
		s->segs = s->kv;
		break;
	case ITER_BVEC:
		iov_iter_bvec(&s->it, h.dir & 1, s->bv, nr, s->data);
		s->segs = s->bv;
		break;
	default:
		iov_iter_discard(&s->it, READ, s->data);
		break;
	}
	for (size_t i = s->lo; i < s->hi; i++)
		arena[i] = (char)(i * 131 + (i >> 12));
	memcpy(shadow + s->lo, arena + s->lo, s->hi - s->lo);
}
