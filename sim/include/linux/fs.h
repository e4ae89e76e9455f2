/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The VFS objects direct I/O touches: kiocb, file, inode, super_block,
 * address_space.  Fields and flag values follow include/linux/fs.h of the
 * baseline tree (docs/rules.md 1.6, 1.8, 2.1, 2.8).
 */
#ifndef _LINUX_FS_H
#define _LINUX_FS_H

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/uio.h>
#include <linux/wait.h>

struct block_device;
struct workqueue_struct;
struct file;
struct inode;
struct kiocb;
struct iomap_ops;
struct sim_page_cache;

/* kiocb->ki_flags (RWF_* values for the low bits) */
#define IOCB_HIPRI (1 << 0)
#define IOCB_DSYNC (1 << 1)
#define IOCB_SYNC (1 << 2)
#define IOCB_NOWAIT (1 << 3)
#define IOCB_APPEND (1 << 4)
#define IOCB_ATOMIC (1 << 6)
#define IOCB_DONTCACHE (1 << 7)
#define IOCB_EVENTFD (1 << 16)
#define IOCB_DIRECT (1 << 17)
#define IOCB_WRITE (1 << 18)
#define IOCB_WAITQ (1 << 19)
#define IOCB_NOIO (1 << 20)
#define IOCB_ALLOC_CACHE (1 << 21)
/* IOCB_DIO_CALLER_COMP (1 << 22) was removed in the baseline tree. */
#define IOCB_AIO_RW (1 << 22)
#define IOCB_HAS_METADATA (1 << 23)
/*
 * (sim) Caller completion (G-52) for the trees that still have it, on a
 * bit of its own: io_uring sets it on async writes, and the runner does
 * with --iocb CALLER_COMP.  Code without it never reads it.
 */
#define IOCB_DIO_CALLER_COMP (1 << 24)

/* file->f_mode */
#define FMODE_READ ((fmode_t)0x1)
#define FMODE_WRITE ((fmode_t)0x2)
#define FMODE_LSEEK ((fmode_t)0x4)
#define FMODE_PREAD ((fmode_t)0x8)
#define FMODE_PWRITE ((fmode_t)0x10)
#define FMODE_EXEC ((fmode_t)0x20)
#define FMODE_CAN_ATOMIC_WRITE ((fmode_t)(1 << 7))
#define FMODE_CAN_ODIRECT ((fmode_t)0x400000)
/*
 * Non-exclusive O_DIRECT writes from several threads (P-01).  It was
 * an f_mode bit in 6.4-6.9, a fop_flags bit (FOP_DIO_PARALLEL_WRITE) from
 * 6.10, and newer trees set it per open file in f_mode again (XFS clears
 * it for stable-writes mappings); both spellings are here.
 */
#define FMODE_DIO_PARALLEL_WRITE ((fmode_t)0x1000000)
#define FMODE_NOWAIT ((fmode_t)0x8000000)

/* file_operations->fop_flags */
#define FOP_BUFFER_RASYNC (1 << 0)
#define FOP_BUFFER_WASYNC (1 << 1)
#define FOP_MMAP_SYNC (1 << 2)
#define FOP_DIO_PARALLEL_WRITE (1 << 3)

/* inode->i_flags */
#define S_SYNC (1 << 0)
#define S_APPEND (1 << 2)
#define S_DAX (1 << 13)
#define S_ENCRYPTED (1 << 14)

/* super_block->s_flags */
#define SB_RDONLY (1 << 0)
#define SB_SYNCHRONOUS (1 << 4)

enum rw_hint {
	WRITE_LIFE_NOT_SET = 0,
	WRITE_LIFE_NONE = 1,
	WRITE_LIFE_SHORT = 2,
	WRITE_LIFE_MEDIUM = 3,
	WRITE_LIFE_LONG = 4,
	WRITE_LIFE_EXTREME = 5,
};

struct kiocb {
	struct file *ki_filp;
	loff_t ki_pos;
	void (*ki_complete)(struct kiocb *iocb, long ret);
	void *private;
	int ki_flags;
	u16 ki_ioprio;
	u8 ki_write_stream;
	union {
		struct wait_page_queue *ki_waitq;
		/* IOCB_DIO_CALLER_COMP: the issuer runs it in task context */
		ssize_t (*dio_complete)(void *data);
	};
};

