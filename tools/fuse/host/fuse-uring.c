// SPDX-License-Identifier: GPL-2.0-only
/*
 * FUSE over io_uring (Linux 6.14+, fs/fuse/dev_uring.c).  The classic
 * transport costs a lone request three system calls in the server:
 * read() of /dev/fuse, the device I/O, writev() of the reply.  Over
 * io_uring the reply and the fetch of the next request are one command
 * (FUSE_IO_URING_CMD_COMMIT_AND_FETCH): two system calls a request.
 *
 * The kernel asks for it in INIT (FUSE_OVER_IO_URING in flags2, when its
 * enable_uring parameter is set) and the server accepts in its INIT
 * reply.  libfuse 3.14 knows nothing of it, so the session's custom I/O
 * (fuse-route.c) shows the exchange here: the offer is noted from the
 * request and the acceptance written into a copy of the reply.  Once
 * the reply is in, the server registers entries (a header and a payload
 * buffer each) on a ring per CPU queue; when every queue has one the
 * kernel sends all requests but FORGET and INTERRUPT through them, and
 * until then (or should registering fail) through /dev/fuse as before.
 *
 * An entry's request is given to libfuse as read(/dev/fuse) would give
 * it: the kernel puts the in-header and the opcode's own header (its
 * first argument, which may be empty) in fixed slots and the rest in
 * the payload, so the three are put back together here, the opcode's
 * header at the size the kernel sent it.  A reply is taken apart again:
 * the out-header into its slot, the rest into the payload.
 *
 * A reply may come from any thread (a write's completion); a queue's
 * submission side is under its lock, the completion side its thread's
 * alone.  The queue's thread publishes its own commits and submits
 * them in the system call that waits for the next request; another
 * thread submits its commit at once.
 *
 * A host file: system headers, liburing and libfuse only.
 */
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fuse.h>
#include <liburing.h>
#include <fuse_lowlevel.h>
#include "fuse-uring.h"

/*
 * Not in the system's <linux/fuse.h> (7.38): the kernel's ABI from
 * protocol 7.42 (include/uapi/linux/fuse.h).
 */
#ifndef FUSE_OVER_IO_URING
#define FUSE_OVER_IO_URING (1ULL << 41)
#endif
#define FUSE_URING_IN_OUT_HEADER_SZ 128
#define FUSE_URING_OP_IN_OUT_SZ 128
#define FUSE_IO_URING_CMD_REGISTER 1
#define FUSE_IO_URING_CMD_COMMIT_AND_FETCH 2
/* fs/fuse/fuse_i.h: max_pages of a connection that did not set it */
#define FUSE_DEFAULT_MAX_PAGES_PER_REQ 32
#define FUSE_URING_PAGE_SIZE 4096

struct fuse_uring_ent_in_out {
	uint64_t flags;
	uint64_t commit_id;
	uint32_t payload_sz;
	uint32_t padding;
	uint64_t reserved;
};

struct fuse_uring_req_header {
	char in_out[FUSE_URING_IN_OUT_HEADER_SZ];
	char op_in[FUSE_URING_OP_IN_OUT_SZ];
	struct fuse_uring_ent_in_out ring_ent_in_out;
};

struct fuse_uring_cmd_req {
	uint64_t flags;
	uint64_t commit_id;
	uint16_t qid;
	uint8_t padding[6];
};

/* the watch's user_data: no entry is at address 1 */
#define WATCH_UD 1

struct ring_ent {
	struct fuse_uring_queue *q;
	struct fuse_uring_req_header *hdr;
	void *payload;
	struct iovec iov[2];
	uint64_t unique; /* atomic: the request it holds, 0: none */
};

struct fuse_uring_queue {
	struct io_uring ring;
	int fd; /* /dev/fuse */
	unsigned int qid;
	unsigned int nr_ents;
	pthread_mutex_t sq_lock;
	unsigned int owed; /* owner only: published, not submitted */
	int watch_fd; /* owner only: polled for, -1: none */
	size_t buf_cap; /* owner only: its request buffer's size */
	bool watch_armed; /* owner only */
	struct ring_ent *ents;
};

