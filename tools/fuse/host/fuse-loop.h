/* SPDX-License-Identifier: GPL-2.0-only */
/* The FUSE request loop (fuse-loop.c).  A host header. */
#ifndef _FUSE_LOOP_H
#define _FUSE_LOOP_H

#include <stdbool.h>

struct fuse_session;
struct fusevfs_mount;

/*
 * Serve @se, the FUSE session of mount @m, with @nr_threads workers until
 * the session ends (unmount, fuse_session_exit()).  A worker that leaves
 * the mount idle may busy-poll, up to @poll_us microseconds a window,
 * when polling is measured to pay (poll-gov.c); 0: never.  Returns 0, or
 * -errno for a failure to read or to start.  @uring: accept FUSE over
 * io_uring if the kernel offers it (fuse-uring.c).
 */
int fuse_loop_serve(struct fuse_session *se, struct fusevfs_mount *m,
		    unsigned int nr_threads, unsigned int poll_us, bool uring);

#endif /* _FUSE_LOOP_H */
