/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * testfs: a one-file, in-memory test filesystem that drives iomap direct
 * I/O the way ext4 and XFS do, with everything a test wants to choose in
 * plain sight: the file's extent map (type, flags, device address per
 * range), i_size, block size, the device's logical block size, the
 * encrypted flag, which iomap_dio_ops it passes, and whether the simple
 * path is allowed on the mount.
 *
 * Allocation rules (the `iomapsim run` contract relies on them):
 *  - each extent of the map is returned by ->iomap_begin as one mapping,
 *    never merged with its neighbours, and neighbouring extents are not
 *    contiguous on the device;
 *  - a write into a hole or past the mapped range allocates a new mapped
 *    extent flagged IOMAP_F_NEW (as ext4 does), except under IOMAP_NOWAIT
 *    or IOMAP_OVERWRITE_ONLY, where ->iomap_begin returns -EAGAIN;
 *  - a write into an unwritten extent leaves it unwritten unless the dio
 *    ops convert it at ->end_io (TESTFS_DOPS_END_IO);
 *  - under TESTFS_DOPS_IOEND a direct write whose position and length are
 *    fs-block aligned is written out of place, as XFS's zoned writes are:
 *    ->iomap_begin returns an IOMAP_F_ANON_WRITE mapping (up to the first
 *    inline extent), ->submit_io gives each bio new blocks, and the ioend
 *    worker remaps the range to them once the bio succeeded.
 *
 * It sits on a ram block device (wrapped by the fault backend so bio
 * faults can be added), records every ->iomap_begin/->iomap_end/
 * ->iomap_next call, and keeps a reference model of what reads of the file
 * must return: a deterministic pattern where data is mapped, zeroes in
 * holes and unwritten extents.
 */
#ifndef _TESTFS_H
#define _TESTFS_H

#include <pthread.h>
#include <linux/bio.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/fs.h>
#include <linux/iomap.h>
#include <sim/iomap_fs.h>

enum testfs_dops {
	TESTFS_DOPS_NONE = 0, /* dops == NULL */
	TESTFS_DOPS_END_IO, /* ->end_io: unwritten conversion, i_size */
	TESTFS_DOPS_SUBMIT_IO, /* ->submit_io: counts, then submit_bio */
	TESTFS_DOPS_BIO_SET, /* ->bio_set: the fs's own bio_set */
	/*
	 * XFS's zoned writes: ->bio_set iomap_ioend_bioset, ->submit_io
	 * places block-aligned writes out of place and ends every write bio
	 * through an ioend and testfs's ioend worker (G-54), ->end_io as
	 * TESTFS_DOPS_END_IO; reads go without dops.  Only where the code
	 * has iomap_finish_ioend_direct() (IOMAPSIM_IOEND_DIRECT).
	 */
	TESTFS_DOPS_IOEND,
};

/* Which iomap entry point and callback style the file system uses. */
enum testfs_iomap_mode {
	TESTFS_MODE_OPS = 0, /* the generation's own: iomapsim_dio_rw() */
	TESTFS_MODE_NEXT, /* proposal: iomap_dio_rw_next(), ->iomap_next */
	TESTFS_MODE_BEGIN, /* proposal: iomap_dio_rw_begin(), begin+next */
};

/* Device byte address: let testfs place the extent. */
#define TESTFS_ADDR_AUTO U64_MAX

struct testfs_extent {
	loff_t off; /* file offset, fs-block aligned */
	u64 len; /* bytes, fs-block multiple */
	u16 type; /* IOMAP_HOLE, IOMAP_MAPPED, ... */
	u16 flags; /* IOMAP_F_* returned with the mapping */
	u64 addr; /* device byte address (mapped/unwritten) */
};

struct testfs_opts {
	unsigned int fs_block; /* default 4096 */
	unsigned int lbs; /* device logical block size, 512 */
	loff_t size; /* i_size, default 1 MiB */
	const struct testfs_extent *map; /* NULL: all of i_size mapped */
	unsigned int nr_map;
	bool encrypted;
	enum testfs_dops dops;
	bool no_simple; /* SB_I_SIM_NO_SIMPLE_DIO */
	bool sync_mount; /* SB_SYNCHRONOUS: every write dsync */
	bool write_cache; /* device has a volatile cache ... */
	bool fua; /* ... and supports FUA */
	unsigned int atomic_max; /* atomic write unit max, 0: none */
	/* the largest file offset a request may touch (sizes the device) */
	loff_t max_offset;
	/*
	 * A device at least this big (bytes): only a bio past the end of
	 * the smaller one would see the difference, and one size for every
	 * request lets testfs_recycle() keep the device.
	 */
	u64 min_dev_size;
	/*
	 * Model at least this many bytes of file (rounded to blocks): a
	 * bigger model changes nothing a request sees, and one span for
	 * requests at different offsets lets the runner keep its testfs.
	 */
	u64 min_span;
	/*
	 * The file range requests will touch, [window_start, window_end),
	 * block aligned (window_end 0: the whole file).  Model and device
	 * hold the map's contents only there and zeroes elsewhere: filling
	 * a file of megabytes for a request of a few blocks was most of
	 * what the runner's requests cost.  A request outside its window
	 * reads zeroes where the map says data, which the data checks see.
	 */
	loff_t window_start, window_end;
	/*
	 * Keep a copy of the initial state so that testfs_reset() can undo
	 * a request cheaply (the request runner reuses one testfs).
	 */
	bool reusable;
	/*
	 * A device to use instead of a new ram device (the benchmark's null
	 * or file device), at least as big as the layout needs: testfs
	 * wraps it for faults and owns it from then on, even on error.
	 * Nothing is written to it, the model is not kept in step with it
	 * and tf->ram is NULL: reads are not checked against the model, and
	 * testfs_reset(), _recycle() and _device_matches() are not for it.
	 */
	struct block_device *lower;
};

