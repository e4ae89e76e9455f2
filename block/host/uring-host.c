// SPDX-License-Identifier: GPL-2.0-only
/*
 * liburing for the file backend.  A host file: system headers only (see
 * block/host/README.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <liburing.h>
#include "uring-host.h"

struct bfu_ring {
	struct io_uring ring;
	int efd;	/* registered eventfd, -1: none */
};

int bfu_ring_create(unsigned int entries, unsigned int flags,
		    struct bfu_ring **out)
{
	struct bfu_ring *r = calloc(1, sizeof(*r));
	unsigned int setup = 0;
	int ret;

	if (!r)
		return -ENOMEM;
	if (flags & BFU_COOP_TASKRUN)
		setup |= IORING_SETUP_COOP_TASKRUN;
	/*
	 * The completion queue defaults to twice the submission queue; the
	 * caller never has more than @entries requests out, so it cannot
	 * overflow.
	 */
	ret = io_uring_queue_init(entries, &r->ring, setup);
	/* a kernel before 5.19: the flags are only an optimisation */
	if (ret == -EINVAL && setup)
		ret = io_uring_queue_init(entries, &r->ring, 0);
	if (ret < 0) {
		free(r);
		return ret;
	}
	r->efd = -1;
	*out = r;
	return 0;
}

int bfu_eventfd(struct bfu_ring *r)
{
	int fd, ret;

	if (r->efd >= 0)
		return r->efd;
	fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = io_uring_register_eventfd(&r->ring, fd);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	r->efd = fd;
	return fd;
}


void bfu_ring_destroy(struct bfu_ring *r)
{
	if (!r)
		return;
	io_uring_queue_exit(&r->ring);
	if (r->efd >= 0)
		close(r->efd);
	free(r);
}

int bfu_prep_rw(struct bfu_ring *r, int fd, bool write,
		const struct iovec *iov, unsigned int nr_iov, uint64_t off,
		bool dsync, uint64_t user_data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	if (!sqe)
		return -EBUSY;
	if (nr_iov == 1) {
		if (write)
			io_uring_prep_write(sqe, fd, iov[0].iov_base,
					    (unsigned int)iov[0].iov_len, off);
		else
			io_uring_prep_read(sqe, fd, iov[0].iov_base,
					   (unsigned int)iov[0].iov_len, off);
	} else {
		if (write)
			io_uring_prep_writev(sqe, fd, iov, nr_iov, off);
		else
			io_uring_prep_readv(sqe, fd, iov, nr_iov, off);
	}
	sqe->rw_flags = dsync ? RWF_DSYNC : 0;
	io_uring_sqe_set_data64(sqe, user_data);
	return 0;
}

int bfu_prep_fdatasync(struct bfu_ring *r, int fd, uint64_t user_data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
	io_uring_sqe_set_data64(sqe, user_data);
	return 0;
}

int bfu_prep_nop(struct bfu_ring *r, uint64_t user_data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data64(sqe, user_data);
	return 0;
}

int bfu_submit(struct bfu_ring *r)
{
	int ret;

	do {
		ret = io_uring_submit(&r->ring);
	} while (ret == -EINTR);
	return ret;
}

int bfu_submit_and_wait(struct bfu_ring *r)
{
	int ret;

	do {
		ret = io_uring_submit_and_wait(&r->ring, 1);
	} while (ret == -EINTR);
	return ret;
}

void bfu_eventfd_enable(struct bfu_ring *r, bool on)
{
	if (r->efd >= 0)
		io_uring_cq_eventfd_toggle(&r->ring, on);
}

int bfu_reap(struct bfu_ring *r, bool wait, uint64_t *user_data, int *res)
{
	struct io_uring_cqe *cqe;
	int ret;

	do {
		ret = wait ? io_uring_wait_cqe(&r->ring, &cqe) :
			     io_uring_peek_cqe(&r->ring, &cqe);
	} while (ret == -EINTR);
	if (ret < 0)
		return ret;
	*user_data = io_uring_cqe_get_data64(cqe);
	*res = cqe->res;
	io_uring_cqe_seen(&r->ring, cqe);
	return 0;
}

bool bfu_has_ext_arg(struct bfu_ring *r)
{
	return r->ring.features & IORING_FEAT_EXT_ARG;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

bool bfu_spin_ready(struct bfu_ring *r, unsigned int spin_us)
{
	uint64_t end = mono_ns() + spin_us * 1000ull;

	/*
	 * A task-run ring posts completions only when its task enters the
	 * kernel: ask for them, without sleeping.
	 */
	do {
		if (io_uring_cq_ready(&r->ring))
			return true;
		io_uring_get_events(&r->ring);
	} while (mono_ns() < end);
	return io_uring_cq_ready(&r->ring);
}

int bfu_wait_ready(struct bfu_ring *r, unsigned int spin_us)
{
	struct io_uring_cqe *cqe;
	int ret;

	if (spin_us && bfu_spin_ready(r, spin_us))
		return 0;
	do {
		ret = io_uring_wait_cqe(&r->ring, &cqe);
	} while (ret == -EINTR);
	return ret;
}

int bfu_reap_timeout(struct bfu_ring *r, unsigned int ms, uint64_t *user_data,
		     int *res)
{
	struct __kernel_timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (long long)(ms % 1000) * 1000000,
	};
	struct io_uring_cqe *cqe;
	int ret;

	if (!bfu_has_ext_arg(r))
		return -EOPNOTSUPP;
	do {
		ret = io_uring_wait_cqe_timeout(&r->ring, &cqe, &ts);
	} while (ret == -EINTR);
	if (ret < 0)
		return ret;
	*user_data = io_uring_cqe_get_data64(cqe);
	*res = cqe->res;
	io_uring_cqe_seen(&r->ring, cqe);
	return 0;
}
