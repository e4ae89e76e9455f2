/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The boundary between the FUSE glue (host side: libfuse, system
 * headers) and the simulated kernel (sim/fuse/vfs.c: simfs, iomap, the
 * block layer).  Plain C types only, so both sides can include it: this
 * is the VFS of the simulator, seen from a FUSE request.
 *
 * Every function may be called from any FUSE worker thread; the kernel
 * side gives each thread a simulated task on first use.  Errors are
 * negative errnos.
 */
#ifndef _SFS_H
#define _SFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iomapsim_mount_opts;
struct sfs_mount;

struct sfs_attr {
	uint64_t ino;
	uint32_t mode, nlink, uid, gid;
	uint64_t size;
	uint64_t blocks;		/* 512-byte units */
	uint32_t blksize;
	int64_t atime_ns, mtime_ns, ctime_ns;
};

struct sfs_statfs {
	uint32_t bsize;
	uint64_t blocks, bfree, bavail, files, ffree;
	uint32_t namemax;
};

/* open results */
#define SFS_FOPEN_DIRECT_IO		(1U << 0)
#define SFS_FOPEN_PARALLEL_WRITES	(1U << 1)

/* sfs_setattr() valid bits */
#define SFS_SET_MODE	(1U << 0)
#define SFS_SET_UID	(1U << 1)
#define SFS_SET_GID	(1U << 2)
#define SFS_SET_SIZE	(1U << 3)
#define SFS_SET_ATIME	(1U << 4)
#define SFS_SET_MTIME	(1U << 5)

#define SFS_RENAME_NOREPLACE	(1U << 0)
#define SFS_RENAME_EXCHANGE	(1U << 1)

int sfs_mount_open(const struct iomapsim_mount_opts *o, struct sfs_mount **out,
		   char *err, size_t errlen);
/* Wait for I/O in flight, unmount (a clean commit), tear everything down. */
int sfs_mount_close(struct sfs_mount *m);
/* Commit if anything changed (the periodic commit). */
int sfs_sync(struct sfs_mount *m);
/* Validate a fault spec without a device. */
int sfs_fault_check(const char *spec, char *err, size_t errlen);
/* Reads and writes not yet replied to. */
long sfs_unreplied(struct sfs_mount *m);
/* Tell the kernel side a FUSE reply could not be sent. */
void sfs_note_reply_error(struct sfs_mount *m);

int sfs_lookup(struct sfs_mount *m, uint64_t parent, const char *name,
	       struct sfs_attr *out);
void sfs_forget(struct sfs_mount *m, uint64_t ino, uint64_t nlookup);
int sfs_getattr(struct sfs_mount *m, uint64_t ino, struct sfs_attr *out);
int sfs_setattr(struct sfs_mount *m, uint64_t ino, unsigned int valid,
		const struct sfs_attr *in, struct sfs_attr *out);
/* Regular files and directories; takes a lookup reference on success. */
int sfs_mknod(struct sfs_mount *m, uint64_t parent, const char *name,
	      uint32_t mode, uint32_t uid, uint32_t gid, struct sfs_attr *out);
int sfs_unlink(struct sfs_mount *m, uint64_t parent, const char *name);
int sfs_rmdir(struct sfs_mount *m, uint64_t parent, const char *name);
int sfs_rename(struct sfs_mount *m, uint64_t parent, const char *name,
	       uint64_t newparent, const char *newname, unsigned int flags);

int sfs_open(struct sfs_mount *m, uint64_t ino, int flags, uint64_t *fh,
	     unsigned int *fopen_flags);
int sfs_release(struct sfs_mount *m, uint64_t fh);

/*
 * Reads and writes end with exactly one call of @done, possibly before
 * sfs_read()/sfs_write() return, possibly later from a completion
 * thread.  @res is bytes or a negative errno; for reads @buf holds the
 * data and is freed when @done returns.
 */
typedef void (*sfs_io_done_t)(void *arg, long res, const void *buf);
void sfs_read(struct sfs_mount *m, uint64_t fh, size_t size, uint64_t off,
	      sfs_io_done_t done, void *arg);