enum testfs_cb_op {
	TESTFS_CB_BEGIN,
	TESTFS_CB_END,
	TESTFS_CB_NEXT,
};

/* One filesystem callback, as docs/rules.md section 4 item 9 lists them. */
struct testfs_cb {
	enum testfs_cb_op op;
	loff_t pos;
	u64 length;
	unsigned int flags;
	ssize_t written; /* END only */
	int ret;
	int dio_count; /* inode->i_dio_count at the call */
	struct iomap iomap; /* BEGIN: the mapping returned */
};

#define TESTFS_MAX_CBS 64

struct testfs {
	struct super_block sb;
	struct inode inode;
	struct file file;
	struct file_operations fops;
	struct block_device *bdev; /* fault wrapper over the ram device */
	struct block_device *ram;
	unsigned int fs_block;

	struct iomapsim_fs_ops ops; /* begin, end, and the two as ->iomap_next */
	struct iomap_dio_ops dops_storage;
	const struct iomap_dio_ops *dops;
	enum testfs_dops dops_kind; /* what dops is (testfs_opts.dops) */
	/* the private data it hands iomap_dio_rw() (iomap_iter::private) */
	void *dio_private;
	struct bio_set bio_set; /* TESTFS_DOPS_BIO_SET */
	bool bio_set_ready;
	/*
	 * TESTFS_DOPS_IOEND: ended ioends wait on ioend_list for the one
	 * ioend_work of the file (XFS's i_ioend_list and i_ioend_work on
	 * m_unwritten_workqueue); ioend_anon: the write running now goes
	 * out of place (set by testfs_dio_rw(), one writer at a time).
	 */
	struct workqueue_struct *ioend_wq;
	spinlock_t ioend_lock;
	struct list_head ioend_list;
	struct work_struct ioend_work;
	bool ioend_anon;
	enum testfs_iomap_mode mode;

	pthread_mutex_t lock; /* extents, model, callbacks */
	struct testfs_extent *ext; /* sorted, non-overlapping */
	unsigned int nr_ext, cap_ext;
	u64 next_addr; /* allocation cursor on the device */

	u8 *model; /* what reads must return */
	size_t model_size, model_cap;
	u64 dev_used; /* high-water mark of next_addr */
	loff_t win_start, win_end; /* testfs_opts.window_*, end > 0 */
	bool written; /* a write since the last reset */
	bool model_written; /* the model too (testfs_reset()) */
	bool laying_out; /* setup_map() from layout() */
	/* what the device was created for (testfs_recycle()) */
	struct {
		unsigned int lbs, atomic_max;
		bool write_cache, fua;
		u64 size;
	} dev_geo;

	struct testfs_cb cbs[TESTFS_MAX_CBS];
	unsigned int nr_cbs; /* recorded (may exceed the array) */

	/* fault hooks */
	int begin_error; /* -errno for ->iomap_begin, 0 off */
	unsigned int begin_error_nth; /* which call fails (1-based) */
	int end_error; /* -errno every ->iomap_end returns */
	int fsync_error; /* -errno ->fsync returns */
	/*
	 * A page that appears in the page cache while the I/O is mapped, as
	 * one faulted in through an mmap of the file would (K-10).
	 */
	bool pc_on_begin;
	pgoff_t pc_on_begin_index;
	unsigned int pc_on_begin_flags;

	/* the state after testfs_create(), for testfs_reset() */
	struct testfs_extent *ext0;
	unsigned int nr_ext0;
	u64 next_addr0;
	loff_t size0;

	/* counters */
	unsigned int begin_calls, end_calls, next_calls;
	unsigned int end_io_calls, submit_io_calls, fsync_calls;
	unsigned int allocations, conversions;
	unsigned int ioends; /* ioends the ioend worker ended */
	unsigned int end_io_flags; /* flags of the last ->end_io */
	int fsync_datasync; /* datasync of the last ->fsync */
};

/*
 * The deterministic content of mapped data at file offset @off: a 4 KiB
 * table varied per 4 KiB block, so that no two blocks are alike and a
 * whole block fills with a copy and a cheap loop.
 */
extern u8 testfs_pattern_table[4096];

