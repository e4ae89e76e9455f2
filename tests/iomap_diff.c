// SPDX-License-Identifier: GPL-2.0-only
/*
 * Differential properties.
 *
 * 1. Thousands of generated requests that pass iomap_dio_simple_supported()
 *    give the same result through the simple path as through the generic
 *    path (simple=0): return value, data, ki_pos and iterator state.
 *    That is the claim the simple-path series makes: an optimisation, not
 *    a behaviour change.
 * 2. Multi-bio generic requests give the same result whatever order and
 *    context the deterministic engine completes their bios in: inline at
 *    submission, later from interrupt, newest first, or at random.
 */
#include <stdlib.h>
#include <sim/rand.h>
#include <sim/iomap_features.h>
#include "iomap_common.h"

#define DIFF_PER_LOOP 250
#define DIFF_LOOPS 8

static const unsigned int blocks[] = { 512, 1024, 2048, 4096, 8192, 65536 };

/* A request the simple path accepts (it may still fall back inside). */
static void gen_eligible(struct sim_rand *rng, struct testfs_request *r)
{
	unsigned int fsb = blocks[sim_rand_below(rng, ARRAY_SIZE(blocks))];
	unsigned int lbs = 512 << sim_rand_below(rng, 4);
	/* files up to 256 KiB keep each run cheap */
	unsigned int maxb = max(4U, (256U << 10) / fsb);
	unsigned int nblocks = 2 + sim_rand_below(rng, min(24U, maxb - 1));
	u64 roll;

	testfs_request_init(r);
	if (lbs > fsb)
		lbs = fsb;
	if (lbs > 4096)
		lbs = 4096;
	r->fs_block = fsb;
	r->lbs = lbs;
	r->size = (loff_t)nblocks * fsb -
		  (sim_rand_below(rng, 2) ? sim_rand_below(rng, fsb) : 0);

	/* the map: all mapped, or extents of a few types */
	if (sim_rand_below(rng, 3)) {
		loff_t off = 0;

		while (off < (loff_t)nblocks * fsb) {
			static const u16 t[] = { IOMAP_MAPPED, IOMAP_MAPPED,
						 IOMAP_MAPPED, IOMAP_HOLE,
						 IOMAP_UNWRITTEN };
			u64 len = (1 + sim_rand_below(rng, 4)) * (u64)fsb;

			if (off + (loff_t)len > (loff_t)nblocks * fsb)
				len = nblocks * (u64)fsb - off;
			req_map(r, t[sim_rand_below(rng, ARRAY_SIZE(t))], off,
				len,
				sim_rand_below(rng, 12) == 0 ?
					IOMAP_F_INTEGRITY :
					0);
			off += len;
		}
	}

	/* a read of at most one block, inside EOF */
	roll = sim_rand_below(rng, 10);
	r->len = roll < 6 ? lbs * (1 + sim_rand_below(rng, fsb / lbs)) :
		 roll < 9 ? fsb :
			    1 + sim_rand_below(rng, fsb);
	if ((loff_t)r->len > r->size)
		r->len = r->size;
	if (!r->len)
		r->len = 1;
	r->pos = sim_rand_below(rng, r->size - r->len + 1);
	if (sim_rand_below(rng, 5)) /* mostly aligned */
		r->pos -= r->pos % lbs;

	r->iter = sim_rand_below(rng, 4);
	r->iovec_segs = 1 + sim_rand_below(rng, 3);
	if (r->iovec_segs > r->len)
		r->iovec_segs = 1;
	r->buf_offset = sim_rand_below(rng, 4) ? 0 :
						 sim_rand_below(rng, PAGE_SIZE);
	r->async = sim_rand_below(rng, 2);
	if (sim_rand_below(rng, 4) == 0)
		r->ki_flags |= IOCB_NOWAIT;
	if (sim_rand_below(rng, 4) == 0)
		r->ki_flags |= IOCB_HIPRI;
	/* S-08: a flag the generation's simple path accepts (S-05 differs) */
	if (sim_rand_below(rng, 6) == 0 &&
	    !(IOMAPSIM_SIMPLE_REFUSES_FLAGS & IOMAP_DIO_FSBLOCK_ALIGNED))
		r->dio_flags |= IOMAP_DIO_FSBLOCK_ALIGNED;
	r->complete = sim_rand_below(rng, 4);
	if (sim_rand_below(rng, 8) == 0)
		r->bio_faults[r->nr_bio_faults++] = "bio-error:1:IOERR";
	if (sim_rand_below(rng, 10) == 0) {
		static const char *const st[] = { "bio-error:1:MEDIUM",
						  "bio-error:1:AGAIN",
						  "bio-error:1:NOSPC" };

		r->nr_bio_faults = 0;
		r->bio_faults[r->nr_bio_faults++] =
			st[sim_rand_below(rng, ARRAY_SIZE(st))];
	}
}

