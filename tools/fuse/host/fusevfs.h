/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The boundary between the FUSE glue (host side: libfuse, system
 * headers) and the simulated kernel (tools/fuse/vfs.c: simfs, iomap, the
 * block layer).  Plain C types only, so both sides can include it: this
 * is the VFS of the simulator, seen from a FUSE request.
 *
 * Every function may be called from any FUSE worker thread; the kernel
 * side gives each thread a simulated task on first use.  Errors are
 * negative errnos.
 */
#ifndef _FUSEVFS_H
#define _FUSEVFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fusevfs_mount_opts;
struct fusevfs_mount;

struct fusevfs_attr {
	uint64_t ino;
	uint32_t mode, nlink, uid, gid;
	uint64_t size;
	uint64_t blocks; /* 512-byte units */
	uint32_t blksize;
	int64_t atime_ns, mtime_ns, ctime_ns;
};

struct fusevfs_statfs {
	uint32_t bsize;
	uint64_t blocks, bfree, bavail, files, ffree;
	uint32_t namemax;
};

/* open results */
#define FUSEVFS_FOPEN_DIRECT_IO (1U << 0)
#define FUSEVFS_FOPEN_PARALLEL_WRITES (1U << 1)

/* fusevfs_setattr() valid bits */
#define FUSEVFS_SET_MODE (1U << 0)
#define FUSEVFS_SET_UID (1U << 1)
#define FUSEVFS_SET_GID (1U << 2)
#define FUSEVFS_SET_SIZE (1U << 3)
#define FUSEVFS_SET_ATIME (1U << 4)
#define FUSEVFS_SET_MTIME (1U << 5)

#define FUSEVFS_RENAME_NOREPLACE (1U << 0)
#define FUSEVFS_RENAME_EXCHANGE (1U << 1)

int fusevfs_mount_open(const struct fusevfs_mount_opts *o,
		       struct fusevfs_mount **out, char *err, size_t errlen);
/* Wait for I/O in flight, unmount (a clean commit), tear everything down. */
int fusevfs_mount_close(struct fusevfs_mount *m);
/* Commit if anything changed (the periodic commit). */
int fusevfs_sync(struct fusevfs_mount *m);
/* Validate a fault spec without a device. */
int fusevfs_fault_check(const char *spec, char *err, size_t errlen);
/* Reads and writes not yet replied to. */
long fusevfs_unreplied(struct fusevfs_mount *m);
/* Tell the kernel side a FUSE reply could not be sent. */
void fusevfs_note_reply_error(struct fusevfs_mount *m);

int fusevfs_lookup(struct fusevfs_mount *m, uint64_t parent, const char *name,
		   struct fusevfs_attr *out);
void fusevfs_forget(struct fusevfs_mount *m, uint64_t ino, uint64_t nlookup);
int fusevfs_getattr(struct fusevfs_mount *m, uint64_t ino,
		    struct fusevfs_attr *out);
int fusevfs_setattr(struct fusevfs_mount *m, uint64_t ino, unsigned int valid,
		    const struct fusevfs_attr *in, struct fusevfs_attr *out);
/* Regular files and directories; takes a lookup reference on success. */
int fusevfs_mknod(struct fusevfs_mount *m, uint64_t parent, const char *name,
		  uint32_t mode, uint32_t uid, uint32_t gid,
		  struct fusevfs_attr *out);
int fusevfs_unlink(struct fusevfs_mount *m, uint64_t parent, const char *name);
int fusevfs_rmdir(struct fusevfs_mount *m, uint64_t parent, const char *name);
int fusevfs_rename(struct fusevfs_mount *m, uint64_t parent, const char *name,
		   uint64_t newparent, const char *newname, unsigned int flags);

int fusevfs_open(struct fusevfs_mount *m, uint64_t ino, int flags, uint64_t *fh,
		 unsigned int *fopen_flags);
int fusevfs_release(struct fusevfs_mount *m, uint64_t fh);

/*
 * Reads and writes end with exactly one call of @done, possibly before
 * fusevfs_read()/fusevfs_write() return, possibly later from a completion
 * thread.  @res is bytes or a negative errno; for reads @buf holds the
 * data and is freed when @done returns.
 */
typedef void (*fusevfs_io_done_t)(void *arg, long res, const void *buf);
void fusevfs_read(struct fusevfs_mount *m, uint64_t fh, size_t size,
		  uint64_t off, fusevfs_io_done_t done, void *arg);
