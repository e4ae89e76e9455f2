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

/*
 * One warning site: count the hit, and say where if @print (evaluated
 * only on a hit).  @cond_str is the condition as written at the site, so
 * the macros below all call this one rather than each other, which would
 * print the condition macro-expanded.
 */
#define __sim_warn_on(condition, cond_str, print)                            \
	({                                                                   \
		int __ret_warn_on = !!(condition);                           \
		if (unlikely(__ret_warn_on))                                 \
			sim_warn_hit(__FILE__, __LINE__, __func__, cond_str, \
				     print);                                 \
		unlikely(__ret_warn_on);                                     \
	})

#define WARN_ON(condition) __sim_warn_on(condition, #condition, true)

#define WARN_ON_ONCE(condition)                                        \
	({                                                             \
		static bool __warned;                                  \
		__sim_warn_on(condition, #condition,                   \
			      !__atomic_exchange_n(&__warned, true,    \
						   __ATOMIC_RELAXED)); \
	})

#define WARN(condition, ...) __sim_warn_on(condition, #condition, true)
#define WARN_ONCE(condition, ...) WARN_ON_ONCE(condition)

#define BUG() sim_bug_hit(__FILE__, __LINE__, __func__, "BUG()")
#define BUG_ON(condition)                                                     \
	do {                                                                  \
		if (unlikely(condition))                                      \
			sim_bug_hit(__FILE__, __LINE__, __func__, #condition); \
	} while (0)

#endif /* _LINUX_BUG_H */
