// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_bio_pages: bio_iov_iter_get_pages() and length-alignment masks for
 * every iterator type (docs/rules.md B-13..B-19, I-11, I-12).
 *
 * The input builds one iterator (iter_input.h: UBUF, IOVEC, KVEC or BVEC,
 * either direction, any segment layout) and then fills bios from it the
 * way direct I/O does: nr_vecs from bio_iov_vecs_to_alloc() (or chosen by
 * the input), a bio from fs_bio_set, bio_iov_iter_get_pages() with a mask
 * of 2^k - 1, until the iterator is empty or a call fails.  Short pins and
 * failing pins come from the fault injector; allocation faults are aimed
 * at bio_alloc_bioset(), which with GFP_KERNEL must still not fail (B-05).
 *
 * What must hold, per bio:
 *  - BVEC (B-15): no copy: the bio takes the iterator's array, offset and
 *    whole count, is BIO_CLONED, pins nothing, ignores the mask, and the
 *    iterator is empty afterwards;
 *  - other types (B-16, B-17): the bio holds exactly the bytes the model
 *    says, in order: extraction after extraction (each capped by the
 *    vecs left), one bvec per page piece, then rounded down to the mask
 *    with the cut reverted on the iterator; -EFAULT when nothing is left;
 *    user-backed iterators pin each page once per bvec and set
 *    BIO_PAGE_PINNED, KVEC pins nothing;
 *  - the iterator stands where the model says; a "device" writing the bio
 *    (READ) changes exactly the iterator's bytes in the arena, and one
 *    reading it (WRITE) sees exactly them;
 *  - after releasing and putting: no pin, bio, allocation or warning left.
 *
 * Input: 16-byte header (8 bytes iterator header, then mask shift, vecs,
 * rounds, fault flags, pin N, pin bytes (u16), allocation N), then the
 * iterator's segment records (iter_input.h).
 */
#include <string.h>

#include <linux/bio.h>
#include <linux/bvec.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/uio.h>
#include <sim/bio.h>
#include <sim/fault.h>
#include <sim/stats.h>

#include "iter_input.h"

#define MAX_ROUNDS 8

struct bio_hdr {
	struct iter_hdr ih;
	u8 mask_shift; /* len_align_mask = 2^(shift % 13) - 1 */
	u8 nr_vecs; /* 0: bio_iov_vecs_to_alloc() as DIO does */
	u8 rounds;
	u8 faults; /* FF_* */
	u8 pin_nth;
	u8 pin_bytes[2];
	u8 alloc_nth;
};

#define FF_SHORT_PIN 0x1 /* the pin_nth-th user extraction is cut short */
#define FF_ALLOC 0x2 /* the alloc_nth-th allocation fails */

struct state {
	struct iter_state is;
	struct bio_hdr h;
	unsigned int mask;
	unsigned int round;
	/* pin fault bookkeeping, as sim/kernel/fault.c counts */
	unsigned int user_extractions;
	unsigned int pin_nth;
	size_t pin_bytes;
};

static void describe(FILE *out, void *arg)
{
	struct state *s = arg;

	fprintf(out,
		"%s iterator, %u segment(s), %zu bytes, mask %#x, "
		"bio #%u",
		iter_type_name[s->is.m.type], s->is.m.nr, s->is.data, s->mask,
		s->round);
}

/* The model of one bio_iov_iter_get_pages() on a non-BVEC iterator. */
struct bio_model {
	int ret;
	unsigned int vcnt;
	size_t size;
	unsigned int len[BIO_MAX_VECS];
};

static void model_get_pages(struct state *s, unsigned int max_vecs,
			    struct bio_model *b)
{
	struct iter_model *m = &s->is.m;
	bool user = iter_model_user_backed(m);
	size_t nb;

	memset(b, 0, sizeof(*b));
	do {
		size_t off0 = 0, n, left;
		unsigned int pages;

		n = iter_model_extract_len(m, UINT_MAX - b->size,
					   max_vecs - b->vcnt, &off0);
		if (user && n && ++s->user_extractions == s->pin_nth) {
			if (!s->pin_bytes) {
				b->ret = -EFAULT; /* nothing pinned */
				n = 0;
			} else {
				n = min(n, s->pin_bytes);
			}
		}
		if (!n) {
			if (!b->vcnt) {
				b->ret = -EFAULT;
				return;
			}
			b->ret = 0;
			break;
		}
		/* one bvec per page piece (folios are pages here) */
		pages = DIV_ROUND_UP(off0 + n, PAGE_SIZE);
		left = n;
		for (unsigned int k = 0; k < pages; k++) {
			size_t l = min(left, PAGE_SIZE - (k ? 0 : off0));

			b->len[b->vcnt++] = l;
			left -= l;
		}
		b->size += n;
		iter_model_advance(m, n);
	} while (m->count && b->vcnt < max_vecs);

