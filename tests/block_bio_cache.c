// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-CPU bio alloc cache (B-03: on by default): hits and misses,
 * which bios take part, frees on another CPU, the hard-IRQ list and its
 * splice, soft-IRQ frees, the size cap, the reserve exception, draining.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/smp.h>
#include <sim/alloc.h>
#include <sim/bio.h>
#include <sim/engine.h>
#include <sim/fault.h>
#include <sim/stats.h>
#include "block_testdev.h"
#include "harness.h"

static unsigned int cached(struct bio_set *bs, int cpu)
{
	unsigned int nr, nr_irq;

	blksim_bioset_cache_count(bs, cpu, &nr, &nr_irq);
	return nr;
}

static unsigned int cached_irq(struct bio_set *bs, int cpu)
{
	unsigned int nr, nr_irq;

	blksim_bioset_cache_count(bs, cpu, &nr, &nr_irq);
	return nr_irq;
}

/* covers B-03, B-04: a put then an alloc on one CPU is a hit */
START_TEST(test_hit_after_put_same_cpu)
{
	struct bio *a, *b;

	a = bio_alloc(NULL, 1, REQ_OP_READ, GFP_KERNEL);
	ck_assert(a->bi_opf & REQ_ALLOC_CACHE);
	ck_assert_int_eq(td_stat("bio_cache_miss"), 1);
	ck_assert_int_eq(td_stat("bio_cache_hit"), 0);
	bio_put(a);
	ck_assert_uint_eq(cached(&fs_bio_set, 0), 1);
	ck_assert_int_eq(td_stat("bio_cache_put"), 1);

	b = bio_alloc(NULL, 2, REQ_OP_WRITE, GFP_KERNEL);
	ck_assert_ptr_eq(b, a);
	ck_assert_int_eq(td_stat("bio_cache_hit"), 1);
	ck_assert_uint_eq(cached(&fs_bio_set, 0), 0);
	/* a cache hit is a fresh bio: inline table sized to the request */
	ck_assert_uint_eq(b->bi_opf, REQ_OP_WRITE | REQ_ALLOC_CACHE);
	ck_assert_ptr_eq(b->bi_io_vec, b->bi_inline_vecs);
	ck_assert_uint_eq(b->bi_max_vecs, 2);
	bio_put(b);
}
END_TEST

/* covers B-03 on its edge: exactly BIO_INLINE_VECS still uses the cache */
START_TEST(test_inline_vecs_edge_cached)
{
	struct bio *a, *b;

	a = bio_alloc(NULL, BIO_INLINE_VECS, REQ_OP_READ | REQ_ALLOC_CACHE,
		      GFP_KERNEL);
	ck_assert(a->bi_opf & REQ_ALLOC_CACHE);
	bio_put(a);
	ck_assert_uint_eq(cached(&fs_bio_set, 0), 1);
	b = bio_alloc(NULL, BIO_INLINE_VECS, REQ_OP_READ | REQ_ALLOC_CACHE,
		      GFP_KERNEL);
	ck_assert_ptr_eq(b, a);
	ck_assert_int_eq(td_stat("bio_cache_hit"), 1);
	ck_assert_ptr_eq(b->bi_io_vec, b->bi_inline_vecs);
	bio_put(b);
}
END_TEST

/* covers B-03: more than BIO_INLINE_VECS bypasses the cache */
START_TEST(test_large_bio_bypasses_cache)
{
	struct bio *bio;

	bio = bio_alloc(NULL, BIO_INLINE_VECS + 1,
			REQ_OP_READ | REQ_ALLOC_CACHE, GFP_KERNEL);
	ck_assert(!(bio->bi_opf & REQ_ALLOC_CACHE));
	ck_assert_int_eq(td_stat("bio_cache_miss"), 0);
	bio_put(bio);
	ck_assert_uint_eq(cached(&fs_bio_set, 0), 0);
	ck_assert_int_eq(td_stat("bio_free"), 1);
}
END_TEST

/* covers B-03: a bioset without BIOSET_PERCPU_CACHE never caches */
START_TEST(test_bioset_without_cache)
{
	struct bio_set bs;
	struct bio *bio;

	ck_assert_int_eq(bioset_init(&bs, 2, 0, BIOSET_NEED_BVECS), 0);
	bio = bio_alloc_bioset(NULL, 1, REQ_OP_READ, GFP_KERNEL, &bs);
	ck_assert(!(bio->bi_opf & REQ_ALLOC_CACHE));
	bio_put(bio);
	ck_assert_int_eq(td_stat("bio_cache_put"), 0);
	bioset_exit(&bs);
}
END_TEST

/* covers B-03: the older rule, where only callers asking used the cache */
START_TEST(test_legacy_opt_in)
{
	struct bio *a, *b;

	blksim_bio_percpu_cache_default = false;
	a = bio_alloc(NULL, 1, REQ_OP_READ, GFP_KERNEL);
	ck_assert(!(a->bi_opf & REQ_ALLOC_CACHE));
	b = bio_alloc(NULL, 1, REQ_OP_READ | REQ_ALLOC_CACHE, GFP_KERNEL);
	ck_assert(b->bi_opf & REQ_ALLOC_CACHE);
	bio_put(a);
	bio_put(b);
	ck_assert_uint_eq(cached(&fs_bio_set, 0), 1);
	blksim_bio_percpu_cache_default = true;
}
END_TEST

