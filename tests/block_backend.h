/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the backend suites (tests/block_backend_*.c): bios
 * over a kernel buffer, synchronous and asynchronous, patterns, and test
 * cases with their own fixture (block_submit.c uses those too).
 */
#ifndef _TESTS_BLOCK_BACKEND_H
#define _TESTS_BLOCK_BACKEND_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <sim/bdev.h>
#include <sim/stats.h>
#include "harness.h"

/* Make a skip visible in the log, then leave the test without asserting. */
#define BB_SKIP(...)                            \
	do {                                    \
		printf("SKIP: %s: ", __func__); \
		printf(__VA_ARGS__);            \
		printf("\n");                   \
		fflush(stdout);                 \
		return;                         \
	} while (0)

/* A bio over @len bytes of kernel memory at @buf, starting at @sector. */
static inline struct bio *bb_bio(struct block_device *bdev, blk_opf_t opf,
				 sector_t sector, void *buf, unsigned int len)
{
	unsigned int nr =
		buf ? DIV_ROUND_UP(offset_in_page(buf) + len, PAGE_SIZE) : 0;
	struct bio *bio = bio_alloc(bdev, (unsigned short)nr, opf, GFP_KERNEL);
	char *p = buf;

	bio->bi_iter.bi_sector = sector;
	while (len) {
		unsigned int off = offset_in_page(p);
		unsigned int n = min_t(unsigned int, len, PAGE_SIZE - off);

		__bio_add_page(bio, virt_to_page(p), n, off);
		p += n;
		len -= n;
	}
	return bio;
}

/* Submit and wait: 0 or the errno of bi_status. */
static inline int bb_rw(struct block_device *bdev, blk_opf_t opf,
			sector_t sector, void *buf, unsigned int len)
{
	struct bio *bio = bb_bio(bdev, opf, sector, buf, len);
	int ret = submit_bio_wait(bio);

	bio_put(bio);
	return ret;
}

/* A flush as bios ask for one (blkdev_issue_flush): empty, PREFLUSH. */
static inline int bb_flush(struct block_device *bdev)
{
	return bb_rw(bdev, REQ_OP_WRITE | REQ_PREFLUSH, 0, NULL, 0);
}

/* Page-aligned kernel buffer (alloc_pages: accounted, leak-checked). */
static inline void *bb_alloc(size_t len)
{
	unsigned int order = 0;

	while ((PAGE_SIZE << order) < len)
		order++;
	return page_address(alloc_pages(GFP_KERNEL, order));
}

static inline void bb_free(void *p, size_t len)
{
	unsigned int order = 0;

	while ((PAGE_SIZE << order) < len)
		order++;
	__free_pages(virt_to_page(p), order);
}

/* A pattern that differs per byte, per offset and per seed. */
static inline void bb_fill(void *buf, size_t len, u64 off, unsigned int seed)
{
	unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)((off + i) * 131 + (off + i) / 4093 +
				       seed * 7 + 1);
}

static inline bool bb_check(const void *buf, size_t len, u64 off,
			    unsigned int seed)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		if (p[i] != (unsigned char)((off + i) * 131 + (off + i) / 4093 +
					    seed * 7 + 1))
			return false;
	return true;
}

/* Asynchronous bios: each remembers its status and signals a completion. */
struct bb_async {
	struct completion done;
	blk_status_t status;
	int ended;
};

static inline void bb_async_end_io(struct bio *bio)
{
	struct bb_async *a = bio->bi_private;

	a->status = bio->bi_status;
	a->ended++;
	bio_put(bio);
	complete(&a->done);
}

static inline void bb_submit_async(struct bio *bio, struct bb_async *a)
{
	init_completion(&a->done);
	a->status = BLK_STS_OK;
	a->ended = 0;
	bio->bi_private = a;
	bio->bi_end_io = bb_async_end_io;
	submit_bio(bio);
}

/*
 * Bio @i of a run of @len-byte bios over @buf, back to back from sector
 * 0 (the i-th covers @buf + @i * @len), submitted to end in @a.
 */
static inline void bb_submit_nth(struct block_device *bdev, blk_opf_t opf,
				 char *buf, unsigned int len, int i,
				 struct bb_async *a)
{
	bb_submit_async(bb_bio(bdev, opf, (sector_t)i * (len >> SECTOR_SHIFT),
			       buf + (size_t)i * len, len),
			a);
}

static inline u64 bb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

#endif /* _TESTS_BLOCK_BACKEND_H */
