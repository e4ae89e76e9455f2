/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a struct iov_iter must stand, and what it must do, written from
 * the rules (docs/rules.md 3.I) in absolute byte positions, not from
 * lib/iov_iter.c.  The iov_iter unit tests (tests/sim_iov_iter.c) and the
 * fuzz targets fuzz_iov_iter and fuzz_bio_pages run an iterator and this
 * model side by side and compare.
 *
 * The data is segments 0..nr-1 of lengths len[j] at addr[j]; start[j] is
 * where segment j begins in the concatenated data (start[nr] is the
 * total; a UBUF is one segment).  The iterator stands on segment k at
 * offset off, with count bytes left to iterate (which may be less than
 * the data after it: truncation).  The rules say which (k, off) each
 * operation must leave:
 *  - advance (I-05): UBUF adds to off; a vector stands on the first
 *    segment from k whose end lies beyond the new position (consumed and
 *    zero-length segments dropped); nothing moves on an empty iterator;
 *  - revert (I-08): inside the current segment when the distance fits in
 *    off, else strictly inside the nearest earlier non-empty segment;
 *  - copy / zero (I-09, I-10): inside the segment of the last byte, or at
 *    offset 0 of the next segment when that byte ended its segment (a
 *    copy does not skip zero-length segments beyond it, unlike advance);
 *  - extraction (I-12): as advance by the bytes extracted; a user or KVEC
 *    extraction never crosses a segment, a BVEC one continues across
 *    segments only from a page end into a page start.
 * A DISCARD iterator has no position: only count moves.
 *
 * Nothing here judges: the functions say what the iterator must do and
 * the caller (a Check assertion, a fuzz oracle) compares.
 */
#ifndef _IOV_ITER_MODEL_H
#define _IOV_ITER_MODEL_H

#include <linux/types.h>
#include <linux/uio.h>

#define ITER_MODEL_MAX_SEGS 16

struct iter_model {
	enum iter_type type;
	unsigned int nr;
	size_t len[ITER_MODEL_MAX_SEGS];
	size_t start[ITER_MODEL_MAX_SEGS + 1];
	char *addr[ITER_MODEL_MAX_SEGS];
	unsigned int k;
	size_t off;
	size_t count;
};

/*
 * An iterator of @type (UBUF, IOVEC, KVEC, BVEC or DISCARD) over @nr
 * segments (1 for UBUF) at the start, with @count bytes to iterate.
 */
void iter_model_init(struct iter_model *m, enum iter_type type, unsigned int nr,
		     const size_t *len, char *const *addr, size_t count);

/* Absolute position of the next byte. */
static inline size_t iter_model_pos(const struct iter_model *m)
{
	return m->start[m->k] + m->off;
}

static inline size_t iter_model_total(const struct iter_model *m)
{
	return m->start[m->nr];
}

/* I-03 */
static inline bool iter_model_user_backed(const struct iter_model *m)
{
	return m->type == ITER_UBUF || m->type == ITER_IOVEC;
}

/* The non-empty segment holding the byte at position @p (nr if none). */
unsigned int iter_model_seg_of(const struct iter_model *m, size_t p);
/* Where the byte at position @p lives; NULL past the data. */
char *iter_model_byte_addr(const struct iter_model *m, size_t p);

void iter_model_advance(struct iter_model *m, size_t n);
/* Caller guarantees n <= iter_model_pos() (never before the start). */
void iter_model_revert(struct iter_model *m, size_t n);
/* A copy or zeroing of min(n, count) bytes; returns that amount. */
size_t iter_model_copy(struct iter_model *m, size_t n);

/*
 * Replay on @shadow, a copy of the memory that starts at @base, what
 * writing @src[0..n) (zeroes when @src is NULL) into the iterator's bytes
 * at position @p must do.
 */
void iter_model_shadow_write(const struct iter_model *m, char *shadow,
			     const char *base, size_t p, const char *src,
			     size_t n);
/*
 * How many leading bytes of @got[0..n) equal the iterator's bytes at
 * position @p: n when all do.
 */
size_t iter_model_same_bytes(const struct iter_model *m, size_t p,
			     const char *got, size_t n);

/* I-11: iov_iter_npages(). */
int iter_model_npages(const struct iter_model *m, int maxpages);
/* OR of where each non-empty piece left starts and how long it is. */
unsigned long iter_model_alignment(const struct iter_model *m);
/* iov_iter_is_aligned(), quirks included (see the definition). */
bool iter_model_is_aligned(const struct iter_model *m, unsigned long am,
			   unsigned long lm);
/* Bytes one iov_iter_extract_pages() call must return, and offset0. */
size_t iter_model_extract_len(const struct iter_model *m, size_t maxsize,
			      unsigned int maxpages, size_t *off0);

/* Index of the iterator's segment in the array @segs it was built on. */
unsigned int iter_model_seg_index(const struct iov_iter *i, const void *segs);
/*
 * Does the iterator, built on @segs (NULL for UBUF and DISCARD), stand
 * where the model says?  NULL if so, else the name of a field that
 * differs.
 */
const char *iter_model_mismatch(const struct iter_model *m,
				const struct iov_iter *i, const void *segs);

#endif /* _IOV_ITER_MODEL_H */
