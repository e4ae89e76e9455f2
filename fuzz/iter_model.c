// SPDX-License-Identifier: GPL-2.0-only
/*
 * The iterator model shared by the fuzz targets (see iter_model.h).
 */
#include <string.h>

#include <linux/bvec.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/uio.h>

#include "iter_model.h"

char arena[ARENA_SIZE] __aligned(PAGE_SIZE);
char shadow[ARENA_SIZE];

const char *const iter_type_name[NR_TYPES] = { "ubuf", "iovec", "kvec",
					       "bvec", "discard" };

#define swap_vals(a, b)             \
	do {                        \
		typeof(a) __t = (a); \
		(a) = (b);           \
		(b) = __t;           \
	} while (0)
#define min3(a, b, c) min(min(a, b), c)

/* ---- the model ------------------------------------------------------- */

/* First segment from @from on whose end lies beyond position @p. */
unsigned int model_seg_after(const struct model *m, unsigned int from,
			      size_t p)
{
	unsigned int j;

	for (j = from; j < m->nr; j++)
		if (p < m->start[j + 1])
			break;
	return j;
}

/* Where the byte at absolute position @p (< data) lives. */
char *model_byte_addr(const struct model *m, size_t p)
{
	unsigned int j = model_seg_after(m, 0, p);

	FUZZ_CHECK(j < m->nr, "model: position %zu beyond %zu", p,
		   m->start[m->nr]);
	return m->addr[j] + (p - m->start[j]);
}

void model_advance(struct model *m, size_t n)
{
	size_t p;

	n = min(n, m->count);
	if (m->type == T_DISCARD || m->type == T_UBUF) {
		m->off += m->type == T_UBUF ? n : 0;
		m->count -= n;
		return;
	}
	if (!m->count)
		return;
	m->count -= n;
	p = model_pos(m) + n;
	m->k = model_seg_after(m, m->k, p);
	m->off = p - m->start[m->k];
}

/* Caller guarantees n <= model_pos() (never before the start). */
void model_revert(struct model *m, size_t n)
{
	size_t p;
	unsigned int j;

	if (!n)
		return;
	m->count += n;
	if (m->type == T_DISCARD)
		return;
	if (n <= m->off) {
		m->off -= n;
		return;
	}
	p = model_pos(m) - n;
	for (j = m->k; j-- > 0;)
		if (m->start[j] <= p && p < m->start[j + 1])
			break;
	m->k = j;
	m->off = p - m->start[j];
}

/* A copy or zeroing of min(n, count) bytes; returns that amount. */
size_t model_copy(struct model *m, size_t n)
{
	size_t last;
	unsigned int j;

	n = min(n, m->count);
	if (!n)
		return 0;
	if (m->type == T_DISCARD || m->type == T_UBUF) {
		m->off += m->type == T_UBUF ? n : 0;
		m->count -= n;
		return n;
	}
	last = model_pos(m) + n - 1;
	m->count -= n;
	j = model_seg_after(m, m->k, last);
	if (last + 1 < m->start[j + 1]) {
		m->k = j;
		m->off = last + 1 - m->start[j];
	} else {
		m->k = j + 1;
		m->off = 0;
	}
	return n;
}

/*
 * Call @fn for each contiguous piece of the @n bytes at absolute position
 * @p: its address, length and distance from @p.
 */
void model_for_each_piece(const struct model *m, size_t p, size_t n,
			   void (*fn)(char *a, size_t len, size_t done,
				      void *arg),
			   void *arg)
{
	size_t done = 0;

	while (done < n) {
		unsigned int j = model_seg_after(m, 0, p + done);
		size_t in, len;

		FUZZ_CHECK(j < m->nr, "model: position %zu beyond %zu",
			   p + done, m->start[m->nr]);
		in = p + done - m->start[j];
		len = min(m->len[j] - in, n - done);
		fn(m->addr[j] + in, len, done, arg);
		done += len;
	}
}

static void shadow_piece(char *a, size_t len, size_t done, void *src)
{
	if (src)
		memcpy(shadow + (a - arena), (char *)src + done, len);
	else
		memset(shadow + (a - arena), 0, len);
}

/* Replay on the shadow what writing @src (NULL: zeroes) at @p must do. */
void model_shadow_write(const struct model *m, size_t p, const char *src,
			 size_t n)
{
	model_for_each_piece(m, p, n, shadow_piece, (void *)src);
}

static void compare_piece(char *a, size_t len, size_t done, void *got)
{
	FUZZ_CHECK(!memcmp((char *)got + done, a, len),
		   "bytes %zu..%zu copied out of the iterator differ from "
		   "its memory", done, done + len - 1);
}

void model_check_bytes(const struct model *m, size_t p, const char *got,
		       size_t n)
{
	model_for_each_piece(m, p, n, compare_piece, (void *)got);
}

