/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _LINUX_PRINTK_H
#define _LINUX_PRINTK_H

#include <linux/compiler.h>

/* Kernel log lines go to stderr, prefixed with the simulated context. */
void sim_printk(const char *level, const char *fmt, ...) __printf(2, 3);

#define pr_emerg(fmt, ...) sim_printk("emerg", fmt, ##__VA_ARGS__)
#define pr_err(fmt, ...) sim_printk("err", fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...) sim_printk("warn", fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) sim_printk("info", fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) \
	do {               \
	} while (0)
#define pr_warn_ratelimited pr_warn
#define pr_err_ratelimited pr_err
#define printk_ratelimited(fmt, ...) sim_printk("warn", fmt, ##__VA_ARGS__)

#endif /* _LINUX_PRINTK_H */