static bool want;
static void (*start_fn)(void *arg);
static void *start_arg;
static bool offered; /* atomic */
static uint64_t init_unique; /* atomic */
static size_t payload_max; /* atomic, after INIT */
static struct fuse_init_out init_copy;
static bool setxattr_ext; /* atomic: the INIT reply asked for it */

#define MAX_QUEUES 256
static pthread_mutex_t queues_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fuse_uring_queue *queues[MAX_QUEUES]; /* under queues_lock */
static unsigned int nr_queues; /* atomic */

static __thread struct fuse_uring_queue *my_q; /* the queue we own */
static __thread struct ring_ent *my_ent; /* the request we serve */

bool fuse_uring_enabled(void)
{
	char c = 0;
	int fd = open(FUSE_URING_PARAM, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == 'Y' || c == '1';
}

void fuse_uring_want(bool w, void (*start)(void *arg), void *arg)
{
	want = w;
	start_fn = start;
	start_arg = arg;
}

void fuse_uring_init_replied(void)
{
	if (start_fn)
		start_fn(start_arg);
}

void fuse_uring_exit(void)
{
	while (fuse_uring_active())
		fuse_uring_queue_destroy(queues[0]);
}

void fuse_uring_init_request(const void *buf, size_t n)
{
	const struct fuse_in_header *in = buf;
	const struct fuse_init_in *arg = (const void *)(in + 1);

	if (n < sizeof(*in) + offsetof(struct fuse_init_in, flags2) +
			    sizeof(arg->flags2) ||
	    in->opcode != FUSE_INIT)
		return;
	__atomic_store_n(&init_unique, in->unique, __ATOMIC_RELAXED);
	__atomic_store_n(&offered,
			 (arg->flags & FUSE_INIT_EXT) &&
				 (arg->flags2 & (FUSE_OVER_IO_URING >> 32)),
			 __ATOMIC_RELEASE);
}

bool fuse_uring_init_reply(struct iovec *iov, int count)
{
	const struct fuse_out_header *out = iov[0].iov_base;
	size_t pages;

	if (!want || !__atomic_load_n(&offered, __ATOMIC_ACQUIRE) ||
	    count != 2 || iov[0].iov_len < sizeof(*out) || out->error ||
	    out->unique != __atomic_load_n(&init_unique, __ATOMIC_RELAXED) ||
	    iov[1].iov_len != sizeof(init_copy))
		return false;
	memcpy(&init_copy, iov[1].iov_base, sizeof(init_copy));
	init_copy.flags |= FUSE_INIT_EXT;
	init_copy.flags2 |= FUSE_OVER_IO_URING >> 32;
	iov[1].iov_base = &init_copy;
	__atomic_store_n(&setxattr_ext, init_copy.flags & FUSE_SETXATTR_EXT,
			 __ATOMIC_RELAXED);
	/*
	 * At least what the kernel makes ring->max_payload_sz: max_write or
	 * max_pages pages, whichever is more (it may clamp max_pages lower).
	 */
	pages = (init_copy.flags & FUSE_MAX_PAGES) && init_copy.max_pages ?
			init_copy.max_pages :
			FUSE_DEFAULT_MAX_PAGES_PER_REQ;
	pages *= FUSE_URING_PAGE_SIZE;
	__atomic_store_n(&payload_max,
			 pages > init_copy.max_write ? pages :
						       init_copy.max_write,
			 __ATOMIC_RELEASE);
	return true;
}

size_t fuse_uring_payload_size(void)
{
	return __atomic_load_n(&payload_max, __ATOMIC_ACQUIRE);
}

bool fuse_uring_active(void)
{
	return __atomic_load_n(&nr_queues, __ATOMIC_ACQUIRE);
}

/*
 * The size of @opcode's own header as the kernel sends it over io_uring
 * (its first argument, in op_in), for the protocol libfuse 3.14 speaks;
 * 0 for those whose first argument is empty or that have none.
 */
static const uint16_t op_in_sizes[] = {
	[FUSE_GETATTR] = sizeof(struct fuse_getattr_in),
	[FUSE_SETATTR] = sizeof(struct fuse_setattr_in),
	[FUSE_MKNOD] = sizeof(struct fuse_mknod_in),
	[FUSE_MKDIR] = sizeof(struct fuse_mkdir_in),
	[FUSE_RENAME] = sizeof(struct fuse_rename_in),
	[FUSE_RENAME2] = sizeof(struct fuse_rename2_in),
	[FUSE_LINK] = sizeof(struct fuse_link_in),
	[FUSE_OPEN] = sizeof(struct fuse_open_in),
	[FUSE_OPENDIR] = sizeof(struct fuse_open_in),
	[FUSE_READ] = sizeof(struct fuse_read_in),
	[FUSE_READDIR] = sizeof(struct fuse_read_in),
	[FUSE_READDIRPLUS] = sizeof(struct fuse_read_in),
	[FUSE_WRITE] = sizeof(struct fuse_write_in),
	[FUSE_RELEASE] = sizeof(struct fuse_release_in),
	[FUSE_RELEASEDIR] = sizeof(struct fuse_release_in),
	[FUSE_FSYNC] = sizeof(struct fuse_fsync_in),
	[FUSE_FSYNCDIR] = sizeof(struct fuse_fsync_in),
	[FUSE_GETXATTR] = sizeof(struct fuse_getxattr_in),
	[FUSE_LISTXATTR] = sizeof(struct fuse_getxattr_in),
	[FUSE_FLUSH] = sizeof(struct fuse_flush_in),
	[FUSE_GETLK] = sizeof(struct fuse_lk_in),
	[FUSE_SETLK] = sizeof(struct fuse_lk_in),
	[FUSE_SETLKW] = sizeof(struct fuse_lk_in),
	[FUSE_ACCESS] = sizeof(struct fuse_access_in),
	[FUSE_CREATE] = sizeof(struct fuse_create_in),
	[FUSE_TMPFILE] = sizeof(struct fuse_create_in),
	[FUSE_BMAP] = sizeof(struct fuse_bmap_in),
	[FUSE_IOCTL] = sizeof(struct fuse_ioctl_in),
	[FUSE_POLL] = sizeof(struct fuse_poll_in),
	[FUSE_FALLOCATE] = sizeof(struct fuse_fallocate_in),
	[FUSE_LSEEK] = sizeof(struct fuse_lseek_in),
	[FUSE_COPY_FILE_RANGE] = sizeof(struct fuse_copy_file_range_in),
	[FUSE_SYNCFS] = sizeof(struct fuse_syncfs_in),
	[FUSE_NOTIFY_REPLY] = sizeof(struct fuse_notify_retrieve_in),
};

static size_t op_in_size(uint32_t opcode)
{
	if (opcode == FUSE_SETXATTR)
		return __atomic_load_n(&setxattr_ext, __ATOMIC_RELAXED) ?
			       sizeof(struct fuse_setxattr_in) :
			       FUSE_COMPAT_SETXATTR_IN_SIZE;
	/* LOOKUP, names, STATFS, DESTROY, ...: nothing in op_in */
	if (opcode >= sizeof(op_in_sizes) / sizeof(op_in_sizes[0]))
		return 0;
	return op_in_sizes[opcode];
}

/* Publish what was queued (liburing's flush, which it keeps private). */
static void publish_locked(struct fuse_uring_queue *q)
{
	struct io_uring_sq *sq = &q->ring.sq;

	sq->sqe_head = sq->sqe_tail;
	io_uring_smp_store_release(sq->ktail, sq->sqe_tail);
}

/*
 * io_uring_enter() on @q's ring: submit @submit, wait for one if @wait.
 * The number submitted or -errno (liburing returns the error, as the
 * system call does, and leaves errno alone).
 */
static int enter(struct fuse_uring_queue *q, unsigned int submit, bool wait)
{
	return io_uring_enter(q->ring.ring_fd, submit, wait ? 1 : 0,
			      wait ? IORING_ENTER_GETEVENTS : 0, NULL);
}

/* The owner: @res of its io_uring_enter() went in of what it owed. */
static void owed_in(struct fuse_uring_queue *q, int res)
{
	if (res > 0)
		q->owed -= (unsigned int)res < q->owed ? (unsigned int)res :
							 q->owed;
}

static struct io_uring_sqe *get_sqe_locked(struct fuse_uring_queue *q)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);

	/* full: what is queued goes in first */
	while (!sqe) {
		publish_locked(q);
		enter(q, q->ring.sq.ring_entries, false);
		sqe = io_uring_get_sqe(&q->ring);
	}
	memset(sqe, 0, 2 * sizeof(*sqe));
	return sqe;
}