/* I-11: pages spanned by the non-empty pieces of the remaining data. */
int model_npages(const struct model *m, int maxpages)
{
	size_t p = model_pos(m), left = m->count;
	long npages = 0;

	if (m->type == T_DISCARD || !left)
		return 0;
	for (unsigned int j = m->k; j < m->nr && left; j++) {
		size_t from = max(p, m->start[j]);
		size_t n = min(m->start[j + 1] - from, left);
		unsigned long a;

		if (!n)
			continue;
		a = (unsigned long)model_byte_addr(m, from);
		npages += ((a + n - 1) >> PAGE_SHIFT) - (a >> PAGE_SHIFT) + 1;
		left -= n;
	}
	return (int)min(npages, (long)maxpages);
}

/* OR of where each non-empty piece starts and how long it is. */
unsigned long model_alignment(const struct model *m)
{
	size_t p = model_pos(m), left = m->count;
	unsigned long res = 0;

	for (unsigned int j = m->k; j < m->nr && left; j++) {
		size_t from = max(p, m->start[j]);
		size_t n = min(m->start[j + 1] - from, left);

		if (!n)
			continue;
		res |= (unsigned long)model_byte_addr(m, from) | n;
		left -= n;
	}
	return res;
}

/*
 * iov_iter_is_aligned() as the kernel defines it, quirks included: the
 * IOVEC/KVEC walk checks the address of every segment it visits, empty
 * ones too, and the BVEC walk takes a segment's whole bv_len as its
 * length (only the first segment can have a skip).  With count 0 the
 * first segment's address is still checked.
 */
bool model_is_aligned(const struct model *m, unsigned long am,
			     unsigned long lm)
{
	size_t size = m->count, skip = m->off;

	if (m->type == T_DISCARD)
		return true;
	if (m->type == T_UBUF)
		return !(size & lm) &&
		       !((unsigned long)(m->addr[0] + m->off) & am);
	for (unsigned int j = m->k; j < m->nr; j++) {
		size_t len = m->type == T_BVEC ? m->len[j] : m->len[j] - skip;

		len = min(len, size);
		if (len & lm)
			return false;
		if ((unsigned long)(m->addr[j] + skip) & am)
			return false;
		size -= len;
		skip = 0;
		if (!size)
			break;
	}
	return true;
}

/*
 * Expected extraction length.  User and KVEC: the rest of the first
 * non-empty segment, capped by maxsize and maxpages.  BVEC: page-sized
 * pieces while each ends at a page end and the next starts at a page
 * start, capped likewise.
 */
size_t model_extract_len(const struct model *m, size_t maxsize,
				unsigned int maxpages, size_t *off0)
{
	size_t p = model_pos(m), want = min(maxsize, m->count), n = 0;
	unsigned int pages = 0;

	*off0 = 0;
	if (!want || m->type == T_DISCARD)
		return 0;
	if (m->type != T_BVEC) {
		unsigned int j = model_seg_after(m, m->k, p);
		unsigned long a = (unsigned long)model_byte_addr(m, p);

		*off0 = a % PAGE_SIZE;
		want = min(want, m->start[j + 1] - p);
		return min(want, maxpages * PAGE_SIZE - *off0);
	}
	/*
	 * The kernel sizes the page array from the offset into the bvec
	 * (iov_offset), not into its first page, so a bvec that starts late
	 * in a page gets fewer pages than it could use: a short extraction
	 * the caller repeats, not an error.  Model it as written.
	 */
	maxpages = min_t(size_t, maxpages, DIV_ROUND_UP(want + m->off,
							 PAGE_SIZE));
	while (want) {
		unsigned int j = model_seg_after(m, m->k, p);
		unsigned long a = (unsigned long)model_byte_addr(m, p);
		size_t piece = min3(want, m->start[j + 1] - p,
				    PAGE_SIZE - a % PAGE_SIZE);

		if (!pages)
			*off0 = a % PAGE_SIZE;
		else if (a % PAGE_SIZE)
			break;
		n += piece;
		p += piece;
		want -= piece;
		if (++pages >= maxpages || (a + piece) % PAGE_SIZE)
			break;
	}
	return n;
}

/* ---- checks ---------------------------------------------------------- */

static unsigned int iter_seg_index(const struct iter_state *s)
{
	const struct iov_iter *i = &s->it;

	if (iov_iter_is_bvec(i))
		return i->bvec - (const struct bio_vec *)s->segs;
	if (iov_iter_is_kvec(i))
		return i->kvec - (const struct kvec *)s->segs;
	return iter_iov(i) - (const struct iovec *)s->segs;
}

