// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE request loop: a fixed set of worker threads over libfuse's
 * low-level session, each reading requests from /dev/fuse and serving
 * them, as libfuse's own loop (fuse_session_loop_mt) does, with two
 * things that loop cannot do.
 *
 * A direct read leaves the worker queued on the worker's own ring of the
 * device (fusevfs_read(), fusevfs_reap() in vfs.c).  When the mount is
 * otherwise idle (no other request in service, no other I/O in flight)
 * the worker waits for it at once, as passthrough_ll's worker waits
 * in pread().  Under load it first takes the next request: a worker
 * keeps several reads in flight and ends them in batches, where waiting
 * for each would put it to sleep and wake it again every time.  Each
 * worker waits in epoll for either a request (/dev/fuse, non-blocking,
 * EPOLLEXCLUSIVE so one worker wakes per request) or its reads (the
 * ring's eventfd); with none of its reads in flight, it sleeps in a
 * blocking read() of its own clone of /dev/fuse instead (fuse-route.c),
 * one system call where epoll takes two.
 *
 * A lone request costs what the kernel makes it cost: its read stays
 * on the worker's ring unsubmitted (fusevfs_own_defer()) until the worker,
 * finding the mount otherwise idle, waits for it, and then one
 * io_uring_enter() submits it and sleeps until it is done, as
 * passthrough_ll's pread() would.  While the worker waits in the ring
 * the ring's eventfd is quiet, and after such a request the worker goes
 * straight to epoll for the next one rather than first trying a read
 * that would find nothing.
 *
 * A worker that has just served the only request in service may
 * busy-poll, for its read's completion and then for the next request,
 * when the poll governor (poll-gov.c) says so: it measures whether
 * polling shortens a lone request's cycle on this machine, sizes the
 * windows from the waits it sees, never past poll_us, and lets no more
 * workers poll than there are idle CPUs.  Under load nobody polls.
 *
 * Where the kernel offers FUSE over io_uring and the mount wants it
 * (uring=auto, fuse-uring.c), the INIT reply asks for it and two
 * threads per CPU queue take over every request but FORGET and
 * INTERRUPT (see uring_thread()); the workers stay, for those and for
 * whatever comes before the queues are up.
 *
 * Shutdown: the workers block signals but SIGUSR2; the main thread waits
 * for the session to end (unmount, fuse_session_exit() from a signal
 * handler), then wakes every worker through a stop eventfd, and those
 * asleep in a blocking read with SIGUSR2 (again, until each has gone:
 * one may have been on its way into the read); each ends the reads it
 * still has in flight and exits.  The queue threads go the same way,
 * woken from io_uring_enter() by the signal.
 *
 * A host file: system headers and libfuse only (see tools/fuse/host/).
 */
#define FUSE_USE_VERSION 312
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/sysinfo.h>
#include <fuse_lowlevel.h>
#include "fuse-loop.h"
#include "fuse-route.h"
#include "fuse-uring.h"
#include "poll-gov.h"
#include "fusevfs.h"

struct fuse_loop {
	struct fuse_session *se;
	struct fusevfs_mount *m;
	struct poll_gov gov;
	int fd; /* /dev/fuse, non-blocking */
	int stop_fd; /* eventfd: the loop ends */

	unsigned int serving; /* atomic: workers inside a request */
	bool stopping; /* atomic */
	bool route; /* fuse-route.c has the session's I/O */
	pthread_mutex_t lock;
	int error; /* under lock: the first receive error */
	sem_t finish; /* a worker saw the session end */

	/* FUSE over io_uring: a thread per CPU queue (fuse-uring.c) */
	struct uring_thread *uq; /* under lock */
	unsigned int nr_uq; /* under lock */
};

struct uring_thread {
	struct fuse_loop *l;
	struct fuse_uring_queue *q;
	unsigned int qid;
	bool pinned; /* to CPU qid, always */
	pthread_t tid;
};

/*
 * Entries per queue thread: requests it can hold at once (more wait in
 * the kernel).  A client on one CPU puts all its requests on that CPU's
 * queue, so one queue's two threads hold a deep queue's worth.
 */
#define URING_ENTS 32
/* Threads per queue: the pinned one, and this many free ones. */
#define URING_FREE 1
#define URING_PER_QUEUE (1 + URING_FREE)
/* Lone requests in a row after which a free thread pins itself. */
#define URING_SETTLE 16

/*
 * The next request, trying to read it for as long as the governor's
 * window: -EAGAIN if none came (or no window was granted).
 */
static int poll_receive(struct fuse_loop *l, struct fuse_buf *fbuf)
{
	unsigned int us = poll_gov_begin(&l->gov, POLL_REQ);
	uint64_t t0, end, now;
	int res;

	if (!us)
		return -EAGAIN;
	t0 = poll_gov_now_ns();
	end = t0 + us * 1000ull;
	do {
		res = fuse_session_receive_buf(l->se, fbuf);
		now = poll_gov_now_ns();
	} while (res == -EAGAIN && now < end);
	poll_gov_end(&l->gov, POLL_REQ, true, res != -EAGAIN, now - t0);
	return res;
}

/*
 * Wait for this thread's reads, polling first if @poll: for as long as
 * the governor's window for completions, or @win's (a pinned io_uring
 * thread's own, poll_own_*()).
 */
static void reap_wait(struct fuse_loop *l, bool poll, struct poll_own *win)
{
	struct fusevfs_spin spin = { 0 };
	bool outstanding;

	poll = poll && l->gov.max_us; /* poll=0: no window is ever asked */
	outstanding = poll && fusevfs_own_outstanding(l->m);

	if (outstanding)
		spin.budget_us = win ? poll_own_begin(&l->gov, win) :
				       poll_gov_begin(&l->gov, POLL_CQE);
	fusevfs_reap_wait(l->m, &spin);
	/*
	 * A wait that could have polled but found its reads complete first
	 * (before the window or inside the ring's drain): counted, so that
	 * windows, refusals for want of an idle CPU and these add up to the
	 * waits that asked, however fast the device is against the server.
	 */
	if (poll && (!outstanding || (spin.budget_us && !spin.polled)))
		fusevfs_poll_stat(FUSEVFS_POLL_NOT_NEEDED, 1);
	if (!spin.budget_us)
		return;
	if (win)
		poll_own_end(&l->gov, win, spin.polled, spin.hit,
			     spin.spent_ns);
	else
		poll_gov_end(&l->gov, POLL_CQE, spin.polled, spin.hit,
			     spin.spent_ns);
}

/* One request more in service; true if it is the only one. */
static bool serving(struct fuse_loop *l)
{
	return !__atomic_fetch_add(&l->serving, 1, __ATOMIC_RELAXED);
}

/* One request less in service; true if the mount is now idle. */
static bool served(struct fuse_loop *l)
{
	return !__atomic_sub_fetch(&l->serving, 1, __ATOMIC_RELAXED);
}

static bool stopping(struct fuse_loop *l)
{
	return __atomic_load_n(&l->stopping, __ATOMIC_ACQUIRE);
}

static void session_ended(struct fuse_loop *l, int err)
{
	pthread_mutex_lock(&l->lock);
	if (err && !l->error)
		l->error = err;
	pthread_mutex_unlock(&l->lock);
	sem_post(&l->finish);
}

static int epoll_add(int epfd, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

/*
 * Sleep until a request, a read of ours, or the end.  The ring's
 * eventfd is edge-triggered: every completion it posts wakes us, and
 * its count need not be read back.
 */
static void wait_event(int epfd)
{
	struct epoll_event ev[3];

	epoll_wait(epfd, ev, 3, -1);
}

static void wake_signal(int sig)
{
	(void)sig;
}

static void *worker(void *arg)
{
	struct fuse_loop *l = arg;
	struct fuse_buf fbuf = { .mem = NULL };
	int own_fd = fusevfs_own_fd(l->m);
	int epfd = epoll_create1(EPOLL_CLOEXEC);
	int clone_fd = -1;
	bool poll_next = false, sleep_next = false;
	sigset_t wake;

	/* the main thread's SIGUSR2 ends a blocking read at shutdown */
	sigemptyset(&wake);
	sigaddset(&wake, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &wake, NULL);

	if (epfd < 0 || epoll_add(epfd, l->fd, EPOLLIN | EPOLLEXCLUSIVE) ||
	    epoll_add(epfd, l->stop_fd, EPOLLIN) ||
	    (own_fd >= 0 && epoll_add(epfd, own_fd, EPOLLIN | EPOLLET))) {
		/* a mount with a worker short fails whole, not half */
		int err = -errno;

		fuse_session_exit(l->se);
		session_ended(l, err);
		goto out;
	}
	if (own_fd >= 0 && fusevfs_own_defer(l->m, true))
		own_fd = -1; /* wait for each request's reads, then */
	/* without a clone (an old kernel), epoll it is */
	if (own_fd >= 0 && l->route)
		clone_fd = fuse_route_clone(l->se);
	while (!stopping(l)) {
		bool idle, lone, poll;
		int res;

		if (own_fd >= 0 && fusevfs_own_outstanding(l->m))
			fusevfs_reap(l->m, false);
		if (sleep_next && clone_fd < 0) {
			/* a lone client's next request is not there yet */
			sleep_next = false;
			wait_event(epfd);
			continue;
		}
		if (sleep_next) {
			res = fuse_route_receive_blocking(l->se, &fbuf,
							  clone_fd);
			if (res > 0)
				fusevfs_poll_stat(FUSEVFS_POLL_CLONE_READS, 1);
		} else if (poll_next)
			res = poll_receive(l, &fbuf);
		else
			res = fuse_session_receive_buf(l->se, &fbuf);
		poll_next = sleep_next = false;
		if (res == -EAGAIN) {
			wait_event(epfd);
			continue;
		}
		if (res == -EINTR)
			continue;
		/*
		 * The connection is gone, as with -ENODEV (libfuse's end of
		 * the session): fuse_dev_do_read() answers -ECONNABORTED
		 * instead once the connection was aborted with abort_err set,
		 * which this machine's kernel did at the end of a lazily
		 * unmounted session.  It ends the session as libfuse ends it
		 * for -ENODEV; the io_uring queues take it as their end too
		 * (fuse-uring.c).
		 */
		if (res == -ECONNABORTED) {
			fuse_session_exit(l->se);
			res = 0;
		}
		if (res <= 0 || fuse_session_exited(l->se)) {
			if (res < 0)
				fuse_session_exit(l->se);
			session_ended(l, res < 0 ? res : 0);
			break;
		}
		lone = serving(l) && !fusevfs_unreplied(l->m);
		poll = poll_gov_arrival(&l->gov, lone);
		fuse_session_process_buf(l->se, &fbuf);
		/* nothing else in service, and no I/O but this request's */
		idle = served(l) && fusevfs_unreplied(l->m) <= 1;
		/* alone: wait for the read now, then look out for the next */
		if (idle || own_fd < 0)
			reap_wait(l, poll && idle, NULL);
		idle = idle && !fusevfs_unreplied(l->m);
		poll_next = idle && poll;
		sleep_next = idle && !poll && own_fd >= 0;
	}
out:
	/* nothing may be left on this worker's ring when it goes */
	fusevfs_own_defer(l->m, false);
	fusevfs_reap(l->m, true);
	if (epfd >= 0)
		close(epfd);
	free(fbuf.mem);
	return NULL;
}

/*
 * A queue's thread: as a worker, but its requests come from its queue,
 * and its reply goes in the same system call that fetches the next one.
 *
 * The kernel queues a request on the queue of the CPU its client runs
 * on, and gives it to the entry committed last.  Each queue has a thread
 * pinned to the queue's CPU, whose entries are registered last and so
 * come first, and URING_FREE threads free to run anywhere.  A lone
 * client's requests go to the pinned one: the client sleeps, and its
 * server runs where it ran, so no CPU has to be woken for the request
 * or its reply, and the lone read is waited for on that CPU, which has
 * nothing else to run (its client is waiting for this very read).
 * There the wait busy-polls, for as long as the poll governor's window
 * for completions (within poll=, none when no CPU is idle): a CPU that
 * sleeps until the device's interrupt has to be woken by another CPU
 * when the interrupt is taken there, which on a virtual machine costs
 * more than the read.  Many requests at once fill the free threads'
 * entries too, and they take them to other CPUs.
 *
 * The entry committed last comes first, so after a burst a free thread
 * may be the one a lone client's requests keep going to.  A free thread
 * that has served URING_SETTLE lone requests in a row pins itself to
 * its queue's CPU, and frees itself again at its first request that is
 * not lone: two system calls at each change of load, none per request.
 *
 * Under load a thread goes on to its next request without waiting for
 * its reads, and learns of their completion from a poll on its device
 * ring's eventfd, which its queue's ring watches with the requests.
 */
static void *uring_thread(void *arg)
{
	struct uring_thread *u = arg;
	struct fuse_loop *l = u->l;
	struct fuse_buf fbuf = { .mem = NULL };
	int own_fd = fusevfs_own_fd(l->m);
	bool own = own_fd >= 0 && !fusevfs_own_defer(l->m, true);
	struct poll_own win;
	cpu_set_t all, mine;
	bool pinned = false;
	unsigned int lone_run = 0;

	poll_own_init(&l->gov, &win);
	if (own)
		fuse_uring_queue_watch(u->q, own_fd);
	CPU_ZERO(&mine);
	CPU_SET(u->qid, &mine);
	if (sched_getaffinity(0, sizeof(all), &all))
		CPU_ZERO(&all);
	/* not allowed (a cpuset without it): it serves from where it is */
	if (u->pinned)
		pinned = !sched_setaffinity(0, sizeof(mine), &mine);
	while (!stopping(l)) {
		bool idle, lone, poll;
		int res;

		if (own && fusevfs_own_outstanding(l->m))
			fusevfs_reap(l->m, false);
		res = fuse_uring_receive(u->q, &fbuf, true);
		if (res == 0 || res == -EINTR || res == -EAGAIN)
			continue;
		if (res < 0)
			break;
		fusevfs_poll_stat(FUSEVFS_POLL_URING_REQS, 1);
		/* requests already in the queue's ring are not in service yet */
		lone = serving(l) && !fusevfs_unreplied(l->m) &&
		       !fuse_uring_pending(u->q);
		if (!u->pinned && CPU_COUNT(&all)) {
			lone_run = lone ? lone_run + 1 : 0;
			if (!pinned && lone_run >= URING_SETTLE)
				pinned = !sched_setaffinity(0, sizeof(mine),
							    &mine);
			else if (pinned && !lone &&
				 !sched_setaffinity(0, sizeof(all), &all))
				pinned = false;
		}
		/*
		 * No trial of polling against sleeping, as a worker needs:
		 * this CPU's client is waiting for this very read, so the
		 * window takes from nobody (it is still sized from what the
		 * windows found, and none opens where no CPU is idle).
		 */
		poll = pinned && lone;
		fuse_session_process_buf(l->se, &fbuf);
		idle = served(l) && fusevfs_unreplied(l->m) <= 1 &&
		       !fuse_uring_pending(u->q);
		if (idle || !own) {
			/* replies owed to others do not wait for this read */
			fuse_uring_flush(u->q);
			reap_wait(l, poll && idle, &win);
		}
	}
	fusevfs_own_defer(l->m, false);
	fusevfs_reap(l->m, true);
	fuse_uring_flush(u->q);
	free(fbuf.mem);
	return NULL;
}

/*
 * INIT asked for io_uring and its reply is in (a worker, from the
 * session's custom I/O): URING_PER_QUEUE threads for every CPU the
 * kernel may queue on, the free ones' entries registered first.  Should
 * one fail, the kernel never finds the ring ready and keeps to
 * /dev/fuse.
 */
static void uring_start(void *arg)
{
	struct fuse_loop *l = arg;
	int n = get_nprocs_conf();
	struct uring_thread *uq =
		calloc(n > 0 ? URING_PER_QUEUE * n : 1, sizeof(*uq));
	int i, err = 0;

	if (!uq || n <= 0) {
		free(uq);
		return;
	}
	pthread_mutex_lock(&l->lock);
	for (i = 0; i < URING_PER_QUEUE * n && !stopping(l); i++) {
		struct uring_thread *u = &uq[i];

		u->l = l;
		u->qid = i / URING_PER_QUEUE;
		/* last of its queue: its entries come first */
		u->pinned = i % URING_PER_QUEUE == URING_FREE;
		u->q = fuse_uring_queue_create(l->fd, u->qid, URING_ENTS, &err);
		if (!u->q)
			break;
		if (pthread_create(&u->tid, NULL, uring_thread, u)) {
			err = -EAGAIN;
			break;
		}
	}
	if (i < URING_PER_QUEUE * n)
		fprintf(stderr,
			"iomapsim: FUSE io_uring queue %d: %s; "
			"staying on /dev/fuse\n",
			i / URING_PER_QUEUE, strerror(-err));
	l->uq = uq;
	l->nr_uq = i;
	pthread_mutex_unlock(&l->lock);
}

/* Until it has gone: it may have been on its way into a wait. */
static void join_woken(pthread_t tid)
{
	struct timespec t;

	do {
		pthread_kill(tid, SIGUSR2);
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 10000000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000;
		}
	} while (pthread_timedjoin_np(tid, NULL, &t) == ETIMEDOUT);
}

int fuse_loop_serve(struct fuse_session *se, struct fusevfs_mount *m,
		    unsigned int nr_threads, unsigned int poll_us, bool uring)
{
	struct fuse_loop l = { .se = se, .m = m };
	pthread_t *tids = calloc(nr_threads, sizeof(*tids));
	struct sigaction wake = { .sa_handler = wake_signal }, old_wake;
	sigset_t all, old;
	unsigned int n = 0;
	int flags, ret;

	if (!tids)
		return -ENOMEM;
	l.fd = fuse_session_fd(se);
	flags = fcntl(l.fd, F_GETFL);
	l.stop_fd = eventfd(0, EFD_CLOEXEC);
	if (flags < 0 || fcntl(l.fd, F_SETFL, flags | O_NONBLOCK) < 0 ||
	    l.stop_fd < 0) {
		ret = -errno;
		if (l.stop_fd >= 0)
			close(l.stop_fd);
		free(tids);
		return ret;
	}
	pthread_mutex_init(&l.lock, NULL);
	sem_init(&l.finish, 0, 0);
	poll_gov_init(&l.gov, poll_us);
	/* no SA_RESTART: the signal is there to end a blocking read */
	sigaction(SIGUSR2, &wake, &old_wake);
	l.route = !fuse_route_init(se);
	/* the INIT exchange goes through the route's custom I/O */
	fuse_uring_want(l.route && uring, uring_start, &l);

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

	__atomic_store_n(&l.stopping, true, __ATOMIC_RELEASE);
	if (eventfd_write(l.stop_fd, 1))
		ret = ret ?: -errno;
	for (unsigned int i = 0; i < n; i++)
		join_woken(tids[i]);
	/* no worker is left to start them: the list is final */
	for (unsigned int i = 0; i < l.nr_uq; i++)
		join_woken(l.uq[i].tid);
	free(l.uq);
	fuse_uring_want(false, NULL, NULL);

	if (!ret)
		ret = l.error;
	sigaction(SIGUSR2, &old_wake, NULL);
	close(l.stop_fd);
	sem_destroy(&l.finish);
	poll_gov_destroy(&l.gov);
	pthread_mutex_destroy(&l.lock);
	free(tids);
	return ret;
}
