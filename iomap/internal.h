/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared inside iomap/ (fs/iomap/internal.h).
 *
 * direct-io.c, iter.c, ioend.c and <linux/iomap.h> are the kernel's files
 * and hold nothing that is there only to support the simulator, as
 * xfsprogs' libxfs_priv.h asks of its kernel files: which code runs is in
 * code.c, the observer in trace.c, the file system's call site in
 * fs-dio.c, their interfaces in <sim/...>, and what is left of the
 * simulator in a kernel file is a hook (a counter, a trace point, a call
 * into trace.c or the module init and exit a user-space build needs).
 */
#ifndef _IOMAP_INTERNAL_H
#define _IOMAP_INTERNAL_H 1

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/fscrypt.h>
#include <linux/iomap.h>
#include <linux/sched.h>
#include <linux/task_io_accounting_ops.h>

#ifndef BIO_MAX_SIZE
/* include/linux/bio.h: the largest bi_size a bio can carry */
#define BIO_MAX_SIZE UINT_MAX
#endif

/*
 * Normally bios can be built as big as the data structure allows.  With
 * integrity-protected I/O the kernel caps them at the largest contiguous
 * integrity buffer; the simulated block layer carries no integrity
 * payload, so there is no such cap here.
 */
static inline size_t iomap_max_bio_size(const struct iomap *iomap)
{
	return BIO_MAX_SIZE;
}

/*
 * ioend.c: completions per iomap_finish_ioends() call before it yields
 * the CPU, and the direct half of iomap_finish_ioend(), in direct-io.c of
 * the code that has it (IOMAPSIM_IOEND_DIRECT).
 */
#define IOEND_BATCH_SIZE	4096
struct iomap_ioend;
u32 iomap_finish_ioend_direct(struct iomap_ioend *ioend);

#endif /* _IOMAP_INTERNAL_H */
