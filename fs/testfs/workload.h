/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A workload generator over testfs: what `iomapsim bench` runs.
 *
 * Submitters are simulated CPUs, each keeping up to qd direct I/Os of one
 * size in flight on one file: synchronously (a kiocb without
 * ki_complete), asynchronously (ki_complete, as libaio and io_uring
 * drive ->read_iter) or polled (IOCB_HIPRI, completions reaped through
 * iocb_bio_iopoll() as io_uring's IOPOLL does).  Under the deterministic
 * engine everything runs on the calling thread, so instruction counts
 * repeat exactly; under the threaded engine every submitter is an OS
 * thread, the device's completions arrive on its timer or interrupt
 * threads, and the wall clock means something.
 *
 * With an io-wq (threaded engine only) submitters do not issue their
 * requests themselves: each goes to a pool of workers as io_uring punts a
 * request it cannot finish inline, and the work is hashed (run one at a
 * time per inode) or not as io_wq_should_hash() says (P-04..P-08).
 */
#ifndef _TESTFS_WORKLOAD_H
#define _TESTFS_WORKLOAD_H

#include <linux/types.h>
#include "testfs.h"

enum wl_mode {
	WL_SYNC = 0,
	WL_ASYNC, /* ki_complete */
	WL_POLLED, /* ki_complete + IOCB_HIPRI, reaped by polling */
};

enum wl_dev {
	WL_DEV_NULL = 0,
	WL_DEV_RAM,
	WL_DEV_FILE,
};

struct wl_opts {
	bool write;
	unsigned int size; /* bytes per request */
	unsigned int qd; /* per submitter (async, polled) */
	unsigned int submitters; /* simulated CPUs issuing */
	enum wl_mode mode;
	bool simple; /* the simple path allowed */
	enum testfs_iomap_mode iomap_mode;
	unsigned int dio_flags; /* IOMAP_DIO_* for every request */
	enum wl_dev dev;
	u64 latency_ns; /* null device completion latency */
	const char *path; /* file device */
	u64 file_size; /* the file (and what it spans) */
	bool sequential; /* else uniformly random offsets */
	u64 count; /* requests measured; 0: duration */
	u64 duration_ns;
	u64 warmup; /* requests before measuring */
	u64 seed;
	bool threaded; /* threaded engine */
	/* io-wq (threaded, async only) */
	bool iowq;
	bool parallel_write; /* FMODE_DIO_PARALLEL_WRITE on the file */
	bool ring_iopoll; /* IORING_SETUP_IOPOLL */
};

struct wl_result {
	u64 ios; /* measured requests completed */
	u64 errors; /* of those, not the full size */
	u64 ns; /* wall time of the measured part */
	u64 cpu_ns; /* CPU time the process spent in it */
	long allocs; /* kernel heap allocations in it */
	u64 simple; /* bios from the simple path's pool: the
				 * requests it served (no fallbacks here) */
	u64 hashed; /* io-wq work items run hashed */
	unsigned int max_parallel; /* io-wq: most items running at once */
};

/*
 * Validate @o; 0 or -EINVAL with a one-line reason in @err.  Fills in
 * defaults (size 4096, qd 1, one submitter, 16 MiB file, 100000 requests).
 */
int wl_check(struct wl_opts *o, char *err, size_t errlen);

/*
 * Start the engine @o asks for, make the device and testfs, run the
 * warm-up and then the measured requests (inside wl_measure(), the
 * function a profiler is told to collect), tear everything down.
 */
int wl_run(const struct wl_opts *o, struct wl_result *r, char *err,
	   size_t errlen);

/* The measured part of a deterministic run (a profiler's toggle). */
struct wl_run_ctx;
void wl_measure(struct wl_run_ctx *c);

#endif /* _TESTFS_WORKLOAD_H */
