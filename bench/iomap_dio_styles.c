// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cost the simple-path review thread argued about (N-11):
 * a 4 KiB O_DIRECT read through
 *   generic        - simple=0, the full __iomap_dio_rw() path;
 *   simple/ops     - the simple path as merged, begin/end ops;
 *   simple/next    - the ->iomap_next() integration (iomap_iter()
 *                    to map, a second iomap_iter() to finish);
 *   next+NO_END    - the same with IOMAP_DIO_NO_IOMAP_END;
 *   rw_begin+NO_END- iomap_dio_rw_begin() with the raw begin (N-13).
 * Prints nanoseconds per request, file system callbacks per request and
 * heap allocations per request, sync and async (ki_complete from the
 * simulated interrupt).  Deterministic engine, ram device, bios completed
 * during submission: what is measured is the code path above the device.
 * Absolute numbers are the simulator's, not a kernel's; the differences
 * between the styles are the point.
 *
 * usage: bench_iomap_dio_styles [requests]   (default 200000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <linux/blkdev.h>
#include <linux/iomap.h>
#include <sim/alloc.h>
#include <sim/bdev-backend.h>
#include <sim/engine.h>
#include <sim/trace.h>
#include <sim/iomap_features.h>
#include "testfs.h"

struct style {
	const char *name;
	enum testfs_iomap_mode mode;
	unsigned int dio_flags;
};

static const struct style styles[] = {
	{ "generic", TESTFS_MODE_OPS, IOMAPSIM_DIO_NO_SIMPLE },
	{ "simple/ops", TESTFS_MODE_OPS, 0 },
	{ "simple/next", TESTFS_MODE_NEXT, 0 },
	{ "next+NO_END", TESTFS_MODE_NEXT, IOMAP_DIO_NO_IOMAP_END },
	{ "rw_begin+NO_END", TESTFS_MODE_BEGIN, IOMAP_DIO_NO_IOMAP_END },
};

static long completed;

static void done(struct kiocb *iocb, long ret)
{
	if (ret == 4096)
		completed++;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void run(struct testfs *tf, const struct style *st, bool async, long n,
		bool print)
{
	char *buf = aligned_alloc(4096, 4096);
	unsigned int cbs0 = tf->begin_calls + tf->end_calls + tf->next_calls;
	long allocs0 = sim_alloc_total(), i, bad = 0;
	double t0;

	tf->mode = st->mode;
	completed = 0;
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		struct kiocb iocb = {
			.ki_filp = &tf->file,
			.ki_pos = (i * 4096) % (1 << 20),
			.ki_flags = IOCB_DIRECT,
			.ki_complete = async ? done : NULL,
		};
		struct iov_iter iter;
		ssize_t ret;

		iov_iter_ubuf(&iter, ITER_DEST, buf, 4096);
		ret = testfs_dio_rw(tf, &iocb, &iter, st->dio_flags, 0);
		if (ret == -EIOCBQUEUED)
			sim_engine_drain();
		else if (ret == 4096)
			completed++; /* G-48a: finished before the submitter let go */
		else
			bad++;
	}
	if (!print)
		goto out;
	printf("%-16s %-5s %8.0f ns/req  %5.2f callbacks/req  %5.2f allocs/req%s\n",
	       st->name, async ? "async" : "sync", (now_ns() - t0) / n,
	       (double)(tf->begin_calls + tf->end_calls + tf->next_calls -
			cbs0) /
		       n,
	       (double)(sim_alloc_total() - allocs0) / n,
	       bad || completed != n ? "  (errors!)" : "");
out:
	free(buf);
}

int main(int argc, char **argv)
{
	struct sim_engine_opts eo = { .kind = SIM_ENGINE_DET, .seed = 1 };
	struct testfs_opts o = { .size = 1 << 20 };
	long n = argc > 1 ? atol(argv[1]) : 200000;
	struct testfs *tf;
	char err[128];
	size_t i;

	if (n <= 0 || sim_engine_init(&eo))
		return 1;
	sim_trace_enable(false);
	tf = testfs_create(&o, err, sizeof(err));
	if (IS_ERR(tf)) {
		fprintf(stderr, "bench: %s\n", err);
		return 1;
	}
	blksim_set_completion(tf->bdev, BLKSIM_COMPLETE_INLINE);
	blksim_set_completion(tf->ram, BLKSIM_COMPLETE_INLINE);
	iomapsim_dio_init();
	printf("iomap code: %s\n", iomapsim_code_text());
	for (i = 0; i < ARRAY_SIZE(styles); i++) {
		/* the proposal entry points exist only in the embedded copy */
		if (styles[i].mode != TESTFS_MODE_OPS && !IOMAPSIM_PROPOSAL) {
			printf("%-16s n/a in this build's iomap code\n",
			       styles[i].name);
			continue;
		}
		run(tf, &styles[i], false, n / 10 + 1, false); /* warm up */
		run(tf, &styles[i], false, n, true);
		run(tf, &styles[i], true, n, true);
	}
	testfs_destroy(tf);
	iomapsim_dio_exit();
	sim_engine_exit();
	return 0;
}
