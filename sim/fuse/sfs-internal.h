/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel-side state of a FUSE mount (sim/fuse/vfs.c, ctl.c): the devices,
 * the simfs super block, and open file handles, which are either simfs
 * files or files of the control directory /.iomapsim/.
 */
#ifndef _SFS_INTERNAL_H
#define _SFS_INTERNAL_H

#include <pthread.h>
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/list.h>
#include "sfs.h"
#include "simfs.h"

/* Inode numbers of the control directory, above any simfs inode. */
#define SFS_CTL_DIR_INO		SIMFS_INO_LIMIT
enum sfs_ctl_file {
	SFS_CTL_STATS = 1,
	SFS_CTL_TRACE,
	SFS_CTL_SIMPLE,
	SFS_CTL_FAULT,
	SFS_CTL_LOGW,
	SFS_CTL_NR,
};

struct sfs_mount {
	struct block_device *lower;	/* the O_DIRECT file or device */
	struct block_device *bdev;	/* the fault wrapper over it */
	struct super_block *sb;
	struct simfs_sb_info *sbi;
	char target[256];
	atomic_long_t inflight;
	atomic_long_t unreplied; /* of those, not yet replied to */
	atomic_long_t reply_errors;
	bool engine_started;
	/*
	 * Handles not yet released.  The FUSE client sends RELEASE after
	 * close() returns, without waiting for it, and an unmount does not
	 * wait either: what is still open when the session ends is
	 * released by sfs_mount_close(), as the last fput would.
	 */
	pthread_mutex_t fh_lock;
	struct list_head open_fhs;
};

enum sfs_fh_kind {
	SFS_FH_FILE = 1,
	SFS_FH_CTL,
};

struct sfs_fh {
	enum sfs_fh_kind kind;
	struct file *file;		/* SFS_FH_FILE */
	int ctl;			/* SFS_FH_CTL: which file */
	char *text;			/* its contents as of open */
	size_t len;
	struct list_head node;		/* on sfs_mount.open_fhs */
};

void sfs_thread_enter(void);

static inline bool sfs_is_ctl(uint64_t ino)
{
	return ino >= SFS_CTL_DIR_INO && ino < SFS_CTL_DIR_INO + SFS_CTL_NR;
}

/* ctl.c */
void sfs_ctl_attr(uint64_t ino, struct sfs_attr *a);
int sfs_ctl_lookup(const char *name, struct sfs_attr *out);
int sfs_ctl_readdir(uint64_t off,
		    int (*fill)(void *arg, const char *name, uint64_t ino,
				uint32_t mode, uint64_t next_off),
		    void *arg);
int sfs_ctl_open(struct sfs_mount *m, uint64_t ino, struct sfs_fh *h);
void sfs_ctl_release(struct sfs_fh *h);
long sfs_ctl_write(struct sfs_mount *m, struct sfs_fh *h, const char *data,
		   size_t size);

#endif /* _SFS_INTERNAL_H */
