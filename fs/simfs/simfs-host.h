/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What mkfs and mount ask of the host before a target is touched: what
 * is on it (libblkid signatures), its topology (libblkid for block
 * devices, statx STATX_DIOALIGN for files), wiping old signatures, and
 * sparse image files.  Implemented in fs/simfs/host/ without the
 * kernel-shaped headers; plain C types only.
 */
#ifndef _SIMFS_HOST_H
#define _SIMFS_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct simfs_host_probe {
	bool is_blockdev;
	bool is_regular;
	uint64_t size; /* bytes */
	/* a signature libblkid recognised: "ext4", "xfs", "gpt", ... */
	char found[64];
	char found_usage[32]; /* "filesystem", "partition table" */
	char found_label[64];
	bool ambivalent; /* several signatures */
	bool simfs; /* our own superblock magic */
	/* topology (0: unknown) */
	unsigned int logical_sector_size;
	unsigned int physical_sector_size;
	unsigned int minimum_io_size;
	unsigned int optimal_io_size;
	unsigned int dio_mem_align; /* statx, regular files */
	unsigned int dio_offset_align;
	bool topology_from_blkid;
	bool dioalign_from_statx;
};

/*
 * Probe @path (read-only; a block device is opened O_EXCL so a mounted
 * one is refused with -EBUSY).  Returns 0 or a negative errno with a
 * reason in @err.
 */
int simfs_host_probe(const char *path, struct simfs_host_probe *p, char *err,
		     size_t errlen);
/* Erase every signature libblkid finds on @path (as wipefs -a). */
int simfs_host_wipe(const char *path, char *err, size_t errlen);
/*
 * Create @path as a sparse file of @size bytes; -EEXIST if it exists.
 * simfs_host_resize() sets an existing file's size.
 */
int simfs_host_create_image(const char *path, uint64_t size, char *err,
			    size_t errlen);
int simfs_host_resize(const char *path, uint64_t size, char *err,
		      size_t errlen);

/*
 * The image lock (lock.c): one writer of a target at a time.  A mount,
 * mkfs (and an fsck, shared) take it before they read the target and
 * hold it until after their last write; the holder's role and pid are
 * readable by whoever is refused.
 */
enum simfs_host_holder {
	SIMFS_HOLD_NONE = 0,
	SIMFS_HOLD_MOUNT, /* serving a mount */
	SIMFS_HOLD_MKFS,
	SIMFS_HOLD_FSCK,
	SIMFS_HOLD_CLOSING, /* unmounted, writing the last commit */
	SIMFS_HOLD_NR
};

struct simfs_host_lock {
	int fd;
	int holder;
	/* after -EBUSY: who holds it (SIMFS_HOLD_NONE: it does not say) */
	int busy_holder;
	long busy_pid;
};

/*
 * Lock @path for @holder: exclusive, or @shared with other shared
 * holders (fsck, read-only mounts).  A holder that is finishing (CLOSING,
 * FSCK) is waited for up to @wait_ms, a mount (or an untagged holder) for
 * up to SIMFS_HOST_LOCK_GRACE_MS.  Returns 0, -EBUSY with one line
 * naming the holder in @err ("image is mounted (pid N)") and in
 * l->busy_holder and l->busy_pid, or another
 * negative errno when @path cannot be opened or locked at all (callers
 * go on: opening the target then fails with a better reason, or a file
 * system without locks is used unlocked).
 */
int simfs_host_lock(const char *path, int holder, bool shared,
		    unsigned int wait_ms, struct simfs_host_lock *l, char *err,
		    size_t errlen);
/* Say that the holder's role changed (mount -> closing). */
void simfs_host_lock_retag(struct simfs_host_lock *l, int holder);
void simfs_host_unlock(struct simfs_host_lock *l);
/* The refusal line for @holder / @pid. */
void simfs_host_lock_describe(int holder, long pid, char *err, size_t errlen);

/*
 * How long a mount or mkfs waits for a finishing holder, and for a
 * mount's daemon to notice an unmount that fusermount3 already did.
 */
#define SIMFS_HOST_LOCK_WAIT_MS 30000
#define SIMFS_HOST_LOCK_GRACE_MS 3000

#endif /* _SIMFS_HOST_H */
