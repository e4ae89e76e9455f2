/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * simfs: the small extent-based file system that drives iomap as ext4 and
 * XFS do (docs/architecture.md, "simfs").  Its read_iter/write_iter call
 * iomapsim_dio_rw() for O_DIRECT with simfs_iomap_ops; ->iomap_begin maps
 * extents (mapped, unwritten, holes, inline data) and allocates for direct
 * writes, which always get unwritten extents with IOMAP_F_NEW (as XFS
 * does), converted by ->end_io once the data is on disk; ->end_io also
 * extends i_size.  Buffered I/O goes straight to the device through bios
 * (there is no page cache, so mapping->nrpages stays 0).
 *
 * The whole metadata lives in memory and is committed as one copy
 * (format.h).  Locks, outermost first:
 *   inode->i_rwsem      the VFS inode lock: I/O against truncate, fallocate
 *   sbi->commit_lock    one commit at a time
 *   sbi->ns_lock        the namespace: inode table, directories, link counts
 *   ei->map_lock        one inode's extents, inline data, xattrs (the
 *                       kernel's i_data_sem / ILOCK)
 *   sbi->alloc_lock     the block bitmap and the held-back frees
 */
#ifndef _SIMFS_H
#define _SIMFS_H

#include <sys/stat.h>
#include <linux/atomic.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/iomap.h>
#include <sim/iomap_fs.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include "format.h"

struct simfs_extent {
	u64 lblk;
	u64 pblk;
	u32 len;
	u32 flags; /* SIMFS_EXT_* */
};

struct simfs_dirent {
	u64 ino;
	u64 cookie; /* readdir offset: stable while entries come and go */
	u16 name_len;
	char *name;
};

struct simfs_xattr {
	char *name;
	u16 name_len;
	u32 value_len;
	void *value;
};

/* Which struct iomap_dio_ops a file's direct I/O uses. */
enum simfs_dops_kind {
	SIMFS_DOPS_DEFAULT = -1, /* the mount's default */
	SIMFS_DOPS_NONE = 0, /* reads: NULL; writes: ->end_io only */
	SIMFS_DOPS_END_IO, /* ->end_io for reads too */
	SIMFS_DOPS_SUBMIT_IO, /* plus ->submit_io */
	SIMFS_DOPS_BIO_SET, /* plus an own bio_set with front_pad */
	SIMFS_DOPS_NR
};

const char *simfs_dops_name(int kind);
/* "none", "end_io", ... -> kind; -1 if unknown. */
int simfs_dops_parse(const char *s, size_t len);

struct simfs_sb_info;

struct simfs_inode_info {
	struct inode vfs_inode;
	struct simfs_sb_info *sbi;
	struct simfs_inode_info *hash_next;

	struct rw_semaphore map_lock;
	struct simfs_extent *ext;
	u32 nr_ext, cap_ext;
	u8 *inline_data; /* SIMFS_INLINE_MAX bytes if SIMFS_IFL_INLINE */
	u32 flags; /* SIMFS_IFL_* */

	u32 nlink, uid, gid;
	s64 atime, mtime, ctime;
	u64 parent;

	/* directories, under ns_lock */
	struct simfs_dirent *dents;
	u32 nr_dents, cap_dents;
	u64 next_cookie;

	/* extended attributes, under map_lock */
	struct simfs_xattr *xattrs;
	u32 nr_xattrs;

	/* the per-file switches the xattrs set */
	bool integrity;
	int dops; /* enum simfs_dops_kind */

	/* references, under ns_lock */
	long nlookup; /* the front end's (FUSE lookup count) */
	long open_count;
	bool unlinked; /* nlink reached 0 */
};

static inline struct simfs_inode_info *SIMFS_I(struct inode *inode)
{
	return container_of(inode, struct simfs_inode_info, vfs_inode);
}

struct simfs_mount_opts {
	bool read_only;
	bool no_simple; /* keep every DIO off the simple path */
	bool no_parallel_dio_write; /* don't declare FMODE_DIO_PARALLEL_WRITE */
	int default_dops; /* enum simfs_dops_kind */
};

struct simfs_pending_free {
	u64 pblk;
	u64 len;
	u64 epoch;
};

