// SPDX-License-Identifier: GPL-2.0-only
/*
 * The initcall levels of <linux/init.h> (init/main.c's do_initcalls()).
 * The linker names each section's bounds __start_<section> and
 * __stop_<section>; a level nobody uses has no section, hence weak.
 */
#include <pthread.h>
#include <linux/init.h>
#include <linux/kernel.h>

#define DECLARE_LEVEL(n)                                                   \
	extern initcall_t __start_sim_initcall##n[] __attribute__((weak)); \
	extern initcall_t __stop_sim_initcall##n[] __attribute__((weak))

DECLARE_LEVEL(1);
DECLARE_LEVEL(2);
DECLARE_LEVEL(3);
DECLARE_LEVEL(4);
DECLARE_LEVEL(5);
DECLARE_LEVEL(6);
DECLARE_LEVEL(7);

#define LEVEL(n)                                                \
	{                                                       \
		__start_sim_initcall##n, __stop_sim_initcall##n \
	}

static const struct {
	initcall_t *start, *stop;
} levels[] = {
	LEVEL(1), LEVEL(2), LEVEL(3), LEVEL(4), LEVEL(5), LEVEL(6), LEVEL(7),
};

/* core_initcall to subsys_initcall: run once, at load (sim_boot()) */
#define SIM_BOOT_LEVELS 4

static pthread_mutex_t initcall_lock = PTHREAD_MUTEX_INITIALIZER;
bool sim_initcalls_done;

/* Levels [@from, @to) in order; 0, or the first error (the rest run). */
static int do_initcall_levels(size_t from, size_t to)
{
	int err = 0;

	for (size_t l = from; l < to; l++) {
		for (initcall_t *fn = levels[l].start;
		     fn && fn < levels[l].stop; fn++) {
			int ret = (*fn)();

			if (ret && !err)
				err = ret;
		}
	}
	return err;
}

/*
 * The boot: before any constructor of the program (101 is the first
 * priority not reserved to the implementation), so nothing can take a
 * bio before the slabs exist, and what the boot levels allocate is
 * there before main(), charged to no test.
 */
static void __attribute__((constructor(101))) sim_boot(void)
{
	int err = do_initcall_levels(0, SIM_BOOT_LEVELS);

	if (err)
		pr_err("init: a boot initcall returned %d\n", err);
}

int __sim_do_initcalls(void)
{
	int err = 0;

	pthread_mutex_lock(&initcall_lock);
	if (!sim_initcalls_done) {
		err = do_initcall_levels(SIM_BOOT_LEVELS, ARRAY_SIZE(levels));
		if (!err)
			__atomic_store_n(&sim_initcalls_done, true,
					 __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&initcall_lock);
	return err;
}

extern exitcall_t __start_sim_exitcall[] __attribute__((weak));
extern exitcall_t __stop_sim_exitcall[] __attribute__((weak));

void sim_do_exitcalls(void)
{
	for (exitcall_t *fn = __start_sim_exitcall;
	     fn && fn < __stop_sim_exitcall; fn++)
		(*fn)();
}

void sim_initcalls_reset(void)
{
	pthread_mutex_lock(&initcall_lock);
	__atomic_store_n(&sim_initcalls_done, false, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&initcall_lock);
}
