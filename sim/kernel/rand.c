// SPDX-License-Identifier: GPL-2.0-only
/* xoshiro256** seeded through splitmix64: fast, and the same everywhere. */
#include <sim/rand.h>

static u64 splitmix64(u64 *x)
{
	u64 z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void sim_rand_seed(struct sim_rand *r, u64 seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline u64 rotl(u64 x, int k)
{
	return (x << k) | (x >> (64 - k));
}

u64 sim_rand_next(struct sim_rand *r)
{
	u64 *s = r->s;
	u64 result = rotl(s[1] * 5, 7) * 9;
	u64 t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

u64 sim_rand_below(struct sim_rand *r, u64 n)
{
	if (!n)
		return 0;
	/* Lemire's multiply-shift; bias is negligible for simulator use. */
	return (u64)(((unsigned __int128)sim_rand_next(r) * n) >> 64);
}