struct file_operations {
	unsigned int fop_flags;
	ssize_t (*read_iter)(struct kiocb *iocb, struct iov_iter *to);
	ssize_t (*write_iter)(struct kiocb *iocb, struct iov_iter *from);
	int (*iopoll)(struct kiocb *kiocb, void *iob, unsigned int flags);
	int (*fsync)(struct file *file, loff_t start, loff_t end,
		     int datasync);
};

struct address_space {
	struct inode *host;
	unsigned long nrpages;
	/* simulated page cache contents (sim/kernel/filemap.c) */
	struct sim_page_cache *sim_pc;
	int wb_err;
};

struct super_block {
	unsigned long s_blocksize;
	unsigned char s_blocksize_bits;
	unsigned long s_flags;
	unsigned long s_iflags; /* SB_I_* internal flags */
	char s_id[32];
	struct block_device *s_bdev;
	struct workqueue_struct *s_dio_done_wq;
	void *s_fs_info;
};

struct inode {
	umode_t i_mode;
	unsigned int i_flags;
	unsigned long i_ino;
	loff_t i_size;
	u8 i_blkbits;
	enum rw_hint i_write_hint;
	struct super_block *i_sb;
	struct address_space *i_mapping;
	struct address_space i_data;
	atomic_t i_dio_count;
	spinlock_t i_lock;
	struct rw_semaphore i_rwsem;
	unsigned long i_state;
	void *i_private;
};

struct file {
	fmode_t f_mode;
	unsigned int f_flags;
	loff_t f_pos;
	struct inode *f_inode;
	struct address_space *f_mapping;
	const struct file_operations *f_op;
	void *private_data;
};

static inline struct inode *file_inode(const struct file *f)
{
	return f->f_inode;
}

static inline bool is_sync_kiocb(struct kiocb *kiocb)
{
	return kiocb->ki_complete == NULL;
}

#define IS_SYNC(inode) \
	(((inode)->i_sb->s_flags & SB_SYNCHRONOUS) || ((inode)->i_flags & S_SYNC))
#define IS_ENCRYPTED(inode) (((inode)->i_flags & S_ENCRYPTED) != 0)
#define IS_DAX(inode) (((inode)->i_flags & S_DAX) != 0)

static inline bool iocb_is_dsync(const struct kiocb *iocb)
{
	return (iocb->ki_flags & IOCB_DSYNC) ||
	       IS_SYNC(iocb->ki_filp->f_mapping->host);
}

static inline int iocb_flags(struct file *file)
{
	return (file->f_flags & 040000 /* O_DIRECT */) ? IOCB_DIRECT : 0;
}

static inline void init_sync_kiocb(struct kiocb *kiocb, struct file *filp)
{
	*kiocb = (struct kiocb){
		.ki_filp = filp,
		.ki_flags = iocb_flags(filp),
	};
}

static inline loff_t i_size_read(const struct inode *inode)
{
	return __atomic_load_n(&inode->i_size, __ATOMIC_RELAXED);
}

static inline void i_size_write(struct inode *inode, loff_t i_size)
{
	__atomic_store_n(&inode->i_size, i_size, __ATOMIC_RELAXED);
}

static inline unsigned int i_blocksize(const struct inode *node)
{
	return 1U << node->i_blkbits;
}

/* In-flight direct I/O (K-04, K-05). */
static inline void inode_dio_begin(struct inode *inode)
{
	atomic_inc(&inode->i_dio_count);
}

static inline void inode_dio_end(struct inode *inode)
{
	if (atomic_dec_and_test(&inode->i_dio_count))
		wake_up_var(&inode->i_dio_count);
}

void inode_dio_wait(struct inode *inode);

static inline void inode_lock(struct inode *inode)
{
	down_write(&inode->i_rwsem);
}

static inline void inode_unlock(struct inode *inode)
{
	up_write(&inode->i_rwsem);
}

static inline void inode_lock_shared(struct inode *inode)
{
	down_read(&inode->i_rwsem);
}

static inline void inode_unlock_shared(struct inode *inode)
{
	up_read(&inode->i_rwsem);
}

/* Set up the fields of a new inode of @sb (i_mapping, locks, counters). */
void sim_inode_init_once(struct inode *inode, struct super_block *sb);
void mark_inode_dirty(struct inode *inode);

/*
 * The lazily created "dio/<s_id>" completion workqueue (K-06): created on
 * first need, installed with cmpxchg so concurrent callers agree on one.
 */
int sb_init_dio_done_wq(struct super_block *sb);
/* Tear down a super block's DIO workqueue (after flushing it). */
void sb_destroy_dio_done_wq(struct super_block *sb);

#endif /* _LINUX_FS_H */
