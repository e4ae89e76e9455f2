/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One direct I/O request against testfs, described completely by a
 * struct testfs_request, run on the deterministic engine, and reported
 * as a struct testfs_outcome (docs/architecture.md principle 6,
 * docs/rules.md section 4).  The Check suites, `iomapsim run` and the
 * fuzzer share this runner;
 * the command line only parses options into a request and prints the
 * outcome as JSON (testfs_outcome_print_json(), the `iomapsim run`
 * contract).
 *
 * The runner plays every part around iomap_dio_rw(): it builds the file
 * system and its device, the caller's buffer and iterator, and the kiocb;
 * it is the issuer for async requests (its ki_complete records the
 * completion; for a polled request it polls, as io_uring would); and it
 * checks the data against testfs's model afterwards.  The engine must be
 * running (the test harness or the command starts it).
 */
#ifndef _IOMAPSIM_REQUEST_H
#define _IOMAPSIM_REQUEST_H

#include <stdio.h>
#include <linux/fserror.h>
#include <linux/pagemap.h>
#include <linux/types.h>
#include <sim/bdev.h>
#include <sim/iomap.h>
#include "testfs.h"

#define IOMAPSIM_MAX_MAP 64
#define IOMAPSIM_MAX_FAULTS 8
#define IOMAPSIM_MAX_PC 16
#define IOMAPSIM_MAX_LEN (64UL << 20)
#define IOMAPSIM_MAX_OFFSET (1LL << 30)
#define IOMAPSIM_MAX_IOV 64

enum testfs_iter {
	IOMAPSIM_ITER_UBUF = 0,
	IOMAPSIM_ITER_IOVEC,
	IOMAPSIM_ITER_KVEC,
	IOMAPSIM_ITER_BVEC,
};

/* Where bio completions run (--complete). */
enum testfs_complete {
	IOMAPSIM_COMPLETE_IRQ = 0, /* hard-IRQ event, first in first out */
	IOMAPSIM_COMPLETE_INLINE, /* inside submit_bio() */
	IOMAPSIM_COMPLETE_DEFERRED, /* as late as possible, newest first */
	IOMAPSIM_COMPLETE_RANDOM, /* any order, any CPU, by the seed */
};

enum testfs_data {
	IOMAPSIM_DATA_NA = 0, /* nothing transferred to check */
	IOMAPSIM_DATA_OK, /* matches the model */
	IOMAPSIM_DATA_ZERO, /* matches, and all of it is zeroes */
	IOMAPSIM_DATA_MISMATCH,
	IOMAPSIM_DATA_UNCHECKED, /* a read the caller checks (reads_checked) */
};

struct testfs_pc_page {
	pgoff_t index;
	unsigned int flags; /* SIM_PC_* */
};

struct testfs_request {
	/* the file system */
	unsigned int fs_block; /* 4096 */
	unsigned int lbs; /* 512 */
	loff_t size; /* 1 MiB */
	struct testfs_extent map[IOMAPSIM_MAX_MAP];
	unsigned int nr_map; /* 0: whole file mapped */
	bool encrypted;
	enum testfs_dops dops;
	enum testfs_iomap_mode mode;
	bool no_simple_mount; /* SB_I_SIM_NO_SIMPLE_DIO */
	bool sync_mount;
	bool write_cache, fua;
	unsigned int atomic_max; /* device atomic write unit max */
	/* the device's DMA alignment mask (2^n - 1 below a page), 0: 511 */
	unsigned int dma_alignment;
	bool no_poll; /* device without poll queues */
	struct testfs_pc_page pc[IOMAPSIM_MAX_PC];
	unsigned int nr_pc;
	/* a page appearing in the cache during the I/O (testfs.h) */
	bool pc_on_begin;
	struct testfs_pc_page pc_begin;

	/* the request */
	bool write;
	loff_t pos;
	size_t len;
	enum testfs_iter iter;
	unsigned int iovec_segs; /* IOVEC: number of segments */
	size_t buf_offset; /* buffer start past a page boundary */
	/*
	 * IOVEC with explicit segments instead (--iter iovec:L1,L2@OFF):
	 * their lengths add up to len; the first starts at buf_offset, a
	 * later one right after the one before, or, with page_off >= 0,
	 * that many bytes into the page after the one the previous ends in.
	 */
	unsigned int nr_iov;
	struct {
		u32 len;
		s32 page_off; /* -1: follows the previous segment */
	} iov[IOMAPSIM_MAX_IOV];
	int ki_flags; /* IOCB_NOWAIT, IOCB_HIPRI, ... */
	bool async; /* kiocb with ki_complete */
	unsigned int dio_flags; /* IOMAP_DIO_* */
	size_t done_before;
	bool no_simple; /* IOMAPSIM_DIO_NO_SIMPLE */
	bool private_data; /* the fs passes iomap private data */

