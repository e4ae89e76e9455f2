/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulator's block devices: constructors and knobs of the backends
 * behind struct block_device (see <sim/bdev-backend.h> for the interface).
 *
 *  ram   - memory-backed, data kept; optional volatile write cache whose
 *          unflushed writes a simulated power failure throws away, so
 *          FUA / flush handling above can be checked, not just counted.
 *  null  - like null_blk: reads return zeroes, writes are dropped,
 *          completion inline or after a latency.
 *  file  - a regular file or a block device opened with O_DIRECT and
 *          driven through io_uring; limits from statx / libblkid.
 *  fault - wraps any of them and fails or delays bios by rules given as
 *          text ("bio-error:3:IOERR"), as the CLI and FUSE knobs do.
 *  log-writes - wraps any of them and records every write, flush and
 *          FUA bio in a log file, for power-loss replay (dm-log-writes).
 *
 * Every constructor returns a block_device or an ERR_PTR, and writes a
 * one-line reason into @err (may be NULL) on failure.
 * blksim_bdev_destroy() ends any of them; all bios must have completed.
 *
 * The backends model hardware, not kernel code: their per-I/O state
 * (tags, timers, bounce buffers) is libc memory watched by gauges, so it
 * neither draws on the kernel allocator's fault injection nor escapes the
 * harness's leak checks.
 */
#ifndef _SIM_BDEV_H
#define _SIM_BDEV_H

#include <linux/blkdev.h>
#include <linux/types.h>
#include <sim/bdev-backend.h>

/*
 * Per-device counters, kept by every backend here (a fault device counts
 * what reached it, including the bios it failed).
 */
struct blksim_bdev_counters {
	u64 read_bios;
	u64 read_bytes;
	u64 write_bios;	   /* with data */
	u64 write_bytes;
	u64 flush_bios;	   /* empty REQ_PREFLUSH writes (and REQ_OP_FLUSH) */
	u64 flush_calls;   /* ->flush() (blkdev_issue_flush and friends) */
	u64 preflush_bios; /* bios carrying REQ_PREFLUSH */
	u64 fua_bios;	   /* writes carrying REQ_FUA */
	u64 nowait_bios;   /* bios carrying REQ_NOWAIT */
	u64 polled_bios;   /* bios carrying REQ_POLLED */
	u64 error_bios;	   /* completed with a status other than OK */
	u64 again_bios;	   /* REQ_NOWAIT bios refused with BLK_STS_AGAIN */
	u64 bounced_bios;  /* file: copied through an aligned buffer */
	u64 qd_waits;	   /* file: submitter slept for a free slot */
	u64 max_inflight;  /* file: most bios in flight at once */
};

/* Snapshot of @bdev's counters; false if @bdev is not one of ours. */
bool blksim_bdev_get_counters(struct block_device *bdev,
			   struct blksim_bdev_counters *out);
void blksim_bdev_reset_counters(struct block_device *bdev);

/* Ends any backend; lower devices of a fault wrapper go with it. */
void blksim_bdev_destroy(struct block_device *bdev);

/* ---- a submitter's completion context ------------------------------ */

/*
 * What a thread that submits bios to @bdev can do about its own bios'
 * completions, for an event loop that keeps several reads in flight
 * instead of waiting for each.  A device has such a context or not
 * (blksim_bdev_ops.submitter); through a fault or log-writes wrapper, the
 * device under it answers.  The file device has one with
 * submitter_polls (its per-thread rings); any other answers
 * -EOPNOTSUPP, or that nothing is outstanding.
 *  - _fd: an eventfd that turns readable as this thread's bios
 *    complete, the context made on first use; or -EOPNOTSUPP (no
 *    context on this device), -ENODEV (it cannot be had);
 *  - _outstanding: this thread's bios in it not yet ended;
 *  - _reap: end what has completed (@wait: wait for all of them, as
 *    ->poll does), in hard-IRQ context on this thread; how many.
 */
int blksim_bdev_submitter_fd(struct block_device *bdev);
unsigned int blksim_bdev_submitter_outstanding(struct block_device *bdev);
int blksim_bdev_submitter_reap(struct block_device *bdev, bool wait);

