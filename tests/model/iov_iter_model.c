// SPDX-License-Identifier: GPL-2.0-only
/*
 * The iov_iter model of the unit tests and the fuzz targets (see
 * iov_iter_model.h).
 */
#include <string.h>

#include <linux/bvec.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/uio.h>

#include "iov_iter_model.h"

void iter_model_init(struct iter_model *m, enum iter_type type, unsigned int nr,
		     const size_t *len, char *const *addr, size_t count)
{
	unsigned int j;

	memset(m, 0, sizeof(*m));
	m->type = type;
	m->nr = nr;
	for (j = 0; j < nr; j++) {
		m->len[j] = len[j];
		m->addr[j] = addr[j];
		m->start[j + 1] = m->start[j] + len[j];
	}
	m->count = count;
}

/* First segment from @from on whose end lies beyond position @p. */
static unsigned int seg_after(const struct iter_model *m, unsigned int from,
			      size_t p)
{
	unsigned int j;

	for (j = from; j < m->nr; j++)
		if (p < m->start[j + 1])
			break;
	return j;
}

unsigned int iter_model_seg_of(const struct iter_model *m, size_t p)
{
	return seg_after(m, 0, p);
}

char *iter_model_byte_addr(const struct iter_model *m, size_t p)
{
	unsigned int j = seg_after(m, 0, p);

	if (j >= m->nr)
		return NULL;
	return m->addr[j] + (p - m->start[j]);
}

void iter_model_advance(struct iter_model *m, size_t n)
{
	size_t p;

	n = min(n, m->count);
	if (m->type == ITER_DISCARD || m->type == ITER_UBUF) {
		m->off += m->type == ITER_UBUF ? n : 0;
		m->count -= n;
		return;
	}
	if (!m->count)
		return;
	m->count -= n;
	p = iter_model_pos(m) + n;
	m->k = seg_after(m, m->k, p);
	m->off = p - m->start[m->k];
}

void iter_model_revert(struct iter_model *m, size_t n)
{
	size_t p;
	unsigned int j;

	if (!n)
		return;
	m->count += n;
	if (m->type == ITER_DISCARD)
		return;
	if (n <= m->off) {
		m->off -= n;
		return;
	}
	p = iter_model_pos(m) - n;
	for (j = m->k; j-- > 0;)
		if (m->start[j] <= p && p < m->start[j + 1])
			break;
	m->k = j;
	m->off = p - m->start[j];
}