	/* B-17: round down to the mask, revert the cut, drop empty bvecs */
	nb = b->size & s->mask;
	if (!nb)
		return;
	iter_model_revert(m, nb);
	b->size -= nb;
	while (nb) {
		unsigned int *l = &b->len[b->vcnt - 1];

		if (nb < *l) {
			*l -= nb;
			break;
		}
		nb -= *l;
		b->vcnt--;
	}
	if (!b->vcnt)
		b->ret = -EFAULT;
}

/* Expected pins: one per bvec on each page it touches. */
static void check_pins(struct bio *bio, bool user)
{
	for (unsigned int i = 0; i < bio->bi_vcnt; i++) {
		struct bio_vec *bv = &bio->bi_io_vec[i];
		struct page *pg =
			nth_page(bv->bv_page, bv->bv_offset / PAGE_SIZE);
		int want = 0;

		if (user)
			for (unsigned int j = 0; j < bio->bi_vcnt; j++) {
				struct bio_vec *o = &bio->bi_io_vec[j];

				want += nth_page(o->bv_page,
						 o->bv_offset / PAGE_SIZE) ==
					pg;
			}
		FUZZ_CHECK(sim_page_pincount(pg) == want,
			   "bvec %u: page pinned %d time(s), expected %d", i,
			   sim_page_pincount(pg), want);
	}
}

static char *bv_addr(const struct bio_vec *bv)
{
	return (char *)page_address(bv->bv_page) + bv->bv_offset;
}

/*
 * The "device": for a READ bio write a pattern through the bio, which
 * must land on the iterator's bytes [p, p + size) and nowhere else (the
 * caller compares the arena with the shadow); for a WRITE bio read it and
 * compare with the iterator's bytes.
 */
static void device_io(struct state *s, struct bio *bio, size_t p)
{
	struct bvec_iter it;
	struct bio_vec bv;
	size_t done = 0;
	bool dev_writes = !s->is.it.data_source;

	bio_for_each_segment(bv, bio, it)
	{
		char *a = bv_addr(&bv);

		if (dev_writes) {
			char pat[PAGE_SIZE];

			for (unsigned int i = 0; i < bv.bv_len; i++)
				pat[i] = (char)(s->round * 41 + done + i * 3);
			memcpy(a, pat, bv.bv_len);
			/* the model's idea of where those bytes belong */
			iter_shadow_write(&s->is, p + done, pat, bv.bv_len);
		} else {
			iter_check_bytes(&s->is, p + done, a, bv.bv_len);
		}
		done += bv.bv_len;
	}
	FUZZ_CHECK(done == bio->bi_iter.bi_size,
		   "walking the bio gave %zu bytes, bi_size %u", done,
		   bio->bi_iter.bi_size);
}

/* BVEC: B-15 exactly. */
static void round_bvec(struct state *s, struct bio *bio)
{
	struct iter_model *m = &s->is.m;
	const struct bio_vec *bvec = s->is.it.bvec;
	unsigned long nr_segs = s->is.it.nr_segs;
	size_t off = s->is.it.iov_offset, count = m->count;
	size_t p = iter_model_pos(m);
	int ret;

	ret = bio_iov_iter_get_pages(bio, &s->is.it, s->mask);
	FUZZ_CHECK(ret == 0, "BVEC get_pages returned %d", ret);
	FUZZ_CHECK(bio_flagged(bio, BIO_CLONED) &&
			   !bio_flagged(bio, BIO_PAGE_PINNED),
		   "BVEC bio flags %#x", bio->bi_flags);
	FUZZ_CHECK(bio->bi_io_vec == bvec && bio->bi_vcnt == nr_segs &&
			   bio->bi_iter.bi_bvec_done == off &&
			   bio->bi_iter.bi_size == count &&
			   bio->bi_iter.bi_idx == 0,
		   "BVEC bio does not reuse the iterator's array: vcnt %u "
		   "done %u size %u",
		   bio->bi_vcnt, bio->bi_iter.bi_bvec_done,
		   bio->bi_iter.bi_size);
	iter_model_advance(m, count);
	iter_check(&s->is, "bvec get_pages");
	check_pins(bio, false);
	device_io(s, bio, p);
}

