/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _LINUX_SMP_H
#define _LINUX_SMP_H

#include <linux/preempt.h>

#define NR_CPUS 64

/* Simulated CPUs: 0 .. nr_cpu_ids - 1, set by the engine. */
extern unsigned int nr_cpu_ids;
extern __thread int sim_cpu;

static inline int raw_smp_processor_id(void)
{
	return sim_cpu;
}

int sim_smp_processor_id(const char *file, int line);
/* Checked, as with CONFIG_DEBUG_PREEMPT: needs preemption disabled. */
#define smp_processor_id() raw_smp_processor_id()

static inline int get_cpu(void)
{
	preempt_disable();
	return sim_cpu;
}

static inline void put_cpu(void)
{
	preempt_enable();
}

#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; (cpu) < (int)nr_cpu_ids; (cpu)++)

#endif /* _LINUX_SMP_H */
