/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mempool: a reserve of preallocated elements that guarantees forward
 * progress.  As in mm/mempool.c, mempool_alloc() with a sleeping mask never
 * returns NULL: it tries the allocator, then the reserve, then sleeps until
 * an element is freed back (in the deterministic engine that means running
 * pending events; with none left it reports the deadlock).
 */
#ifndef _LINUX_MEMPOOL_H
#define _LINUX_MEMPOOL_H

#include <linux/gfp.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

struct kmem_cache;

typedef void *(mempool_alloc_t)(gfp_t gfp_mask, void *pool_data);
typedef void(mempool_free_t)(void *element, void *pool_data);

typedef struct mempool {
	spinlock_t lock;
	int min_nr;
	int curr_nr;
	void **elements;
	void *pool_data;
	mempool_alloc_t *alloc;
	mempool_free_t *free;
	wait_queue_head_t wait;
} mempool_t;

int mempool_init(mempool_t *pool, int min_nr, mempool_alloc_t *alloc_fn,
		 mempool_free_t *free_fn, void *pool_data);
int mempool_init_slab_pool(mempool_t *pool, int min_nr,
			   struct kmem_cache *kc);
int mempool_init_kmalloc_pool(mempool_t *pool, int min_nr, size_t size);
void mempool_exit(mempool_t *pool);
mempool_t *mempool_create(int min_nr, mempool_alloc_t *alloc_fn,
			  mempool_free_t *free_fn, void *pool_data);
void mempool_destroy(mempool_t *pool);
bool mempool_initialized(mempool_t *pool);
void *mempool_alloc(mempool_t *pool, gfp_t gfp_mask);
void mempool_free(void *element, mempool_t *pool);

void *mempool_alloc_slab(gfp_t gfp_mask, void *pool_data);
void mempool_free_slab(void *element, void *pool_data);
void *mempool_kmalloc(gfp_t gfp_mask, void *pool_data);
void mempool_kfree(void *element, void *pool_data);

#endif /* _LINUX_MEMPOOL_H */