void sfs_write(struct sfs_mount *m, uint64_t fh, const void *data,
	       size_t size, uint64_t off, sfs_io_done_t done, void *arg);
/*
 * A direct read leaves sfs_read() queued on the calling worker's own
 * ring of the device, where nobody ends it until the worker reaps
 * (within SIM_BDEV_FILE_SWEEP_MS the device does it anyway):
 *  - sfs_own_fd: an eventfd that turns readable as such reads complete
 *    (-errno: no ring here, reap with wait after each request);
 *  - sfs_own_outstanding: reads of this worker not yet ended;
 *  - sfs_reap: end (and so reply to) those that completed, or with
 *    @wait all of them, waiting.
 */
int sfs_own_fd(struct sfs_mount *m);
unsigned int sfs_own_outstanding(struct sfs_mount *m);
void sfs_reap(struct sfs_mount *m, bool wait);
/*
 * As sfs_reap() waiting, busy-polling up to @spin->budget_us first; how
 * the window went is filled in (sim_bdev_file_thread_wait()).
 */
struct sfs_spin {
	unsigned int budget_us;
	bool polled, hit;
	uint64_t spent_ns;
};
void sfs_reap_wait(struct sfs_mount *m, struct sfs_spin *spin);
/*
 * @on: a read this worker queues while nothing else is in flight waits
 * on its ring until it reaps, so that one system call submits it and
 * waits for it (sim_bdev_file_thread_defer()).  0 or -errno.
 */
int sfs_own_defer(struct sfs_mount *m, bool on);

/* The FUSE loop's poll governor (poll-gov.c) in the mount's stats. */
enum sfs_poll_stat {
	/* counters, added to */
	SFS_POLL_WINDOWS,	/* /dev/fuse poll windows opened */
	SFS_POLL_HITS,		/* ... that found the next request */
	SFS_POLL_SPENT_NS,	/* ... and the time they spun */
	SFS_POLL_NO_IDLE_CPU,	/* windows not opened: no CPU idle */
	SFS_POLL_TRIALS,	/* polling against sleeping, measured */
	SFS_POLL_TRIALS_WON,	/* ... and polling was faster */
	SFS_POLL_CLONE_READS,	/* requests a worker slept for on its clone */
	SFS_POLL_URING_REQS,	/* requests that came over FUSE io_uring */
	/* levels, set (a stats reset clears them too) */
	SFS_POLL_ON,		/* the last trial's winner (1: polling) */
	SFS_POLL_CYCLE_POLLING_NS, /* its mean cycles, each arm */
	SFS_POLL_CYCLE_SLEEPING_NS,
	SFS_POLL_IDLE_CPUS,	/* the last estimate */
	SFS_POLL_NR,
};
void sfs_poll_stat(enum sfs_poll_stat s, long v);
int sfs_fsync(struct sfs_mount *m, uint64_t fh, int datasync);
int sfs_fallocate(struct sfs_mount *m, uint64_t fh, int mode, int64_t off,
		  int64_t len);

/*
 * Entries of directory @ino after offset @off ("." is offset 1, ".." 2,
 * then the entries' cookies); @fill returns non-zero when it is full.
 */
int sfs_readdir(struct sfs_mount *m, uint64_t ino, uint64_t off,
		int (*fill)(void *arg, const char *name, uint64_t ino,
			    uint32_t mode, uint64_t next_off),
		void *arg);
int sfs_statfs(struct sfs_mount *m, struct sfs_statfs *st);

int sfs_setxattr(struct sfs_mount *m, uint64_t ino, const char *name,
		 const void *value, size_t size, int flags);
long sfs_getxattr(struct sfs_mount *m, uint64_t ino, const char *name,
		  void *buf, size_t size);
long sfs_listxattr(struct sfs_mount *m, uint64_t ino, char *buf, size_t size);
int sfs_removexattr(struct sfs_mount *m, uint64_t ino, const char *name);

#endif /* _SFS_H */
