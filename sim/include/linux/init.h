/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * include/linux/init.h: __init and the initcall levels.  An initcall is a
 * pointer in a section of its level (sim_initcall<N>), as the kernel's
 * .initcall<N>.init; sim_do_initcalls() runs them level by level, in link
 * order within a level, as do_initcalls() does at boot.
 *
 * The simulator boots more than once per process (every test ends with
 * nothing allocated): sim_initcalls_reset(), called by whoever tore down
 * what an initcall set up, lets the next sim_do_initcalls() run them again.
 */
#ifndef _LINUX_INIT_H
#define _LINUX_INIT_H

#include <stdbool.h>

typedef int (*initcall_t)(void);

#define __init
#define __initdata
#define __exit

#define __sim_define_initcall(fn, level)				\
	static initcall_t __initcall_##fn##level			\
	__attribute__((used, section("sim_initcall" #level))) = fn

#define core_initcall(fn)	__sim_define_initcall(fn, 1)
#define postcore_initcall(fn)	__sim_define_initcall(fn, 2)
#define arch_initcall(fn)	__sim_define_initcall(fn, 3)
#define subsys_initcall(fn)	__sim_define_initcall(fn, 4)
#define fs_initcall(fn)		__sim_define_initcall(fn, 5)
#define device_initcall(fn)	__sim_define_initcall(fn, 6)
#define late_initcall(fn)	__sim_define_initcall(fn, 7)
#define module_init(fn)		device_initcall(fn)

/*
 * Run every initcall once, in level order; 0, or the first error (the
 * remaining ones still run, as at boot, and the next call runs them all
 * again).
 */
int __sim_do_initcalls(void);
void sim_initcalls_reset(void);

extern bool sim_initcalls_done;

/*
 * The booted case inline: a caller that makes sure of the boot on its
 * request path (the file system's first direct I/O) pays one load and
 * one branch for it, as if it had run at boot.
 */
static inline int sim_do_initcalls(void)
{
	if (__builtin_expect(__atomic_load_n(&sim_initcalls_done,
					     __ATOMIC_ACQUIRE), 1))
		return 0;
	return __sim_do_initcalls();
}

#endif /* _LINUX_INIT_H */