/*
 * Now and then, IOVEC as two explicit segments, the second apart in memory
 * at a sector multiple into its page or not (B-29, B-30): where only the
 * second is off the device's DMA alignment, a path may have taken the
 * first into its bio before the request is refused.  Its own generator,
 * so the requests above stay the ones they were.
 */
static void gen_apart(struct sim_rand *rng, struct testfs_request *r)
{
	static const s32 offs[] = { 0, 512, 8, 100 };
	size_t first;

	if (sim_rand_below(rng, 4) || r->iter != IOMAPSIM_ITER_IOVEC ||
	    r->len < 2 * r->lbs)
		return;
	first = r->lbs * (1 + sim_rand_below(rng, r->len / r->lbs - 1));
	r->nr_iov = 2;
	r->iov[0].len = first;
	r->iov[0].page_off = -1;
	r->iov[1].len = r->len - first;
	r->iov[1].page_off = offs[sim_rand_below(rng, ARRAY_SIZE(offs))];
}

/*
 * covers S-09, S-31, G-55, G-42: simple and generic agree on eligible
 * requests.
 */
START_TEST(test_simple_equals_generic)
{
	struct sim_rand rng, rng_apart;
	u8 *a = malloc(65536), *b = malloc(65536);
	int n, simple_served = 0;

	sim_rand_seed(&rng, 1000 + _i);
	sim_rand_seed(&rng_apart, 2000 + _i);
	for (n = 0; n < DIFF_PER_LOOP; n++) {
		struct testfs_request r;
		struct testfs_outcome os, og;

		gen_eligible(&rng, &r);
		gen_apart(&rng_apart, &r);
		r.data_out = a;
		run_ok(&r, &os);
		ck_assert_msg(os.fallback == IOMAP_SIMPLE_OK ||
				      os.fallback >= IOMAP_SIMPLE_NOT_MAPPED,
			      "request %d was not eligible (%s)", n,
			      iomap_simple_reason_name(os.fallback));
		simple_served += os.simple;

		r.no_simple = true;
		r.data_out = b;
		run_ok(&r, &og);
		ck_assert(!og.simple);

		ck_assert_msg(
			os.ret == og.ret,
			"req %d (loop %d): ret simple %ld generic %ld (pos %lld len %zu fsb %u lbs %u)",
			n, _i, os.ret, og.ret, (long long)r.pos, r.len,
			r.fs_block, r.lbs);
		ck_assert_int_eq(os.ki_pos, og.ki_pos);
		ck_assert_uint_eq(os.iter_count, og.iter_count);
		if (os.ret > 0) {
			ck_assert_int_eq(os.data, og.data);
			ck_assert_int_ne(os.data, IOMAPSIM_DATA_MISMATCH);
			ck_assert_msg(!memcmp(a, b, r.len),
				      "req %d: buffers differ", n);
		}
	}
	/* most of them really took the simple path */
	ck_assert_int_gt(simple_served, DIFF_PER_LOOP / 3);
	free(a);
	free(b);
}
END_TEST

/* Multi-bio generic requests for the ordering property. */
static void gen_multi(struct sim_rand *rng, struct testfs_request *r, int kind)
{
	req_init(r);
	r->no_simple = true;
	req_map(r, IOMAP_MAPPED, 0, 16384, 0);
	req_map(r, IOMAP_MAPPED, 16384, 8192, 0);
	req_map(r, IOMAP_HOLE, 24576, 8192, 0);
	req_map(r, IOMAP_UNWRITTEN, 32768, 16384, 0);
	req_map(r, IOMAP_MAPPED, 49152, (256 << 10) - 49152, 0);
	r->pos = 512 * sim_rand_below(rng, 16);
	r->len = 512 * (64 + sim_rand_below(rng, 64));
	r->write = kind & 1;
	r->async = kind & 2;
	r->dops = (kind & 4) ? TESTFS_DOPS_END_IO : TESTFS_DOPS_NONE;
	r->iter = sim_rand_below(rng, 4);
	r->iovec_segs = 1 + sim_rand_below(rng, 8);
	/* pieces of whole sectors: the device refuses others (B-30) */
	r->len -= r->len % (512 * r->iovec_segs);
	if (kind & 8)
		r->bio_faults[r->nr_bio_faults++] = "bio-error:2:IOERR";
}