/* A completion busy-poll window: asked for, and how it went. */
struct blksim_bdev_spin {
	unsigned int budget_us; /* in: poll at most this long, 0: sleep */
	bool polled;		/* out: a window was opened */
	bool hit;		/* out: a completion came inside it */
	unsigned long long spent_ns; /* out: time spent polling */
};

/*
 * As _reap with @wait, but the caller sets the busy-poll window (the
 * device's own, such as blksim_file_opts.poll_us, is not applied) and
 * learns how it went.
 */
int blksim_bdev_submitter_wait(struct block_device *bdev,
			    struct blksim_bdev_spin *spin);
/*
 * @on: from now on, a read of this thread that goes out while nothing
 * else is in flight on the device stays in its context unsubmitted
 * until the thread reaps: waiting, one system call then submits it and
 * sleeps until it completes; not waiting, it is submitted.  The device
 * submits it should the thread never reap (the file device's sweep).
 * Off submits what is held.  0, -EOPNOTSUPP or -ENODEV as _fd.
 */
int blksim_bdev_submitter_defer(struct block_device *bdev, bool on);

/* ---- ram ---------------------------------------------------------- */

struct blksim_ram_opts {
	const char *name;		  /* default "ram0" */
	u64 size;			  /* bytes, default 64 MiB */
	unsigned int logical_block_size;  /* 512..4096, default 512 */
	unsigned int physical_block_size; /* >= lbs, default lbs */
	unsigned int io_min;		  /* default pbs */
	unsigned int io_opt;		  /* default 0 */
	unsigned int dma_alignment;	  /* mask, default 511 */
	unsigned int max_sectors;	  /* default 2560 (1280 KiB) */
	bool write_cache;		  /* BLK_FEAT_WRITE_CACHE */
	/*
	 * BLK_FEAT_FUA: FUA is cheap (what iomap's write-through looks
	 * at).  REQ_FUA is honoured either way, as by a bio-based driver.
	 */
	bool fua;
	bool read_only;			  /* writes with data fail, EIO */
	/*
	 * No poll queues (no BLK_FEAT_POLL): a REQ_POLLED bio ends with
	 * BLK_STS_NOTSUPP at submission, as on a loop device.
	 */
	bool no_poll;
};

struct block_device *blksim_bdev_ram_create(const struct blksim_ram_opts *opts,
					 char *err, size_t errlen);
/* What reads return now (size bytes; tests may read and write it). */
void *blksim_bdev_ram_data(struct block_device *bdev);
u64 blksim_bdev_ram_size(struct block_device *bdev);

/* Bios the block layer's own split bio_set has handed out, ever. */
long blksim_split_allocs(void);
/*
 * What would survive a power failure: with a volatile write cache only
 * what was written with FUA or covered by a flush since; without one,
 * the same as blksim_bdev_ram_data().
 */
const void *blksim_bdev_ram_media(struct block_device *bdev);
/*
 * Bytes [@pos, @pos + @len) of both images read as zero again, and
 * nothing is dirty: for a test that reuses a device, zeroing what it
 * wrote makes it as new.
 */
void blksim_bdev_ram_zero(struct block_device *bdev, u64 pos, u64 len);
/*
 * Only what reads return, as a write of zeroes without FUA would: the
 * media keeps its contents until a flush.  For a test that never looks
 * at the media, half the work of blksim_bdev_ram_zero() with a write cache.
 */
void blksim_bdev_ram_zero_data(struct block_device *bdev, u64 pos, u64 len);
/* Lose the write cache: data reverts to the media contents. */
void blksim_bdev_ram_power_fail(struct block_device *bdev);

/* ---- null --------------------------------------------------------- */

/* null_blk's irqmode values. */
enum blksim_null_irqmode {
	BLKSIM_NULL_IRQ_NONE = 0,	/* complete inside ->submit */
	BLKSIM_NULL_IRQ_TIMER = 2, /* complete after completion_nsec */
};

