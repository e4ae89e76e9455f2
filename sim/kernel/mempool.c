// SPDX-License-Identifier: GPL-2.0-only
/*
 * mempool, after mm/mempool.c: allocator first, reserve second, and for a
 * sleeping mask, wait for an element to come back rather than fail.
 */
#include <linux/mempool.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <sim/stats.h>

extern __thread int sim_fault_nocount;

DEFINE_SIM_STAT(stat_mempool_reserve, "mempool_reserve_used");
DEFINE_SIM_STAT(stat_mempool_waits, "mempool_waits");

static void add_element(mempool_t *pool, void *element)
{
	BUG_ON(pool->curr_nr >= pool->min_nr);
	pool->elements[pool->curr_nr] = element;
	/* atomic: waiters test curr_nr without the lock */
	__atomic_store_n(&pool->curr_nr, pool->curr_nr + 1, __ATOMIC_RELEASE);
}

static void *remove_element(mempool_t *pool)
{
	__atomic_store_n(&pool->curr_nr, pool->curr_nr - 1, __ATOMIC_RELAXED);
	return pool->elements[pool->curr_nr];
}

void mempool_exit(mempool_t *pool)
{
	while (pool->curr_nr)
		pool->free(remove_element(pool), pool->pool_data);
	kfree(pool->elements);
	pool->elements = NULL;
	sim_waitqueue_destroy(&pool->wait);
}

int mempool_init(mempool_t *pool, int min_nr, mempool_alloc_t *alloc_fn,
		 mempool_free_t *free_fn, void *pool_data)
{
	spin_lock_init(&pool->lock);
	pool->min_nr = min_nr;
	pool->pool_data = pool_data;
	pool->alloc = alloc_fn;
	pool->free = free_fn;
	pool->curr_nr = 0;
	init_waitqueue_head(&pool->wait);
	pool->elements =
		kmalloc_array(min_nr ? min_nr : 1, sizeof(void *), GFP_KERNEL);
	if (!pool->elements)
		return -ENOMEM;
	while (pool->curr_nr < pool->min_nr) {
		void *element = pool->alloc(GFP_KERNEL, pool->pool_data);

		if (!element) {
			mempool_exit(pool);
			return -ENOMEM;
		}
		add_element(pool, element);
	}
	return 0;
}

bool mempool_initialized(mempool_t *pool)
{
	return pool->elements != NULL;
}

mempool_t *mempool_create(int min_nr, mempool_alloc_t *alloc_fn,
			  mempool_free_t *free_fn, void *pool_data)
{
	mempool_t *pool = kzalloc(sizeof(*pool), GFP_KERNEL);

	if (!pool)
		return NULL;
	if (mempool_init(pool, min_nr, alloc_fn, free_fn, pool_data)) {
		kfree(pool);
		return NULL;
	}
	return pool;
}

void mempool_destroy(mempool_t *pool)
{
	if (!pool)
		return;
	mempool_exit(pool);
	kfree(pool);
}

void *mempool_alloc(mempool_t *pool, gfp_t gfp_mask)
{
	bool can_sleep = gfpflags_allow_blocking(gfp_mask);
	gfp_t gfp_temp;
	void *element;
	unsigned long flags;

	if (can_sleep)
		might_sleep();
	/* First try: no direct reclaim, no retries, no warnings. */
	gfp_temp = (gfp_mask & ~(__GFP_DIRECT_RECLAIM | __GFP_IO)) |
		   __GFP_NOMEMALLOC | __GFP_NORETRY | __GFP_NOWARN;
	for (;;) {
		if (can_sleep)
			sim_fault_nocount++;
		element = pool->alloc(gfp_temp, pool->pool_data);
		if (can_sleep)
			sim_fault_nocount--;
		if (element)
			return element;

		spin_lock_irqsave(&pool->lock, flags);
		if (pool->curr_nr) {
			element = remove_element(pool);
			spin_unlock_irqrestore(&pool->lock, flags);
			sim_stat_inc(&stat_mempool_reserve);
			return element;
		}
		spin_unlock_irqrestore(&pool->lock, flags);

		if (!can_sleep)
			return NULL;
		/* Second pass with the caller's full mask, then wait. */
		if (gfp_temp != gfp_mask) {
			gfp_temp = gfp_mask;
			continue;
		}
		sim_stat_inc(&stat_mempool_waits);
		wait_event(pool->wait,
			   __atomic_load_n(&pool->curr_nr, __ATOMIC_ACQUIRE));
	}
}

void mempool_free(void *element, mempool_t *pool)
{
	unsigned long flags;

	if (!element)
		return;
	if (__atomic_load_n(&pool->curr_nr, __ATOMIC_RELAXED) < pool->min_nr) {
		spin_lock_irqsave(&pool->lock, flags);
		if (pool->curr_nr < pool->min_nr) {
			add_element(pool, element);
			spin_unlock_irqrestore(&pool->lock, flags);
			wake_up(&pool->wait);
			return;
		}
		spin_unlock_irqrestore(&pool->lock, flags);
	}
	pool->free(element, pool->pool_data);
}

void *mempool_alloc_slab(gfp_t gfp_mask, void *pool_data)
{
	return kmem_cache_alloc(pool_data, gfp_mask);
}

void mempool_free_slab(void *element, void *pool_data)
{
	kmem_cache_free(pool_data, element);
}

void *mempool_kmalloc(gfp_t gfp_mask, void *pool_data)
{
	return kmalloc((size_t)pool_data, gfp_mask);
}

void mempool_kfree(void *element, void *pool_data)
{
	kfree(element);
}

int mempool_init_slab_pool(mempool_t *pool, int min_nr, struct kmem_cache *kc)
{
	return mempool_init(pool, min_nr, mempool_alloc_slab, mempool_free_slab,
			    kc);
}

int mempool_init_kmalloc_pool(mempool_t *pool, int min_nr, size_t size)
{
	return mempool_init(pool, min_nr, mempool_kmalloc, mempool_kfree,
			    (void *)size);
}
