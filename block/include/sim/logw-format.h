/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The log a log-writes device (block/backend-logw.c) keeps, after
 * dm-log-writes: every write, flush and FUA bio that reached the device
 * and succeeded, in the order they completed, and marks a test adds, so
 * that the log replayed up to any entry into a copy of the original
 * device gives what the media could hold had the power failed there.
 * Plain C types: test programs and tools read it with system headers.
 *
 * The file: one struct logw_super, then entries, each a struct
 * logw_entry followed by @len bytes (a write's data, a mark's name),
 * all little-endian, written by the host that made them.  Entry numbers
 * (@seq) count from 0 with no gaps.
 *
 * What is durable after entries [0, N) (LOGW_SUPER_WRITE_CACHE set):
 *  - a write with LOGW_FUA, once its entry is among them;
 *  - any other write whose @seq is below the @covers of a LOGW_FLUSH
 *    entry among them: the flush was submitted after that write had
 *    completed (REQ_PREFLUSH semantics: completed writes only);
 *  - nothing else (a crash may or may not keep it: a replay drops it).
 * A write that carried REQ_PREFLUSH is logged as a LOGW_FLUSH entry for
 * its preflush and then the write itself: both completed together.
 * A device without a volatile write cache (LOGW_SUPER_WRITE_CACHE clear)
 * has every write on the media when it completes: all are durable.
 */
#ifndef _SIM_LOGW_FORMAT_H
#define _SIM_LOGW_FORMAT_H

#include <stdint.h>

#define LOGW_MAGIC "IOMAPSIM-LOGW\n\0"	/* 16 bytes with the NUL */
#define LOGW_VERSION 1
#define LOGW_ENTRY_MAGIC 0x57474f4cU	/* "LOGW" */
#define LOGW_MARK_MAX 200		/* bytes in a mark's name */

struct logw_super {
	char magic[16];
	uint32_t version;
	uint32_t sector_size;		/* 512: @sector units */
	uint64_t nr_sectors;		/* the device's size */
	uint32_t features;		/* LOGW_SUPER_* */
	uint32_t pad;
};

/* BLK_FEAT_WRITE_CACHE: completed writes may still be volatile */
#define LOGW_SUPER_WRITE_CACHE (1U << 0)

enum logw_type {
	LOGW_WRITE = 1,			/* @sector, @len bytes of data */
	LOGW_FLUSH = 2,			/* @covers */
	LOGW_MARK = 3,			/* @len bytes of name, no NUL */
};

/* @flags of a LOGW_WRITE: what the bio carried */
#define LOGW_FUA (1U << 0)
#define LOGW_PREFLUSH (1U << 1)
#define LOGW_META (1U << 2)

struct logw_entry {
	uint32_t magic;			/* LOGW_ENTRY_MAGIC */
	uint32_t type;			/* enum logw_type */
	uint64_t seq;			/* this entry's number */
	uint64_t sector;
	uint32_t len;			/* payload bytes after the entry */
	uint32_t flags;
	uint64_t covers;		/* LOGW_FLUSH: entries it covers */
};

#endif /* _SIM_LOGW_FORMAT_H */