static const enum testfs_complete orders[] = {
	IOMAPSIM_COMPLETE_IRQ,	    IOMAPSIM_COMPLETE_INLINE,
	IOMAPSIM_COMPLETE_DEFERRED, IOMAPSIM_COMPLETE_RANDOM,
	IOMAPSIM_COMPLETE_RANDOM,   IOMAPSIM_COMPLETE_RANDOM,
};

/* covers G-47..G-51, B-24: completion order does not change the result */
START_TEST(test_completion_orders)
{
	struct sim_rand rng;
	u8 *ref = malloc(65536), *got = malloc(65536);
	int n;

	sim_rand_seed(&rng, 500 + _i);
	for (n = 0; n < 8; n++) {
		struct testfs_request r;
		struct testfs_outcome o0, o;
		unsigned int k;

		gen_multi(&rng, &r, _i);
		r.complete = orders[0];
		r.data_out = ref;
		run_ok(&r, &o0);
		ck_assert_uint_ge(o0.bios, 2);
		for (k = 1; k < ARRAY_SIZE(orders); k++) {
			r.complete = orders[k];
			r.data_out = got;
			run_ok(&r, &o);
			ck_assert_msg(o.ret == o0.ret,
				      "order %u: ret %ld vs %ld", k, o.ret,
				      o0.ret);
			ck_assert_int_eq(o.ki_pos, o0.ki_pos);
			ck_assert_int_eq(o.data, o0.data);
			ck_assert_int_eq(o.i_size, o0.i_size);
			ck_assert_int_eq(o.fserror_reports, o0.fserror_reports);
			/*
			 * G-31: once a completion has recorded an error, no
			 * more bios are built, so how much of the iterator a
			 * failed request consumed (and how many bios it sent)
			 * depends on when the error was seen.  Only
			 * successful requests must agree on those.
			 */
			if (o0.ret >= 0) {
				ck_assert_uint_eq(o.iter_count, o0.iter_count);
				ck_assert_uint_eq(o.bios, o0.bios);
			}
			if (!r.write && o.ret > 0)
				ck_assert(!memcmp(ref, got, r.len));
		}
		if (!(_i & 8))
			ck_assert_int_ne(o0.data, IOMAPSIM_DATA_MISMATCH);
	}
	free(ref);
	free(got);
}
END_TEST

/*
 * covers G-48: an async multi-bio request completing during submission
 * drops its last reference in the submitter and returns directly; from
 * interrupt it is queued and ki_complete delivers the same value.
 */
START_TEST(test_inline_vs_irq_async)
{
	struct testfs_request r;
	struct testfs_outcome oi, oq;
	struct sim_rand rng;

	sim_rand_seed(&rng, 9);
	gen_multi(&rng, &r, 2);
	r.complete = IOMAPSIM_COMPLETE_INLINE;
	run_ok(&r, &oi);
	r.complete = IOMAPSIM_COMPLETE_IRQ;
	run_ok(&r, &oq);
	ck_assert(!oi.queued);
	ck_assert_int_eq(oi.completion, IOMAP_DIO_COMP_SUBMITTER);
	ck_assert_int_eq(oi.ki_complete_calls, 0);
	ck_assert(oq.queued);
	ck_assert_int_eq(oq.ki_complete_calls, 1);
	ck_assert_int_eq(oi.ret, oq.ret);
	ck_assert_int_eq(oi.ki_pos, oq.ki_pos);
}
END_TEST

static Suite *diff_suite(void)
{
	Suite *s = suite_create("iomap_diff");
	TCase *tc = sim_tcase("simple_vs_generic");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_simple_equals_generic, 0, DIFF_LOOPS);
	suite_add_tcase(s, tc);

	tc = sim_tcase("orders");
	tcase_add_loop_test(tc, test_completion_orders, 0, 16);
	tcase_add_test(tc, test_inline_vs_irq_async);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(diff_suite)
