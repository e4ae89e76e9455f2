/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How a file system calls iomap direct I/O, one interface for both API
 * generations (iomap/fs-dio.c).  testfs, simfs, the request runner, the
 * fuzz targets and the benchmarks call iomap through this header only, so
 * that the same file system runs on the embedded iomap/direct-io.c or on a
 * kernel tree's fs/iomap/direct-io.c (-DIOMAPSIM_KERNEL_TREE):
 *
 *  (a) baseline (the embedded copy): iomap_dio_rw() with a struct
 *      iomap_ops {begin, end}; the simple path is tried inside it;
 *  (b) the VFS tree: the file system's ->read_iter calls the inline
 *      iomap_dio_read_simple(iocb, iter, begin) first, and iomap_dio_rw()
 *      with its ->iomap_next only after -ENOTBLK, as ext4 and XFS do there.
 *
 * The simple=0 switch (SB_I_SIM_NO_SIMPLE_DIO, IOMAP_DIO_SIM_NO_SIMPLE) is
 * the file system's own choice in both: in (a) it calls __iomap_dio_rw()
 * and iomap_dio_complete() instead of iomap_dio_rw(), as btrfs does; in
 * (b) it just does not call iomap_dio_read_simple().  Either way it tells
 * the observer what it offered (iomap_dio_sim_offer()), and which path ran
 * is observed from the iomap code's own tracepoint (iomap/trace.c).
 */
#ifndef _SIM_IOMAP_FS_H
#define _SIM_IOMAP_FS_H

#include <linux/iomap.h>
#include <sim/iomap.h>

/* A file system's mapping callbacks, as both generations want them. */
struct sim_iomap_fs_ops {
	iomap_iter_begin_fn begin;	/* NULL only for a next-only walk */
	iomap_iter_end_fn end;		/* optional */
	/*
	 * begin and end as one ->iomap_next (DEFINE_IOMAP_ITER_NEXT_END):
	 * what (b) iterates with.  (a) uses it only when @begin is NULL,
	 * through the proposal's struct iomap_ops::iomap_next.
	 */
	iomap_iter_next_fn next;
};

#if defined(IOMAPSIM_KSRC) && !defined(IOMAP_DIO_NO_IOMAP_END)
/*
 * The proposal flag (N-12) of the embedded copy: requests that carry it
 * still parse and run; a kernel tree's iomap_dio_rw() ignores the bit.
 */
#define IOMAP_DIO_NO_IOMAP_END		(1 << 5)
#endif

/* Which API generation is linked in: 'a' or 'b'. */
char iomap_sim_generation(void);

/*
 * A file system's direct read or write (@iter a destination for a read),
 * as its ->read_iter/->write_iter would call iomap in this generation.
 */
ssize_t sim_iomap_dio_rw(struct kiocb *iocb, struct iov_iter *iter,
		const struct sim_iomap_fs_ops *fs,
		const struct iomap_dio_ops *dops, unsigned int dio_flags,
		void *private, size_t done_before);

/* One step of iomap_iter() over @fs's mappings (for tests). */
int sim_iomap_iter(struct iomap_iter *iter, const struct sim_iomap_fs_ops *fs);

#endif /* _SIM_IOMAP_FS_H */
