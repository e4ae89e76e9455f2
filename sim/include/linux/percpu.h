/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dynamic per-CPU memory: alloc_percpu() returns an opaque handle; the
 * storage is an array of NR_CPUS cache-line aligned slots.
 */
#ifndef _LINUX_PERCPU_H
#define _LINUX_PERCPU_H

#include <linux/cache.h>
#include <linux/smp.h>
#include <sim/alloc.h>

void *sim_alloc_percpu(size_t size, struct sim_alloc_site *site);
void free_percpu(void *ptr);
void *sim_per_cpu_ptr(void *ptr, int cpu);

#define alloc_percpu(type) \
	((type *)sim_alloc_percpu(sizeof(type), SIM_ALLOC_SITE()))
#define per_cpu_ptr(ptr, cpu) ((typeof(ptr))sim_per_cpu_ptr((ptr), (cpu)))
#define this_cpu_ptr(ptr) per_cpu_ptr(ptr, raw_smp_processor_id())
#define raw_cpu_ptr(ptr) this_cpu_ptr(ptr)

#endif /* _LINUX_PERCPU_H */