struct simfs_sb_info {
	struct super_block sb;
	struct block_device *bdev;
	struct simfs_geometry geo;
	struct simfs_dsb dsb; /* last committed superblock */
	u64 generation;
	struct simfs_mount_opts opts;
	bool parallel_dio_write;

	struct mutex commit_lock;
	struct mutex ns_lock;
	struct simfs_inode_info **ihash;
	u32 ihash_mask;
	u64 nr_inodes;
	u64 next_ino;

	struct mutex alloc_lock;
	unsigned long *bitmap; /* one bit per block, set = in use */
	u64 free_blocks;
	u64 alloc_cursor;
	struct simfs_pending_free *pending;
	u32 nr_pending, cap_pending;
	u64 pending_blocks;
	u64 free_epoch;

	/* bytes the next metadata copy will take (kept up to date) */
	atomic_long_t meta_bytes;
	/*
	 * Change counters: data_seq for what fdatasync must commit (sizes,
	 * extents, the namespace), any_seq for everything (timestamps too).
	 * A commit records what it captured.
	 */
	atomic_long_t data_seq, any_seq;
	long committed_data_seq, committed_any_seq;
	int last_commit_error;
	u32 state; /* SIMFS_STATE_* the next commit writes */
	size_t last_meta_len;

	/* the bio_set of SIMFS_DOPS_BIO_SET, and the ops of each kind */
	struct bio_set dio_bio_set;
	bool dio_bio_set_ready;
	struct iomap_dio_ops read_dops[SIMFS_DOPS_NR];
	struct iomap_dio_ops write_dops[SIMFS_DOPS_NR];
};

static inline struct simfs_sb_info *SIMFS_SB(struct super_block *sb)
{
	return container_of(sb, struct simfs_sb_info, sb);
}

/* ---- mkfs / fsck (mkfs.c, fsck.c) ------------------------------------ */

struct simfs_mkfs_opts {
	u32 block_size; /* 0: max(4096, logical block size) */
	const char *label;
	bool inline_data; /* default on (set by simfs_mkfs_opts_init) */
};

void simfs_mkfs_opts_init(struct simfs_mkfs_opts *o);
/*
 * Write an empty simfs on @bdev.  The block size must be a power of two
 * in 512..65536 and at least the device's logical block size.  Returns 0
 * or a negative errno with a one-line reason in @err; on failure nothing
 * has been written.
 */
int simfs_mkfs(struct block_device *bdev, const struct simfs_mkfs_opts *o,
	       char *err, size_t errlen);
/*
 * The checks simfs_mkfs() makes before writing, on their own: the block
 * size it would use (*bs) and the layout (*g, may be NULL).
 */
int simfs_mkfs_check(struct block_device *bdev, const struct simfs_mkfs_opts *o,
		     u32 *bs, struct simfs_geometry *g, char *err,
		     size_t errlen);

struct simfs_fsck_report {
	unsigned int errors;
	unsigned int notes;
	u64 generation;
	u64 nr_inodes;
	u64 used_blocks;
	bool clean; /* superblock state CLEAN */
	/*
	 * Set by the caller when a live mount holds the image: its pid, or
	 * -1 when the holder does not say.  State MOUNTED is then that
	 * mount's, not a crash's.
	 */
	long mount_pid;
	/* one call per problem/note; may be NULL */
	void (*msg)(void *arg, bool error, const char *text);
	void *arg;
};

/*
 * Check the file system on @bdev without changing it.  Returns 0 when it
 * could be checked (look at report->errors), or a negative errno when not
 * even a superblock could be read.
 */
int simfs_fsck(struct block_device *bdev, struct simfs_fsck_report *r);

/*
 * The structural checks of a loaded generation (check.c), the same for
 * fsck and mount: problems go to @r as errors.  Returns 0, or -ENOMEM.
 */
int simfs_check_meta(const struct simfs_dsb *dsb,
		     const struct simfs_geometry *g, const struct simfs_meta *m,
		     struct simfs_fsck_report *r);
