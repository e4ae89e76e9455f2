/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kmalloc and kmem_cache.  Every allocation is accounted to its call site
 * (file, line, function: see <sim/alloc.h>) and goes through the fault
 * injector, so a test can fail exactly the allocation it wants and a leak
 * report names the line that allocated.  A sleeping GFP mask calls
 * might_sleep(), as the kernel's allocator does.
 */
#ifndef _LINUX_SLAB_H
#define _LINUX_SLAB_H

#include <linux/gfp.h>
#include <linux/kernel.h>
#include <sim/alloc.h>

#define SLAB_HWCACHE_ALIGN 0x00002000U
#define SLAB_PANIC 0x00040000U
/* freed memory stays an object of the cache for RCU readers */
#define SLAB_TYPESAFE_BY_RCU 0x00080000U
#define SLAB_ACCOUNT 0x04000000U
#define ARCH_KMALLOC_MINALIGN 16

void *sim_kmalloc(size_t size, size_t align, gfp_t flags,
		  struct sim_alloc_site *site);
void sim_kfree(const void *objp);
size_t sim_ksize(const void *objp);

#define kmalloc(size, flags) \
	sim_kmalloc((size), ARCH_KMALLOC_MINALIGN, (flags), SIM_ALLOC_SITE())
#define kzalloc(size, flags)                                             \
	sim_kmalloc((size), ARCH_KMALLOC_MINALIGN, (flags) | __GFP_ZERO, \
		    SIM_ALLOC_SITE())
#define kmalloc_array(n, size, flags)                                       \
	({                                                                  \
		size_t __b;                                                 \
		__builtin_mul_overflow((n), (size), &__b) ?                 \
			NULL :                                              \
			sim_kmalloc(__b, ARCH_KMALLOC_MINALIGN, (flags),    \
				    SIM_ALLOC_SITE());                      \
	})
/*
 * kmalloc_obj(VAR_OR_TYPE[, gfp]): one object of the type of the
 * expression or type, GFP_KERNEL unless given (newer trees' slab.h).
 */
#define __kmalloc_obj_gfp(gfp, ...) (gfp)
#define kmalloc_obj(VAR_OR_TYPE, ...)                                       \
	((typeof(VAR_OR_TYPE) *)kmalloc(sizeof(typeof(VAR_OR_TYPE)),        \
		__kmalloc_obj_gfp(__VA_ARGS__ __VA_OPT__(,) GFP_KERNEL)))
#define kcalloc(n, size, flags) kmalloc_array(n, size, (flags) | __GFP_ZERO)
#define kvmalloc(size, flags) kmalloc(size, flags)
#define kvzalloc(size, flags) kzalloc(size, flags)
#define kfree(p) sim_kfree(p)
#define kvfree(p) sim_kfree(p)
#define ksize(p) sim_ksize(p)

struct kmem_cache;

struct kmem_cache *sim_kmem_cache_create(const char *name, unsigned int size,
					 unsigned int align,
					 unsigned int flags,
					 void (*ctor)(void *));
void kmem_cache_destroy(struct kmem_cache *s);
void *sim_kmem_cache_alloc(struct kmem_cache *s, gfp_t flags,
			   struct sim_alloc_site *site);
void kmem_cache_free(struct kmem_cache *s, void *objp);
unsigned int kmem_cache_size(struct kmem_cache *s);
/* Objects of this cache still allocated (for leak checks). */
long sim_kmem_cache_live(struct kmem_cache *s);
/*
 * (sim) For an RCU reader's stale pointer into a SLAB_TYPESAFE_BY_RCU
 * cache: whether the object is free now, and its bytes as they stand
 * (what the kernel's reader would see; free objects are ASan-poisoned).
 */
bool sim_slab_typesafe_freed(const void *objp);
void sim_slab_typesafe_read(void *dst, const void *objp, size_t len);

#define kmem_cache_create(name, size, align, flags, ctor) \
	sim_kmem_cache_create(name, size, align, flags, ctor)
#define kmem_cache_alloc(s, flags) \
	sim_kmem_cache_alloc((s), (flags), SIM_ALLOC_SITE())
#define kmem_cache_zalloc(s, flags) \
	sim_kmem_cache_alloc((s), (flags) | __GFP_ZERO, SIM_ALLOC_SITE())

#endif /* _LINUX_SLAB_H */
