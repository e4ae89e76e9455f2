// SPDX-License-Identifier: GPL-2.0-only
/* Memory: accounting by call site, leak reports, fault injection,
 * kmem_cache, mempool reserves, pages, pins and dirty bits, per-CPU. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <sim/alloc.h>
#include <sim/fault.h>
#include <sim/report.h>
#include <sim/stats.h>
#include "harness.h"

static void *leaky_helper(void)
{
	return kmalloc(100, GFP_KERNEL);
}

struct site_find {
	const char *func;
	long live;
	long total;
	long failed;
};

static void find_site(const struct sim_alloc_site *s, void *arg)
{
	struct site_find *f = arg;

	if (!strcmp(s->func, f->func)) {
		f->live += s->live;
		f->total += s->total;
		f->failed += s->failed;
	}
}

static struct site_find site_of(const char *func)
{
	struct site_find f = { .func = func };

	sim_alloc_for_each_site(find_site, &f);
	return f;
}

START_TEST(test_kmalloc_accounted_by_site)
{
	long before = sim_alloc_live();
	void *p = leaky_helper();

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sim_alloc_live(), before + 1);
	ck_assert_int_eq(site_of("leaky_helper").live, 1);
	ck_assert_uint_eq(ksize(p), 100);
	kfree(p);
	ck_assert_int_eq(sim_alloc_live(), before);
	ck_assert_int_eq(site_of("leaky_helper").live, 0);
}
END_TEST

START_TEST(test_leak_report_names_site)
{
	char buf[512] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	void *p = leaky_helper();
	int n = sim_alloc_report_leaks(f);

	fclose(f);
	ck_assert_int_ge(n, 1);
	ck_assert_ptr_nonnull(strstr(buf, "leaky_helper()"));
	ck_assert_ptr_nonnull(strstr(buf, "sim_memory.c:"));
	ck_assert_ptr_nonnull(strstr(buf, "1 object(s)"));
	kfree(p);
}
END_TEST

START_TEST(test_kzalloc_zeroes_and_aligns)
{
	unsigned char *p = kzalloc(333, GFP_KERNEL);
	void *q = sim_kmalloc(64, 64, GFP_KERNEL, SIM_ALLOC_SITE());

	for (int i = 0; i < 333; i++)
		ck_assert_uint_eq(p[i], 0);
	ck_assert_uint_eq((unsigned long)p % ARCH_KMALLOC_MINALIGN, 0);
	ck_assert_uint_eq((unsigned long)q % 64, 0);
	kfree(p);
	kfree(q);
}
END_TEST

START_TEST(test_kfree_null_is_noop)
{
	long before = sim_alloc_live();

	kfree(NULL);
	ck_assert_int_eq(sim_alloc_live(), before);
}
END_TEST

START_TEST(test_fault_nth_allocation)
{
	struct sim_fault_alloc cfg = { .nth = 3 };
	void *p[5];

	sim_fault_alloc_set(&cfg);
	sim_fault_arm(true);
	for (int i = 0; i < 5; i++)
		p[i] = kmalloc(16, GFP_KERNEL);
	sim_fault_arm(false);
	ck_assert_ptr_nonnull(p[0]);
	ck_assert_ptr_nonnull(p[1]);
	ck_assert_ptr_null(p[2]);
	ck_assert_ptr_nonnull(p[3]);
	ck_assert_ptr_nonnull(p[4]);
	ck_assert_uint_eq(sim_fault_alloc_seen(), 5);
	ck_assert_uint_eq(sim_fault_alloc_injected(), 1);
	ck_assert_int_eq(sim_stat_get("alloc_failed"), 1);
	for (int i = 0; i < 5; i++)
		kfree(p[i]);
}
END_TEST

START_TEST(test_fault_disarmed_counts_nothing)
{
	struct sim_fault_alloc cfg = { .nth = 1 };
	void *p;

	sim_fault_alloc_set(&cfg);
	p = kmalloc(16, GFP_KERNEL);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(sim_fault_alloc_seen(), 0);
	kfree(p);
}
END_TEST

static void *site_a(void)
{
	return kmalloc(8, GFP_KERNEL);
}

static void *site_b(void)
{
	return kmalloc(8, GFP_KERNEL);
}

START_TEST(test_fault_by_site)
{
	struct sim_fault_alloc cfg = { .site = "site_b" };
	void *a, *b;

	sim_fault_alloc_set(&cfg);
	sim_fault_arm(true);
	a = site_a();
	b = site_b();
	sim_fault_arm(false);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_null(b);
	ck_assert_int_eq(site_of("site_b").failed, 1);
	kfree(a);
}
END_TEST

static unsigned int fail_pattern(u64 seed)
{
	struct sim_fault_alloc cfg = { .prob_ppm = 500000, .seed = seed };
	unsigned int bits = 0;

	sim_fault_alloc_set(&cfg);
	sim_fault_arm(true);
	for (int i = 0; i < 32; i++) {
		void *p = kmalloc(8, GFP_KERNEL);

		if (!p)
			bits |= 1U << i;
		kfree(p);
	}
	sim_fault_arm(false);
	return bits;
}

START_TEST(test_fault_probability_is_seeded)
{
	unsigned int a = fail_pattern(42), b = fail_pattern(42);
	unsigned int c = fail_pattern(43);

	ck_assert_uint_eq(a, b);
	ck_assert_uint_ne(a, 0);
	ck_assert_uint_ne(a, 0xffffffffU);
	ck_assert_uint_ne(a, c);
}
END_TEST

START_TEST(test_nofail_never_injected)
{
	struct sim_fault_alloc cfg = { .prob_ppm = 1000000 };
	void *p;

	sim_fault_alloc_set(&cfg);
	sim_fault_arm(true);
	p = kmalloc(8, GFP_KERNEL | __GFP_NOFAIL);
	sim_fault_arm(false);
	ck_assert_ptr_nonnull(p);
	kfree(p);
}
END_TEST

START_TEST(test_kmem_cache_live_and_ctor)
{
	struct kmem_cache *c =
		kmem_cache_create("test_obj", 200, 0, SLAB_HWCACHE_ALIGN, NULL);
	void *a = kmem_cache_alloc(c, GFP_KERNEL);
	void *b = kmem_cache_zalloc(c, GFP_KERNEL);

	ck_assert_uint_eq((unsigned long)a % 64, 0);
	ck_assert_uint_eq((unsigned long)b % 64, 0);
	ck_assert_int_eq(sim_kmem_cache_live(c), 2);
	ck_assert_uint_eq(kmem_cache_size(c), 200);
	kmem_cache_free(c, a);
	kmem_cache_free(c, b);
	ck_assert_int_eq(sim_kmem_cache_live(c), 0);
	kmem_cache_destroy(c);
}
END_TEST

START_TEST(test_kmem_cache_destroy_with_objects_warns)
{
	struct kmem_cache *c = kmem_cache_create("leaky", 32, 0, 0, NULL);
	void *a = kmem_cache_alloc(c, GFP_KERNEL);

	sim_test_expect_warnings(1);
	kmem_cache_destroy(c);
	ck_assert_int_eq(sim_kmem_cache_live(c), 1);
	/* the cache lingers until its last object is freed */
	kmem_cache_free(c, a);
}
END_TEST