	/* faults */
	const char *bio_faults[IOMAPSIM_MAX_FAULTS]; /* fault backend specs */
	unsigned int nr_bio_faults;
	u64 alloc_fail_nth; /* Nth failable allocation in the call */
	u64 short_pin_nth; /* Nth extraction pins only ... */
	size_t short_pin_bytes; /* ... this many bytes (0: -EFAULT) */
	/*
	 * The buffer memory is unmapped from unmapped_from bytes past where
	 * the buffer starts (buf_offset into it) on; a page boundary.
	 */
	bool unmapped;
	size_t unmapped_from;
	int begin_error; /* -errno from ->iomap_begin ... */
	unsigned int begin_error_nth; /* ... on this call (1-based) */
	int end_error;
	int fsync_error;

	enum testfs_complete complete;
	/* copy the caller's buffer here afterwards (len bytes), if set */
	void *data_out;
	/*
	 * Or be the caller's buffer: page-aligned memory of buf_mem_size
	 * bytes, at least IOMAPSIM_BUF_MEM_SIZE() of this request; the data
	 * is then at buf_mem + buf_offset, with no copy.
	 */
	void *buf_mem;
	size_t buf_mem_size;
	/*
	 * buf_mem already holds what the runner would lay out there for
	 * this request's bytes (a write's source: the write pattern at each
	 * byte's file offset; a read's fill: 0xee): the caller ran the same
	 * request on the same memory and checked, or put back, what it
	 * left.  The runner does not fill it again.
	 */
	bool buf_filled;
	/*
	 * The caller compares what a read returned with its own model of
	 * the file (the fuzzer does): skip the runner's comparison with
	 * testfs's, a second pass over the data that says the same for a
	 * read.  Writes are still checked on the device.
	 */
	bool reads_checked;
};

/*
 * The memory a request's buffer takes: its offset and length, rounded up
 * to pages, and a page of slack after it (a constant expression, for
 * static buffers).
 */
#define IOMAPSIM_BUF_MEM_SIZE(buf_offset, len) \
	((((size_t)(buf_offset) + (len) + 4095) & ~(size_t)4095) + 4096)
/* The same for @req, explicit segments (nr_iov) included. */
size_t testfs_buf_mem_size(const struct testfs_request *req);
/*
 * Whether an IOVEC segment after the first starts or ends off @mask (a
 * DMA alignment mask): one that code checking the memory while building
 * the bio refuses after taking the segments before it.
 */
bool testfs_iov_later_misaligned(const struct testfs_request *req,
				 unsigned long mask);
/* Explicit segments that are not one run of memory (they need a gather). */
bool testfs_iov_apart(const struct testfs_request *req);
/*
 * Explicit segments apart in memory: copy their bytes in order from the
 * buffer memory @mem (buf_mem) to @dst (len bytes) and return true;
 * false (nothing copied) when the data is one run at mem + buf_offset.
 */
bool testfs_iov_gather(const struct testfs_request *req, const u8 *mem,
		       u8 *dst);

struct testfs_outcome {
	/* the `iomapsim run` JSON keys */
	long ret;
	bool queued;
	/* path "simple", else "generic": __iomap_dio_rw() did not begin */
	bool simple;
	enum iomap_simple_reason fallback; /* OK means null */
	u64 bios;
	u64 cache_hits;
	int punted;
	int ki_complete_calls;
	enum iomap_dio_comp_ctx completion; /* NONE means null */
	loff_t ki_pos;
	size_t iter_count;
	/*
	 * The iterator counts more bytes than its remaining segments hold:
	 * a later walk of it (iov_iter_npages(), an extraction) would run
	 * off the end of its segment array.
	 */
	bool iter_past_segments;
	enum testfs_data data;
	long leaks;
	long warnings;
	long context_violations;
	/*
	 * Where the request's bios came from: fs_bio_set (the generic path
	 * without dops->bio_set), the file system's dops->bio_set, and any
	 * other set but the block layer's split set, which in this stack is
	 * only the simple path's pool.
	 */
	u64 bios_fs_bio_set, bios_dops_set, bios_simple_pool;
	/* the fallback-reason mirror contradicted the observed path */
	bool why_mismatch;

