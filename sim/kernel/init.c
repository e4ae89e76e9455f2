// SPDX-License-Identifier: GPL-2.0-only
/*
 * The initcall levels of <linux/init.h> (init/main.c's do_initcalls()).
 * The linker names each section's bounds __start_<section> and
 * __stop_<section>; a level nobody uses has no section, hence weak.
 */
#include <pthread.h>
#include <linux/init.h>
#include <linux/kernel.h>

#define DECLARE_LEVEL(n)						\
	extern initcall_t __start_sim_initcall##n[] __attribute__((weak)); \
	extern initcall_t __stop_sim_initcall##n[] __attribute__((weak))

DECLARE_LEVEL(1);
DECLARE_LEVEL(2);
DECLARE_LEVEL(3);
DECLARE_LEVEL(4);
DECLARE_LEVEL(5);
DECLARE_LEVEL(6);
DECLARE_LEVEL(7);

#define LEVEL(n) { __start_sim_initcall##n, __stop_sim_initcall##n }

static pthread_mutex_t initcall_lock = PTHREAD_MUTEX_INITIALIZER;
bool sim_initcalls_done;

int __sim_do_initcalls(void)
{
	const struct {
		initcall_t *start, *stop;
	} levels[] = {
		LEVEL(1), LEVEL(2), LEVEL(3), LEVEL(4),
		LEVEL(5), LEVEL(6), LEVEL(7),
	};
	int err = 0;

	pthread_mutex_lock(&initcall_lock);
	if (!sim_initcalls_done) {
		for (size_t l = 0; l < ARRAY_SIZE(levels); l++) {
			for (initcall_t *fn = levels[l].start;
			     fn && fn < levels[l].stop; fn++) {
				int ret = (*fn)();

				if (ret && !err)
					err = ret;
			}
		}
		if (!err)
			__atomic_store_n(&sim_initcalls_done, true,
					 __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&initcall_lock);
	return err;
}

void sim_initcalls_reset(void)
{
	pthread_mutex_lock(&initcall_lock);
	__atomic_store_n(&sim_initcalls_done, false, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&initcall_lock);
}
