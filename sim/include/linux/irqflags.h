/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _LINUX_IRQFLAGS_H
#define _LINUX_IRQFLAGS_H

#include <linux/preempt.h>

unsigned long sim_local_irq_save(void);
void sim_local_irq_restore(unsigned long flags);

#define local_irq_save(flags) ((flags) = sim_local_irq_save())
#define local_irq_restore(flags) sim_local_irq_restore(flags)
#define local_irq_disable() ((void)sim_local_irq_save())
#define local_irq_enable() sim_local_irq_restore(0)

#endif /* _LINUX_IRQFLAGS_H */
