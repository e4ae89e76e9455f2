// SPDX-License-Identifier: GPL-2.0-only
/*
 * bio_set and bio allocation: front_pad and container_of, the fresh-bio
 * state, bvec storage, the mempool reserve under allocation failure,
 * reference counting and the leak/double-free reports.
 */
#include <string.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/cache.h>
#include <linux/slab.h>
#include <sim/alloc.h>
#include <sim/bio.h>
#include <sim/fault.h>
#include <sim/report.h>
#include <sim/stats.h>
#include "block_testdev.h"
#include "harness.h"

/* A caller's per-I/O state with the bio last, as iomap_dio_simple is. */
struct wrapper {
	u64 cookie;
	int flags;
	void *owner;
	struct bio bio ____cacheline_aligned;
};

/* covers B-12, S-34 */
START_TEST(test_front_pad_container_of)
{
	struct bio_set bs;
	struct wrapper *w;
	struct bio *bio;
	size_t pad = offsetof(struct wrapper, bio);

	ck_assert_int_eq(pad % SMP_CACHE_BYTES, 0);
	ck_assert_int_eq(bioset_init(&bs, 4, pad,
				     BIOSET_NEED_BVECS | BIOSET_PERCPU_CACHE),
			 0);
	bio = bio_alloc_bioset(NULL, 1, REQ_OP_READ, GFP_KERNEL, &bs);
	ck_assert_ptr_nonnull(bio);
	w = container_of(bio, struct wrapper, bio);
	ck_assert_ptr_eq(&w->bio, bio);
	/* the wrapper's fields are ours and do not overlap the bio */
	w->cookie = 0x1122334455667788ULL;
	w->flags = 7;
	w->owner = w;
	ck_assert_int_eq(bio->bi_opf & REQ_OP_MASK, REQ_OP_READ);
	ck_assert_ptr_eq(bio->bi_pool, &bs);
	ck_assert_uint_eq(w->cookie, 0x1122334455667788ULL);
	ck_assert_ptr_eq(w->owner, w);
	ck_assert_uint_eq((unsigned long)bio % SMP_CACHE_BYTES, 0);
	bio_put(bio);
	bioset_exit(&bs);
}
END_TEST

/* covers B-12: bios start on a cache line for every cache-line front_pad */
START_TEST(test_front_pad_alignment)
{
	static const unsigned int pads[] = { 0, 64, 128, 192, 448, 4096 };

	for (unsigned int i = 0; i < ARRAY_SIZE(pads); i++) {
		struct bio_set bs;
		struct bio *bio[3];

		ck_assert_int_eq(
			bioset_init(&bs, 2, pads[i], BIOSET_NEED_BVECS), 0);
		for (int j = 0; j < 3; j++) {
			bio[j] = bio_alloc_bioset(NULL, j, REQ_OP_WRITE,
						  GFP_KERNEL, &bs);
			ck_assert_ptr_nonnull(bio[j]);
			ck_assert_msg((unsigned long)bio[j] % SMP_CACHE_BYTES ==
					      0,
				      "front_pad %u: bio at %p", pads[i],
				      (void *)bio[j]);
			/* the front pad is ours to write */
			memset((char *)bio[j] - pads[i], 0xa5, pads[i]);
		}
		for (int j = 0; j < 3; j++)
			bio_put(bio[j]);
		bioset_exit(&bs);
	}
}
END_TEST

/*
 * covers B-01: bioset_init() records front_pad, reserves the inline bvecs
 * behind the bio only with NEED_BVECS, makes the bvec pool only then and
 * the per-CPU cache only with PERCPU_CACHE; every allocation failing in
 * turn gives -ENOMEM with nothing left behind (the teardown counts).
 */
