// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE request loop: a fixed set of worker threads over libfuse's
 * low-level session, each reading /dev/fuse and serving what it read, as
 * libfuse's own loop (fuse_session_loop_mt) does.
 *
 * What that loop cannot do: a worker that finishes a request while no
 * other is being served busy-polls /dev/fuse for up to poll_us
 * microseconds before it sleeps in read().  A client at queue depth 1
 * sends its next request a few microseconds after the reply; a CPU that
 * went idle in between (in a VM, a halted vCPU) takes far longer to get
 * back to it than that.  The kernel still wakes a sleeping worker for
 * the request, but the polling one, already running, usually reads it
 * first (the other finds nothing and sleeps on inside read()).  Under
 * load other requests are being served and nobody spins; a single
 * spinner never competes with a worker that polls for its read's
 * completion (backend-file.c) for the CPU the client needs.
 *
 * Shutdown is libfuse's: the workers block signals, the main thread
 * waits for the session to end (unmount, fuse_session_exit() from a
 * signal handler), then cancels the workers - cancellation is enabled
 * only while they wait for a request - and joins them.
 *
 * A host file: system headers and libfuse only (see sim/fuse/host/).
 */
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fuse_lowlevel.h>
#include "fuse-loop.h"

struct fuse_loop {
	struct fuse_session *se;
	unsigned int poll_us;

	pthread_mutex_t lock;
	unsigned int serving;	/* workers inside a request */
	int error;		/* the first receive error, -errno */
	sem_t finish;		/* a worker saw the session end */
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + ts.tv_nsec / 1000;
}

/* Until a request is readable, for at most @us: cheaper than a wake-up. */
static void spin_for_request(int fd, unsigned int us)
{
	uint64_t end = now_us() + us;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	do {
		if (poll(&p, 1, 0) != 0)
			return;
	} while (now_us() < end);
}

/* One request less in service; true if the mount is now idle. */
static bool served(struct fuse_loop *l)
{
	bool idle;

	pthread_mutex_lock(&l->lock);
	idle = !--l->serving;
	pthread_mutex_unlock(&l->lock);
	return idle;
}

static void serving(struct fuse_loop *l)
{
	pthread_mutex_lock(&l->lock);
	l->serving++;
	pthread_mutex_unlock(&l->lock);
}

static void session_ended(struct fuse_loop *l, int err)
{
	pthread_mutex_lock(&l->lock);
	if (err && !l->error)
		l->error = err;
	pthread_mutex_unlock(&l->lock);
	sem_post(&l->finish);
}

static void free_fbuf(void *p)
{
	free(((struct fuse_buf *)p)->mem);
}

static void *worker(void *arg)
{
	struct fuse_loop *l = arg;
	struct fuse_buf fbuf = { .mem = NULL };
	int fd = fuse_session_fd(l->se);
	bool spin = false;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	/* a worker cancelled at shutdown still frees its buffer */
	pthread_cleanup_push(free_fbuf, &fbuf);
	for (;;) {
		int res;

		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		if (spin)
			spin_for_request(fd, l->poll_us);
		res = fuse_session_receive_buf(l->se, &fbuf);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);

		if (res == -EINTR || res == -EAGAIN) {
			spin = false;
			continue;
		}
		if (res <= 0 || fuse_session_exited(l->se)) {
			if (res < 0)
				fuse_session_exit(l->se);
			session_ended(l, res < 0 ? res : 0);
			break;
		}
		serving(l);
		fuse_session_process_buf(l->se, &fbuf);
		spin = served(l) && l->poll_us;
	}
	pthread_cleanup_pop(1);
	return NULL;
}

int sfs_fuse_loop(struct fuse_session *se, unsigned int nr_threads,
		  unsigned int poll_us)
{
	struct fuse_loop l = { .se = se, .poll_us = poll_us };
	pthread_t *tids = calloc(nr_threads, sizeof(*tids));
	sigset_t all, old;
	unsigned int n = 0;
	int ret;

	if (!tids)
		return -ENOMEM;
	pthread_mutex_init(&l.lock, NULL);
	sem_init(&l.finish, 0, 0);

	/* signals go to this thread only, as with libfuse's loop */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (; n < nr_threads; n++)
		if (pthread_create(&tids[n], NULL, worker, &l))
			break;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	ret = n ? 0 : -EAGAIN;

	/* a signal handler's fuse_session_exit() interrupts the wait */
	while (n && !fuse_session_exited(se))
		sem_wait(&l.finish);

	/* out of read() or poll(), the only places they may be cancelled */
	for (unsigned int i = 0; i < n; i++)
		pthread_cancel(tids[i]);
	for (unsigned int i = 0; i < n; i++)
		pthread_join(tids[i], NULL);

	if (!ret)
		ret = l.error;
	sem_destroy(&l.finish);
	pthread_mutex_destroy(&l.lock);
	free(tids);
	return ret;
}
