// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-CPU bio alloc cache of a bio_set (block/bio.c in the kernel).
 *
 * Freed bios that carry REQ_ALLOC_CACHE stay allocated in a per-CPU list
 * and the next small allocation on that CPU takes one back without going
 * through the mempool (B-03, B-04).  bio_put() from task context pushes
 * on free_list; from hard-IRQ context on free_list_irq, which the
 * allocator splices over once it holds ALLOC_CACHE_THRESHOLD bios, so the
 * task side never has to disable interrupts on its fast path; from
 * soft-IRQ context the bio is freed (B-09).  The cache used is the one of
 * the CPU doing the put, whichever CPU allocated the bio.
 *
 * Accounting (stats): bio_cache_hit, bio_cache_miss, bio_cache_put,
 * bio_cache_put_irq, bio_cache_put_foreign (put on another CPU than the
 * one that allocated), bio_cache_splice, bio_cache_full (freed because
 * the cache was full), bio_cache_softirq_free, bio_cache_alloc_not_task.
 */
#include <linux/bio.h>
#include <linux/irqflags.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <sim/bio.h>
#include <sim/stats.h>
#include "blk.h"

#define ALLOC_CACHE_THRESHOLD 16
#define ALLOC_CACHE_MAX 256

struct bio_alloc_cache {
	struct bio *free_list;
	struct bio *free_list_irq;
	unsigned int nr;
	unsigned int nr_irq;
};

DEFINE_SIM_STAT(bio_stat_cache_hit, "bio_cache_hit");
DEFINE_SIM_STAT(bio_stat_cache_miss, "bio_cache_miss");
DEFINE_SIM_STAT(bio_stat_cache_put, "bio_cache_put");
DEFINE_SIM_STAT(bio_stat_cache_put_irq, "bio_cache_put_irq");
DEFINE_SIM_STAT(bio_stat_cache_put_foreign, "bio_cache_put_foreign");
DEFINE_SIM_STAT(bio_stat_cache_splice, "bio_cache_splice");
DEFINE_SIM_STAT(bio_stat_cache_full, "bio_cache_full");
DEFINE_SIM_STAT(bio_stat_cache_softirq_free, "bio_cache_softirq_free");
DEFINE_SIM_STAT(bio_stat_cache_alloc_not_task, "bio_cache_alloc_not_task");

/*
 * Biosets with a cache, for the teardown drain (the kernel keeps them on
 * the CPUHP_BIO_DEAD instance list for bio_cpu_dead()).
 */
static DEFINE_SPINLOCK(bioset_cache_lock);
static struct bio_set *bioset_cache_list;

/*
 * Every per-CPU slot a bio was ever put into, not just those of the CPUs
 * the current engine simulates: an earlier engine may have run with more
 * of them.  Slots above the high-water mark never held a bio; the drain
 * runs after every request of the fuzzer and the runner, so it skips them.
 */
static int cache_slots_used;