	/* more for tests */
	long direct_ret; /* what iomap_dio_rw() returned */
	long ki_complete_ret;
	enum iomap_dio_comp_ctx ki_complete_ctx;
	loff_t ki_pos_at_complete;
	bool private_at_complete; /* kiocb->private non-NULL then */
	/*
	 * ki_complete ran before iomap_dio_rw() returned and the kiocb was
	 * then written to (it is poisoned meanwhile, as freed memory).
	 */
	bool kiocb_written_after_complete;
	int completions; /* completion helper runs */
	bool simple_submitted;
	struct blksim_bdev_counters dev;
	unsigned int begin_calls, end_calls, next_calls;
	unsigned int end_io_calls, submit_io_calls, fsync_calls;
	unsigned int allocations, conversions;
	unsigned int end_io_flags;
	int fsync_datasync;
	unsigned int nr_cbs;
	loff_t i_size;
	int i_dio_count;
	bool wq_created;
	int ki_flags_after;
	long fserror_reports;
	struct sim_fserror_record fserror_last;
	struct sim_pc_stats pc;
	long alloc_injected;
	long alloc_seen; /* failable allocations while armed */
	long deadlocks;
	/*
	 * Last, and only the first nr_cbs (at most TESTFS_MAX_CBS) are set:
	 * clearing kilobytes of log for every request showed in the fuzzer.
	 */
	struct testfs_cb cbs[TESTFS_MAX_CBS];
};

void testfs_request_init(struct testfs_request *req);

/*
 * The atomic write unit `iomapsim run` and the fuzzer give the device
 * when a mapping is IOMAP_F_ATOMIC_BIO (hardware atomics): a file system
 * only hands out such a mapping for a device that advertises them.
 */
#define IOMAPSIM_ATOMIC_MAX 65536

static inline unsigned int
testfs_atomic_max_of(const struct testfs_request *req)
{
	for (unsigned int i = 0; i < req->nr_map; i++)
		if (req->map[i].flags & IOMAP_F_ATOMIC_BIO)
			return IOMAPSIM_ATOMIC_MAX;
	return 0;
}

/* Give @req's device that unit, unless it has one already. */
static inline void testfs_request_atomic_device(struct testfs_request *req)
{
	if (!req->atomic_max)
		req->atomic_max = testfs_atomic_max_of(req);
}

/*
 * Run @req.  Returns 0 with @out filled (whatever the request's own
 * result), or a negative errno with a one-line reason in @err when the
 * request cannot be set up (bad geometry, bad fault spec, ...).
 */
int testfs_run(const struct testfs_request *req, struct testfs_outcome *out,
	       char *err, size_t errlen);

/*
 * The runner keeps the testfs of the last geometry between requests (see
 * request.c).  prepare() builds it for @req ahead of time, so that a
 * caller comparing gauges around a batch of requests (the fuzzer) sees the
 * same objects before and after; teardown() frees it, the simple path's
 * pool and the bio caches, for a caller that must end with nothing
 * allocated (the test harness calls it after each test by itself).
 */
int testfs_runner_prepare(const struct testfs_request *req, char *err,
			  size_t errlen);
void testfs_runner_teardown(void);

const char *testfs_data_name(enum testfs_data d);
/* One JSON object with exactly the contract's keys, and a newline. */
void testfs_outcome_print_json(const struct testfs_outcome *out, FILE *f);

/* The byte a write request puts at file offset @off. */
static inline u8 testfs_write_pattern(loff_t off)
{
	u64 x = (u64)off;

	return (u8)((x * 11) ^ (x >> 8) ^ 0xc3) & 0xfe;
}

/* testfs_write_pattern() of file range [off, off + len), into @dst. */
void testfs_write_pattern_fill(u8 *dst, loff_t off, size_t len);
/* Index of the first byte of @buf that is not the pattern, or @len. */
size_t testfs_write_pattern_diff(const u8 *buf, loff_t off, size_t len);

#endif /* _IOMAPSIM_REQUEST_H */
