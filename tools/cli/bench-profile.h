/* SPDX-License-Identifier: GPL-2.0-only */
/* iomapsim bench --profile: the same run under callgrind, split by layer. */
#ifndef _IOMAPSIM_BENCH_PROFILE_H
#define _IOMAPSIM_BENCH_PROFILE_H

#include <stdint.h>

/*
 * Run `iomapsim bench` with @argv (argv[0] is "bench"; --profile is
 * dropped) under valgrind's callgrind, collecting wl_measure() only, and
 * print instructions per request (@ios requests measured) by layer and
 * the @top functions by their own instructions.  Without valgrind it
 * says so and returns 0; other failures print a line and return 1.
 */
int bench_profile(int argc, char **argv, uint64_t ios, unsigned int top);

#endif /* _IOMAPSIM_BENCH_PROFILE_H */
