/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Deterministic fault injection for the sim layer: allocations and page
 * pinning.  (The block layer's fault backend fails bios; the test
 * filesystem fails iomap_begin.)  Injection counts only while armed, so a
 * caller can aim at "the Nth allocation inside iomap_dio_rw".
 */
#ifndef _SIM_FAULT_H
#define _SIM_FAULT_H

#include <linux/gfp.h>
#include <linux/types.h>

struct sim_alloc_site;

struct sim_fault_alloc {
	u64 nth; /* fail the Nth failable allocation (1-based), 0 off */
	const char *site; /* only sites whose "func" or "file:line" match */
	u32 prob_ppm; /* else fail with this probability (per million) */
	u64 seed;
};

void sim_fault_alloc_set(const struct sim_fault_alloc *cfg);
void sim_fault_reset(void);
/* Start/stop counting and injecting. */
void sim_fault_arm(bool armed);
bool sim_fault_armed(void);
/* Allocator hook: should this allocation fail? */
bool sim_fault_alloc_fail(const struct sim_alloc_site *site, gfp_t gfp);
/* Failable allocations seen while armed, and failures injected. */
u64 sim_fault_alloc_seen(void);
u64 sim_fault_alloc_injected(void);

/*
 * Short page pinning: the Nth extraction (iov_iter_extract_pages on a
 * user-backed iterator) pins at most @bytes; bytes == 0 makes it fail
 * with -EFAULT.
 */
void sim_fault_short_pin_set(u64 nth, size_t bytes);
/*
 * Unmapped user memory: from the page-aligned address @addr up nothing is
 * mapped (0: everything is), as after munmap() or mprotect(PROT_NONE).
 * pin_user_pages_fast() pins the pages before the first one it cannot
 * map, and fails with -EFAULT when that is the first.
 */
void sim_fault_unmapped_set(unsigned long addr);
/*
 * Extraction hook: how many of the @want bytes at @addr may be pinned
 * (<0: -EFAULT), by the short-pin rule and the unmapped memory.
 */
ssize_t sim_fault_pin_limit(unsigned long addr, size_t want);

#endif /* _SIM_FAULT_H */
