/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Context queries and preemption/IRQ masking.  The context of the calling
 * thread is kept in thread-local state set by the engine when it runs an
 * event.  Disabling preemption or interrupts takes the current simulated
 * CPU's lock in the threaded engine, so per-CPU data (the bio cache) is as
 * safe as in the kernel when several OS threads share a simulated CPU.
 */
#ifndef _LINUX_PREEMPT_H
#define _LINUX_PREEMPT_H

#include <linux/types.h>

enum sim_context {
	SIM_CTX_TASK = 0,
	SIM_CTX_SOFTIRQ,
	SIM_CTX_HARDIRQ,
};

extern __thread enum sim_context sim_ctx;
extern __thread int sim_preempt_count;
extern __thread int sim_irqs_disabled;

static inline bool in_task(void)
{
	return sim_ctx == SIM_CTX_TASK;
}

static inline bool in_interrupt(void)
{
	return sim_ctx != SIM_CTX_TASK;
}

static inline bool in_hardirq(void)
{
	return sim_ctx == SIM_CTX_HARDIRQ;
}

static inline bool in_softirq(void)
{
	return sim_ctx == SIM_CTX_SOFTIRQ;
}

#define in_irq() in_hardirq()

static inline bool in_atomic(void)
{
	return sim_preempt_count > 0 || sim_ctx != SIM_CTX_TASK;
}

static inline bool irqs_disabled(void)
{
	return sim_irqs_disabled > 0;
}

void preempt_disable(void);
void preempt_enable(void);
#define preempt_enable_no_resched() preempt_enable()

#endif /* _LINUX_PREEMPT_H */