void fusevfs_write(struct fusevfs_mount *m, uint64_t fh, const void *data,
		   size_t size, uint64_t off, fusevfs_io_done_t done,
		   void *arg);
/*
 * A direct read leaves fusevfs_read() queued in the calling worker's own
 * completion context on the device (the file device's ring for that
 * thread), where nobody ends it until the worker reaps
 * (within BLKSIM_BDEV_FILE_SWEEP_MS the device does it anyway):
 *  - fusevfs_own_fd: an eventfd that turns readable as such reads complete
 *    (-errno: no ring here, reap with wait after each request);
 *  - fusevfs_own_outstanding: reads of this worker not yet ended;
 *  - fusevfs_reap: end (and so reply to) those that completed, or with
 *    @wait all of them, waiting.
 */
int fusevfs_own_fd(struct fusevfs_mount *m);
unsigned int fusevfs_own_outstanding(struct fusevfs_mount *m);
void fusevfs_reap(struct fusevfs_mount *m, bool wait);
/*
 * As fusevfs_reap() waiting, busy-polling up to @spin->budget_us first; how
 * the window went is filled in (blksim_bdev_submitter_wait()).
 */
struct fusevfs_spin {
	unsigned int budget_us;
	bool polled, hit;
	uint64_t spent_ns;
};
void fusevfs_reap_wait(struct fusevfs_mount *m, struct fusevfs_spin *spin);
/*
 * @on: a read this worker queues while nothing else is in flight waits
 * on its ring until it reaps, so that one system call submits it and
 * waits for it (blksim_bdev_submitter_defer()).  0 or -errno.
 */
int fusevfs_own_defer(struct fusevfs_mount *m, bool on);

/* The FUSE loop's poll governor (poll-gov.c) in the mount's stats. */
enum fusevfs_poll_stat {
	/* counters, added to */
	FUSEVFS_POLL_WINDOWS, /* /dev/fuse poll windows opened */
	FUSEVFS_POLL_HITS, /* ... that found the next request */
	FUSEVFS_POLL_SPENT_NS, /* ... and the time they spun */
	FUSEVFS_POLL_NO_IDLE_CPU, /* windows not opened: no CPU idle */
	FUSEVFS_POLL_NOT_NEEDED, /* reads complete before a window polled */
	FUSEVFS_POLL_TRIALS, /* polling against sleeping, measured */
	FUSEVFS_POLL_TRIALS_WON, /* ... and polling was faster */
	FUSEVFS_POLL_CLONE_READS, /* requests a worker slept for on its clone */
	FUSEVFS_POLL_URING_REQS, /* requests that came over FUSE io_uring */
	/* levels, set (a stats reset clears them too) */
	FUSEVFS_POLL_ON, /* the last trial's winner (1: polling) */
	FUSEVFS_POLL_CYCLE_POLLING_NS, /* its mean cycles, each arm */
	FUSEVFS_POLL_CYCLE_SLEEPING_NS,
	FUSEVFS_POLL_IDLE_CPUS, /* the last estimate */
	FUSEVFS_POLL_NR,
};
void fusevfs_poll_stat(enum fusevfs_poll_stat s, long v);
int fusevfs_fsync(struct fusevfs_mount *m, uint64_t fh, int datasync);
int fusevfs_fallocate(struct fusevfs_mount *m, uint64_t fh, int mode,
		      int64_t off, int64_t len);

/*
 * Entries of directory @ino after offset @off ("." is offset 1, ".." 2,
 * then the entries' cookies); @fill returns non-zero when it is full.
 */
int fusevfs_readdir(struct fusevfs_mount *m, uint64_t ino, uint64_t off,
		    int (*fill)(void *arg, const char *name, uint64_t ino,
				uint32_t mode, uint64_t next_off),
		    void *arg);
int fusevfs_statfs(struct fusevfs_mount *m, struct fusevfs_statfs *st);

int fusevfs_setxattr(struct fusevfs_mount *m, uint64_t ino, const char *name,
		     const void *value, size_t size, int flags);
long fusevfs_getxattr(struct fusevfs_mount *m, uint64_t ino, const char *name,
		      void *buf, size_t size);
long fusevfs_listxattr(struct fusevfs_mount *m, uint64_t ino, char *buf,
		       size_t size);
int fusevfs_removexattr(struct fusevfs_mount *m, uint64_t ino,
			const char *name);

#endif /* _FUSEVFS_H */
