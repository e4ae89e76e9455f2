// SPDX-License-Identifier: GPL-2.0-only
/*
 * The corpus tap: linked into a copy of an iomap unit test suite with
 * -Wl,--wrap=testfs_run, it writes every request the tests run as a
 * fuzz_dio input (dio_codec.h) into $IOMAPSIM_CORPUS_OUT, then runs it as
 * usual.  fuzz/gen-corpus.py runs the tapped suites: the seed corpus is
 * exactly the unit tests' requests, whatever way the tests build them.
 *
 * Requests the input format cannot express (page cache contents, a sync
 * mount, ->iomap_end or ->fsync errors, sizes beyond the fuzzer's
 * ranges) are counted on stderr and skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sim/engine.h>
#include "dio_codec.h"

int __real_iomapsim_run(const struct testfs_request *req,
			struct testfs_outcome *out, char *err, size_t errlen);
int __wrap_iomapsim_run(const struct testfs_request *req,
			struct testfs_outcome *out, char *err, size_t errlen);

static unsigned long nr_written, nr_skipped;

static void tap(const struct testfs_request *req)
{
	const char *dir = getenv("IOMAPSIM_CORPUS_OUT");
	static u8 buf[DIO_MAX_INPUT];
	char path[4096], why[128];
	size_t len;
	FILE *f;

	if (!dir)
		return;
	if (dio_encode(req, sim_engine_seed(), buf, &len, why, sizeof(why))) {
		fprintf(stderr, "corpus tap: skipped a request: %s\n", why);
		nr_skipped++;
		return;
	}
	/* unique per process and call; gen-corpus.py renames by content */
	snprintf(path, sizeof(path), "%s/tap-%d-%lu", dir, (int)getpid(),
		 nr_written++);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

int __wrap_iomapsim_run(const struct testfs_request *req,
			struct testfs_outcome *out, char *err, size_t errlen)
{
	tap(req);
	return __real_iomapsim_run(req, out, err, errlen);
}
