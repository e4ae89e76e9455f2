/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel-side state of a FUSE mount (tools/fuse/vfs.c, ctl.c): the devices,
 * the simfs super block, and open file handles, which are either simfs
 * files or files of the control directory /.iomapsim/.
 */
#ifndef _FUSEVFS_INTERNAL_H
#define _FUSEVFS_INTERNAL_H

#include <pthread.h>
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/list.h>
#include "fusevfs.h"
#include "simfs.h"

/* Inode numbers of the control directory, above any simfs inode. */
#define FUSEVFS_CTL_DIR_INO SIMFS_INO_LIMIT
enum fusevfs_ctl_file {
	FUSEVFS_CTL_STATS = 1,
	FUSEVFS_CTL_TRACE,
	FUSEVFS_CTL_SIMPLE,
	FUSEVFS_CTL_FAULT,
	FUSEVFS_CTL_LOGW,
	FUSEVFS_CTL_NR,
};

struct fusevfs_mount {
	struct block_device *lower; /* the O_DIRECT file or device */
	struct block_device *bdev; /* the fault wrapper over it */
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
	 * released by fusevfs_mount_close(), as the last fput would.
	 */
	pthread_mutex_t fh_lock;
	struct list_head open_fhs;
};

enum fusevfs_fh_kind {
	FUSEVFS_FH_FILE = 1,
	FUSEVFS_FH_CTL,
};

struct fusevfs_fh {
	enum fusevfs_fh_kind kind;
	struct file *file; /* FUSEVFS_FH_FILE */
	int ctl; /* FUSEVFS_FH_CTL: which file */
	char *text; /* its contents as of open */
	size_t len;
	struct list_head node; /* on fusevfs_mount.open_fhs */
};

void fusevfs_thread_enter(void);

static inline bool fusevfs_is_ctl(uint64_t ino)
{
	return ino >= FUSEVFS_CTL_DIR_INO &&
	       ino < FUSEVFS_CTL_DIR_INO + FUSEVFS_CTL_NR;
}

/* ctl.c */
void fusevfs_ctl_attr(uint64_t ino, struct fusevfs_attr *a);
int fusevfs_ctl_lookup(const char *name, struct fusevfs_attr *out);
int fusevfs_ctl_readdir(uint64_t off,
			int (*fill)(void *arg, const char *name, uint64_t ino,
				    uint32_t mode, uint64_t next_off),
			void *arg);
int fusevfs_ctl_open(struct fusevfs_mount *m, uint64_t ino,
		     struct fusevfs_fh *h);
void fusevfs_ctl_release(struct fusevfs_fh *h);
long fusevfs_ctl_write(struct fusevfs_mount *m, struct fusevfs_fh *h,
		       const char *data, size_t size);

#endif /* _FUSEVFS_INTERNAL_H */