START_TEST(test_mempool_reserve_under_failure)
{
	mempool_t pool;
	void *e[3];
	struct sim_fault_alloc cfg = { .prob_ppm = 1000000 };

	ck_assert_int_eq(mempool_init_kmalloc_pool(&pool, 2, 64), 0);
	sim_fault_alloc_set(&cfg);
	sim_fault_arm(true);
	e[0] = mempool_alloc(&pool, GFP_KERNEL);
	e[1] = mempool_alloc(&pool, GFP_KERNEL);
	/* reserve empty, non-sleeping mask: NULL */
	e[2] = mempool_alloc(&pool, GFP_NOWAIT);
	sim_fault_arm(false);
	ck_assert_ptr_nonnull(e[0]);
	ck_assert_ptr_nonnull(e[1]);
	ck_assert_ptr_null(e[2]);
	ck_assert_int_eq(sim_stat_get("mempool_reserve_used"), 2);
	mempool_free(e[0], &pool);
	mempool_free(e[1], &pool);
	ck_assert_int_eq(pool.curr_nr, 2);
	mempool_exit(&pool);
}
END_TEST

static mempool_t *waiting_pool;
static void *held_element;

static void give_back(struct sim_event *ev)
{
	mempool_free(held_element, waiting_pool);
}

START_TEST(test_mempool_sleeping_alloc_waits_for_free)
{
	mempool_t pool;
	struct sim_event ev = { .fn = give_back,
				.ctx = SIM_CTX_HARDIRQ,
				.cpu = -1 };
	struct sim_fault_alloc cfg = { .prob_ppm = 1000000 };
	void *a, *b;

	ck_assert_int_eq(mempool_init_kmalloc_pool(&pool, 1, 64), 0);
	waiting_pool = &pool;
	sim_fault_alloc_set(&cfg);
	sim_fault_arm(true);
	held_element = mempool_alloc(&pool, GFP_KERNEL);
	ck_assert_ptr_nonnull(held_element);
	/* an "interrupt" will free it back; the sleeping alloc waits */
	sim_event_post(&ev);
	b = mempool_alloc(&pool, GFP_KERNEL);
	sim_fault_arm(false);
	ck_assert_ptr_eq(b, held_element);
	ck_assert_int_eq(sim_stat_get("mempool_waits"), 1);
	a = b;
	mempool_free(a, &pool);
	mempool_exit(&pool);
}
END_TEST

