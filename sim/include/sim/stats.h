/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Named counters.  A layer defines one with DEFINE_SIM_STAT(var, "name")
 * and bumps it with sim_stat_inc(&var); the counter registers itself at
 * start-up, so stats dumps and tests find it by name.  Gauges (live
 * objects) are not cleared by sim_stats_reset().
 */
#ifndef _SIM_STATS_H
#define _SIM_STATS_H

#include <stdio.h>
#include <linux/types.h>

struct sim_stat {
	const char *name;
	bool gauge;
	long v;
	struct sim_stat *next;
};

void sim_stat_register(struct sim_stat *s);

#define __DEFINE_SIM_STAT(var, sname, isgauge)                              \
	struct sim_stat var = { .name = sname, .gauge = isgauge };          \
	static void __attribute__((constructor)) __sim_stat_reg_##var(void) \
	{                                                                   \
		sim_stat_register(&var);                                    \
	}
#define DEFINE_SIM_STAT(var, name) __DEFINE_SIM_STAT(var, name, false)
#define DEFINE_SIM_GAUGE(var, name) __DEFINE_SIM_STAT(var, name, true)

extern bool sim_engine_threads; /* <sim/engine.h> */

/*
 * Add @n to a counter of the simulator's own (no kernel counter).  Under
 * the deterministic engine one OS thread runs everything, so a locked add,
 * some 20 cycles on every bio, page pin and allocation, excludes no one:
 * a plain (relaxed) load and store there, the atomic add only where real
 * threads meet (sim_engine_threaded()).
 */
static inline void sim_counter_add(long *v, long n)
{
	if (__atomic_load_n(&sim_engine_threads, __ATOMIC_RELAXED))
		__atomic_fetch_add(v, n, __ATOMIC_RELAXED);
	else
		__atomic_store_n(v, __atomic_load_n(v, __ATOMIC_RELAXED) + n,
				 __ATOMIC_RELAXED);
}

static inline void sim_stat_add(struct sim_stat *s, long n)
{
	sim_counter_add(&s->v, n);
}

static inline void sim_stat_inc(struct sim_stat *s)
{
	sim_stat_add(s, 1);
}

static inline void sim_stat_dec(struct sim_stat *s)
{
	sim_stat_add(s, -1);
}

static inline long sim_stat_read(const struct sim_stat *s)
{
	return __atomic_load_n(&s->v, __ATOMIC_RELAXED);
}

/* By name; -1 if no such counter. */
long sim_stat_get(const char *name);
struct sim_stat *sim_stat_find(const char *name);
/* Call @fn for every registered counter. */
void sim_stats_for_each(void (*fn)(struct sim_stat *s, void *arg), void *arg);
/* Zero every counter that is not a gauge. */
void sim_stats_reset(void);
/* One JSON object {"name": value, ...}, names sorted. */
void sim_stats_print_json(FILE *out);
/* "name value" lines, sorted, skipping zeroes unless @all. */
void sim_stats_print(FILE *out, bool all);

#endif /* _SIM_STATS_H */