/* covers B-09: the putting CPU's cache gets the bio, counted as foreign */
START_TEST(test_cross_cpu_free)
{
	struct bio *a, *b;

	ck_assert_int_eq(raw_smp_processor_id(), 0);
	a = bio_alloc(NULL, 1, REQ_OP_READ, GFP_KERNEL);
	sim_task_set_cpu(1);
	bio_put(a);
	ck_assert_uint_eq(cached(&fs_bio_set, 0), 0);
	ck_assert_uint_eq(cached(&fs_bio_set, 1), 1);
	ck_assert_int_eq(td_stat("bio_cache_put_foreign"), 1);

	/* CPU 1 reuses it ... */
	b = bio_alloc(NULL, 1, REQ_OP_READ, GFP_KERNEL);
	ck_assert_ptr_eq(b, a);
	bio_put(b); /* allocated here, freed here: not foreign */
	ck_assert_int_eq(td_stat("bio_cache_put_foreign"), 1);

	/* ... and CPU 0 cannot see it */
	sim_task_set_cpu(0);
	b = bio_alloc(NULL, 1, REQ_OP_READ, GFP_KERNEL);
	ck_assert_ptr_ne(b, a);
	ck_assert_int_eq(td_stat("bio_cache_hit"), 1);
	ck_assert_int_eq(td_stat("bio_cache_miss"), 2);
	bio_put(b);
}
END_TEST

static void put_bio(void *arg)
{
	bio_put(arg);
}

static struct bio *irq_bio;

static void alloc_bio_atomic(void *arg)
{
	irq_bio = bio_alloc(NULL, 1, REQ_OP_READ, GFP_ATOMIC);
}

/*
 * covers B-03: the per-CPU cache relies on bios being
 * allocated in task context only; an allocation from hard-IRQ context is
 * flagged (a warning and bio_cache_alloc_not_task), not silently served.
 */
START_TEST(test_irq_alloc_flagged)
{
	sim_test_expect_warnings(1);
	td_run_in(SIM_CTX_HARDIRQ, alloc_bio_atomic, NULL);
	ck_assert_ptr_nonnull(irq_bio);
	ck_assert_int_eq(td_stat("bio_cache_alloc_not_task"), 1);
	bio_put(irq_bio);
	irq_bio = NULL;
}
END_TEST

/* covers B-09, B-04: hard-IRQ puts go to free_list_irq, spliced at 16 */
START_TEST(test_irq_put_and_splice)
{
	struct bio *bios[16], *bio;
	int i;

	for (i = 0; i < 16; i++)
		bios[i] = bio_alloc(NULL, 1, REQ_OP_READ, GFP_KERNEL);
	td_run_in(SIM_CTX_HARDIRQ, put_bio, bios[0]);
	ck_assert_uint_eq(cached(&fs_bio_set, 0), 0);
	ck_assert_uint_eq(cached_irq(&fs_bio_set, 0), 1);
	ck_assert_int_eq(td_stat("bio_cache_put_irq"), 1);

	/* below the threshold the task side does not take the IRQ list */
	bio = bio_alloc(NULL, 1, REQ_OP_READ, GFP_KERNEL);
	ck_assert_int_eq(td_stat("bio_cache_hit"), 0);
	ck_assert_uint_eq(cached_irq(&fs_bio_set, 0), 1);
	bio_put(bio);
	ck_assert_uint_eq(cached(&fs_bio_set, 0), 1);
	bio = bio_alloc(NULL, 1, REQ_OP_READ, GFP_KERNEL); /* that one back */
	ck_assert_int_eq(td_stat("bio_cache_hit"), 1);

	for (i = 1; i < 16; i++)
		td_run_in(SIM_CTX_HARDIRQ, put_bio, bios[i]);
	ck_assert_uint_eq(cached_irq(&fs_bio_set, 0), 16);
	ck_assert_int_eq(td_stat("bio_cache_splice"), 0);

	bios[0] = bio_alloc(NULL, 1, REQ_OP_READ, GFP_KERNEL);
	ck_assert_int_eq(td_stat("bio_cache_splice"), 1);
	ck_assert_int_eq(td_stat("bio_cache_hit"), 2);
	ck_assert_uint_eq(cached_irq(&fs_bio_set, 0), 0);
	ck_assert_uint_eq(cached(&fs_bio_set, 0), 15);
	bio_put(bios[0]);
	bio_put(bio);
}
END_TEST