START_TEST(test_bioset_init_parts)
{
	struct bio_set bs;
	unsigned int nth;

	ck_assert_int_eq(bioset_init(&bs, 2, 64, BIOSET_NEED_BVECS), 0);
	ck_assert_uint_eq(bs.front_pad, 64);
	ck_assert_uint_eq(bs.back_pad,
			  BIO_INLINE_VECS * sizeof(struct bio_vec));
	ck_assert(mempool_initialized(&bs.bio_pool));
	ck_assert(mempool_initialized(&bs.bvec_pool));
	ck_assert_ptr_null(bs.cache);
	bioset_exit(&bs);

	ck_assert_int_eq(bioset_init(&bs, 2, 0, BIOSET_PERCPU_CACHE), 0);
	ck_assert_uint_eq(bs.back_pad, 0);
	ck_assert(!mempool_initialized(&bs.bvec_pool));
	ck_assert_ptr_nonnull(bs.cache);
	bioset_exit(&bs);

	for (nth = 1; nth < 64; nth++) {
		struct sim_fault_alloc f = { .nth = nth };
		int ret;

		sim_fault_alloc_set(&f);
		sim_fault_arm(true);
		ret = bioset_init(&bs, 2, 64,
				  BIOSET_NEED_BVECS | BIOSET_PERCPU_CACHE);
		sim_fault_arm(false);
		if (!sim_fault_alloc_injected()) {
			ck_assert_int_eq(ret, 0);
			bioset_exit(&bs);
			break;
		}
		ck_assert_int_eq(ret, -ENOMEM);
	}
	ck_assert_uint_gt(nth, 1);
	sim_fault_alloc_set(&(struct sim_fault_alloc){ 0 });
}
END_TEST

/*
 * covers B-10: a bio from a set with front_pad is freed from (bio -
 * front_pad): the wrapper in front is the caller's to use, and the whole
 * object goes back (no allocation left live, no bad free reported).
 */
START_TEST(test_free_with_front_pad)
{
	struct bio_set bs;
	struct bio *bio;
	long live;

	ck_assert_int_eq(bioset_init(&bs, 1, 128, BIOSET_NEED_BVECS), 0);
	live = sim_alloc_live();
	bio = bio_alloc_bioset(NULL, 1, REQ_OP_READ, GFP_KERNEL, &bs);
	ck_assert_ptr_nonnull(bio);
	memset((char *)bio - 128, 0x5a, 128);
	bio_put(bio);
	/* the mempool keeps its reserve: nothing new stays allocated */
	ck_assert_int_le(sim_alloc_live(), live);
	bio = bio_alloc_bioset(NULL, 1, REQ_OP_READ, GFP_KERNEL, &bs);
	ck_assert_ptr_nonnull(bio);
	bio_put(bio);
	bioset_exit(&bs);
}
END_TEST

/*
 * covers B-06 on its edge: up to BIO_INLINE_VECS vectors live inline in
 * the bio (no table allocated); one more takes a table.
 */
START_TEST(test_inline_vecs_edge)
{
	struct bio_set bs;
	struct bio *bio;
	long tables = sim_stat_get("bio_bvec_table");

	ck_assert_int_eq(bioset_init(&bs, 2, 0, BIOSET_NEED_BVECS), 0);
	bio = bio_alloc_bioset(NULL, BIO_INLINE_VECS, REQ_OP_READ, GFP_KERNEL,
			       &bs);
	ck_assert_ptr_eq(bio->bi_io_vec, bio->bi_inline_vecs);
	ck_assert_int_eq(sim_stat_get("bio_bvec_table"), tables);
	bio_put(bio);
	bio = bio_alloc_bioset(NULL, BIO_INLINE_VECS + 1, REQ_OP_READ,
			       GFP_KERNEL, &bs);
	ck_assert_ptr_ne(bio->bi_io_vec, bio->bi_inline_vecs);
	ck_assert_int_eq(sim_stat_get("bio_bvec_table"), tables + 1);
	bio_put(bio);
	bioset_exit(&bs);
}
END_TEST