static inline u8 testfs_block_key(loff_t off)
{
	u64 b = (u64)off >> 12;

	return (u8)(b * 0x9d + (b >> 8) * 0x3b);
}

static inline u8 testfs_pattern(loff_t off)
{
	return testfs_pattern_table[off & 4095] ^ testfs_block_key(off);
}

/* Fill @dst with the pattern of file range [off, off + len). */
void testfs_pattern_fill(u8 *dst, loff_t off, size_t len);

/* What is on the device where no file data lives (must differ). */
static inline u8 testfs_stale(u64 addr)
{
	return (u8)(0xa5 ^ (addr >> 9));
}

/* Returns a testfs or an ERR_PTR; @err gets a one-line reason. */
struct testfs *testfs_create(const struct testfs_opts *opts, char *err,
			     size_t errlen);
void testfs_destroy(struct testfs *tf);
/*
 * Rebuild a reusable @tf, just reset (testfs_reset() returned true), for
 * @opts in place: the same as testfs_create(@opts) would give, without a
 * new device.  -EAGAIN when the device does not fit @opts (its logical
 * block size, cache, atomic limit or size differ); after any error @tf
 * can only be destroyed.
 */
int testfs_recycle(struct testfs *tf, const struct testfs_opts *opts, char *err,
		   size_t errlen);
/*
 * Only what the super block, inode and dio ops take from @opts (i_size,
 * encrypted, dops, no_simple, sync_mount), on a testfs whose map, model
 * and device already are @opts's (with an explicit map, i_size does not
 * shape them).  The window stays: testfs_set_window().  After an error
 * @tf can only be destroyed.
 */
int testfs_retune(struct testfs *tf, const struct testfs_opts *opts, char *err,
		  size_t errlen);
/*
 * Another window (as testfs_opts.window_start/_end) on a reusable @tf
 * just reset: rewrites only what the two windows do not share, and
 * zeroes the blocks requests allocated, as a new testfs has them.
 */
int testfs_set_window(struct testfs *tf, loff_t start, loff_t end);

/* The bio_set of the dio ops (its bios count as "bios_dops_bio_set"). */
static inline struct bio_set *testfs_dops_bio_set(struct testfs *tf)
{
	return tf->dops_storage.bio_set ? tf->dops_storage.bio_set :
					  &tf->bio_set;
}

static inline struct testfs *testfs_from_inode(struct inode *inode)
{
	return inode->i_private;
}

/*
 * Run one direct read (@iter is a destination) or write through the entry
 * point of tf->mode with tf's ops and dops, as a filesystem's
 * ->read_iter/->write_iter would; a successful synchronous write past
 * i_size extends it (what ext4 does after iomap_dio_rw returns).
 */
ssize_t testfs_dio_rw(struct testfs *tf, struct kiocb *iocb,
		      struct iov_iter *iter, unsigned int dio_flags,
		      size_t done_before);

/* The mapping that covers @pos now (a copy), for tests. */
bool testfs_lookup(struct testfs *tf, loff_t pos, struct testfs_extent *out);

/*
 * Compare the device contents under the mapped extents overlapping
 * [start, end) with the model; returns true if they agree.
 */
bool testfs_device_matches(struct testfs *tf, loff_t start, loff_t end);

/* Make the model agree with a completed write of @buf at [pos, pos+n). */
void testfs_model_write(struct testfs *tf, loff_t pos, const void *buf,
			size_t n);

/*
 * The model after a direct write of @buf at [pos, pos+n) that started with
 * i_size @old_size: the data where blocks are written, and zeroes where
 * iomap zeroes the rest of a partly written block (G-30: the head when the
 * mapping is IOMAP_F_NEW; G-38: the tail then, or when the write ends at
 * or past @old_size).
 */
void testfs_model_dio_write(struct testfs *tf, loff_t pos, const void *buf,
			    size_t n, loff_t old_size);

/*
 * testfs_model_dio_write() then testfs_device_matches() over the written
 * blocks, with the model left as it is: the device is compared with @buf
 * and the zeroes or model bytes around it directly, which spares the
 * model a copy of the data and testfs_reset() putting it back.
 */
bool testfs_device_holds_dio_write(struct testfs *tf, loff_t pos,
				   const void *buf, size_t n, loff_t old_size);

/*
 * Undo a request on a testfs created with opts.reusable: the extents,
 * i_size, counters, hooks, faults, page cache and dio workqueue as
 * testfs_create() left them, and the model and device bytes under
 * file range [start, end), the only ones a request on it may change.
 * What a request leaves allocated (page cache, workqueue, fault rules)
 * is freed in any case.  Returns false if the device saw more written
 * bytes than that range holds: the reset would not be exact, destroy it.
 */
bool testfs_reset(struct testfs *tf, loff_t start, loff_t end);

void testfs_reset_callbacks(struct testfs *tf);

/* Parse "EIO", "-5", "5" into a negative errno; 0 if not understood. */
int testfs_parse_errno(const char *s);

#endif /* _TESTFS_H */
