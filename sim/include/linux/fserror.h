/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * File I/O error reporting (include/linux/fserror.h): the VFS hook through
 * which iomap tells user space (fsnotify) that a direct read or write
 * failed.  The simulator counts the reports ("fserror_reports") and keeps
 * the last one, so tests can check which errors are reported (K-14).
 */
#ifndef _LINUX_FSERROR_H__
#define _LINUX_FSERROR_H__

#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/types.h>

enum fserror_type {
	/* pagecache I/O failed */
	FSERR_BUFFERED_READ,
	FSERR_BUFFERED_WRITE,

	/* direct I/O failed */
	FSERR_DIRECTIO_READ,
	FSERR_DIRECTIO_WRITE,

	/* out of band media error reported */
	FSERR_DATA_LOST,

	/* filesystem metadata */
	FSERR_METADATA,
};

/*
 * Report an error on @inode of @sb.  The kernel allocates an event with
 * @gfp and hands it to a worker; a sleeping @gfp from atomic context is
 * reported as a context violation, as the allocator would.
 */
void fserror_report(struct super_block *sb, struct inode *inode,
		    enum fserror_type type, loff_t pos, u64 len, int error,
		    gfp_t gfp);

static inline void fserror_report_io(struct inode *inode,
				     enum fserror_type type, loff_t pos,
				     u64 len, int error, gfp_t gfp)
{
	fserror_report(inode->i_sb, inode, type, pos, len, error, gfp);
}

static inline void fserror_report_data_lost(struct inode *inode, loff_t pos,
					    u64 len, gfp_t gfp)
{
	fserror_report(inode->i_sb, inode, FSERR_DATA_LOST, pos, len, -EIO,
		       gfp);
}

/* Simulator: what was reported. */
struct sim_fserror_record {
	unsigned long ino;
	enum fserror_type type;
	loff_t pos;
	u64 len;
	int error;
};

/* Reports since start (or the last reset). */
long sim_fserror_count(void);
/* The last report; false if there was none since the reset. */
bool sim_fserror_last(struct sim_fserror_record *out);
void sim_fserror_reset(void);

#endif /* _LINUX_FSERROR_H__ */