/* covers B-07 */
START_TEST(test_fresh_bio_state)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct bio_set bs;
	struct bio *bio;

	ck_assert_int_eq(bioset_init(&bs, 2, 0, BIOSET_NEED_BVECS), 0);
	bio = bio_alloc_bioset(&td->bdev, 2, REQ_OP_WRITE | REQ_SYNC,
			       GFP_KERNEL, &bs);
	ck_assert_ptr_eq(bio->bi_bdev, &td->bdev);
	ck_assert_uint_eq(bio->bi_opf, REQ_OP_WRITE | REQ_SYNC);
	ck_assert_uint_eq(bio->bi_flags, 0);
	ck_assert_uint_eq(bio->bi_ioprio, 0);
	ck_assert_uint_eq(bio->bi_status, BLK_STS_OK);
	ck_assert_uint_eq(bio->bi_iter.bi_sector, 0);
	ck_assert_uint_eq(bio->bi_iter.bi_size, 0);
	ck_assert_uint_eq(bio->bi_iter.bi_idx, 0);
	ck_assert_uint_eq(bio->bi_iter.bi_bvec_done, 0);
	ck_assert_ptr_null(bio->bi_end_io);
	ck_assert_ptr_null(bio->bi_private);
	ck_assert_uint_eq(bio->bi_vcnt, 0);
	ck_assert_int_eq(atomic_read(&bio->__bi_remaining), 1);
	ck_assert_int_eq(atomic_read(&bio->__bi_cnt), 1);
	ck_assert_uint_eq(bio->bi_cookie, BLK_QC_T_NONE);
	ck_assert_ptr_eq(bio->bi_pool, &bs);
	ck_assert_int_eq(blksim_bioset_live(&bs), 1);
	bio_put(bio);
	ck_assert_int_eq(blksim_bioset_live(&bs), 0);
	bioset_exit(&bs);
	td_destroy(td);
}
END_TEST

/* covers B-06: inline vecs, slab tables rounded up, none for 0 */
START_TEST(test_bvec_storage)
{
	static const struct {
		unsigned short nr, max;
	} cases[] = {
		{ 0, 0 },   { 1, 4 },	{ 4, 4 },    { 5, 16 },	   { 16, 16 },
		{ 17, 64 }, { 64, 64 }, { 65, 128 }, { 129, 256 }, { 256, 256 },
	};
	struct bio_set bs;

	ck_assert_int_eq(bioset_init(&bs, 2, 0, BIOSET_NEED_BVECS), 0);
	for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bio *bio = bio_alloc_bioset(
			NULL, cases[i].nr, REQ_OP_READ, GFP_KERNEL, &bs);

		ck_assert_ptr_nonnull(bio);
		ck_assert_msg(bio->bi_max_vecs == cases[i].max,
			      "nr_vecs %u: bi_max_vecs %u, want %u",
			      cases[i].nr, bio->bi_max_vecs, cases[i].max);
		if (!cases[i].nr)
			ck_assert_ptr_null(bio->bi_io_vec);
		else if (cases[i].nr <= BIO_INLINE_VECS)
			ck_assert_ptr_eq(bio->bi_io_vec, bio->bi_inline_vecs);
		else
			ck_assert_ptr_ne(bio->bi_io_vec, bio->bi_inline_vecs);
		bio_put(bio);
	}
	bioset_exit(&bs);
}
END_TEST

/* covers B-06: the slab table failing falls back to a BIO_MAX_VECS one */
START_TEST(test_bvec_mempool_fallback)
{
	struct sim_fault_alloc f = { .site = "bvec_alloc", .seed = 1 };
	struct bio_set bs;
	struct bio *bio;

	ck_assert_int_eq(bioset_init(&bs, 2, 0, BIOSET_NEED_BVECS), 0);
	sim_fault_alloc_set(&f);
	sim_fault_arm(true);
	bio = bio_alloc_bioset(NULL, 5, REQ_OP_READ, GFP_KERNEL, &bs);
	sim_fault_arm(false);
	ck_assert_ptr_nonnull(bio);
	ck_assert_uint_eq(bio->bi_max_vecs, BIO_MAX_VECS);
	ck_assert_uint_ge(sim_fault_alloc_injected(), 1);
	bio_put(bio);

	/* without a sleeping mask there is no fallback */
	sim_fault_alloc_set(&f);
	sim_fault_arm(true);
	bio = bio_alloc_bioset(NULL, 5, REQ_OP_READ, GFP_NOWAIT, &bs);
	sim_fault_arm(false);
	ck_assert_ptr_null(bio);
	bioset_exit(&bs);
}
END_TEST