void iter_check(const struct iter_state *s, const char *what)
{
	const struct model *m = &s->m;
	const struct iov_iter *i = &s->it;

	FUZZ_CHECK(i->count == m->count, "%s: count %zu, model %zu", what,
		   i->count, m->count);
	if (m->type == T_UBUF) {
		FUZZ_CHECK(i->iov_offset == m->off && i->nr_segs == 1 &&
				   i->ubuf == m->addr[0],
			   "%s: ubuf offset %zu, model %zu", what,
			   i->iov_offset, m->off);
	} else if (model_is_vec(m)) {
		FUZZ_CHECK(iter_seg_index(s) == m->k,
			   "%s: on segment %u, model %u", what,
			   iter_seg_index(s), m->k);
		FUZZ_CHECK(i->nr_segs == m->nr - m->k,
			   "%s: nr_segs %lu, model %u", what, i->nr_segs,
			   m->nr - m->k);
		FUZZ_CHECK(i->iov_offset == m->off,
			   "%s: iov_offset %zu, model %zu", what,
			   i->iov_offset, m->off);
	}
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
	struct model *m = &s->m;
	struct iter_hdr h = *hp;
	size_t cur_off, total = 0, trim;
	unsigned int want, j;

	memset(s, 0, sizeof(*s));
	m->type = h.type % max_types;
	want = m->type == T_UBUF ? 1 : 1 + h.nr_segs % MAX_SEGS;
	cur_off = (h.base[0] | h.base[1] << 8) % PAGE_SIZE;
	s->lo = cur_off;

	for (j = 0; j < want; j++) {
		u8 gap = fuzz_u8(in);
		size_t len = fuzz_u16(in) % (MAX_SEG_LEN + 1);

		if (gap == 255)
			cur_off = ALIGN(cur_off, PAGE_SIZE);
		else
			cur_off += gap;
		if (m->type == T_BVEC && !len)
			len = 1; /* a bio_vec is never empty */
		if (cur_off + len > ARENA_SIZE)
			len = cur_off < ARENA_SIZE ? ARENA_SIZE - cur_off : 0;
		if (!len && (m->type == T_BVEC || cur_off >= ARENA_SIZE))
			break;
		m->addr[j] = arena + cur_off;
		m->len[j] = len;
		cur_off += len;
		/* how far before the data bv_page points (multi-page bvec) */
		s->bv[j].bv_offset = fuzz_u8(in) % 4;
	}
	m->nr = j ? j : 1;
	if (!j) {
		m->addr[0] = arena + s->lo;
		m->len[0] = m->type == T_BVEC ? 1 : 0;
	}
	s->hi = min(cur_off + 1, (size_t)ARENA_SIZE);
	if (h.flags & HF_REVERSE) {
		for (j = 0; j < m->nr / 2; j++) {
			swap_vals(m->addr[j], m->addr[m->nr - 1 - j]);
			swap_vals(m->len[j], m->len[m->nr - 1 - j]);
		}
	}
	for (j = 0; j < m->nr; j++) {
		m->start[j + 1] = m->start[j] + m->len[j];
		total += m->len[j];
	}
	trim = (h.flags & HF_TRIM) ? (h.trim[0] | h.trim[1] << 8) : 0;
	m->data = total - min(trim, total);
	m->count = m->data;
	if (m->type == T_UBUF) {
		/* a UBUF is exactly its count bytes */
		m->len[0] = m->data;
		m->start[1] = m->data;
	}

	for (j = 0; j < m->nr; j++) {
		unsigned long a = (unsigned long)m->addr[j];
		unsigned long back = min((unsigned long)s->bv[j].bv_offset,
					 (a - (unsigned long)arena) / PAGE_SIZE);
		struct page *pg = virt_to_page(m->addr[j]);

		s->iov[j].iov_base = m->addr[j];
		s->iov[j].iov_len = m->len[j];
		s->kv[j].iov_base = m->addr[j];
		s->kv[j].iov_len = m->len[j];
		pg = (struct page *)((char *)pg - back * PAGE_SIZE);
		bvec_set_page(&s->bv[j], pg, m->len[j],
			      a - (unsigned long)page_address(pg));
	}

	switch (m->type) {
	case T_UBUF:
		iov_iter_ubuf(&s->it, h.dir & 1, m->addr[0], m->data);
		break;
	case T_IOVEC:
		iov_iter_init(&s->it, h.dir & 1, s->iov, m->nr, m->data);
		s->segs = s->iov;
		break;
	case T_KVEC:
		iov_iter_kvec(&s->it, h.dir & 1, s->kv, m->nr, m->data);
		s->segs = s->kv;
		break;
	case T_BVEC:
		iov_iter_bvec(&s->it, h.dir & 1, s->bv, m->nr, m->data);
		s->segs = s->bv;
		break;
	default:
		iov_iter_discard(&s->it, READ, m->data);
		break;
	}
	for (size_t i = s->lo; i < s->hi; i++)
		arena[i] = (char)(i * 131 + (i >> 12));
	memcpy(shadow + s->lo, arena + s->lo, s->hi - s->lo);
}