static void cache_slot_used(int cpu)
{
	int old = __atomic_load_n(&cache_slots_used, __ATOMIC_RELAXED);

	while (old <= cpu &&
	       !__atomic_compare_exchange_n(&cache_slots_used, &old, cpu + 1,
					    false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

#define for_each_cache_slot(cpu)                                          \
	for ((cpu) = 0;                                                   \
	     (cpu) < __atomic_load_n(&cache_slots_used, __ATOMIC_RELAXED); \
	     (cpu)++)

int bio_alloc_cache_init(struct bio_set *bs)
{
	bs->cache = alloc_percpu(struct bio_alloc_cache);
	if (!bs->cache)
		return -ENOMEM;

	spin_lock(&bioset_cache_lock);
	bs->sim_next = bioset_cache_list;
	bioset_cache_list = bs;
	spin_unlock(&bioset_cache_lock);
	return 0;
}

static void bio_alloc_irq_cache_splice(struct bio_alloc_cache *cache)
{
	unsigned long flags;

	/* cache->free_list must be empty */
	if (WARN_ON_ONCE(cache->free_list))
		return;

	local_irq_save(flags);
	cache->free_list = cache->free_list_irq;
	cache->free_list_irq = NULL;
	cache->nr += cache->nr_irq;
	cache->nr_irq = 0;
	local_irq_restore(flags);
	sim_stat_inc(&bio_stat_cache_splice);
}

struct bio *bio_alloc_percpu_cache(struct block_device *bdev,
				   unsigned short nr_vecs, blk_opf_t opf,
				   gfp_t gfp, struct bio_set *bs)
{
	struct bio_alloc_cache *cache;
	struct bio *bio;

	/*
	 * The cache's task list is only safe against the hard-IRQ side
	 * because allocation happens in task context (B-03 relies on
	 * it): flag a caller that breaks the rule.
	 */
	if (unlikely(!in_task())) {
		sim_stat_inc(&bio_stat_cache_alloc_not_task);
		WARN_ON_ONCE(1);
	}

	cache = per_cpu_ptr(bs->cache, get_cpu());
	if (!cache->free_list) {
		if (READ_ONCE(cache->nr_irq) >= ALLOC_CACHE_THRESHOLD)
			bio_alloc_irq_cache_splice(cache);
		if (!cache->free_list) {
			put_cpu();
			sim_stat_inc(&bio_stat_cache_miss);
			return NULL;
		}
	}
	bio = cache->free_list;
	cache->free_list = bio->bi_next;
	cache->nr--;
	put_cpu();
	sim_stat_inc(&bio_stat_cache_hit);

	bio_init(bio, bdev, nr_vecs ? bio->bi_inline_vecs : NULL, nr_vecs, opf);
	bio->bi_pool = bs;
	return bio;
}

static int __bio_alloc_cache_prune(struct bio_alloc_cache *cache,
				   unsigned int nr)
{
	unsigned int i = 0;
	struct bio *bio;

	while ((bio = cache->free_list) != NULL) {
		cache->free_list = bio->bi_next;
		cache->nr--;
		bio_free(bio);
		if (++i == nr)
			break;
	}
	return i;
}

static void bio_alloc_cache_prune(struct bio_alloc_cache *cache,
				  unsigned int nr)
{
	nr -= __bio_alloc_cache_prune(cache, nr);
	if (!READ_ONCE(cache->free_list)) {
		bio_alloc_irq_cache_splice(cache);
		__bio_alloc_cache_prune(cache, nr);
	}
}

void bio_alloc_cache_destroy(struct bio_set *bs)
{
	struct bio_set **pp;
	int cpu;

	if (!bs->cache)
		return;

	spin_lock(&bioset_cache_lock);
	for (pp = &bioset_cache_list; *pp; pp = &(*pp)->sim_next) {
		if (*pp == bs) {
			*pp = bs->sim_next;
			break;
		}
	}
	spin_unlock(&bioset_cache_lock);

	for_each_cache_slot(cpu)
		bio_alloc_cache_prune(per_cpu_ptr(bs->cache, cpu), -1U);
	free_percpu(bs->cache);
	bs->cache = NULL;
}

void bio_put_percpu_cache(struct bio *bio)
{
	struct bio_alloc_cache *cache;
	int cpu = get_cpu();

	cache = per_cpu_ptr(bio->bi_pool->cache, cpu);
	if (READ_ONCE(cache->nr_irq) + cache->nr > ALLOC_CACHE_MAX) {
		sim_stat_inc(&bio_stat_cache_full);
		goto out_free;
	}

	cache_slot_used(cpu);
	if (in_task()) {
		bio_uninit(bio);
		bio->bi_next = cache->free_list;
		/* Not necessary but helps not to iopoll already freed bios */
		bio->bi_bdev = NULL;
		cache->free_list = bio;
		cache->nr++;
		sim_stat_inc(&bio_stat_cache_put);
	} else if (in_hardirq()) {
		/* interrupts are off in a hard-IRQ handler */
		bio_uninit(bio);
		bio->bi_next = cache->free_list_irq;
		cache->free_list_irq = bio;
		cache->nr_irq++;
		sim_stat_inc(&bio_stat_cache_put_irq);
	} else {
		sim_stat_inc(&bio_stat_cache_softirq_free);
		goto out_free;
	}
	if (cpu != bio->bi_sim_alloc_cpu)
		sim_stat_inc(&bio_stat_cache_put_foreign);
	put_cpu();
	return;
out_free:
	put_cpu();
	bio_free(bio);
}

void blksim_bioset_cache_count(struct bio_set *bs, int cpu, unsigned int *nr,
			    unsigned int *nr_irq)
{
	struct bio_alloc_cache *cache;

	*nr = *nr_irq = 0;
	if (!bs->cache)
		return;
	cache = per_cpu_ptr(bs->cache, cpu);
	*nr = READ_ONCE(cache->nr);
	*nr_irq = READ_ONCE(cache->nr_irq);
}

void blksim_bio_drain_caches(void)
{
	struct bio_set *bs;
	int cpu;

	spin_lock(&bioset_cache_lock);
	for (bs = bioset_cache_list; bs; bs = bs->sim_next) {
		for_each_cache_slot(cpu) {
			struct bio_alloc_cache *cache =
				per_cpu_ptr(bs->cache, cpu);

			/* most slots are empty: skip their irq-off dance */
			if (!READ_ONCE(cache->free_list) &&
			    !READ_ONCE(cache->free_list_irq))
				continue;
			bio_alloc_cache_prune(cache, -1U);
		}
	}
	spin_unlock(&bioset_cache_lock);
}