/* covers B-05: the reserve keeps GFP_KERNEL going; GFP_NOWAIT may fail */
START_TEST(test_reserve_under_alloc_failure)
{
	struct sim_fault_alloc f = { .prob_ppm = 1000000, .seed = 1 };
	struct bio_set bs;
	struct bio *a, *b, *c;
	long reserve = td_stat("mempool_reserve_used");

	ck_assert_int_eq(bioset_init(&bs, 2, 0, BIOSET_NEED_BVECS), 0);
	sim_fault_alloc_set(&f);
	sim_fault_arm(true);
	a = bio_alloc_bioset(NULL, 1, REQ_OP_READ, GFP_KERNEL, &bs);
	b = bio_alloc_bioset(NULL, 1, REQ_OP_READ, GFP_KERNEL, &bs);
	c = bio_alloc_bioset(NULL, 1, REQ_OP_READ, GFP_NOWAIT, &bs);
	sim_fault_arm(false);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_null(c);
	ck_assert_int_eq(td_stat("mempool_reserve_used") - reserve, 2);
	ck_assert_int_eq(td_stat("bio_alloc_failed"), 1);
	bio_put(a);
	/* a put refills the reserve: GFP_NOWAIT now gets that bio */
	sim_fault_arm(true);
	c = bio_alloc_bioset(NULL, 1, REQ_OP_READ, GFP_NOWAIT, &bs);
	sim_fault_arm(false);
	ck_assert_ptr_nonnull(c);
	bio_put(b);
	bio_put(c);
	bioset_exit(&bs);
}
END_TEST

/* covers B-02 */
START_TEST(test_nobvec_bioset_rejects_vecs)
{
	struct bio_set bs;
	struct bio *bio;

	ck_assert_int_eq(bioset_init(&bs, 2, 0, 0), 0);
	sim_test_expect_warnings(1);
	ck_assert_ptr_null(
		bio_alloc_bioset(NULL, 1, REQ_OP_READ, GFP_KERNEL, &bs));
	bio = bio_alloc_bioset(NULL, 0, REQ_OP_READ, GFP_KERNEL, &bs);
	ck_assert_ptr_nonnull(bio);
	ck_assert_ptr_null(bio->bi_io_vec);
	bio_put(bio);
	bioset_exit(&bs);
}
END_TEST

/* covers B-08: with BIO_REFFED only the last put frees */
START_TEST(test_bio_get_put)
{
	struct bio *bio = bio_alloc(NULL, 1, REQ_OP_READ, GFP_KERNEL);
	long live = td_stat("bio_live");

	bio_get(bio);
	ck_assert(bio_flagged(bio, BIO_REFFED));
	ck_assert_int_eq(atomic_read(&bio->__bi_cnt), 2);
	bio_put(bio);
	ck_assert_int_eq(td_stat("bio_live"), live);
	ck_assert_int_eq(atomic_read(&bio->__bi_cnt), 1);
	bio_put(bio);
	ck_assert_int_eq(td_stat("bio_live"), live - 1);
}
END_TEST

