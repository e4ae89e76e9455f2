/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the iomap_*.c suites: run one request through the request
 * runner and check the accounting every direct I/O must leave behind
 * (no leak, no pinned page, no live bio, i_dio_count back to zero (K-05),
 * no outstanding work, ki_complete exactly once for a queued request and
 * never otherwise (K-12), at most one completion).
 */
#ifndef _IOMAP_COMMON_H
#define _IOMAP_COMMON_H

#include <errno.h>
#include <string.h>
#include <linux/fs.h>
#include <linux/iomap.h>
#include <linux/pagemap.h>
#include <linux/workqueue.h>
#include <sim/iomap.h>
#include <sim/iomap_features.h>
#include <sim/report.h>
#include "harness.h"
#include "request.h"

/* A small default file keeps each run cheap. */
static inline void req_init(struct testfs_request *r)
{
	testfs_request_init(r);
	r->size = 256 << 10;
}

/* A write of @len bytes at @pos into the small default file. */
static inline void req_write(struct testfs_request *r, loff_t pos, size_t len,
			     bool async)
{
	req_init(r);
	r->write = true;
	r->pos = pos;
	r->len = len;
	r->async = async;
}

static inline void req_map(struct testfs_request *r, u16 type, loff_t off,
			   u64 len, u16 flags)
{
	ck_assert_int_lt(r->nr_map, IOMAPSIM_MAX_MAP);
	r->map[r->nr_map++] = (struct testfs_extent){
		.off = off,
		.len = len,
		.type = type,
		.flags = flags,
		.addr = TESTFS_ADDR_AUTO,
	};
}

/* A fault rule of the fault backend for the request's bios ("bio-error:1"). */
static inline void req_fault(struct testfs_request *r, const char *rule)
{
	ck_assert_int_lt(r->nr_bio_faults, IOMAPSIM_MAX_FAULTS);
	r->bio_faults[r->nr_bio_faults++] = rule;
}

/* A page of the file's cache at page @index, in state @flags (SIM_PC_*). */
static inline void req_page(struct testfs_request *r, pgoff_t index,
			    unsigned int flags)
{
	ck_assert_int_lt(r->nr_pc, IOMAPSIM_MAX_PC);
	r->pc[r->nr_pc++] = (struct testfs_pc_page){ index, flags };
}

/* The buffer in two iovec pieces, of which only the first pins (G-32). */
static inline void pin_first_page_only(struct testfs_request *r)
{
	r->iter = IOMAPSIM_ITER_IOVEC;
	r->iovec_segs = 2;
	r->short_pin_nth = 2;
	r->short_pin_bytes = 0;
}

static inline void check_accounting(const struct testfs_outcome *o)
{
	ck_assert_msg(o->leaks == 0, "%ld leak(s)", o->leaks);
	ck_assert_int_eq(o->i_dio_count, 0);
	ck_assert_int_eq(o->ki_complete_calls, o->queued ? 1 : 0);
	ck_assert_int_le(o->completions, 1);
	ck_assert_int_eq(o->deadlocks, 0);
	ck_assert_int_eq(sim_work_outstanding(), 0);
}

/* Run, expecting @warn WARN_ONs and @viol context violations. */
static inline void run_expect(const struct testfs_request *r,
			      struct testfs_outcome *o, long warn, long viol)
{
	char err[256] = "";
	int rc;

	/* the harness checks totals over the whole test */
	if (warn)
		sim_test_expect_warnings(sim_warnings() + warn);
	if (viol)
		sim_test_expect_violations(sim_context_violations() + viol);
	rc = testfs_run(r, o, err, sizeof(err));
	ck_assert_msg(rc == 0, "request setup failed (%d): %s", rc, err);
	check_accounting(o);
	ck_assert_int_eq(o->warnings, warn);
	ck_assert_int_eq(o->context_violations, viol);
}

static inline void run_ok(const struct testfs_request *r,
			  struct testfs_outcome *o)
{
	run_expect(r, o, 0, 0);
}

/* Run @r, which must return @ret: a byte count or a negative errno. */
static inline void run_ret(const struct testfs_request *r,
			   struct testfs_outcome *o, ssize_t ret)
{
	run_ok(r, o);
	ck_assert_int_eq(o->ret, ret);
}

/*
 * File-system error reports a failed dio makes (G-55): code from before
 * fserror_report_io() makes none, and that is its right answer.
 */
#define FSERROR_REPORTS(n) (IOMAPSIM_FSERROR ? (n) : 0)

/* The n-th recorded filesystem callback. */
static inline const struct testfs_cb *cb_at(const struct testfs_outcome *o,
					    unsigned int n)
{
	ck_assert_uint_lt(n, o->nr_cbs);
	return &o->cbs[n];
}

/*
 * For sequences of requests on one file, which the one-shot runner cannot
 * do: a testfs of 64 KiB with @map (NULL: all mapped) and @dops ...
 */
static inline struct testfs *tf_mkfs(const struct testfs_extent *map,
				     unsigned int n, enum testfs_dops dops)
{
	struct testfs_opts o = {
		.size = 64 << 10, .map = map, .nr_map = n, .dops = dops
	};
	char err[160];
	struct testfs *tf = testfs_create(&o, err, sizeof(err));

	ck_assert_msg(!IS_ERR(tf), "%s", err);
	return tf;
}

/* ... and one sync direct I/O on it, drained; returns its result. */
static inline ssize_t tf_dio(struct testfs *tf, bool write, loff_t pos,
			     void *buf, size_t len)
{
	struct kiocb iocb = { .ki_filp = &tf->file,
			      .ki_pos = pos,
			      .ki_flags = IOCB_DIRECT |
					  (write ? IOCB_WRITE : 0) };
	struct iov_iter iter;
	ssize_t ret;

	iov_iter_ubuf(&iter, write ? ITER_SOURCE : ITER_DEST, buf, len);
	ret = testfs_dio_rw(tf, &iocb, &iter, 0, 0);
	sim_engine_drain();
	return ret;
}

#endif /* _IOMAP_COMMON_H */
