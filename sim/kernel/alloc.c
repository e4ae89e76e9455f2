// SPDX-License-Identifier: GPL-2.0-only
/*
 * kmalloc, kmem_cache, page and per-CPU allocations, all accounted to the
 * call site that made them.  A small header in front of each object
 * records its site and size, so kfree() can account without the caller's
 * help and a double or wild free is caught.
 *
 * A SLAB_TYPESAFE_BY_RCU cache (the bio slabs) keeps what is freed to it
 * as the kernel's slab does: the memory stays a object of that cache,
 * readable by an RCU reader holding a stale pointer (iocb_bio_iopoll()),
 * and the next allocation takes it again.  Under ASan it is poisoned
 * while free, so any other use after free is still reported.
 */
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sanitizer/asan_interface.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <sim/fault.h>
#include <sim/stats.h>

#define HDR_MAGIC 0x6b6d616cU /* "kmal" */
#define HDR_DEAD 0x64656164U /* "dead" */

struct alloc_hdr {
	struct sim_alloc_site *site;
	struct kmem_cache *cache;
	void *raw;
	size_t size;
	u32 magic;
	u32 pad;
	struct alloc_hdr *next_free; /* on a typesafe cache's free list */
};

struct kmem_cache {
	const char *name;
	unsigned int size;
	unsigned int align;
	void (*ctor)(void *);
	long live;
	bool dead; /* destroyed with objects left: freed with the last one */
	/* SLAB_TYPESAFE_BY_RCU: freed objects, kept for the next allocation */
	bool typesafe;
	pthread_mutex_t free_lock;
	struct alloc_hdr *free_list;
};

static struct sim_alloc_site *sites;
static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;
static long total_allocs;

DEFINE_SIM_GAUGE(stat_alloc_live, "alloc_live");
DEFINE_SIM_STAT(stat_alloc_failed, "alloc_failed");