/* covers B-07: bio_reset keeps the allocation fields, clears the rest */
START_TEST(test_bio_reset)
{
	struct testdev *td = td_create(1 << 20, 0);
	struct bio *bio = bio_alloc(&td->bdev, 2, REQ_OP_READ, GFP_KERNEL);
	struct bio_vec *table = bio->bi_io_vec;
	char *buf = td_buf(PAGE_SIZE);

	__bio_add_page(bio, virt_to_page(buf), 512, 0);
	bio->bi_iter.bi_sector = 8;
	bio->bi_status = BLK_STS_IOERR;
	bio_reset(bio, NULL, REQ_OP_WRITE);
	ck_assert_ptr_null(bio->bi_bdev);
	ck_assert_uint_eq(bio->bi_opf, REQ_OP_WRITE);
	ck_assert_uint_eq(bio->bi_iter.bi_size, 0);
	ck_assert_uint_eq(bio->bi_iter.bi_sector, 0);
	ck_assert_uint_eq(bio->bi_status, 0);
	ck_assert_uint_eq(bio->bi_vcnt, 0);
	ck_assert_ptr_eq(bio->bi_io_vec, table);
	ck_assert_uint_eq(bio->bi_max_vecs, BIO_INLINE_VECS);
	ck_assert_ptr_eq(bio->bi_pool, &fs_bio_set);
	bio_put(bio);
	free(buf);
	td_destroy(td);
}
END_TEST

/* covers B-27 */
START_TEST(test_fs_bio_set_ready)
{
	unsigned int nr, nr_irq;

	/* no init call: fs_bio_set is set up before main() */
	ck_assert(bioset_initialized(&fs_bio_set));
	ck_assert_uint_eq(fs_bio_set.front_pad, 0);
	ck_assert_uint_eq(fs_bio_set.back_pad,
			  BIO_INLINE_VECS * sizeof(struct bio_vec));
	ck_assert_int_eq(fs_bio_set.bio_pool.min_nr, BIO_POOL_SIZE);
	ck_assert(mempool_initialized(&fs_bio_set.bvec_pool));
	ck_assert_ptr_nonnull(fs_bio_set.cache);
	blksim_bioset_cache_count(&fs_bio_set, 0, &nr, &nr_irq);
	ck_assert_uint_eq(nr + nr_irq, 0);
}
END_TEST

/* bioset_exit() with a bio still out reports the leak */
START_TEST(test_bioset_exit_reports_leak)
{
	struct bio_set bs;
	struct bio *bio;

	/* the same object size as fs_bio_set: the slab is shared and lives */
	ck_assert_int_eq(bioset_init(&bs, 2, 0, BIOSET_NEED_BVECS), 0);
	ck_assert_ptr_eq(bs.bio_slab, fs_bio_set.bio_slab);
	bio = bio_alloc_bioset(NULL, 1, REQ_OP_READ, GFP_KERNEL, &bs);
	ck_assert_int_eq(blksim_bioset_live(&bs), 1);
	sim_test_expect_warnings(1);
	bioset_exit(&bs);
	ck_assert_int_eq(sim_warnings(), 1);
	/* clean up the deliberate leak by hand */
	kmem_cache_free(fs_bio_set.bio_slab, bio);
	sim_stat_dec(sim_stat_find("bio_live"));
}
END_TEST

/* a second bio_put() of a freed bio is caught, not done twice */
START_TEST(test_double_put_caught)
{
	struct bio *bio = bio_alloc(NULL, 1, REQ_OP_READ, GFP_KERNEL);

	bio_put(bio); /* into this CPU's cache: memory stays valid */
	sim_test_expect_warnings(1);
	bio_put(bio);
	ck_assert_int_eq(td_stat("bio_double_put"), 1);
	ck_assert_int_eq(sim_warnings(), 1);
}
END_TEST

static Suite *bio_alloc_suite(void)
{
	return sim_suite("block_bio_alloc", sim_tcase("alloc"),
			 test_front_pad_container_of, test_front_pad_alignment,
			 test_bioset_init_parts, test_free_with_front_pad,
			 test_inline_vecs_edge, test_fresh_bio_state,
			 test_bvec_storage, test_bvec_mempool_fallback,
			 test_reserve_under_alloc_failure,
			 test_nobvec_bioset_rejects_vecs, test_bio_get_put,
			 test_bio_reset, test_fs_bio_set_ready,
			 test_bioset_exit_reports_leak, test_double_put_caught);
}

SIM_TEST_MAIN(bio_alloc_suite)