/* One problem (@error) or note into @r. */
void simfs_report(struct simfs_fsck_report *r, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The loading steps mount and fsck share: read both superblock slots,
 * take the newest valid one, check its geometry against the device, read
 * and parse the metadata copy it points at.  *slot_state gets bit 0/1 set
 * for each valid slot.  On error @err says why.
 */
int simfs_load(struct block_device *bdev, struct simfs_dsb *dsb,
	       struct simfs_geometry *g, struct simfs_meta *m, char *err,
	       size_t errlen, int *slot_state);

/*
 * Can @bdev hold blocks of @bs bytes: no smaller than its logical block
 * size, the least it reads or writes?  Returns 0 or -EINVAL with @err
 * saying so.
 */
int simfs_check_lbs(struct block_device *bdev, u32 bs, char *err,
		    size_t errlen);

/* Does @bdev start with a simfs superblock (either slot)? */
bool simfs_probe(struct block_device *bdev);

/* ---- mount (super.c) -------------------------------------------------- */

/*
 * Mount the simfs on @bdev (which stays the caller's).  Returns the super
 * block or an ERR_PTR with a reason in @err.
 */
struct super_block *simfs_mount(struct block_device *bdev,
				const struct simfs_mount_opts *o, char *err,
				size_t errlen);
/* Commit (state CLEAN) and free everything; returns the commit's error. */
int simfs_unmount(struct super_block *sb);
/*
 * Write a new metadata copy and flip the superblock to it.  Returns 0 or
 * a negative errno (the previous generation stays valid).
 */
int simfs_commit(struct simfs_sb_info *sbi);
int simfs_sync_fs(struct super_block *sb, int wait);

struct simfs_statfs {
	u32 block_size;
	u64 blocks, bfree, bavail;
	u64 files, ffree;
	u32 name_max;
};
void simfs_statfs(struct super_block *sb, struct simfs_statfs *st);

/* The simple=0 switch for the whole mount. */
void simfs_set_simple(struct super_block *sb, bool on);
bool simfs_get_simple(struct super_block *sb);

/* data_seq / any_seq bumps (see struct simfs_sb_info) */
static inline void simfs_mark_data_dirty(struct simfs_sb_info *sbi)
{
	atomic_long_inc(&sbi->data_seq);
	atomic_long_inc(&sbi->any_seq);
}

static inline void simfs_mark_time_dirty(struct simfs_sb_info *sbi)
{
	atomic_long_inc(&sbi->any_seq);
}

s64 simfs_now(void);

/* ---- block allocation (alloc.c) --------------------------------------- */

int simfs_alloc_init(struct simfs_sb_info *sbi);
void simfs_alloc_exit(struct simfs_sb_info *sbi);
/* Mark [pblk, +len) used while loading; -EUCLEAN if already used. */
int simfs_alloc_mark_used(struct simfs_sb_info *sbi, u64 pblk, u64 len);
/*
 * Up to @want blocks, contiguous, near @goal (0: no preference).  Returns
 * 0 with *pblk / *got set, or -ENOSPC.
 */
int simfs_alloc_blocks(struct simfs_sb_info *sbi, u64 goal, u64 want, u64 *pblk,
		       u64 *got);
/* Free blocks that a committed copy may still use: held until a commit. */
void simfs_free_blocks(struct simfs_sb_info *sbi, u64 pblk, u64 len);
/* Free blocks no committed copy ever saw (an allocation undone). */
void simfs_free_blocks_now(struct simfs_sb_info *sbi, u64 pblk, u64 len);
/* A commit starts: frees from now on belong to the next one. */
u64 simfs_alloc_commit_begin(struct simfs_sb_info *sbi);
/* A commit that began at @epoch is on disk: release what it obsoleted. */
void simfs_alloc_commit_done(struct simfs_sb_info *sbi, u64 epoch);
u64 simfs_alloc_free_count(struct simfs_sb_info *sbi);
u64 simfs_alloc_pending_count(struct simfs_sb_info *sbi);
/* Room for @extra more bytes of metadata?  0 or -ENOSPC. */
int simfs_meta_room(struct simfs_sb_info *sbi, long extra);

/* ---- extent maps (extent.c), all under map_lock ------------------------ */

/*
 * The extent containing @lblk (returned, *idx its index) or NULL with
 * *idx the index of the first extent after @lblk.
 */
struct simfs_extent *simfs_ext_find(struct simfs_inode_info *ei, u64 lblk,
				    u32 *idx);
/* Add a mapping for a hole; merges with contiguous neighbours. */
int simfs_ext_insert(struct simfs_inode_info *ei, u64 lblk, u64 pblk, u32 len,
		     u32 flags);
/*
 * Fill the hole at @lblk with up to @want new blocks near @goal, mapped
 * unwritten so that a crash before their data is written leaves zeroes:
 * 0 with *@pblk / *@got set, or the error with nothing allocated.
 */
int simfs_ext_alloc_unwritten(struct simfs_inode_info *ei, u64 lblk, u64 goal,
			      u64 want, u64 *pblk, u64 *got);
/*
 * Set the flags of every mapped block in [lblk, +len) to @flags (unwritten
 * conversion, zero range), splitting extents at the edges.
 */
int simfs_ext_set_flags(struct simfs_inode_info *ei, u64 lblk, u64 len,
			u32 flags);
/* Unmap [lblk, +len); freed blocks go to simfs_free_blocks(). */
int simfs_ext_remove(struct simfs_inode_info *ei, u64 lblk, u64 len);
/*
 * F-01: free the written blocks from file block @from on (the ones past
 * EOF: what a cut-short extending write leaves); unwritten extents there,
 * preallocation, stay.  Returns the blocks freed or a negative errno.
 */
long simfs_ext_trim_written(struct simfs_inode_info *ei, u64 from);
/* Drop every extent (inode eviction: blocks freed). */
void simfs_ext_free_all(struct simfs_inode_info *ei);
u64 simfs_ext_blocks(struct simfs_inode_info *ei);

/* ---- inodes and names (inode.c, namei.c) ------------------------------ */

struct simfs_inode_info *simfs_iget(struct simfs_sb_info *sbi, u64 ino);
struct simfs_inode_info *simfs_inode_alloc(struct simfs_sb_info *sbi, u64 ino,
					   umode_t mode);
void simfs_inode_free(struct simfs_inode_info *ei);
void simfs_inode_hash(struct simfs_sb_info *sbi, struct simfs_inode_info *ei);
void simfs_inode_unhash(struct simfs_sb_info *sbi, struct simfs_inode_info *ei);
/* Free an unlinked inode nothing refers to any more (ns_lock held). */
void simfs_inode_maybe_evict(struct simfs_inode_info *ei);
long simfs_inode_meta_bytes(struct simfs_inode_info *ei);
/*
 * The in-memory arrays (extents, directory entries, pending frees) grow
 * by doubling, from @first: a copy of the @nr elements of @size bytes of
 * @old with room for at least @need, *@cap updated and @old freed; NULL
 * (@old and *@cap untouched) when the allocation fails.
 */
void *simfs_grow_array(void *old, u32 nr, u32 *cap, u32 need, size_t size,
		       u32 first, gfp_t gfp);
/* Bytes one directory entry adds to the metadata copy. */
long simfs_dirent_bytes(u16 name_len);
void simfs_inode_set_switches(struct simfs_inode_info *ei);
int simfs_inline_alloc(struct simfs_inode_info *ei);

struct simfs_attr {
	u64 ino;
	u32 mode, nlink, uid, gid;
	u64 size;
	u64 blocks; /* 512-byte units */
	u32 blksize;
	s64 atime, mtime, ctime;
};
void simfs_getattr(struct simfs_inode_info *ei, struct simfs_attr *a);

#define SIMFS_SETATTR_MODE (1U << 0)
#define SIMFS_SETATTR_UID (1U << 1)
#define SIMFS_SETATTR_GID (1U << 2)
#define SIMFS_SETATTR_SIZE (1U << 3)
#define SIMFS_SETATTR_ATIME (1U << 4)
#define SIMFS_SETATTR_MTIME (1U << 5)
int simfs_setattr(struct simfs_inode_info *ei, unsigned int valid,
		  const struct simfs_attr *a);

/*
 * Returns the inode or an ERR_PTR; with @ref, a front-end lookup
 * reference (nlookup) is taken atomically with the lookup, so a racing
 * unlink cannot free the inode before the caller holds it.
 */
struct simfs_inode_info *simfs_lookup(struct simfs_inode_info *dir,
				      const char *name, bool ref);
struct simfs_inode_info *simfs_create(struct simfs_inode_info *dir,
				      const char *name, umode_t mode, u32 uid,
				      u32 gid, bool ref);
int simfs_unlink(struct simfs_inode_info *dir, const char *name);
int simfs_rmdir(struct simfs_inode_info *dir, const char *name);
#define SIMFS_RENAME_NOREPLACE (1U << 0)
#define SIMFS_RENAME_EXCHANGE (1U << 1)
int simfs_rename(struct simfs_inode_info *odir, const char *oname,
		 struct simfs_inode_info *ndir, const char *nname,
		 unsigned int flags);
/*
 * Call @fn for the entries of @dir after cookie @pos, in cookie order,
 * until it returns non-zero.  "." and ".." are the caller's.
 */
int simfs_readdir(struct simfs_inode_info *dir, u64 pos,
		  int (*fn)(void *arg, const char *name, u16 len, u64 ino,
			    u32 mode, u64 cookie),
		  void *arg);

int simfs_setxattr(struct simfs_inode_info *ei, const char *name,
		   const void *value, size_t size, int flags);
ssize_t simfs_getxattr(struct simfs_inode_info *ei, const char *name, void *buf,
		       size_t size);
ssize_t simfs_listxattr(struct simfs_inode_info *ei, char *buf, size_t size);
int simfs_removexattr(struct simfs_inode_info *ei, const char *name);

/* ---- files (file.c, iomap.c) ------------------------------------------ */

extern const struct iomapsim_fs_ops simfs_iomap_ops;
const struct iomap_dio_ops *simfs_dio_ops(struct simfs_inode_info *ei,
					  bool write);
/* Set up sbi->read_dops/write_dops and the bio_set; undo at unmount. */
int simfs_dio_ops_init(struct simfs_sb_info *sbi);
void simfs_dio_ops_exit(struct simfs_sb_info *sbi);

/*
 * Open @ei: a struct file whose f_mode carries FMODE_DIO_PARALLEL_WRITE
 * when the mount declares it.  @flags are open(2) flags.
 */
struct file *simfs_file_open(struct simfs_inode_info *ei, int flags);
void simfs_file_release(struct file *file);

ssize_t simfs_file_read_iter(struct kiocb *iocb, struct iov_iter *to);
ssize_t simfs_file_write_iter(struct kiocb *iocb, struct iov_iter *from);
/*
 * A synchronous read or write of @len bytes of user memory at @pos, as
 * pread(2)/pwrite(2) reach read_iter/write_iter (IOCB_DIRECT with
 * @direct): for in-process callers, unit tests and fuzz targets.
 */
ssize_t simfs_rw_sync(struct file *file, bool write, bool direct, void *buf,
		      size_t len, loff_t pos);
int simfs_fsync(struct file *file, loff_t start, loff_t end, int datasync);
int simfs_fallocate(struct file *file, int mode, loff_t offset, loff_t len);
/* Truncate or extend (i_rwsem held exclusive by the caller). */
int simfs_truncate(struct simfs_inode_info *ei, loff_t size);
/* Move inline data out to a block (map_lock held). */
int simfs_inline_to_extent(struct simfs_inode_info *ei);
/* Would a direct write of [pos, +count) be a pure overwrite? */
bool simfs_overwrite_io(struct simfs_inode_info *ei, loff_t pos, size_t count,
			bool *unwritten);

/* ---- block I/O for metadata and buffered data (bio-io.c) ------------- */

/*
 * Read or write @len bytes at byte @pos of the device through bios,
 * waiting for them: @buf must be sector aligned (simfs_buf_alloc
 * gives page-aligned memory).
 */
int simfs_bdev_rw(struct block_device *bdev, blk_opf_t opf, u64 pos, void *buf,
		  size_t len);
void *simfs_buf_alloc(size_t len);
void simfs_buf_free(void *buf);

#endif /* _SIMFS_H */