static void site_register(struct sim_alloc_site *site)
{
	if (__atomic_load_n(&site->registered, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&sites_lock);
	if (!site->registered) {
		site->next = sites;
		sites = site;
		__atomic_store_n(&site->registered, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&sites_lock);
}

/* A freed object of typesafe cache @c to hand out again, or NULL. */
static struct alloc_hdr *typesafe_reuse(struct kmem_cache *c)
{
	struct alloc_hdr *hdr;

	pthread_mutex_lock(&c->free_lock);
	hdr = c->free_list;
	if (hdr)
		c->free_list = hdr->next_free;
	pthread_mutex_unlock(&c->free_lock);
	return hdr;
}

static void *alloc_object(size_t size, size_t align, gfp_t flags,
			  struct sim_alloc_site *site, struct kmem_cache *c)
{
	struct alloc_hdr *hdr;
	char *raw, *obj;

	if (gfpflags_allow_blocking(flags))
		sim_might_sleep(site->file, site->line, site->func);
	site_register(site);
	if (sim_fault_alloc_fail(site, flags)) {
		__atomic_fetch_add(&site->failed, 1, __ATOMIC_RELAXED);
		sim_stat_inc(&stat_alloc_failed);
		return NULL;
	}
	if (align < 16)
		align = 16;
	hdr = c && c->typesafe ? typesafe_reuse(c) : NULL;
	if (hdr) {
		obj = (char *)(hdr + 1);
		ASAN_UNPOISON_MEMORY_REGION(obj, size);
	} else {
		raw = malloc(size + align + sizeof(*hdr));
		if (!raw)
			abort(); /* the host is out of memory: not a fault */
		obj = (char *)ALIGN((unsigned long)raw + sizeof(*hdr), align);
		hdr = (struct alloc_hdr *)obj - 1;
		hdr->raw = raw;
	}
	hdr->site = site;
	hdr->cache = c;
	hdr->size = size;
	hdr->magic = HDR_MAGIC;
	if (flags & __GFP_ZERO)
		memset(obj, 0, size);
	sim_counter_add(&site->live, 1);
	sim_counter_add(&site->live_bytes, (long)size);
	sim_counter_add(&site->total, 1);
	sim_counter_add(&total_allocs, 1);
	sim_stat_inc(&stat_alloc_live);
	return obj;
}

static struct alloc_hdr *object_hdr(const void *objp, const char *what)
{
	struct alloc_hdr *hdr = (struct alloc_hdr *)objp - 1;

	if (hdr->magic == HDR_DEAD)
		sim_bug_hit(__FILE__, __LINE__, what, "double free");
	if (hdr->magic != HDR_MAGIC)
		sim_bug_hit(__FILE__, __LINE__, what,
			    "free of memory not from the allocator");
	return hdr;
}

static void free_object(struct alloc_hdr *hdr)
{
	struct sim_alloc_site *site = hdr->site;
	struct kmem_cache *c = hdr->cache;

	sim_counter_add(&site->live, -1);
	sim_counter_add(&site->live_bytes, -(long)hdr->size);
	sim_stat_dec(&stat_alloc_live);
	hdr->magic = HDR_DEAD;
	if (c && c->typesafe && !__atomic_load_n(&c->dead, __ATOMIC_ACQUIRE)) {
		ASAN_POISON_MEMORY_REGION(hdr + 1, hdr->size);
		pthread_mutex_lock(&c->free_lock);
		hdr->next_free = c->free_list;
		c->free_list = hdr;
		pthread_mutex_unlock(&c->free_lock);
		return;
	}
	free(hdr->raw);
}

bool sim_slab_typesafe_freed(const void *objp)
{
	const struct alloc_hdr *hdr = (const struct alloc_hdr *)objp - 1;

	return hdr->magic == HDR_DEAD && hdr->cache && hdr->cache->typesafe;
}

/* Not instrumented: the object may be poisoned, and reading it is allowed. */
__attribute__((no_sanitize("address"))) void
sim_slab_typesafe_read(void *dst, const void *objp, size_t len)
{
	const volatile u8 *src = objp;
	u8 *d = dst;

	while (len--)
		*d++ = *src++;
}

void *sim_kmalloc(size_t size, size_t align, gfp_t flags,
		  struct sim_alloc_site *site)
{
	return alloc_object(size, align, flags, site, NULL);
}

void sim_kfree(const void *objp)
{
	struct alloc_hdr *hdr;

	if (!objp)
		return;
	hdr = object_hdr(objp, "kfree");
	if (WARN_ON_ONCE(hdr->cache))
		return; /* belongs to a kmem_cache: kmem_cache_free() it */
	free_object(hdr);
}

size_t sim_ksize(const void *objp)
{
	return object_hdr(objp, "ksize")->size;
}

struct kmem_cache *sim_kmem_cache_create(const char *name, unsigned int size,
					 unsigned int align, unsigned int flags,
					 void (*ctor)(void *))
{
	struct kmem_cache *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->name = name;
	s->size = size;
	s->align = align ? align : ARCH_KMALLOC_MINALIGN;
	if (flags & SLAB_HWCACHE_ALIGN)
		s->align = max_t(unsigned int, s->align, 64);
	s->ctor = ctor;
	s->typesafe = flags & SLAB_TYPESAFE_BY_RCU;
	pthread_mutex_init(&s->free_lock, NULL);
	return s;
}

/* The objects a typesafe cache kept: its memory goes back at destroy. */
static void typesafe_release(struct kmem_cache *s)
{
	struct alloc_hdr *hdr;

	while ((hdr = typesafe_reuse(s))) {
		ASAN_UNPOISON_MEMORY_REGION(hdr + 1, hdr->size);
		free(hdr->raw);
	}
}

void kmem_cache_destroy(struct kmem_cache *s)
{
	if (!s)
		return;
	typesafe_release(s);
	if (__atomic_load_n(&s->live, __ATOMIC_RELAXED)) {
		pr_err("kmem_cache_destroy %s: Slab cache still has objects "
		       "(%ld)\n",
		       s->name, s->live);
		WARN_ON_ONCE(1);
		/* keep it until the leaked objects go, so they still can */
		__atomic_store_n(&s->dead, true, __ATOMIC_RELEASE);
		return;
	}
	kfree(s);
}

void *sim_kmem_cache_alloc(struct kmem_cache *s, gfp_t flags,
			   struct sim_alloc_site *site)
{
	void *obj = alloc_object(s->size, s->align, flags, site, s);

	if (obj) {
		__atomic_fetch_add(&s->live, 1, __ATOMIC_RELAXED);
		if (s->ctor && !(flags & __GFP_ZERO))
			s->ctor(obj);
	}
	return obj;
}

void kmem_cache_free(struct kmem_cache *s, void *objp)
{
	struct alloc_hdr *hdr;

	if (!objp)
		return;
	hdr = object_hdr(objp, "kmem_cache_free");
	if (WARN_ON_ONCE(hdr->cache != s))
		return;
	free_object(hdr);
	if (__atomic_sub_fetch(&s->live, 1, __ATOMIC_SEQ_CST) == 0 &&
	    __atomic_load_n(&s->dead, __ATOMIC_ACQUIRE))
		kfree(s);
}

unsigned int kmem_cache_size(struct kmem_cache *s)
{
	return s->size;
}

long sim_kmem_cache_live(struct kmem_cache *s)
{
	return __atomic_load_n(&s->live, __ATOMIC_RELAXED);
}

struct page *sim_alloc_pages(gfp_t gfp, unsigned int order,
			     struct sim_alloc_site *site)
{
	return alloc_object(PAGE_SIZE << order, PAGE_SIZE, gfp, site, NULL);
}

void __free_pages(struct page *page, unsigned int order)
{
	sim_kfree(page);
}

/* Per-CPU areas: a stride header, then NR_CPUS cache-line aligned slots. */
void *sim_alloc_percpu(size_t size, struct sim_alloc_site *site)
{
	size_t stride = ALIGN(size, SMP_CACHE_BYTES);
	char *p = alloc_object(SMP_CACHE_BYTES + stride * NR_CPUS,
			       SMP_CACHE_BYTES, GFP_KERNEL | __GFP_ZERO, site,
			       NULL);

	if (!p)
		return NULL;
	*(size_t *)p = stride;
	return p;
}

void *sim_per_cpu_ptr(void *ptr, int cpu)
{
	char *p = ptr;

	BUG_ON(cpu < 0 || cpu >= NR_CPUS);
	return p + SMP_CACHE_BYTES + (size_t)cpu * *(size_t *)p;
}

void free_percpu(void *ptr)
{
	sim_kfree(ptr);
}

long sim_alloc_live(void)
{
	return sim_stat_read(&stat_alloc_live);
}

long sim_alloc_live_bytes(void)
{
	long n = 0;

	pthread_mutex_lock(&sites_lock);
	for (struct sim_alloc_site *s = sites; s; s = s->next)
		n += __atomic_load_n(&s->live_bytes, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&sites_lock);
	return n;
}

long sim_alloc_total(void)
{
	return __atomic_load_n(&total_allocs, __ATOMIC_RELAXED);
}

void sim_alloc_for_each_site(void (*fn)(const struct sim_alloc_site *s,
					void *arg),
			     void *arg)
{
	pthread_mutex_lock(&sites_lock);
	for (struct sim_alloc_site *s = sites; s; s = s->next)
		fn(s, arg);
	pthread_mutex_unlock(&sites_lock);
}

struct leak_args {
	FILE *out;
	int n;
	bool since_mark;
};

static void leak_line(const struct sim_alloc_site *s, void *arg)
{
	struct leak_args *a = arg;
	long live = __atomic_load_n(&s->live, __ATOMIC_RELAXED);

	if (a->since_mark)
		live -= s->mark;
	if (live <= 0)
		return;
	fprintf(a->out, "leak: %ld object(s) allocated at %s:%d %s()%s\n", live,
		s->file, s->line, s->func,
		a->since_mark ? " since the test began" : "");
	a->n++;
}

int sim_alloc_report_leaks(FILE *out)
{
	struct leak_args a = { .out = out };

	sim_alloc_for_each_site(leak_line, &a);
	return a.n;
}

int sim_alloc_report_leaks_since_mark(FILE *out)
{
	struct leak_args a = { .out = out, .since_mark = true };

	sim_alloc_for_each_site(leak_line, &a);
	return a.n;
}

static void mark_site(const struct sim_alloc_site *s, void *arg)
{
	((struct sim_alloc_site *)s)->mark =
		__atomic_load_n(&s->live, __ATOMIC_RELAXED);
}

void sim_alloc_mark(void)
{
	sim_alloc_for_each_site(mark_site, NULL);
}