static void prep_cmd_locked(struct fuse_uring_queue *q, struct ring_ent *e,
			    uint32_t op, uint64_t commit_id)
{
	struct io_uring_sqe *sqe = get_sqe_locked(q);
	struct fuse_uring_cmd_req *req = (void *)sqe->cmd;

	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = q->fd;
	sqe->cmd_op = op;
	sqe->addr = (uintptr_t)e->iov;
	sqe->len = 2;
	req->qid = q->qid;
	req->commit_id = commit_id;
	io_uring_sqe_set_data(sqe, e);
}

static void queue_free(struct fuse_uring_queue *q)
{
	for (unsigned int i = 0; q->ents && i < q->nr_ents; i++) {
		free(q->ents[i].hdr);
		free(q->ents[i].payload);
	}
	free(q->ents);
	pthread_mutex_destroy(&q->sq_lock);
	free(q);
}

struct fuse_uring_queue *fuse_uring_queue_create(int fd, unsigned int qid,
						 unsigned int nr_ents, int *err)
{
	size_t psz = fuse_uring_payload_size();
	struct fuse_uring_queue *q = calloc(1, sizeof(*q));
	int ret;

	*err = -ENOMEM;
	if (!q)
		return NULL;
	/* a queue a reply could not be looked up in must not register */
	if (__atomic_load_n(&nr_queues, __ATOMIC_ACQUIRE) >= MAX_QUEUES) {
		free(q);
		*err = -ENOSPC;
		return NULL;
	}
	pthread_mutex_init(&q->sq_lock, NULL);
	q->fd = fd;
	q->qid = qid;
	q->watch_fd = -1;
	q->ents = calloc(nr_ents, sizeof(*q->ents));
	if (!q->ents || !psz) {
		*err = psz ? -ENOMEM : -EINVAL;
		queue_free(q);
		return NULL;
	}
	q->nr_ents = nr_ents;
	for (unsigned int i = 0; i < nr_ents; i++) {
		struct ring_ent *e = &q->ents[i];

		e->q = q;
		if (posix_memalign((void **)&e->hdr, 64, sizeof(*e->hdr)) ||
		    posix_memalign(&e->payload, 4096, psz)) {
			queue_free(q);
			return NULL;
		}
		memset(e->hdr, 0, sizeof(*e->hdr));
		e->iov[0] = (struct iovec){ e->hdr, sizeof(*e->hdr) };
		e->iov[1] = (struct iovec){ e->payload, psz };
	}
	/* room for every entry's command and the watch, twice over */
	ret = io_uring_queue_init(2 * (nr_ents + 1), &q->ring,
				  IORING_SETUP_SQE128);
	if (ret < 0) {
		*err = ret;
		queue_free(q);
		return NULL;
	}
	pthread_mutex_lock(&q->sq_lock);
	for (unsigned int i = 0; i < nr_ents; i++)
		prep_cmd_locked(q, &q->ents[i], FUSE_IO_URING_CMD_REGISTER, 0);
	publish_locked(q);
	ret = enter(q, nr_ents, false);
	pthread_mutex_unlock(&q->sq_lock);
	if (ret < 0) {
		*err = ret;
		io_uring_queue_exit(&q->ring);
		queue_free(q);
		return NULL;
	}
	/* only uring_start() creates queues, one at a time: room is left */
	pthread_mutex_lock(&queues_lock);
	queues[nr_queues] = q;
	__atomic_store_n(&nr_queues, nr_queues + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&queues_lock);
	*err = 0;
	return q;
}

