// SPDX-License-Identifier: GPL-2.0-only
/*
 * io_wq_should_hash(): io_prep_async_work()'s hashing rule for regular
 * files (see <sim/io_wq.h>).  The flag only decides whether io-wq may run
 * several queued writes of one inode at once (P-07); nothing in iomap
 * looks at it.
 */
#include <sys/stat.h>
#include <linux/fs.h>
#include <sim/io_wq.h>

#define SIM_O_DIRECT 040000

static bool dio_parallel_write(const struct file *file)
{
	if (file->f_mode & FMODE_DIO_PARALLEL_WRITE)
		return true;
	return file->f_op && (file->f_op->fop_flags & FOP_DIO_PARALLEL_WRITE);
}

bool io_wq_should_hash(enum sim_io_wq_op op, const struct file *file,
		       bool ring_iopoll)
{
	bool should_hash;

	if (!file || !S_ISREG(file_inode(file)->i_mode))
		return false;
	/* def->hash_reg_file: the write opcodes */
	should_hash = op == IO_WQ_SIM_WRITE;
	/* don't serialise a request the file system does not need to */
	if (should_hash && (file->f_flags & SIM_O_DIRECT) &&
	    dio_parallel_write(file))
		should_hash = false;
	return should_hash || ring_iopoll;
}
