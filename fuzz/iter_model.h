/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An iov_iter built from fuzz input, and a model of where it must stand
 * (SEMANTICS.md 3.I), shared by fuzz_iov_iter and fuzz_bio_pages.
 *
 * The iterator (UBUF, IOVEC, KVEC, BVEC or DISCARD, either direction) runs
 * over segments carved from a page-aligned arena.  The model is written
 * from the rules, in absolute byte positions, not from lib/iov_iter.c: the
 * iterator stands on segment k at offset off, and the rules say which
 * (k, off) each operation must leave:
 *  - advance (I-05): the first segment from k whose end lies beyond the
 *    new position (consumed and zero-length segments dropped); nothing
 *    moves on an empty iterator;
 *  - revert (I-08): inside the current segment when the distance fits in
 *    off, else strictly inside the nearest earlier non-empty segment;
 *  - copy / zero (I-09, I-10): inside the segment of the last byte, or at
 *    offset 0 of the next segment when that byte ended its segment;
 *  - extraction (I-12): as advance by the bytes extracted; a user
 *    extraction never crosses a segment, a BVEC one continues across
 *    segments only from a page end into a page start.
 *
 * Input layout (the first 8 bytes are the target's fixed header, or the
 * start of it): type, direction, segment count, flags, count trim (u16),
 * arena offset (u16); then 4 bytes per segment: gap, length (u16), and
 * for BVEC how many pages before the data bv_page points.
 */
#ifndef _FUZZ_ITER_MODEL_H
#define _FUZZ_ITER_MODEL_H

#include <linux/bvec.h>
#include <linux/uio.h>
#include "fuzz_common.h"

#define ARENA_PAGES 64
#define ARENA_SIZE (ARENA_PAGES * PAGE_SIZE)
#define MAX_SEGS 16
#define MAX_SEG_LEN (3 * PAGE_SIZE)

enum itype { T_UBUF, T_IOVEC, T_KVEC, T_BVEC, T_DISCARD, NR_TYPES };

extern const char *const iter_type_name[NR_TYPES];

struct iter_hdr {
	u8 type;
	u8 dir;
	u8 nr_segs;
	u8 flags;
	u8 trim[2];
	u8 base[2];
};

#define HF_REVERSE 0x1 /* segments in descending address order */
#define HF_TRIM 0x2    /* iterator count below the segments' total */

/* The memory the segments live in, and what it must hold. */
extern char arena[ARENA_SIZE];
extern char shadow[ARENA_SIZE];

struct model {
	enum itype type;
	unsigned int nr;
	size_t len[MAX_SEGS];
	size_t start[MAX_SEGS + 1];
	char *addr[MAX_SEGS];
	unsigned int k;
	size_t off;
	size_t count;
	size_t data;	/* bytes the iterator was built over */
};

struct iter_state {
	struct model m;
	struct iov_iter it;
	struct iovec iov[MAX_SEGS];
	struct kvec kv[MAX_SEGS];
	struct bio_vec bv[MAX_SEGS];
	const void *segs;
	size_t lo, hi;	/* arena bytes any segment can touch */
};

/*
 * Build @s from @h (the header, already taken) and the segment records
 * that follow in @in; fills the arena range with a pattern and the shadow
 * with a copy of it.  @max_types limits the types (fuzz_bio_pages has no
 * use for DISCARD).
 */
void iter_build(struct iter_state *s, const struct iter_hdr *h,
		struct fuzz_in *in, unsigned int max_types);

static inline bool model_is_vec(const struct model *m)
{
	return m->type == T_IOVEC || m->type == T_KVEC || m->type == T_BVEC;
}

static inline bool model_user_backed(const struct model *m)
{
	return m->type == T_UBUF || m->type == T_IOVEC;
}

static inline size_t model_pos(const struct model *m)
{
	return m->start[m->k] + m->off;
}

/* First segment from @from on whose end lies beyond position @p. */
unsigned int model_seg_after(const struct model *m, unsigned int from,
			     size_t p);
/* Where the byte at absolute position @p (< data) lives. */
char *model_byte_addr(const struct model *m, size_t p);

void model_advance(struct model *m, size_t n);
/* Caller guarantees n <= model_pos() (never before the start). */
void model_revert(struct model *m, size_t n);
/* A copy or zeroing of min(n, count) bytes; returns that amount. */
size_t model_copy(struct model *m, size_t n);

/*
 * Call @fn for each contiguous piece of the @n bytes at absolute position
 * @p: its address, length and distance from @p.
 */
void model_for_each_piece(const struct model *m, size_t p, size_t n,
			  void (*fn)(char *a, size_t len, size_t done,
				     void *arg),
			  void *arg);
/* Replay on the shadow what writing @src (NULL: zeroes) at @p must do. */
void model_shadow_write(const struct model *m, size_t p, const char *src,
			size_t n);
/* @got[0..n) must equal the iterator's bytes at @p. */
void model_check_bytes(const struct model *m, size_t p, const char *got,
		       size_t n);

int model_npages(const struct model *m, int maxpages);
unsigned long model_alignment(const struct model *m);
bool model_is_aligned(const struct model *m, unsigned long am,
		      unsigned long lm);
/* Bytes one iov_iter_extract_pages() call must return, and offset0. */
size_t model_extract_len(const struct model *m, size_t maxsize,
			 unsigned int maxpages, size_t *off0);

/* The iterator stands where the model says and the arena is the shadow. */
void iter_check(const struct iter_state *s, const char *what);

#endif /* _FUZZ_ITER_MODEL_H */
