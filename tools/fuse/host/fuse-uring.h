/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * FUSE over io_uring (fs/fuse/dev_uring.c, Linux 6.14+): requests arrive
 * as completions of commands on a ring per CPU queue, and a reply goes
 * back in the same system call that fetches the next request
 * (fuse-uring.c).  A host header.
 */
#ifndef _FUSE_URING_H
#define _FUSE_URING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct fuse_buf;

/* The kernel's module parameter that lets a connection use it. */
#define FUSE_URING_PARAM "/sys/module/fuse/parameters/enable_uring"

/* uring=: off, auto (when the kernel offers it), on (or fail). */
enum fuse_uring_mode { FUSE_URING_OFF, FUSE_URING_AUTO, FUSE_URING_ON };

/* true if FUSE_URING_PARAM says Y: a new connection may use it */
bool fuse_uring_enabled(void);

/*
 * Before the session starts: whether to ask for it.  Not thread-safe;
 * everything below is.
 */
void fuse_uring_want(bool want, void (*start)(void *arg), void *arg);
/* The INIT reply that asked for it is in: call the start function. */
void fuse_uring_init_replied(void);
/* After the mount has closed (every reply out): every queue goes. */
void fuse_uring_exit(void);

/*
 * The INIT exchange, from the session's custom I/O: note the kernel's
 * offer in the request (@buf, @n bytes read), and in the reply ask for
 * io_uring if it was offered and is wanted.  fuse_uring_init_reply()
 * may point @iov[1] at a patched copy (in static storage) and returns
 * true if it asked; the transport is then the caller's to start once
 * the reply is written (the kernel refuses commands before).
 */
void fuse_uring_init_request(const void *buf, size_t n);
bool fuse_uring_init_reply(struct iovec *iov, int count);
/* the largest request payload the kernel will send (after INIT) */
size_t fuse_uring_payload_size(void);

/* ---- a queue: one ring, its entries ---------------------------------- */

struct fuse_uring_queue;

/*
 * A queue @qid of @nr_ents entries on /dev/fuse descriptor @fd: its
 * ring and buffers, every entry registered (submitted, not waited for).
 * NULL with *err = -errno on failure.
 */
struct fuse_uring_queue *fuse_uring_queue_create(int fd, unsigned int qid,
						 unsigned int nr_ents,
						 int *err);
/* After its thread has gone: the ring closes, the kernel drops the rest. */
void fuse_uring_queue_destroy(struct fuse_uring_queue *q);

/*
 * The queue's thread: submit what it has queued (its own replies) and
 * wait for the next request.  In @fbuf (its ->mem reused, grown as
 * needed) the request as read(/dev/fuse) would give it.  Returns its
 * size; 0: the watched descriptor turned readable; -EINTR: a signal,
 * look whether to stop; -EAGAIN: nothing yet (!wait), a request that
 * could not be taken and was failed, or a command of one entry that
 * failed (the entry is out of use); -ENOTCONN, -ECANCELED,
 * -ECONNABORTED or another -errno from the ring: the connection or the
 * ring has ended.
 */
int fuse_uring_receive(struct fuse_uring_queue *q, struct fuse_buf *fbuf,
		       bool wait);

/*
 * The queue's thread: poll @fd (an eventfd) along with the requests;
 * fuse_uring_receive() returns 0 when it turns readable (and clears it).
 */
void fuse_uring_queue_watch(struct fuse_uring_queue *q, int fd);
/* The queue's thread: whether requests are waiting in its ring. */
bool fuse_uring_pending(struct fuse_uring_queue *q);
/* The queue's thread: submit its own commits now, without waiting. */
void fuse_uring_flush(struct fuse_uring_queue *q);

/*
 * A reply from the session's custom I/O, any thread: if @unique is a
 * request read from a queue, copy the reply into its entry and commit
 * it (from the queue's own thread: with its next wait) and return true;
 * false if it is not one of ours.  *ret: writev()'s result.
 */
bool fuse_uring_reply(const struct iovec *iov, int count, ssize_t *ret);

/* Whether any queue is up (a reply may need looking up). */
bool fuse_uring_active(void);

#endif /* _FUSE_URING_H */