START_TEST(test_mempool_sleeping_inner_alloc_not_counted_for_nth)
{
	mempool_t pool;
	struct sim_fault_alloc cfg = { .nth = 1 };
	void *e, *p;

	ck_assert_int_eq(mempool_init_kmalloc_pool(&pool, 1, 64), 0);
	sim_fault_alloc_set(&cfg);
	sim_fault_arm(true);
	/* a sleeping mempool alloc cannot fail: not "the 1st failable" */
	e = mempool_alloc(&pool, GFP_KERNEL);
	p = kmalloc(8, GFP_KERNEL);
	sim_fault_arm(false);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_null(p);
	mempool_free(e, &pool);
	mempool_exit(&pool);
}
END_TEST

START_TEST(test_alloc_pages_aligned_and_accounted)
{
	long before = sim_alloc_live();
	struct page *pg = alloc_pages(GFP_KERNEL, 1);

	ck_assert_uint_eq((unsigned long)page_address(pg) % PAGE_SIZE, 0);
	ck_assert_ptr_eq(nth_page(pg, 1), (char *)page_address(pg) + PAGE_SIZE);
	memset(page_address(pg), 0xaa, 2 * PAGE_SIZE);
	ck_assert_int_eq(sim_alloc_live(), before + 1);
	__free_pages(pg, 1);
	ck_assert_int_eq(sim_alloc_live(), before);
}
END_TEST

START_TEST(test_page_of_address)
{
	char *buf = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);
	char *mid = buf + PAGE_SIZE + 100;

	ck_assert_ptr_eq(page_address(virt_to_page(mid)),
			 (void *)((unsigned long)mid & PAGE_MASK));
	ck_assert_uint_eq(offset_in_page(mid), (unsigned long)mid % PAGE_SIZE);
	ck_assert_ptr_eq(page_folio(virt_to_page(mid)),
			 (struct folio *)virt_to_page(mid));
	kfree(buf);
}
END_TEST

START_TEST(test_pin_unpin_accounting)
{
	static char buf[2 * 4096] __aligned(4096);
	struct page *p0 = virt_to_page(buf), *p1 = virt_to_page(buf + 4096);
	long pinned = sim_stat_get("pages_pinned");

	sim_pin_user_page(p0);
	sim_pin_user_page(p0);
	sim_pin_user_page(p1);
	ck_assert_int_eq(sim_page_pincount(p0), 2);
	ck_assert_int_eq(sim_page_pincount(p1), 1);
	ck_assert_int_eq(sim_stat_get("pages_pinned"), pinned + 3);
	unpin_user_page(p0);
	unpin_user_pages((struct page *[]){ p0, p1 }, 2);
	ck_assert_int_eq(sim_page_pincount(p0), 0);
	ck_assert_int_eq(sim_stat_get("pages_pinned"), pinned);
}
END_TEST

