/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The io_uring ring of the file backend, behind plain C types.
 *
 * liburing's headers include <linux/fs.h> and <linux/types.h>, which in
 * this tree are the simulated kernel's; so liburing is confined to one
 * file (backend-file-uring.c) that includes no simulator header, and this
 * interface is all the rest of the backend sees of it.
 *
 * Locking is the caller's: the submission side (prep + submit) and the
 * completion side (reap) may run on different threads, but each side on
 * one thread at a time.
 */
#ifndef _BLOCK_BACKEND_FILE_URING_H
#define _BLOCK_BACKEND_FILE_URING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

struct bfu_ring;

/* 0 or -errno. */
int bfu_ring_create(unsigned int entries, struct bfu_ring **out);
void bfu_ring_destroy(struct bfu_ring *r);

/*
 * Queue one request; user_data comes back with its completion.  A single
 * iovec goes as IORING_OP_READ/WRITE, more as READV/WRITEV; rw_flags are
 * RWF_* (RWF_DSYNC for FUA).  -EBUSY if the submission queue is full.
 */
int bfu_prep_rw(struct bfu_ring *r, int fd, bool write,
		const struct iovec *iov, unsigned int nr_iov, uint64_t off,
		int rw_flags, uint64_t user_data);
/* IORING_OP_FSYNC with IORING_FSYNC_DATASYNC: fdatasync(). */
int bfu_prep_fdatasync(struct bfu_ring *r, int fd, uint64_t user_data);
int bfu_prep_nop(struct bfu_ring *r, uint64_t user_data);
/* Submit what is queued: the number submitted or -errno. */
int bfu_submit(struct bfu_ring *r);

/*
 * Take one completion: 0 with *user_data and *res (a byte count or
 * -errno) filled in; -EAGAIN if none is ready and !wait; -errno else.
 */
int bfu_reap(struct bfu_ring *r, bool wait, uint64_t *user_data, int *res);

#endif /* _BLOCK_BACKEND_FILE_URING_H */
