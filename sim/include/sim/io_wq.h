/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * io_uring's decision whether queued async work for a regular file is
 * hashed, that is run one item at a time per inode by io-wq
 * (io_prep_async_work() in io_uring/io_uring.c): P-04..P-08.
 */
#ifndef _SIM_IO_WQ_H
#define _SIM_IO_WQ_H

#include <linux/fs.h>

/* The requests the simulator queues; only writes hash a regular file. */
enum sim_io_wq_op {
	IO_WQ_SIM_READ,
	IO_WQ_SIM_WRITE,
};

/*
 * P-08: should io-wq serialise @op on @file's inode?
 *  - a write to a regular file hashes (the opcode's hash_reg_file),
 *    unless the file is O_DIRECT and its file system allows parallel
 *    direct writes (FOP_DIO_PARALLEL_WRITE in f_op->fop_flags, or
 *    FMODE_DIO_PARALLEL_WRITE in f_mode, the per-open spelling) - P-04;
 *  - under IORING_SETUP_IOPOLL (@ring_iopoll) a regular file's work
 *    hashes whatever the flag says - P-05;
 *  - a buffered write always hashes, a read never does by this rule
 *    (only IOPOLL hashes it) - P-06;
 *  - anything but a regular file is not hashed here.
 */
bool io_wq_should_hash(enum sim_io_wq_op op, const struct file *file,
		       bool ring_iopoll);

#endif /* _SIM_IO_WQ_H */
