/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The io_uring ring of the file backend, behind plain C types.
 *
 * liburing's headers need the system's <linux/fs.h> and <linux/types.h>,
 * which the simulated kernel's headers shadow; so liburing stays in this
 * host file (block/host/README.md) and the backend sees only this.
 *
 * Locking is the caller's: the submission side (prep + submit) and the
 * completion side (reap) may run on different threads, but each side on
 * one thread at a time.
 */
#ifndef _BLOCK_HOST_URING_HOST_H
#define _BLOCK_HOST_URING_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

struct bfu_ring;

/*
 * IORING_SETUP_COOP_TASKRUN: completions do not interrupt the submitter
 * with an IPI, they wait for its next transition to the kernel (a
 * sleeping submitter is still woken).  Dropped if the kernel lacks it.
 */
#define BFU_COOP_TASKRUN	(1U << 0)

/* 0 or -errno.  @flags: BFU_*. */
int bfu_ring_create(unsigned int entries, unsigned int flags,
		    struct bfu_ring **out);
void bfu_ring_destroy(struct bfu_ring *r);

/*
 * Queue one request; user_data comes back with its completion.  A single
 * iovec goes as IORING_OP_READ/WRITE, more as READV/WRITEV; @dsync sets
 * RWF_DSYNC (how FUA reaches a file).  -EBUSY if the submission queue is
 * full.
 */
int bfu_prep_rw(struct bfu_ring *r, int fd, bool write,
		const struct iovec *iov, unsigned int nr_iov, uint64_t off,
		bool dsync, uint64_t user_data);
/* IORING_OP_FSYNC with IORING_FSYNC_DATASYNC: fdatasync(). */
int bfu_prep_fdatasync(struct bfu_ring *r, int fd, uint64_t user_data);
int bfu_prep_nop(struct bfu_ring *r, uint64_t user_data);
/* Submit what is queued: the number submitted or -errno. */
int bfu_submit(struct bfu_ring *r);
/*
 * Submit what is queued and wait for a completion (without taking it),
 * both in one io_uring_enter(): the number submitted or -errno.
 */
int bfu_submit_and_wait(struct bfu_ring *r);

/*
 * Take one completion: 0 with *user_data and *res (a byte count or
 * -errno) filled in; -EAGAIN if none is ready and !wait; -errno else.
 */
int bfu_reap(struct bfu_ring *r, bool wait, uint64_t *user_data, int *res);
/*
 * As bfu_reap() waiting at most @ms milliseconds: -ETIME if nothing came.
 * Needs IORING_FEAT_EXT_ARG (5.11; bfu_has_ext_arg()), else -EOPNOTSUPP:
 * liburing would queue a timeout SQE, which the submission side's lock
 * does not cover.
 */
int bfu_reap_timeout(struct bfu_ring *r, unsigned int ms, uint64_t *user_data,
		     int *res);
bool bfu_has_ext_arg(struct bfu_ring *r);
/*
 * An eventfd (non-blocking) the ring signals for every completion it
 * posts: created and registered on the first call.  The fd or -errno.
 */
int bfu_eventfd(struct bfu_ring *r);
/*
 * Block until a completion is ready without taking it: 0 or -errno.
 * Busy-polls up to @spin_us microseconds first.
 */
int bfu_wait_ready(struct bfu_ring *r, unsigned int spin_us);
/*
 * Busy-poll up to @spin_us microseconds for a completion, without
 * sleeping and without taking it: true if one is ready.
 */
bool bfu_spin_ready(struct bfu_ring *r, unsigned int spin_us);
/*
 * Stop (false) or resume (true) the eventfd's signals: a flag in the
 * ring's shared memory, no system call.  An owner that waits in the
 * ring itself has no use for them, and each would wake its event loop
 * once more for nothing.
 */
void bfu_eventfd_enable(struct bfu_ring *r, bool on);

#endif /* _BLOCK_HOST_URING_HOST_H */