void fuse_uring_queue_destroy(struct fuse_uring_queue *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&queues_lock);
	for (unsigned int i = 0; i < nr_queues; i++) {
		if (queues[i] != q)
			continue;
		queues[i] = queues[nr_queues - 1];
		__atomic_store_n(&nr_queues, nr_queues - 1, __ATOMIC_RELEASE);
		break;
	}
	pthread_mutex_unlock(&queues_lock);
	/* cancels the commands the kernel still holds */
	io_uring_queue_exit(&q->ring);
	queue_free(q);
}

void fuse_uring_queue_watch(struct fuse_uring_queue *q, int fd)
{
	q->watch_fd = fd;
	q->watch_armed = false;
}

/* The owner: arm the one-shot poll of its watched descriptor. */
static void arm_watch(struct fuse_uring_queue *q)
{
	struct io_uring_sqe *sqe;

	if (q->watch_fd < 0 || q->watch_armed)
		return;
	pthread_mutex_lock(&q->sq_lock);
	sqe = get_sqe_locked(q);
	io_uring_prep_poll_add(sqe, q->watch_fd, POLLIN);
	io_uring_sqe_set_data64(sqe, WATCH_UD);
	publish_locked(q);
	pthread_mutex_unlock(&q->sq_lock);
	q->owed++;
	q->watch_armed = true;
}

