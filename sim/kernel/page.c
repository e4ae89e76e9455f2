// SPDX-License-Identifier: GPL-2.0-only
/*
 * Page pins, references and dirty bits.  A struct page pointer is the
 * page's address (see <linux/mm.h>), so state lives in a hashed side table
 * holding only pages that are pinned, referenced or dirty.  An entry goes
 * away when its last pin or reference is dropped: the simulator forgets a
 * user page's dirty bit then, as if it had been written back.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <sim/engine.h>
#include <sim/stats.h>

#define PAGE_BUCKETS 4096
#define PAGE_LOCKS 64

struct page_state {
	unsigned long addr;
	int pincount;
	int refs;
	bool dirty;
	struct page_state *next;
};

static struct page_state *buckets[PAGE_BUCKETS];
/*
 * Bucket locks guard a few loads and stores and are taken several times
 * per page of every I/O: a test-and-set lock costs a fraction of an
 * uncontended mutex.  A holder the host descheduled is waited out with
 * sched_yield().  One cache line each, so threads on other buckets do not
 * bounce it.
 */
static struct {
	unsigned char held;
	/*
	 * States freed under this lock, for reuse: a state lives from a
	 * pin to its unpin, and malloc/free per page of every I/O showed.
	 */
	struct page_state *spare;
	unsigned int nr_spare;
} __aligned(64) locks[PAGE_LOCKS];

#define PAGE_SPARES 32

DEFINE_SIM_GAUGE(stat_pinned_pages, "pages_pinned");
DEFINE_SIM_GAUGE(stat_page_refs, "page_refs");
DEFINE_SIM_STAT(stat_pages_dirtied, "pages_dirtied");
DEFINE_SIM_STAT(stat_pins_total, "pages_pin_total");

static char zero_page_storage[PAGE_SIZE] __aligned(PAGE_SIZE);
struct page *sim_zero_page = (struct page *)zero_page_storage;

struct folio *largest_zero_folio(void)
{
	return page_folio(sim_zero_page);
}

static unsigned long hash_addr(unsigned long addr)
{
	return (addr >> PAGE_SHIFT) * 0x9e3779b97f4a7c15ULL >> 52;
}

/*
 * The side table is the simulator's, not the kernel's (a pin there is an
 * atomic add on the folio's count): its bucket locks matter only when
 * real threads pin pages (sim_engine_threaded()).
 */
static void bucket_lock(unsigned long h)
{
	unsigned char *l = &locks[h % PAGE_LOCKS].held;
	unsigned int spins = 0;

	if (!sim_engine_threaded())
		return;
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(l, __ATOMIC_RELAXED)) {
			if (++spins % 128 == 0)
				sched_yield();
#if defined(__x86_64__) || defined(__i386__)
			else
				__builtin_ia32_pause();
#endif
		}
	}
}

static void bucket_unlock(unsigned long h)
{
	if (!sim_engine_threaded())
		return;
	__atomic_store_n(&locks[h % PAGE_LOCKS].held, 0, __ATOMIC_RELEASE);
}

/* Find (or with @create make) the state of @page; bucket lock held. */
static struct page_state *state_get(unsigned long h, unsigned long addr,
				    bool create)
{
	struct page_state *s;

	for (s = buckets[h]; s; s = s->next)
		if (s->addr == addr)
			return s;
	if (!create)
		return NULL;
	s = locks[h % PAGE_LOCKS].spare;
	if (s) {
		locks[h % PAGE_LOCKS].spare = s->next;
		locks[h % PAGE_LOCKS].nr_spare--;
		memset(s, 0, sizeof(*s));
	} else {
		s = calloc(1, sizeof(*s));
		if (!s)
			abort();
	}
	s->addr = addr;
	s->next = buckets[h];
	buckets[h] = s;
	return s;
}