START_TEST(test_unpin_unpinned_warns)
{
	static char buf[4096] __aligned(4096);

	sim_test_expect_warnings(1);
	unpin_user_page(virt_to_page(buf));
	ck_assert_int_eq(sim_page_pincount(virt_to_page(buf)), 0);
}
END_TEST

START_TEST(test_dirty_tracking_on_pinned_page)
{
	static char buf[4096] __aligned(4096);
	struct page *pg = virt_to_page(buf);
	struct folio *f = page_folio(pg);

	sim_pin_user_page(pg);
	ck_assert(!folio_test_dirty(f));
	ck_assert(folio_mark_dirty(f)); /* newly dirtied */
	ck_assert(!folio_mark_dirty(f)); /* already dirty */
	ck_assert(folio_test_dirty(f));
	sim_folio_clear_dirty(f);
	ck_assert(!folio_test_dirty(f));
	ck_assert(set_page_dirty_lock(pg));
	unpin_user_page(pg);
	/* the last unpin forgets the page (as if written back) */
	ck_assert(!folio_test_dirty(f));
}
END_TEST

START_TEST(test_unpin_range_dirty)
{
	static char buf[2 * 4096] __aligned(4096);
	struct page *pg = virt_to_page(buf);
	long dirtied = sim_stat_get("pages_dirtied");

	sim_pin_user_page(pg);
	sim_pin_user_page(nth_page(pg, 1));
	unpin_user_page_range_dirty_lock(pg, 2, true);
	ck_assert_int_eq(sim_stat_get("pages_dirtied"), dirtied + 2);
	ck_assert_int_eq(sim_page_pincount(pg), 0);
}
END_TEST

START_TEST(test_zero_page_is_zero)
{
	const unsigned char *z = page_address(ZERO_PAGE(0));

	for (unsigned long i = 0; i < PAGE_SIZE; i++)
		ck_assert_uint_eq(z[i], 0);
	ck_assert_ptr_eq(largest_zero_folio(), page_folio(ZERO_PAGE(0)));
}
END_TEST

struct counter {
	long n;
	char pad[100];
};

START_TEST(test_percpu_slots_distinct)
{
	struct counter *c = alloc_percpu(struct counter);
	int cpu;

	ck_assert_ptr_nonnull(c);
	for_each_possible_cpu(cpu)
		per_cpu_ptr(c, cpu)->n = cpu * 10;
	for_each_possible_cpu(cpu) {
		ck_assert_int_eq(per_cpu_ptr(c, cpu)->n, cpu * 10);
		ck_assert_uint_eq((unsigned long)per_cpu_ptr(c, cpu) % 64, 0);
	}
	ck_assert_ptr_eq(this_cpu_ptr(c), per_cpu_ptr(c, smp_processor_id()));
	free_percpu(c);
}
END_TEST

static Suite *memory_suite(void)
{
	Suite *s = sim_suite(
		"memory", sim_tcase("alloc"), test_kmalloc_accounted_by_site,
		test_leak_report_names_site, test_kzalloc_zeroes_and_aligns,
		test_kfree_null_is_noop, test_kmem_cache_live_and_ctor,
		test_kmem_cache_destroy_with_objects_warns,
		test_percpu_slots_distinct);

	sim_suite_add(s, sim_tcase("fault"), test_fault_nth_allocation,
		      test_fault_disarmed_counts_nothing, test_fault_by_site,
		      test_fault_probability_is_seeded,
		      test_nofail_never_injected,
		      test_mempool_reserve_under_failure,
		      test_mempool_sleeping_alloc_waits_for_free,
		      test_mempool_sleeping_inner_alloc_not_counted_for_nth);

	sim_suite_add(s, sim_tcase("pages"),
		      test_alloc_pages_aligned_and_accounted,
		      test_page_of_address, test_pin_unpin_accounting,
		      test_unpin_unpinned_warns,
		      test_dirty_tracking_on_pinned_page,
		      test_unpin_range_dirty, test_zero_page_is_zero);
	return s;
}

SIM_TEST_MAIN(memory_suite)