/* Put @e's request together in @fbuf as /dev/fuse would have read it. */
static int take_request(struct ring_ent *e, struct fuse_buf *fbuf)
{
	struct fuse_in_header in;
	size_t op, pl, size, max;
	char *p;

	/*
	 * Whoever committed this entry's last reply wrote its header
	 * before the release in fuse_uring_reply(); the kernel orders the
	 * rest, where TSan cannot see.
	 */
	(void)__atomic_load_n(&e->unique, __ATOMIC_ACQUIRE);
	pl = e->hdr->ring_ent_in_out.payload_sz;
	memcpy(&in, e->hdr->in_out, sizeof(in));
	op = op_in_size(in.opcode);
	max = sizeof(in) + FUSE_URING_OP_IN_OUT_SZ + fuse_uring_payload_size();
	if (pl > fuse_uring_payload_size())
		return -EIO;
	if (!fbuf->mem || e->q->buf_cap < max) {
		p = realloc(fbuf->mem, max);
		if (!p)
			return -ENOMEM;
		fbuf->mem = p;
		e->q->buf_cap = max;
	}
	size = sizeof(in) + op + pl;
	fbuf->size = size;
	fbuf->flags = 0;
	in.len = (uint32_t)size;
	p = fbuf->mem;
	memcpy(p, &in, sizeof(in));
	memcpy(p + sizeof(in), e->hdr->op_in, op);
	memcpy(p + sizeof(in) + op, e->payload, pl);
	__atomic_store_n(&e->unique, in.unique, __ATOMIC_RELEASE);
	return (int)size;
}

int fuse_uring_receive(struct fuse_uring_queue *q, struct fuse_buf *fbuf,
		       bool wait)
{
	struct io_uring_cqe *cqe;
	struct ring_ent *e;
	int res;

	my_q = q;
	my_ent = NULL;
	arm_watch(q);
	while (io_uring_peek_cqe(&q->ring, &cqe)) {
		if (!wait && !q->owed)
			return -EAGAIN;
		res = enter(q, q->owed, wait);
		if (res >= 0)
			owed_in(q, res);
		else if (res == -EINTR)
			return res;
		else if (res != -EAGAIN && res != -EBUSY)
			return res;
		if (!wait && io_uring_peek_cqe(&q->ring, &cqe))
			return -EAGAIN;
	}
	e = io_uring_cqe_get_data(cqe);
	res = cqe->res;
	io_uring_cqe_seen(&q->ring, cqe);
	if ((uintptr_t)e == WATCH_UD) {
		uint64_t v;

		/* a level-triggered poll: clear it before it is armed again */
		q->watch_armed = false;
		if (read(q->watch_fd, &v, sizeof(v)) < 0)
			v = 0;
		return 0;
	}
	if (res == -ENOTCONN || res == -ECANCELED || res == -ECONNABORTED)
		return res; /* the connection or the ring is going */
	if (res < 0) {
		/*
		 * This command failed alone (a commit the kernel no longer
		 * had a request for, a refused registration): the kernel
		 * holds the entry no more, so it is out of use; the others
		 * go on.
		 */
		return -EAGAIN;
	}
	res = take_request(e, fbuf);
	if (res < 0) {
		/* the request cannot be served: fail it, keep the entry */
		const struct fuse_in_header *in = (void *)e->hdr->in_out;
		struct fuse_out_header out = {
			.len = sizeof(out),
			.error = res,
			.unique = in->unique,
		};
		struct iovec iov = { &out, sizeof(out) };
		ssize_t r;

		__atomic_store_n(&e->unique, out.unique, __ATOMIC_RELEASE);
		fuse_uring_reply(&iov, 1, &r);
		return -EAGAIN;
	}
	my_ent = e;
	return res;
}

