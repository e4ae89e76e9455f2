// SPDX-License-Identifier: GPL-2.0-only
/*
 * The plain (non-libFuzzer) driver: feeds files to a target's
 * LLVMFuzzerTestOneInput, so any compiler (gcc in the normal build) can
 * replay the seed corpus and every saved crash reproducer.  CTest runs it
 * over fuzz/corpus/<target>/ and fuzz/regressions/<target>/: a finding,
 * once fixed and saved there, stays fixed on every build.
 *
 *   fuzz_replay_<target> [-v] [--print|--json] [--min N] FILE|DIR...
 *   fuzz_replay_<target> --bench ROUNDS FILE|DIR...
 *
 * Directories are read in name order (stable output).  --print shows the
 * target's description of each input (for fuzz_dio: the equivalent
 * `iomapsim run ...` command line) instead of running it; --json runs it
 * once and prints the outcome (fuzz_dio: the JSON `iomapsim run` prints,
 * so the two can be compared).  --min N fails
 * the run when fewer than N inputs were found (an empty corpus must not
 * pass as "all inputs held").  An oracle
 * failure aborts with the file named; a clean run prints one summary line.
 *
 * --bench ROUNDS loads the inputs, then runs them ROUNDS times, each round
 * in another (fixed) shuffled order as a fuzzer would pick them, and
 * prints the target's time per input: a figure for the target alone,
 * without the fuzzing engine around it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <linux/types.h>
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
/* A target may describe an input without running it (fuzz_dio does). */
void fuzz_describe_input(const u8 *data, size_t size, FILE *out)
	__attribute__((weak));
/* ... and run it once and print what came out (fuzz_dio: runner JSON). */
void fuzz_json_input(const u8 *data, size_t size, FILE *out)
	__attribute__((weak));

static bool verbose, print_only, print_json;
static unsigned long nr_run;

/* --bench: the loaded inputs */
static unsigned int bench_rounds;
static struct bench_input {
	u8 *data;
	size_t len;
} * bench_in;
static size_t nr_bench, bench_cap;

static void bench_keep(u8 *data, size_t len)
{
	if (nr_bench == bench_cap) {
		bench_cap = bench_cap ? 2 * bench_cap : 256;
		bench_in = realloc(bench_in, bench_cap * sizeof(*bench_in));
		if (!bench_in)
			abort();
	}
	bench_in[nr_bench++] = (struct bench_input){ data, len };
}

static u64 bench_rand(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int bench(void)
{
	size_t *order = malloc((nr_bench ? nr_bench : 1) * sizeof(*order));
	struct timespec a, b;
	u64 rng = 0x9e3779b97f4a7c15ULL;
	double us;

	if (!order)
		abort();
	for (size_t i = 0; i < nr_bench; i++)
		order[i] = i;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned int r = 0; r < bench_rounds; r++) {
		for (size_t i = nr_bench; i > 1; i--) {
			size_t j = bench_rand(&rng) % i, t = order[i - 1];

			order[i - 1] = order[j];
			order[j] = t;
		}
		for (size_t i = 0; i < nr_bench; i++)
			LLVMFuzzerTestOneInput(bench_in[order[i]].data,
					       bench_in[order[i]].len);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	free(order);
	nr_run = nr_bench * bench_rounds;
	if (!nr_run) {
		fprintf(stderr, "replay: --bench: no inputs\n");
		return 1;
	}
	us = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3;
	printf("bench: %zu input(s) x %u round(s): %.2f us per input, "
	       "%.0f inputs/s\n",
	       nr_bench, bench_rounds, us / nr_run, nr_run / (us / 1e6));
	return 0;
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	u8 *buf = NULL;
	long len;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "replay: %s: cannot size\n", path);
		fclose(f);
		return -1;
	}
	/* Exactly @len bytes, so ASan sees reads past the input. */
	buf = malloc(len ? len : 1);
	if (!buf || fread(buf, 1, len, f) != (size_t)len) {
		fprintf(stderr, "replay: %s: read failed\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	if (bench_rounds) {
		bench_keep(buf, len);
		return 0;
	}
	if (print_json && fuzz_json_input) {
		fuzz_json_input(buf, len, stdout);
	} else if (print_only) {
		printf("%s: ", path);
		if (fuzz_describe_input)
			fuzz_describe_input(buf, len, stdout);
		else
			printf("(%ld bytes)", len);
		putchar('\n');
	} else {
		if (verbose)
			fprintf(stderr, "replay: %s\n", path);
		fuzz_set_input_name(path);
		LLVMFuzzerTestOneInput(buf, len);
		fuzz_set_input_name(NULL);
		nr_run++;
	}
	free(buf);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	if (!d) {
		/* A target may have no regressions yet: not an error. */
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue; /* ., .., .gitkeep and editor files */
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		if (asprintf(&names[n], "%s/%s", dir, de->d_name) < 0)
			abort();
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (!stat(names[i], &st) && S_ISREG(st.st_mode) &&
		    run_file(names[i]))
			ret = -1;
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	int ret = 0, i;
	unsigned long min_inputs = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		struct stat st;

		if (!strcmp(argv[i], "-v")) {
			verbose = true;
			continue;
		}
		if (!strcmp(argv[i], "--min") && i + 1 < argc) {
			min_inputs = strtoul(argv[++i], NULL, 0);
			continue;
		}
		if (!strcmp(argv[i], "--bench") && i + 1 < argc) {
			bench_rounds = strtoul(argv[++i], NULL, 0);
			if (!bench_rounds) {
				fprintf(stderr,
					"replay: --bench: ROUNDS must be a positive number\n");
				return 1;
			}
			continue;
		}
		if (!strcmp(argv[i], "--json")) {
			print_only = print_json = true;
			continue;
		}
		if (!strcmp(argv[i], "--print")) {
			print_only = true;
			continue;
		}
		if (stat(argv[i], &st)) {
			if (errno == ENOENT && argv[i][0] != '-') {
				/* missing regressions dir: nothing to run */
				continue;
			}
			fprintf(stderr, "replay: %s: %s\n", argv[i],
				strerror(errno));
			ret = 1;
			continue;
		}
		if (S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]))
			ret = 1;
	}
	if (print_only)
		return ret;
	if (bench_rounds)
		return ret ? ret : bench();
	if (nr_run < min_inputs) {
		fprintf(stderr,
			"replay: only %lu input(s) found, %lu expected\n",
			nr_run, min_inputs);
		return 1;
	}
	printf("replay: %lu input(s) run, all oracles held\n", nr_run);
	return ret;
}