struct blksim_null_opts {
	const char *name;		  /* default "nullb0" */
	u64 size;			  /* bytes, default 250 GiB */
	unsigned int logical_block_size;  /* default 512 */
	unsigned int physical_block_size; /* default lbs */
	unsigned int dma_alignment;	  /* mask, default 511 */
	unsigned int max_sectors;	  /* default 2560 */
	enum blksim_null_irqmode irqmode;
	/*
	 * TIMER mode: threaded engine, a timer thread ends each bio this
	 * long after submission; deterministic engine, time is virtual and
	 * the bio is ended at once (the engine's policy orders completions).
	 */
	u64 completion_nsec;
	bool write_cache;
	bool fua;
	bool no_poll;			  /* as blksim_ram_opts.no_poll */
};

struct block_device *blksim_bdev_null_create(const struct blksim_null_opts *opts,
					  char *err, size_t errlen);

/* ---- file / block device through O_DIRECT + io_uring --------------- */

#define BLKSIM_BDEV_FILE_MIN_SIZE (1ULL << 20)
#define BLKSIM_BDEV_FILE_DEF_QD 32
#define BLKSIM_BDEV_FILE_MAX_QD 4096

struct blksim_file_opts {
	const char *name;		 /* default: basename of the path */
	bool read_only;			 /* O_RDONLY; writes then fail */
	unsigned int queue_depth;	 /* bios in flight, default 32 */
	unsigned int logical_block_size; /* 0: from the device / statx */
	/*
	 * Threaded engine: a thread that calls the device's ->poll owns a
	 * small ring from then on; its plain reads (not REQ_META or
	 * REQ_POLLED, nor from submit_bio_wait()) from task context go on
	 * that ring, and its ->poll waits for and ends them, in hard-IRQ
	 * context on that thread, as a polling submitter would.  That
	 * saves the hops through the reaper thread.  A read the owner does
	 * not poll for (it slept on something else) is ended by the reaper
	 * within BLKSIM_BDEV_FILE_SWEEP_MS.  The ring is the thread's
	 * completion context (blksim_bdev_submitter_*()), which the FUSE
	 * mount's workers use.
	 */
	bool submitter_polls;
	/*
	 * With submitter_polls: when the owner of a thread ring polls for a
	 * read it submitted while nothing else was in flight on the device,
	 * it busy-polls this many microseconds before it sleeps (0: sleep at
	 * once), as the kernel's hybrid polling does.  An idle CPU in a VM
	 * takes long to wake; under load the CPU has better things to do.
	 */
	unsigned int poll_us;
	bool no_poll;			 /* as blksim_ram_opts.no_poll */
};

#define BLKSIM_BDEV_FILE_SWEEP_MS 10

/*
 * Opens @path (regular file or block device) with O_DIRECT.  Start the
 * engine first: completions go to a reaper thread if it is the threaded
 * engine, else to an engine source (see backend-file.c), chosen here.
 * Under the deterministic engine a poll waits for all bios in flight and
 * ends them in submission order, so runs replay although the host's I/O
 * timing varies.  Errors,
 * with the errno in the ERR_PTR and a line in @err:
 *   -ENOENT  missing path            -EISDIR  a directory
 *   -ENODEV  not a file or device    -EROFS   read-only, writes wanted
 *   -EINVAL  no O_DIRECT support, too small, size not a multiple of the
 *            logical block size, bad option
 *   other    as open(2), statx(2), io_uring_queue_init() returned.
 */
struct block_device *blksim_bdev_file_open(const char *path,
					const struct blksim_file_opts *opts,
					char *err, size_t errlen);

/* Where the limits came from and what the O_DIRECT alignment is. */
struct blksim_file_info {
	bool is_blockdev;
	bool from_blkid;     /* topology from libblkid */
	bool from_statx;     /* DIO alignment from STATX_DIOALIGN */
	bool probed;	     /* DIO alignment found by trial reads */
	unsigned int dio_mem_align;
	unsigned int dio_offset_align;
	unsigned int queue_depth;
	u64 size;
};
bool blksim_bdev_file_info(struct block_device *bdev, struct blksim_file_info *out);