bool fuse_uring_pending(struct fuse_uring_queue *q)
{
	return io_uring_cq_ready(&q->ring);
}

void fuse_uring_flush(struct fuse_uring_queue *q)
{
	while (q->owed) {
		int res = enter(q, q->owed, false);

		owed_in(q, res);
		if (res == 0 || (res < 0 && res != -EINTR && res != -EAGAIN &&
				 res != -EBUSY))
			break;
	}
}

static struct ring_ent *find_ent(uint64_t unique)
{
	struct ring_ent *e = my_ent;

	if (e && __atomic_load_n(&e->unique, __ATOMIC_ACQUIRE) == unique)
		return e;
	/* another thread's request (a completion), or another queue's */
	pthread_mutex_lock(&queues_lock);
	for (unsigned int i = 0; i < nr_queues; i++) {
		struct fuse_uring_queue *q = queues[i];

		for (unsigned int k = 0; k < q->nr_ents; k++) {
			e = &q->ents[k];
			if (__atomic_load_n(&e->unique, __ATOMIC_ACQUIRE) ==
			    unique) {
				pthread_mutex_unlock(&queues_lock);
				return e;
			}
		}
	}
	pthread_mutex_unlock(&queues_lock);
	return NULL;
}

bool fuse_uring_reply(const struct iovec *iov, int count, ssize_t *ret)
{
	const struct fuse_out_header *o = iov[0].iov_base;
	struct fuse_out_header out;
	struct fuse_uring_queue *q;
	struct ring_ent *e;
	size_t pl = 0, total = 0;

	if (!count || iov[0].iov_len < sizeof(out) || !o->unique)
		return false;
	e = find_ent(o->unique);
	if (!e)
		return false;
	q = e->q;
	for (int i = 0; i < count; i++)
		total += iov[i].iov_len;
	memcpy(&out, o, sizeof(out));
	if (total - sizeof(out) > fuse_uring_payload_size()) {
		out.error = -EIO;
	} else {
		char *p = e->payload;
		size_t skip = sizeof(out);

		/* everything after the out-header, in order */
		for (int i = 0; i < count; i++) {
			size_t len = iov[i].iov_len, off = 0;

			if (skip >= len) {
				skip -= len;
				continue;
			}
			off = skip;
			skip = 0;
			len -= off;
			memcpy(p + pl, (char *)iov[i].iov_base + off, len);
			pl += len;
		}
	}
	out.len = (uint32_t)(sizeof(out) + (out.error ? 0 : pl));
	memcpy(e->hdr->in_out, &out, sizeof(out));
	e->hdr->ring_ent_in_out.payload_sz = out.error ? 0 : (uint32_t)pl;
	/* the entry is the kernel's again once the command is in */
	__atomic_store_n(&e->unique, 0, __ATOMIC_RELEASE);
	if (my_ent == e)
		my_ent = NULL;

	pthread_mutex_lock(&q->sq_lock);
	prep_cmd_locked(q, e, FUSE_IO_URING_CMD_COMMIT_AND_FETCH, out.unique);
	publish_locked(q);
	pthread_mutex_unlock(&q->sq_lock);
	if (my_q == q) {
		/* submitted by the wait for the next request */
		q->owed++;
	} else {
		int r;

		do {
			r = enter(q, 1, false);
		} while (r == -EINTR || r == -EAGAIN || r == -EBUSY);
	}
	*ret = (ssize_t)total;
	return true;
}