static int round_pages(struct state *s, struct bio *bio)
{
	struct iter_model *m = &s->is.m;
	static struct bio_model b;
	bool user = iter_model_user_backed(m);
	size_t p = iter_model_pos(m), done = 0;
	long pinned = sim_stat_get("pages_pinned");
	int ret;

	model_get_pages(s, bio->bi_max_vecs, &b);
	ret = bio_iov_iter_get_pages(bio, &s->is.it, s->mask);
	FUZZ_CHECK(ret == b.ret, "get_pages returned %d, model %d", ret, b.ret);
	iter_check(&s->is, "get_pages");
	if (ret) {
		FUZZ_CHECK(bio->bi_vcnt == 0 && bio->bi_iter.bi_size == 0,
			   "failed get_pages left %u bvecs, %u bytes",
			   bio->bi_vcnt, bio->bi_iter.bi_size);
		FUZZ_CHECK(sim_stat_get("pages_pinned") == pinned,
			   "failed get_pages left %ld page(s) pinned",
			   sim_stat_get("pages_pinned") - pinned);
		return ret;
	}
	FUZZ_CHECK(bio_flagged(bio, BIO_PAGE_PINNED) == user &&
			   !bio_flagged(bio, BIO_CLONED),
		   "bio flags %#x for a %s iterator", bio->bi_flags,
		   iter_type_name[m->type]);
	FUZZ_CHECK(bio->bi_iter.bi_size == b.size && b.size &&
			   !(b.size & s->mask),
		   "bio holds %u bytes, model %zu (mask %#x)",
		   bio->bi_iter.bi_size, b.size, s->mask);
	FUZZ_CHECK(bio->bi_vcnt == b.vcnt && bio->bi_vcnt <= bio->bi_max_vecs,
		   "bio has %u bvecs (max %u), model %u", bio->bi_vcnt,
		   bio->bi_max_vecs, b.vcnt);
	for (unsigned int i = 0; i < bio->bi_vcnt; i++) {
		struct bio_vec *bv = &bio->bi_io_vec[i];
		char *a = bv_addr(bv);

		FUZZ_CHECK(bv->bv_len == b.len[i] && bv->bv_len &&
				   a == iter_model_byte_addr(m, p + done) &&
				   a + bv->bv_len - 1 ==
					   iter_model_byte_addr(
						   m,
						   p + done + bv->bv_len - 1),
			   "bvec %u (len %u) is not bytes %zu.. of the "
			   "iterator (model len %u)",
			   i, bv->bv_len, done, b.len[i]);
		done += bv->bv_len;
	}
	check_pins(bio, user);
	device_io(s, bio, p);
	return 0;
}

FUZZ_ENGINE_INITIALIZE()

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct state st;
	struct state *s = &st;
	struct fuzz_in in;
	unsigned int rounds;

	fuzz_input_begin(&in, data, size, describe, s, sizeof(*s));

	fuzz_take_header(&in, &s->h, sizeof(s->h));
	/* DISCARD has no pages and never reaches a bio */
	iter_build(&s->is, &s->h.ih, &in, T_BVEC + 1);
	s->mask = (1U << (s->h.mask_shift % 13)) - 1;
	rounds = 1 + s->h.rounds % MAX_ROUNDS;
	if (s->h.faults & FF_SHORT_PIN) {
		s->pin_nth = 1 + s->h.pin_nth % 4;
		s->pin_bytes = s->h.pin_bytes[0] | s->h.pin_bytes[1] << 8;
		sim_fault_short_pin_set(s->pin_nth, s->pin_bytes);
	}
	iter_check(&s->is, "init");

	for (s->round = 0; s->round < rounds; s->round++) {
		struct iter_model *m = &s->is.m;
		bool bvec = m->type == ITER_BVEC;
		int vecs = bio_iov_vecs_to_alloc(&s->is.it, BIO_MAX_VECS);
		int want = bvec ? 0 : iter_model_npages(m, BIO_MAX_VECS);
		unsigned int nr_vecs;
		struct bio *bio;
		int ret = 0;

		FUZZ_CHECK(vecs == want, "bio_iov_vecs_to_alloc = %d, model %d",
			   vecs, want);
		/*
		 * A bvec bio has no table of its own (B-15); any other needs
		 * at least one vec, or extraction has nowhere to go.
		 */
		nr_vecs = bvec ? 0 : s->h.nr_vecs ? s->h.nr_vecs : max(vecs, 1);
		if (s->h.faults & FF_ALLOC) {
			sim_fault_alloc_set(&(struct sim_fault_alloc){
				.nth = 1 + s->h.alloc_nth % 4 });
			sim_fault_arm(true);
		}
		bio = bio_alloc_bioset(NULL, nr_vecs,
				       s->is.it.data_source ? REQ_OP_WRITE :
							      REQ_OP_READ,
				       GFP_KERNEL, &fs_bio_set);
		sim_fault_arm(false);
		FUZZ_CHECK(bio, "GFP_KERNEL bio allocation failed (B-05)");
		FUZZ_CHECK(bio->bi_max_vecs >= nr_vecs &&
				   bio->bi_max_vecs <= BIO_MAX_VECS,
			   "asked for %u vecs, bio has room for %u", nr_vecs,
			   bio->bi_max_vecs);

		if (bvec)
			round_bvec(s, bio);
		else
			ret = round_pages(s, bio);
		if (!ret)
			bio_release_pages(bio, false);
		bio_put(bio);
		iter_check(&s->is, "after the device");
		if (ret || !m->count)
			break;
	}
	sim_fault_reset();
	/* cached bios are fs_bio_set's, not this input's: give them back */
	blksim_bio_drain_caches();
	fuzz_input_end(0, 0, NULL);
	return 0;
}
