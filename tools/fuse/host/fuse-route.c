// SPDX-License-Identifier: GPL-2.0-only
/*
 * A worker with nothing in flight waits for the next request in one
 * blocking read(), as passthrough_ll's workers do, rather than in
 * epoll_wait() and then read(): one system call less per request at
 * queue depth one.  The session's descriptor is non-blocking (under
 * load a worker must come back to its own reads), and O_NONBLOCK
 * belongs to the open file, shared by every worker: so each worker
 * sleeps on a clone of it (FUSE_DEV_IOC_CLONE), blocking, attached to
 * the same connection.  The kernel hands each request to one reader,
 * whichever descriptor it waits on.
 *
 * A request read from a clone must be answered on that clone: the
 * kernel looks its reply up in the clone's own processing queue.  The
 * reply may come from any thread (a write's completion replies from
 * the device's), and libfuse sends every reply on the session's
 * descriptor; so the session's reads and replies go through libfuse's
 * custom I/O here, which notes the request's unique ID and clone as it
 * reads and, at the reply, sends it where the request came from.  The
 * table is touched only for requests read from a clone: a reply finds
 * it empty with one load while the mount is under load.
 *
 * A host file: system headers and libfuse only.
 */
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <linux/fuse.h>
#include <fuse_lowlevel.h>
#include "fuse-route.h"
#include "fuse-uring.h"

struct route {
	uint64_t unique;
	int fd;
};

static pthread_mutex_t route_lock = PTHREAD_MUTEX_INITIALIZER;
static struct route *routes; /* under route_lock */
static unsigned int nr_routes, max_routes;
static unsigned int nr_live; /* atomic: nr_routes, for a lock-free look */
static int *clones; /* under route_lock: to close at the end */
static unsigned int nr_clones;
static __thread int read_fd = -1; /* the clone this thread reads now */

/* Requests the kernel expects no reply to: nothing to route. */
static bool no_reply(uint32_t opcode)
{
	return opcode == FUSE_FORGET || opcode == FUSE_BATCH_FORGET ||
	       opcode == FUSE_INTERRUPT || opcode == FUSE_NOTIFY_REPLY;
}

static int route_add(uint64_t unique, int fd)
{
	pthread_mutex_lock(&route_lock);
	if (nr_routes == max_routes) {
		unsigned int n = max_routes ? 2 * max_routes : 16;
		struct route *r = realloc(routes, n * sizeof(*r));

		if (!r) {
			pthread_mutex_unlock(&route_lock);
			return -ENOMEM;
		}
		routes = r;
		max_routes = n;
	}
	routes[nr_routes++] = (struct route){ .unique = unique, .fd = fd };
	__atomic_store_n(&nr_live, nr_routes, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&route_lock);
	return 0;
}

/* The descriptor @unique's reply goes to: its clone, else @fd. */
static int route_take(uint64_t unique, int fd)
{
	pthread_mutex_lock(&route_lock);
	for (unsigned int i = 0; i < nr_routes; i++) {
		if (routes[i].unique != unique)
			continue;
		fd = routes[i].fd;
		routes[i] = routes[--nr_routes];
		__atomic_store_n(&nr_live, nr_routes, __ATOMIC_RELEASE);
		break;
	}
	pthread_mutex_unlock(&route_lock);
	return fd;
}

static ssize_t route_read(int fd, void *buf, size_t len, void *userdata)
{
	const struct fuse_in_header *in = buf;
	int rfd = read_fd >= 0 ? read_fd : fd;
	ssize_t n = read(rfd, buf, len);

	(void)userdata;
	if (n >= (ssize_t)sizeof(*in) && in->opcode == FUSE_INIT)
		fuse_uring_init_request(buf, (size_t)n);
	if (rfd == fd || n < (ssize_t)sizeof(*in) || no_reply(in->opcode))
		return n;
	if (route_add(in->unique, rfd)) {
		/*
		 * No memory to remember where it came from: fail the
		 * request on its clone rather than lose its reply, and
		 * have libfuse read the next one.
		 */
		struct fuse_out_header out = {
			.len = sizeof(out),
			.error = -ENOMEM,
			.unique = in->unique,
		};

		if (write(rfd, &out, sizeof(out)) < 0)
			return -1;
		errno = EINTR;
		return -1;
	}
	return n;
}

static ssize_t route_writev(int fd, struct iovec *iov, int count,
			    void *userdata)
{
	const struct fuse_out_header *out = iov[0].iov_base;
	ssize_t ret;
	bool init;

	(void)userdata;
	/* a request that came over io_uring goes back there */
	if (fuse_uring_active() && fuse_uring_reply(iov, count, &ret))
		return ret;
	init = fuse_uring_init_reply(iov, count);
	/* unique 0: a notification, the session's */
	if (__atomic_load_n(&nr_live, __ATOMIC_ACQUIRE) &&
	    iov[0].iov_len >= sizeof(*out) && out->unique)
		fd = route_take(out->unique, fd);
	ret = writev(fd, iov, count);
	/* the kernel takes commands once INIT is done */
	if (init && ret >= 0)
		fuse_uring_init_replied();
	return ret;
}

int fuse_route_init(struct fuse_session *se)
{
	static const struct fuse_custom_io io = {
		.read = route_read,
		.writev = route_writev,
	};

	return fuse_session_custom_io(se, &io, fuse_session_fd(se));
}

void fuse_route_exit(void)
{
	pthread_mutex_lock(&route_lock);
	for (unsigned int i = 0; i < nr_clones; i++)
		close(clones[i]);
	free(clones);
	clones = NULL;
	nr_clones = 0;
	free(routes);
	routes = NULL;
	nr_routes = max_routes = 0;
	__atomic_store_n(&nr_live, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&route_lock);
}

int fuse_route_clone(struct fuse_session *se)
{
	uint32_t master = (uint32_t)fuse_session_fd(se);
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	int *c;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FUSE_DEV_IOC_CLONE, &master)) {
		int err = -errno;

		close(fd);
		return err;
	}
	/*
	 * Open until fuse_route_exit(), after every reply owed: a reply
	 * sent to a closed (or reused) descriptor would be lost, or worse.
	 */
	pthread_mutex_lock(&route_lock);
	c = realloc(clones, (nr_clones + 1) * sizeof(*c));
	if (c) {
		clones = c;
		clones[nr_clones++] = fd;
	}
	pthread_mutex_unlock(&route_lock);
	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	return fd;
}

int fuse_route_receive_blocking(struct fuse_session *se, struct fuse_buf *fbuf,
				int clone_fd)
{
	int res;

	read_fd = clone_fd;
	res = fuse_session_receive_buf(se, fbuf);
	read_fd = -1;
	return res;
}
