/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Allocation accounting by call site.  Each kmalloc/kmem_cache_alloc/
 * alloc_pages call site owns a static struct sim_alloc_site, registered on
 * first use; it counts live objects and bytes, totals and injected
 * failures.  sim_alloc_report_leaks() names every site with live objects.
 */
#ifndef _SIM_ALLOC_H
#define _SIM_ALLOC_H

#include <stdio.h>
#include <linux/types.h>

struct sim_alloc_site {
	const char *file;
	int line;
	const char *func;
	long live;
	long live_bytes;
	long total;
	long failed;
	long mark; /* live count at the last sim_alloc_mark() */
	int registered;
	struct sim_alloc_site *next;
};

#define SIM_ALLOC_SITE()                                                \
	({                                                              \
		static struct sim_alloc_site __sim_site = { __FILE__,   \
							    __LINE__,   \
							    __func__ }; \
		&__sim_site;                                            \
	})

/* Live objects over all sites (kmalloc, caches, pages, per-CPU). */
long sim_alloc_live(void);
long sim_alloc_live_bytes(void);
long sim_alloc_total(void);
/* Print one line per site with live objects; returns the number of sites. */
int sim_alloc_report_leaks(FILE *out);
/*
 * Remember every site's live count; sim_alloc_report_leaks_since_mark()
 * then names only the sites that gained objects since (a test's leaks,
 * not the long-lived objects that were there before it).
 */
void sim_alloc_mark(void);
int sim_alloc_report_leaks_since_mark(FILE *out);
/* Every registered site, for reports: calls fn for each. */
void sim_alloc_for_each_site(void (*fn)(const struct sim_alloc_site *s,
					void *arg),
			     void *arg);

#endif /* _SIM_ALLOC_H */