/* ---- fault wrapper ------------------------------------------------- */

/*
 * Takes ownership of @lower: the wrapper's limits (features, DMA
 * alignment, poll support) are @lower's, and
 * destroying the wrapper destroys @lower.  On failure @lower is left
 * alone.
 */
struct block_device *blksim_bdev_fault_wrap(struct block_device *lower,
					 char *err, size_t errlen);
struct block_device *blksim_bdev_fault_lower(struct block_device *bdev);

/*
 * Rule specs (fields separated by ':'; optional ones in any order):
 *   bio-error:N[:STATUS][:read|write|flush]   fail the Nth matching bio
 *   sector:START-END[:STATUS][:read|write]    fail bios touching sectors
 *                                             START..END (inclusive)
 *   prob:PPM[:STATUS][:read|write|flush][:seed=S]
 *                                             fail with probability PPM
 *                                             per million, seeded
 *   latency:NS[:read|write|flush]             delay matching bios
 * STATUS is a BLK_STS_ name without the prefix (IOERR, NOSPC, AGAIN,
 * MEDIUM, ...; case-insensitive), default IOERR.  A failed bio never
 * reaches the lower device (the device refused the command), so a
 * failed write leaves the old data in place.  Counting starts when the
 * rule is added.  Returns the rule id (> 0), or -EINVAL with @err set,
 * or -ENOSPC when the device already holds BLKSIM_FAULT_MAX_RULES rules.
 */
#define BLKSIM_FAULT_MAX_RULES 64
int blksim_bdev_fault_add(struct block_device *bdev, const char *spec,
		       char *err, size_t errlen);
int blksim_bdev_fault_remove(struct block_device *bdev, int id);
void blksim_bdev_fault_clear(struct block_device *bdev);
/*
 * Clear, and number the next rule 1 again, as on a freshly wrapped
 * device: rule ids show in traces, so a device reused between runs must
 * not carry its old numbering into the next one.
 */
void blksim_bdev_fault_reset(struct block_device *bdev);
/*
 * One line per rule, "ID SPEC hits=H", in @buf; returns the length the
 * whole listing needs (as snprintf does).
 */
size_t blksim_bdev_fault_list(struct block_device *bdev, char *buf, size_t len);
/* Validate @spec without a device (for command-line checks). */
int blksim_bdev_fault_check(const char *spec, char *err, size_t errlen);
/*
 * One control line, as a control file takes it: "SPEC" adds a rule,
 * "-ID" removes one, "clear" removes all.  Returns as the calls above.
 */
int blksim_bdev_fault_command(struct block_device *bdev, const char *line,
			   char *err, size_t errlen);

/* ---- log-writes wrapper (dm-log-writes) ---------------------------- */

/*
 * Takes ownership of @lower, as the fault wrapper does, and records every
 * write, flush and FUA bio that succeeds on it into a new file @path
 * (refused if it exists), format in <sim/logw-format.h>.
 */
struct block_device *blksim_bdev_logw_wrap(struct block_device *lower,
					const char *path, char *err,
					size_t errlen);
struct block_device *blksim_bdev_logw_lower(struct block_device *bdev);
/*
 * Append a mark @name (1..LOGW_MARK_MAX bytes,
 * <sim/logw-format.h>) to the log, as dm-log-writes'
 * "mark" message: a test names the moment it reached.  0, -EINVAL (not a
 * log-writes device, bad name) or -EIO (the log cannot be written).
 */
int blksim_bdev_logw_mark(struct block_device *bdev, const char *name);
/* Entries logged so far (0 if @bdev is not a log-writes device). */
u64 blksim_bdev_logw_entries(struct block_device *bdev);

/* blk_status_t by name ("IOERR" or "BLK_STS_IOERR"); -1 if unknown. */
int blksim_blk_status_parse(const char *name);
/* Short name ("IOERR"); "?" for a value with no name. */
const char *blksim_blk_status_name(blk_status_t status);

#endif /* _SIM_BDEV_H */