size_t iter_model_copy(struct iter_model *m, size_t n)
{
	size_t last;
	unsigned int j;

	n = min(n, m->count);
	if (!n)
		return 0;
	if (m->type == ITER_DISCARD || m->type == ITER_UBUF) {
		m->off += m->type == ITER_UBUF ? n : 0;
		m->count -= n;
		return n;
	}
	last = iter_model_pos(m) + n - 1;
	m->count -= n;
	j = seg_after(m, m->k, last);
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
 * The contiguous piece of at most @n bytes at position @p: its address
 * (NULL past the data) and, in *@len, its length.
 */
static char *piece_at(const struct iter_model *m, size_t p, size_t n,
		      size_t *len)
{
	unsigned int j = seg_after(m, 0, p);
	size_t in;

	if (j >= m->nr)
		return NULL;
	in = p - m->start[j];
	*len = min(m->len[j] - in, n);
	return m->addr[j] + in;
}

void iter_model_shadow_write(const struct iter_model *m, char *shadow,
			     const char *base, size_t p, const char *src,
			     size_t n)
{
	size_t done = 0, len;
	char *a;

	while (done < n && (a = piece_at(m, p + done, n - done, &len))) {
		if (src)
			memcpy(shadow + (a - base), src + done, len);
		else
			memset(shadow + (a - base), 0, len);
		done += len;
	}
}

size_t iter_model_same_bytes(const struct iter_model *m, size_t p,
			     const char *got, size_t n)
{
	size_t done = 0, len;
	char *a;

	while (done < n && (a = piece_at(m, p + done, n - done, &len))) {
		if (memcmp(got + done, a, len)) {
			while (got[done] == *a++)
				done++;
			return done;
		}
		done += len;
	}
	return done;
}

/* I-11: pages spanned by the non-empty pieces of the remaining data. */
int iter_model_npages(const struct iter_model *m, int maxpages)
{
	size_t p = iter_model_pos(m), left = m->count;
	long npages = 0;

	if (m->type == ITER_DISCARD || !left)
		return 0;
	for (unsigned int j = m->k; j < m->nr && left; j++) {
		size_t from = max(p, m->start[j]);
		size_t n = min(m->start[j + 1] - from, left);
		unsigned long a;

		if (!n)
			continue;
		a = (unsigned long)iter_model_byte_addr(m, from);
		npages += ((a + n - 1) >> PAGE_SHIFT) - (a >> PAGE_SHIFT) + 1;
		left -= n;
	}
	return (int)min(npages, (long)maxpages);
}

unsigned long iter_model_alignment(const struct iter_model *m)
{
	size_t p = iter_model_pos(m), left = m->count;
	unsigned long res = 0;

	for (unsigned int j = m->k; j < m->nr && left; j++) {
		size_t from = max(p, m->start[j]);
		size_t n = min(m->start[j + 1] - from, left);

		if (!n)
			continue;
		res |= (unsigned long)iter_model_byte_addr(m, from) | n;
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
bool iter_model_is_aligned(const struct iter_model *m, unsigned long am,
			   unsigned long lm)
{
	size_t size = m->count, skip = m->off;

	if (m->type == ITER_DISCARD)
		return true;
	if (m->type == ITER_UBUF)
		return !(size & lm) &&
		       !((unsigned long)(m->addr[0] + m->off) & am);
	for (unsigned int j = m->k; j < m->nr; j++) {
		size_t len = m->type == ITER_BVEC ? m->len[j] :
						    m->len[j] - skip;

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
 * I-12.  UBUF, IOVEC and KVEC: what is left of the first non-empty
 * segment, capped by count, maxsize and the maxpages pages counted from
 * its offset into its first page.  BVEC: page-sized pieces while each
 * ends at a page end and the next starts at a page start, capped
 * likewise.  DISCARD has no pages.
 */
size_t iter_model_extract_len(const struct iter_model *m, size_t maxsize,
			      unsigned int maxpages, size_t *off0)
{
	size_t p = iter_model_pos(m), want = min(maxsize, m->count), n = 0;
	unsigned int pages = 0;

	*off0 = 0;
	if (!want || m->type == ITER_DISCARD)
		return 0;
	if (m->type != ITER_BVEC) {
		unsigned int j = seg_after(m, m->k, p);

		*off0 = offset_in_page(iter_model_byte_addr(m, p));
		want = min(want, m->start[j + 1] - p);
		return min(want, maxpages * PAGE_SIZE - *off0);
	}
	/*
	 * The kernel sizes the page array from the offset into the bvec
	 * (iov_offset), not into its first page, so a bvec that starts late
	 * in a page gets fewer pages than it could use: a short extraction
	 * the caller repeats, not an error.  Model it as written.
	 */
	maxpages =
		min_t(size_t, maxpages, DIV_ROUND_UP(want + m->off, PAGE_SIZE));
	while (want) {
		unsigned int j = seg_after(m, m->k, p);
		unsigned long a = (unsigned long)iter_model_byte_addr(m, p);
		size_t piece = min(min(want, m->start[j + 1] - p),
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

unsigned int iter_model_seg_index(const struct iov_iter *i, const void *segs)
{
	if (iov_iter_is_bvec(i))
		return i->bvec - (const struct bio_vec *)segs;
	if (iov_iter_is_kvec(i))
		return i->kvec - (const struct kvec *)segs;
	return iter_iov(i) - (const struct iovec *)segs;
}

const char *iter_model_mismatch(const struct iter_model *m,
				const struct iov_iter *i, const void *segs)
{
	if (i->count != m->count)
		return "count";
	switch (m->type) {
	case ITER_UBUF:
		if (i->ubuf != m->addr[0])
			return "ubuf";
		if (i->nr_segs != 1)
			return "nr_segs";
		break;
	case ITER_IOVEC:
	case ITER_KVEC:
	case ITER_BVEC:
		if (iter_model_seg_index(i, segs) != m->k)
			return "segment";
		if (i->nr_segs != m->nr - m->k)
			return "nr_segs";
		break;
	default:
		return NULL; /* DISCARD: count is all there is */
	}
	if (i->iov_offset != m->off)
		return "iov_offset";
	return NULL;
}