static void state_put(unsigned long h, struct page_state *s)
{
	struct page_state **pp;

	if (s->pincount || s->refs)
		return;
	for (pp = &buckets[h]; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			if (locks[h % PAGE_LOCKS].nr_spare < PAGE_SPARES) {
				s->next = locks[h % PAGE_LOCKS].spare;
				locks[h % PAGE_LOCKS].spare = s;
				locks[h % PAGE_LOCKS].nr_spare++;
			} else {
				free(s);
			}
			return;
		}
	}
}

#define WITH_STATE(page, create, body)                        \
	do {                                                  \
		unsigned long __addr = (unsigned long)(page); \
		unsigned long __h = hash_addr(__addr);        \
		struct page_state *s;                         \
		bucket_lock(__h);                             \
		s = state_get(__h, __addr, create);           \
		body;                                         \
		if (s && (create))                            \
			state_put(__h, s);                    \
		bucket_unlock(__h);                           \
	} while (0)

void sim_pin_user_page(struct page *page)
{
	WITH_STATE(page, true, s->pincount++);
	sim_stat_inc(&stat_pinned_pages);
	sim_stat_inc(&stat_pins_total);
}

/*
 * Drop one pin or reference of a page: false, and nothing dropped, when
 * it has none (an unbalanced unpin_user_page() or put_page()).
 */
static bool state_drop(int *count)
{
	if (*count <= 0)
		return false;
	(*count)--;
	return true;
}

void unpin_user_page(struct page *page)
{
	bool bad;

	WITH_STATE(page, true, {
		bad = !state_drop(&s->pincount);
		if (!s->pincount && !s->refs)
			s->dirty = false;
	});
	if (WARN_ON_ONCE(bad))
		return; /* unpin of a page that was not pinned */
	sim_stat_dec(&stat_pinned_pages);
}

void unpin_user_pages(struct page **pages, unsigned long npages)
{
	for (unsigned long i = 0; i < npages; i++)
		unpin_user_page(pages[i]);
}

void unpin_user_folio(struct folio *folio, unsigned long npages)
{
	for (unsigned long i = 0; i < npages; i++)
		unpin_user_page(folio_page(folio, 0));
}

void unpin_user_page_range_dirty_lock(struct page *page, unsigned long npages,
				      bool make_dirty)
{
	for (unsigned long i = 0; i < npages; i++) {
		struct page *p = nth_page(page, i);

		if (make_dirty)
			set_page_dirty_lock(p);
		unpin_user_page(p);
	}
}

int sim_page_pincount(const struct page *page)
{
	int n = 0;

	WITH_STATE(page, false, n = s ? s->pincount : 0);
	return n;
}

void get_page(struct page *page)
{
	WITH_STATE(page, true, s->refs++);
	sim_stat_inc(&stat_page_refs);
}

void put_page(struct page *page)
{
	bool bad;

	WITH_STATE(page, true, bad = !state_drop(&s->refs));
	if (WARN_ON_ONCE(bad))
		return;
	sim_stat_dec(&stat_page_refs);
}

bool folio_test_dirty(const struct folio *folio)
{
	bool dirty = false;

	WITH_STATE(folio, false, dirty = s && s->dirty);
	return dirty;
}

/*
 * Only tracked pages (pinned or referenced) can hold a dirty bit: marking
 * an untracked page dirty is remembered nowhere, as if it were written
 * back at once.  DIO only dirties pages it has pinned (B-20).
 */
bool folio_mark_dirty(struct folio *folio)
{
	bool was = true;

	WITH_STATE(folio, false, {
		if (s) {
			was = s->dirty;
			s->dirty = true;
		}
	});
	if (!was)
		sim_stat_inc(&stat_pages_dirtied);
	return !was;
}

void sim_folio_clear_dirty(struct folio *folio)
{
	WITH_STATE(folio, false, {
		if (s)
			s->dirty = false;
	});
}

void folio_lock(struct folio *folio)
{
	might_sleep();
}

void folio_unlock(struct folio *folio)
{
}

bool set_page_dirty_lock(struct page *page)
{
	bool ret;

	folio_lock(page_folio(page));
	ret = folio_mark_dirty(page_folio(page));
	folio_unlock(page_folio(page));
	return ret;
}
