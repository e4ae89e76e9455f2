/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * WARN_ON and friends.  Every hit is counted (sim_warnings(), see
 * <sim/report.h>) so a test fails on a warning it did not expect; like the
 * kernel, a WARN_ON_ONCE site prints only the first time.  BUG_ON prints a
 * backtrace and aborts.
 */
#ifndef _LINUX_BUG_H
#define _LINUX_BUG_H

#include <linux/compiler.h>

void sim_warn_hit(const char *file, int line, const char *func,
		  const char *cond, bool print);
void __attribute__((noreturn)) sim_bug_hit(const char *file, int line,
					   const char *func, const char *cond);

#define WARN_ON(condition)                                                    \
	({                                                                    \
		int __ret_warn_on = !!(condition);                            \
		if (unlikely(__ret_warn_on))                                  \
			sim_warn_hit(__FILE__, __LINE__, __func__, #condition, \
				     true);                                   \
		unlikely(__ret_warn_on);                                      \
	})

#define WARN_ON_ONCE(condition)                                               \
	({                                                                    \
		static bool __warned;                                         \
		int __ret_warn_once = !!(condition);                          \
		if (unlikely(__ret_warn_once)) {                              \
			sim_warn_hit(__FILE__, __LINE__, __func__, #condition, \
				     !__atomic_exchange_n(&__warned, true,    \
							  __ATOMIC_RELAXED)); \
		}                                                             \
		unlikely(__ret_warn_once);                                    \
	})

#define WARN(condition, ...)                                                  \
	({                                                                    \
		int __ret_warn = !!(condition);                               \
		if (unlikely(__ret_warn))                                     \
			sim_warn_hit(__FILE__, __LINE__, __func__, #condition, \
				     true);                                   \
		unlikely(__ret_warn);                                         \
	})
#define WARN_ONCE(condition, ...) WARN_ON_ONCE(condition)

#define BUG() sim_bug_hit(__FILE__, __LINE__, __func__, "BUG()")
#define BUG_ON(condition)                                                     \
	do {                                                                  \
		if (unlikely(condition))                                      \
			sim_bug_hit(__FILE__, __LINE__, __func__, #condition); \
	} while (0)

#endif /* _LINUX_BUG_H */
