/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the file backend's two files share: backend-file.c (requests, the
 * device's own ring, its reaper, the device) and backend-file-ring.c (the
 * rings a submitting thread owns).  Not an interface for anything else.
 */
#ifndef _BLOCK_BACKEND_FILE_H
#define _BLOCK_BACKEND_FILE_H

#include <linux/bio.h>
#include <linux/wait.h>
#include "backend.h"
#include "file-host.h"
#include "uring-host.h"

/* More separate pieces than this and the bio is bounced. */
#define BFILE_MAX_IOV 256

enum bfile_phase {
	BFILE_FLUSH, /* fdatasync (REQ_OP_FLUSH, or a REQ_PREFLUSH's first) */
	BFILE_RW,    /* the read or write */
};

struct bfile_dev;
struct bfile_thread_ring;

struct bfile_rq {
	struct bfile_dev *dev;
	struct bio *bio;
	/* the thread ring it is on, NULL: the device's */
	struct bfile_thread_ring *tr;
	struct bfile_rq *next_free;
	enum bfile_phase phase;
	bool write;
	bool dsync;
	bool nowait;
	bool alone; /* nothing else was in flight when it was taken */
	bool done; /* deterministic engine: finished, not yet handed over */
	blk_status_t status;
	u64 pos;	    /* byte offset of what is left */
	size_t remaining;   /* bytes left */
	struct iovec *iov;  /* first iovec left */
	unsigned int nr_iov;
	void *bounce;
	/*
	 * Bumped (release) before each issue, read (acquire) on each CQE:
	 * the kernel orders the two, but a race detector cannot see through
	 * io_uring, so the hand-over is made explicit.
	 */
	unsigned int issues;
	struct iovec iov_store[BFILE_MAX_IOV];
};

struct bfile_dev {
	struct blksim_backend be;
	struct bfh_target t;
	struct bfu_ring *ring;
	unsigned int depth;
	struct bfile_rq *rqs;

	/* tags, the ring's submission side and the in-order list */
	pthread_mutex_t lock;
	struct bfile_rq *free;
	unsigned int inflight;
	struct bfile_rq **order; /* deterministic: bios by submission */
	unsigned int order_head, order_n;
	wait_queue_head_t tag_wait;

	/* the completion side: one reaper at a time */
	pthread_mutex_t cq_lock;
	bool threaded;
	bool submitter_polls;
	unsigned int poll_us;
	struct bfile_thread_ring *thread_rings; /* bfile_thread_rings_lock */
	unsigned int nr_thread_rings; /* atomic: the reaper sweeps if any */
	pthread_t reaper;
	bool reaper_started;
	struct sim_source src;
	bool src_added;
};

static inline struct bfile_dev *to_bfile(struct block_device *bdev)
{
	return container_of(to_backend(bdev), struct bfile_dev, be);
}

/* A submitting thread's own ring on one device (backend-file-ring.c). */
struct bfile_thread_ring {
	struct bfile_dev *dev;	  /* NULL once the device is gone */
	struct bfu_ring *ring;
	pthread_mutex_t sq_lock;  /* owner and a sweep's reissue */
	pthread_mutex_t cq_lock;
	bool reaping;		  /* under cq_lock: the owner is polling */
	/* atomic: a read went out on an idle device */
	bool lone_read;
	/* owner only: a lone read waits for the owner's wait */
	bool defer;
	unsigned int unsubmitted; /* under sq_lock: SQEs the owner deferred */
	u64 deferred_ns;	  /* under sq_lock: when the first was */
	unsigned int outstanding; /* atomic: bios on it not yet ended */
	struct bfile_thread_ring *next; /* dev->thread_rings */
};

/* ---- backend-file.c ---- */

/* Submit what @ring holds; only a transient refusal is worth a retry. */
int bfile_submit_retry(struct bfu_ring *ring);
/*
 * One CQE for @rq.  Returns true when the bio is finished (rq->status
 * set), false when the next piece is on the ring.
 */
bool bfile_cqe(struct bfile_dev *dev, struct bfile_rq *rq, int res);
/* Hand a finished bio back: free its tag first, then end it. */
void bfile_finish(struct bfile_dev *dev, struct bfile_rq *rq);

/* ---- backend-file-ring.c ---- */

/*
 * The calling thread's ring takes @rq (rq->tr) if it has one on @dev
 * and @bio is a plain read it will poll for.  Task context only.
 */
void bfile_thread_ring_attach(struct bfile_dev *dev, struct bfile_rq *rq,
			      struct bio *bio);
/* bfile_issue() for a request on a thread ring. */
int bfile_thread_ring_issue(struct bfile_dev *dev, struct bfile_rq *rq,
			    bool first);
/*
 * The calling thread is about to sleep for a tag of @dev: a read its
 * ring deferred goes out now rather than wait for that sleep.
 */
void bfile_thread_ring_flush_mine(struct bfile_dev *dev);
/* ->poll of the owner: wait for and end every read on its ring. */
int bfile_thread_ring_poll(struct bfile_dev *dev, struct blksim_bdev_spin *spin);
/* The reaper's periodic sweep over the rings of @dev. */
void bfile_thread_ring_sweep(struct bfile_dev *dev);
/* The device goes: its rings go with it, their owners keep the shells. */
void bfile_thread_ring_detach_all(struct bfile_dev *dev);
/* The owner's completion context, blksim_bdev_ops.submitter. */
extern const struct blksim_bdev_submitter_ops bfile_submitter_ops;

#endif /* _BLOCK_BACKEND_FILE_H */
