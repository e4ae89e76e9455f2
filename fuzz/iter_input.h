/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An iov_iter built from fuzz input, with its model
 * (tests/model/iov_iter_model.h), shared by fuzz_iov_iter and
 * fuzz_bio_pages.
 *
 * The iterator (UBUF, IOVEC, KVEC, BVEC or DISCARD, either direction) runs
 * over segments carved from a page-aligned arena; a shadow copy of the
 * arena holds what it must contain.
 *
 * Input layout (the first 8 bytes are the target's fixed header, or the
 * start of it): type, direction, segment count, flags, count trim (u16),
 * arena offset (u16); then 4 bytes per segment: gap, length (u16), and
 * for BVEC how many pages before the data bv_page points.
 */
#ifndef _FUZZ_ITER_INPUT_H
#define _FUZZ_ITER_INPUT_H

#include <linux/bvec.h>
#include <linux/uio.h>
#include "fuzz_common.h"
#include "iov_iter_model.h"

#define ARENA_PAGES 64
#define ARENA_SIZE (ARENA_PAGES * PAGE_SIZE)
#define MAX_SEGS ITER_MODEL_MAX_SEGS
#define MAX_SEG_LEN (3 * PAGE_SIZE)

/* The header's type byte, modulo the number of types a target takes. */
enum itype { T_UBUF, T_IOVEC, T_KVEC, T_BVEC, T_DISCARD, NR_TYPES };

/* Indexed by enum iter_type. */
extern const char *const iter_type_name[ITER_DISCARD + 1];

struct iter_hdr {
	u8 type;
	u8 dir;
	u8 nr_segs;
	u8 flags;
	u8 trim[2];
	u8 base[2];
};

#define HF_REVERSE 0x1 /* segments in descending address order */
#define HF_TRIM 0x2 /* iterator count below the segments' total */

/* The memory the segments live in, and what it must hold. */
extern char arena[ARENA_SIZE];
extern char shadow[ARENA_SIZE];

struct iter_state {
	struct iter_model m;
	struct iov_iter it;
	struct iovec iov[MAX_SEGS];
	struct kvec kv[MAX_SEGS];
	struct bio_vec bv[MAX_SEGS];
	const void *segs;
	size_t data; /* bytes the iterator was built over */
	size_t lo, hi; /* arena bytes any segment can touch */
};

/*
 * Build @s from @h (the header, already taken) and the segment records
 * that follow in @in; fills the arena range with a pattern and the shadow
 * with a copy of it.  @max_types limits the types (fuzz_bio_pages has no
 * use for DISCARD).
 */
void iter_build(struct iter_state *s, const struct iter_hdr *h,
		struct fuzz_in *in, unsigned int max_types);

/* Replay on the shadow what writing @src (NULL: zeroes) at @p must do. */
static inline void iter_shadow_write(const struct iter_state *s, size_t p,
				     const char *src, size_t n)
{
	iter_model_shadow_write(&s->m, shadow, arena, p, src, n);
}

/* @got[0..n) must equal the iterator's bytes at position @p. */
void iter_check_bytes(const struct iter_state *s, size_t p, const char *got,
		      size_t n);

/* The iterator stands where the model says and the arena is the shadow. */
void iter_check(const struct iter_state *s, const char *what);

#endif /* _FUZZ_ITER_INPUT_H */
