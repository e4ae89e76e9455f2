/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Blocking reads of FUSE requests on per-worker clones of /dev/fuse, and
 * the routing that sends each reply to the descriptor its request came
 * from (fuse-route.c).  A host header.
 */
#ifndef _FUSE_ROUTE_H
#define _FUSE_ROUTE_H

#include <stdbool.h>

struct fuse_session;
struct fuse_buf;

/*
 * Take over @se's reads and replies (libfuse's custom I/O) so that the
 * calls below can work; before the workers start.  -errno on failure,
 * and then nothing was changed.
 */
int fuse_route_init(struct fuse_session *se);
/* After the workers are gone. */
void fuse_route_exit(void);

/*
 * A clone of the session's /dev/fuse descriptor for the calling worker,
 * blocking, or -errno (the kernel cannot clone: the worker does
 * without).
 */
int fuse_route_clone(struct fuse_session *se);

/*
 * The next request, read from @clone_fd, sleeping until there is one:
 * fuse_session_receive_buf()'s results.  Its reply, from any thread,
 * goes back to @clone_fd.
 */
int fuse_route_receive_blocking(struct fuse_session *se, struct fuse_buf *fbuf,
				int clone_fd);

#endif /* _FUSE_ROUTE_H */
