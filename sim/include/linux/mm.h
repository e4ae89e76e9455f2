/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pages and folios, minimal.  There is no mem_map: a struct page pointer is
 * the page-aligned virtual address of the page itself, and a folio is one
 * page.  struct page is deliberately an incomplete type, so code must use
 * the accessors (page_address, nth_page, folio_page...) as kernel code
 * should.  Pin counts and dirty bits live in a side table (sim/kernel/
 * page.c) that exists only while a page is pinned or dirty, which is all the
 * bio layer needs and lets any memory (user buffer, kmalloc, alloc_pages)
 * be put in a bio.
 */
#ifndef _LINUX_MM_H
#define _LINUX_MM_H

#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/sizes.h>
#include <sim/alloc.h>

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define offset_in_page(p) ((unsigned long)(p) & ~PAGE_MASK)
#define PAGE_ALIGN(addr) ALIGN(addr, PAGE_SIZE)

/* the order of the smallest power-of-two run of pages holding @size */
static inline int get_order(unsigned long size)
{
	int order = 0;

	size = (size - 1) >> PAGE_SHIFT;
	while (size) {
		order++;
		size >>= 1;
	}
	return order;
}

struct page;
struct folio;
/*
 * Declared by the kernel's header chain before include/linux/iomap.h
 * names them in prototypes (buffered I/O, which the simulator leaves out).
 */
struct readahead_control;
struct writeback_control;

static inline void *page_address(const struct page *page)
{
	return (void *)page;
}

static inline struct page *virt_to_page(const void *addr)
{
	return (struct page *)((unsigned long)addr & PAGE_MASK);
}

static inline struct page *nth_page(struct page *page, unsigned long n)
{
	return (struct page *)((char *)page + (n << PAGE_SHIFT));
}

static inline unsigned long page_to_pfn(const struct page *page)
{
	return (unsigned long)page >> PAGE_SHIFT;
}

static inline struct folio *page_folio(const struct page *page)
{
	return (struct folio *)page;
}

static inline struct page *folio_page(struct folio *folio, unsigned long n)
{
	return nth_page((struct page *)folio, n);
}

static inline void *folio_address(const struct folio *folio)
{
	return (void *)folio;
}

static inline size_t folio_size(const struct folio *folio)
{
	return PAGE_SIZE;
}

static inline unsigned long folio_nr_pages(const struct folio *folio)
{
	return 1;
}

static inline unsigned int folio_order(const struct folio *folio)
{
	return 0;
}

static inline size_t offset_in_folio(const struct folio *folio,
				     const void *p)
{
	return offset_in_page(p);
}

/* Page allocation: accounted like kmalloc, page aligned. */
struct page *sim_alloc_pages(gfp_t gfp, unsigned int order,
			     struct sim_alloc_site *site);
void __free_pages(struct page *page, unsigned int order);
#define alloc_pages(gfp, order) sim_alloc_pages(gfp, order, SIM_ALLOC_SITE())
#define alloc_page(gfp) alloc_pages(gfp, 0)
#define __free_page(page) __free_pages((page), 0)
#define folio_alloc(gfp, order) \
	((struct folio *)sim_alloc_pages(gfp, order, SIM_ALLOC_SITE()))
#define folio_put(folio) __free_pages((struct page *)(folio), 0)

/* The shared zero page (one page of zeroes, never written). */
extern struct page *sim_zero_page;
#define ZERO_PAGE(vaddr) (sim_zero_page)
struct folio *largest_zero_folio(void);

static inline bool is_zero_folio(const struct folio *folio)
{
	return folio == page_folio(sim_zero_page);
}

/*
 * get_page/put_page: plain references on pages the kernel would refcount
 * (non-pinning extraction).  Accounted so a leak shows up.
 */
void get_page(struct page *page);
void put_page(struct page *page);
static inline void folio_get(struct folio *folio)
{
	get_page((struct page *)folio);
}

/* FOLL_PIN pins, as pin_user_pages_fast() and unpin_user_page() do. */
void sim_pin_user_page(struct page *page);
void unpin_user_page(struct page *page);
void unpin_user_pages(struct page **pages, unsigned long npages);
void unpin_user_folio(struct folio *folio, unsigned long npages);
void unpin_user_page_range_dirty_lock(struct page *page, unsigned long npages,
				      bool make_dirty);
/* Pins currently held on @page (0 for an untracked page). */
int sim_page_pincount(const struct page *page);

/* Dirty state. */
bool folio_test_dirty(const struct folio *folio);
bool folio_mark_dirty(struct folio *folio);
bool set_page_dirty_lock(struct page *page);
void folio_lock(struct folio *folio);
void folio_unlock(struct folio *folio);
static inline bool PageDirty(const struct page *page)
{
	return folio_test_dirty(page_folio(page));
}
/* Test hook: writeback cleans the page (as if flushed to its file). */
void sim_folio_clear_dirty(struct folio *folio);

#endif /* _LINUX_MM_H */
