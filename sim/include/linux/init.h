/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * include/linux/init.h: __init and the initcall levels.  An initcall is a
 * pointer in a section of its level (sim_initcall<N>), as the kernel's
 * .initcall<N>.init; they run level by level, in link order within a
 * level, as do_initcalls() runs them at boot (sim/kernel/init.c).
 *
 * core_initcall to subsys_initcall run once per process, when the program
 * is loaded, before main() and before any constructor: what they set up
 * (the bio slabs, fs_bio_set) lives as long as the process, as a
 * subsystem does the machine, and is there before anything can use it.
 *
 * From fs_initcall on, the simulator boots more than once per process
 * (every test ends with nothing allocated): sim_do_initcalls() runs those
 * levels on first use, and sim_initcalls_reset(), called by whoever tore
 * down what such an initcall set up, lets the next sim_do_initcalls() run
 * them again.
 */
#ifndef _LINUX_INIT_H
#define _LINUX_INIT_H

#include <stdbool.h>

typedef int (*initcall_t)(void);

#define __init
#define __initdata
#define __exit

/*
 * Run every initcall from fs_initcall on once, in level order; 0, or the
 * first error (the remaining ones still run, as at boot, and the next
 * call runs them all again).
 */
int __sim_do_initcalls(void);

/*
 * The second pointer links sim/kernel/init.c, which runs the sections,
 * into any program that has an initcall, from a static library too.
 */
#define __sim_define_initcall(fn, level)				\
	static initcall_t __initcall_##fn##level			\
	__attribute__((used, section("sim_initcall" #level))) = fn;	\
	static initcall_t __initcall_##fn##level##_runner		\
	__attribute__((used)) = __sim_do_initcalls

#define core_initcall(fn)	__sim_define_initcall(fn, 1)
#define postcore_initcall(fn)	__sim_define_initcall(fn, 2)
#define arch_initcall(fn)	__sim_define_initcall(fn, 3)
#define subsys_initcall(fn)	__sim_define_initcall(fn, 4)
#define fs_initcall(fn)		__sim_define_initcall(fn, 5)
#define device_initcall(fn)	__sim_define_initcall(fn, 6)
#define late_initcall(fn)	__sim_define_initcall(fn, 7)
#define module_init(fn)		device_initcall(fn)

/*
 * The counterpart for the simulator's own teardown: what a layer set up
 * for its callers (per-CPU bio caches, the simple path's bio_set, the
 * runner's kept file systems) and must give back before a test may end
 * with nothing allocated.  sim_do_exitcalls() runs them all, in link
 * order: the upper layers' first, as the libraries are linked.  The test
 * harness runs them at each test's teardown; a program runs them when it
 * wants its allocations back.
 */
typedef void (*exitcall_t)(void);
#define sim_exitcall(fn)						\
	static exitcall_t __exitcall_##fn				\
	__attribute__((used, section("sim_exitcall"))) = fn
void sim_do_exitcalls(void);

/* What the fs_initcall levels set up was torn down: run them again. */
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
