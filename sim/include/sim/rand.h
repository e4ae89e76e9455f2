/* SPDX-License-Identifier: GPL-2.0-only */
/* A small seeded PRNG (splitmix64 seeding xoshiro256**), reproducible. */
#ifndef _SIM_RAND_H
#define _SIM_RAND_H

#include <linux/types.h>

struct sim_rand {
	u64 s[4];
};

void sim_rand_seed(struct sim_rand *r, u64 seed);
u64 sim_rand_next(struct sim_rand *r);
/* Uniform in [0, n); n == 0 returns 0. */
u64 sim_rand_below(struct sim_rand *r, u64 n);

#endif /* _SIM_RAND_H */
