/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `iomapsim mount`: options and the entry point (tools/fuse/host/fuse-ll.c).
 * Plain C only: the command line and the host-side FUSE code include it,
 * neither of which sees the kernel-shaped headers.
 */
#ifndef _IOMAPSIM_MOUNT_H
#define _IOMAPSIM_MOUNT_H

#include <stdbool.h>
#include <stddef.h>

#define IOMAPSIM_MAX_FAULTS 16
/* poll=auto: the bound of a poll window */
#define IOMAPSIM_POLL_AUTO_US 200

enum { IOMAPSIM_URING_OFF, IOMAPSIM_URING_AUTO, IOMAPSIM_URING_ON };

struct fusevfs_mount_opts {
	const char *target; /* image file or block device */
	const char *mountpoint;
	bool foreground; /* -f: no daemon */
	bool read_only; /* ro */
	bool simple; /* simple=on (default) */
	bool parallel_write; /* parallel_write=on (default) */
	const char *dops; /* dops=none|end_io|submit_io|bio_set */
	unsigned int queue_depth; /* qd=N: bios in flight on the device */
	unsigned int cpus; /* cpus=N: simulated CPUs */
	unsigned int max_threads; /* threads=N: FUSE worker threads */
	/*
	 * poll=MICROSECONDS: the longest a lone worker busy-polls for its
	 * read's completion or the next request before it sleeps, when it
	 * measures that polling pays (0: never; poll=auto, the default:
	 * IOMAPSIM_POLL_AUTO_US)
	 */
	unsigned int poll_us;
	/*
	 * uring=off|auto|on: serve requests over FUSE io_uring (Linux 6.14+)
	 * when the kernel offers it (auto, the default), never, or refuse to
	 * mount without it
	 */
	int uring;
	unsigned int commit_interval; /* commit=SECONDS, 0: only on fsync */
	unsigned int max_background; /* max_background=N (FUSE) */
	bool allow_other; /* allow_other (FUSE) */
	bool debug; /* debug: libfuse's request log */
	bool trace; /* trace=on: record the trace ring */
	const char *faults[IOMAPSIM_MAX_FAULTS]; /* fault=SPEC, repeatable */
	/*
	 * logwrites=PATH: record every write, flush and FUA bio that reaches
	 * the device in the new file PATH (dm-log-writes; see
	 * <sim/logw-format.h>), for power-loss replay
	 */
	const char *log_writes;
	unsigned int nr_faults;
};

void fusevfs_mount_opts_init(struct fusevfs_mount_opts *o);
/*
 * Parse one -o list ("a,b=c,...") into @o.  Returns 0, or -1 with a
 * one-line reason in @err.
 */
int fusevfs_mount_parse_opts(struct fusevfs_mount_opts *o, char *list,
			     char *err, size_t errlen);
/*
 * Mount and serve until unmounted (fusermount3 -u).  Without -f the
 * caller returns once the mount is up (a daemon keeps serving), or fails
 * with the reason on stderr.  Returns the process exit status.
 */
int fusevfs_mount_main(const struct fusevfs_mount_opts *o);

/* The stats file of a live mount, path relative to the mount point. */
#define IOMAPSIM_CTL_DIR ".iomapsim"

#endif /* _IOMAPSIM_MOUNT_H */