/* covers B-09: a soft-IRQ put frees the bio */
START_TEST(test_softirq_put_frees)
{
	struct bio *bio = bio_alloc(NULL, 1, REQ_OP_READ, GFP_KERNEL);

	td_run_in(SIM_CTX_SOFTIRQ, put_bio, bio);
	ck_assert_uint_eq(cached(&fs_bio_set, 0), 0);
	ck_assert_uint_eq(cached_irq(&fs_bio_set, 0), 0);
	ck_assert_int_eq(td_stat("bio_cache_softirq_free"), 1);
	ck_assert_int_eq(td_stat("bio_free"), 1);
}
END_TEST

/* covers B-09: past ALLOC_CACHE_MAX (256) bios are freed */
START_TEST(test_cache_cap)
{
	enum { N = 260 };
	static struct bio *bios[N];
	int i;

	for (i = 0; i < N; i++)
		bios[i] = bio_alloc(NULL, 0, REQ_OP_READ, GFP_KERNEL);
	for (i = 0; i < N; i++)
		bio_put(bios[i]);
	/* nr > 256 frees: the cache stops at 257 */
	ck_assert_uint_eq(cached(&fs_bio_set, 0), 257);
	ck_assert_int_eq(td_stat("bio_cache_full"), N - 257);
	ck_assert_int_eq(td_stat("bio_free"), N - 257);
}
END_TEST

/* a bio from the mempool reserve goes back there, not to a cache */
START_TEST(test_reserve_bio_not_cached)
{
	struct sim_fault_alloc f = { .prob_ppm = 1000000, .seed = 1 };
	struct bio_set bs;
	struct bio *bio;

	ck_assert_int_eq(bioset_init(&bs, 2, 0,
				     BIOSET_NEED_BVECS | BIOSET_PERCPU_CACHE),
			 0);
	sim_fault_alloc_set(&f);
	sim_fault_arm(true);
	bio = bio_alloc_bioset(NULL, 1, REQ_OP_READ, GFP_KERNEL, &bs);
	sim_fault_arm(false);
	ck_assert_ptr_nonnull(bio);
	ck_assert(!(bio->bi_opf & REQ_ALLOC_CACHE));
	bio_put(bio);
	ck_assert_uint_eq(cached(&bs, 0), 0);
	ck_assert_int_eq(bs.bio_pool.curr_nr, 2);
	bioset_exit(&bs);
}
END_TEST

/* steady state: a cached alloc+put pair allocates nothing */
START_TEST(test_steady_state_no_allocations)
{
	struct bio *bio = bio_alloc(NULL, 1, REQ_OP_READ, GFP_KERNEL);
	long total;

	bio_put(bio);
	total = sim_alloc_total();
	for (int i = 0; i < 1000; i++) {
		bio = bio_alloc(NULL, 1, REQ_OP_READ, GFP_KERNEL);
		bio_put(bio);
	}
	ck_assert_int_eq(sim_alloc_total(), total);
	ck_assert_int_eq(td_stat("bio_cache_hit"), 1000);
}
END_TEST

/* covers B-11: bioset_exit and the drain return cached bios */
START_TEST(test_drain_and_exit)
{
	struct bio_set bs;
	struct bio *bio[3];
	long live;

	ck_assert_int_eq(bioset_init(&bs, 2, 0,
				     BIOSET_NEED_BVECS | BIOSET_PERCPU_CACHE),
			 0);
	for (int i = 0; i < 3; i++)
		bio[i] =
			bio_alloc_bioset(NULL, 1, REQ_OP_READ, GFP_KERNEL, &bs);
	bio_put(bio[0]);
	td_run_in(SIM_CTX_HARDIRQ, put_bio, bio[1]);
	sim_task_set_cpu(2);
	bio_put(bio[2]);
	sim_task_set_cpu(0);
	ck_assert_uint_eq(cached(&bs, 0) + cached_irq(&bs, 0) + cached(&bs, 2),
			  3);
	live = sim_alloc_live();
	blksim_bio_drain_caches();
	ck_assert_uint_eq(cached(&bs, 0) + cached_irq(&bs, 0) + cached(&bs, 2),
			  0);
	/* the reserve is full, so all three go back to the slab */
	ck_assert_int_eq(sim_alloc_live(), live - 3);

	bio[0] = bio_alloc_bioset(NULL, 1, REQ_OP_READ, GFP_KERNEL, &bs);
	bio_put(bio[0]);
	ck_assert_uint_eq(cached(&bs, 0), 1);
	bioset_exit(&bs);
	ck_assert_ptr_null(bs.cache);
}
END_TEST

static Suite *bio_cache_suite(void)
{
	return sim_suite("block_bio_cache", sim_tcase("cache"),
			 test_hit_after_put_same_cpu,
			 test_inline_vecs_edge_cached,
			 test_large_bio_bypasses_cache,
			 test_bioset_without_cache, test_legacy_opt_in,
			 test_cross_cpu_free, test_irq_alloc_flagged,
			 test_irq_put_and_splice, test_softirq_put_frees,
			 test_cache_cap, test_reserve_bio_not_cached,
			 test_steady_state_no_allocations, test_drain_and_exit);
}

SIM_TEST_MAIN(bio_cache_suite)
