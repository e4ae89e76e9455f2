/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Block data types and constants (include/linux/blk_types.h): struct bio,
 * blk_status_t, blk_opf_t, the REQ_OP_* operations and REQ_* flags, the
 * BIO_* state bits.  Values follow the baseline tree (docs/rules.md 2.6,
 * 2.10) so a kernel source compiled against this header sees the same
 * numbers it sees in the kernel.
 *
 * struct bio carries a few fields the kernel does not have, all after
 * bi_pool and prefixed bi_sim_: they let the simulator complete a bio
 * from its engine, catch a double bio_endio() and account the per-CPU
 * cache.  Kernel code never touches them.
 */
#ifndef _LINUX_BLK_TYPES_H
#define _LINUX_BLK_TYPES_H

#include <linux/atomic.h>
#include <linux/bvec.h>
#include <linux/fs.h>
#include <linux/types.h>
#include <sim/engine.h>

struct bio_set;
struct bio;
struct block_device;
typedef void(bio_end_io_t)(struct bio *);

#ifndef SECTOR_SHIFT
#define SECTOR_SHIFT 9
#endif
#ifndef SECTOR_SIZE
#define SECTOR_SIZE (1 << SECTOR_SHIFT)
#endif

#define PAGE_SECTORS_SHIFT (PAGE_SHIFT - SECTOR_SHIFT)
#define PAGE_SECTORS (1 << PAGE_SECTORS_SHIFT)
#define SECTOR_MASK (PAGE_SECTORS - 1)

/*
 * Block error status values; block/blk-core.c maps them to errnos
 * (blk_status_to_errno).  18 is unused in the baseline tree: BLK_STS_INVAL
 * was added as 19 next to the atomic-write work (a later patch closes the
 * gap; docs/rules.md 2.10).
 */
typedef u8 __bitwise blk_status_t;
typedef u16 blk_short_t;
#define BLK_STS_OK 0
#define BLK_STS_NOTSUPP ((__force blk_status_t)1)
#define BLK_STS_TIMEOUT ((__force blk_status_t)2)
#define BLK_STS_NOSPC ((__force blk_status_t)3)
#define BLK_STS_TRANSPORT ((__force blk_status_t)4)
#define BLK_STS_TARGET ((__force blk_status_t)5)
#define BLK_STS_RESV_CONFLICT ((__force blk_status_t)6)
#define BLK_STS_MEDIUM ((__force blk_status_t)7)
#define BLK_STS_PROTECTION ((__force blk_status_t)8)
#define BLK_STS_RESOURCE ((__force blk_status_t)9)
#define BLK_STS_IOERR ((__force blk_status_t)10)
/* hack for device mapper, don't use elsewhere: */
#define BLK_STS_DM_REQUEUE ((__force blk_status_t)11)
/* only for REQ_NOWAIT bios that would block (bio_wouldblock_error()) */
#define BLK_STS_AGAIN ((__force blk_status_t)12)
#define BLK_STS_DEV_RESOURCE ((__force blk_status_t)13)
#define BLK_STS_ZONE_OPEN_RESOURCE ((__force blk_status_t)14)
#define BLK_STS_ZONE_ACTIVE_RESOURCE ((__force blk_status_t)15)
#define BLK_STS_OFFLINE ((__force blk_status_t)16)
#define BLK_STS_DURATION_LIMIT ((__force blk_status_t)17)
/* Invalid size or alignment. */
#define BLK_STS_INVAL ((__force blk_status_t)19)

/* Path-related (retryable on another path) or not. */
static inline bool blk_path_error(blk_status_t error)
{
	switch (error) {
	case BLK_STS_NOTSUPP:
	case BLK_STS_NOSPC:
	case BLK_STS_TARGET:
	case BLK_STS_RESV_CONFLICT:
	case BLK_STS_MEDIUM:
	case BLK_STS_PROTECTION:
		return false;
	}
	return true;
}

typedef __u32 __bitwise blk_opf_t;

typedef unsigned int blk_qc_t;
#define BLK_QC_T_NONE -1U

/*
 * Simulator-only lifecycle of a bio, to catch bio_endio() on a bio that
 * already ended (the end_io ran) or went back to its pool.
 */
enum blksim_bio_state {
	BLKSIM_BIO_LIVE = 0, /* allocated or bio_init()ed, not ended */
	BLKSIM_BIO_ENDED,	  /* bi_end_io called (or would have been) */
	BLKSIM_BIO_FREED,	  /* back in the per-CPU cache or the mempool */
};

/*
 * The main unit of I/O for the block layer and lower layers.
 */
struct bio {
	struct bio *bi_next; /* request queue link */
	struct block_device *bi_bdev;
	blk_opf_t bi_opf; /* bottom bits REQ_OP, top bits req_flags */
	unsigned short bi_flags; /* BIO_* below */
	unsigned short bi_ioprio;
	enum rw_hint bi_write_hint;
	u8 bi_write_stream;
	blk_status_t bi_status;
	atomic_t __bi_remaining;

	struct bvec_iter bi_iter;

	union {
		/* for polled bios: */
		blk_qc_t bi_cookie;
		/* for plugged zoned writes only: */
		unsigned int __bi_nr_segments;
	};
	bio_end_io_t *bi_end_io;
	void *bi_private;

	unsigned short bi_vcnt; /* how many bio_vec's */

	/*
	 * Everything starting with bi_max_vecs will be preserved by
	 * bio_reset()
	 */

	unsigned short bi_max_vecs; /* max bvl_vecs we can hold */

	atomic_t __bi_cnt; /* pin count */

	struct bio_vec *bi_io_vec; /* the actual vec list */

	struct bio_set *bi_pool;

	/*
	 * Simulator only.  bi_sim_ev: the completion event the engine runs
	 * (in hard-IRQ context) to call bio_endio(), on the CPU that
	 * submitted the bio, as blk-mq steers a completion to the
	 * submitter's queue.  bi_sim_state: see enum blksim_bio_state.
	 * bi_sim_alloc_cpu: the CPU that allocated the bio from its bio_set,
	 * to tell a free into another CPU's cache.  bi_sim_id: allocation
	 * sequence number, for reports.
	 */
	struct sim_event bi_sim_ev;
	u8 bi_sim_state;
	bool bi_sim_inflight; /* counted in the device's in-flight total */
	short bi_sim_alloc_cpu;
	short bi_sim_submit_cpu; /* where its completion interrupt goes */
	u32 bi_sim_id;

	/*
	 * We can inline a number of vecs at the end of the bio, to avoid
	 * double allocations for a small number of bio_vecs.  This member
	 * MUST obviously be kept at the very end of the bio.
	 */
	struct bio_vec bi_inline_vecs[];
};

#define BIO_RESET_BYTES offsetof(struct bio, bi_max_vecs)
#define BIO_MAX_SECTORS (UINT_MAX >> SECTOR_SHIFT)

/*
 * bio flags
 */
enum {
	BIO_PAGE_PINNED, /* Unpin pages in bio_release_pages() */
	/*
	 * Put pages in bio_release_pages(): the bio holds a reference to
	 * each (kernels 6.5 to 6.10; before, every bio without
	 * BIO_NO_PAGE_REF).  Nothing in the baseline sets it; older trees'
	 * direct-io.c does, through iomap/ksrc/fs/iomap/ksrc-compat.h.
	 */
	BIO_PAGE_REFFED,
	BIO_CLONED,	 /* doesn't own data */
	BIO_QUIET,	 /* Make BIO Quiet */
	BIO_CHAIN,	 /* chained bio, ->bi_remaining in effect */
	BIO_REFFED,	 /* bio has elevated ->bi_cnt */
	BIO_BPS_THROTTLED, /* This bio has already been subjected to
			    * throttling rules. Don't do it again. */
	BIO_TRACE_COMPLETION, /* bio_endio() should trace the final
			       * completion of this bio. */
	BIO_CGROUP_ACCT,  /* has been accounted to a cgroup */
	BIO_QOS_THROTTLED, /* bio went through rq_qos throttle path */
	BIO_QOS_MERGED,	  /* but went through rq_qos merge path */
	BIO_REMAPPED,
	BIO_ZONE_WRITE_PLUGGING, /* bio handled through zone write plugging */
	BIO_EMULATES_ZONE_APPEND, /* bio emulates a zone append operation */
	BIO_FLAG_LAST
};

typedef __u32 __bitwise blk_mq_req_flags_t;

#define REQ_OP_BITS 8
#define REQ_OP_MASK (__force blk_opf_t)((1 << REQ_OP_BITS) - 1)
#define REQ_FLAG_BITS 24

/*
 * Operations common to the bio and request structures.  The least
 * significant bit of the operation number is the data direction: set for
 * transfers TO the device.
 */
enum req_op {
	/* read sectors from the device */
	REQ_OP_READ = (__force blk_opf_t)0,
	/* write sectors to the device */
	REQ_OP_WRITE = (__force blk_opf_t)1,
	/* flush the volatile write cache */
	REQ_OP_FLUSH = (__force blk_opf_t)2,
	/* discard sectors */
	REQ_OP_DISCARD = (__force blk_opf_t)3,
	/* securely erase sectors */
	REQ_OP_SECURE_ERASE = (__force blk_opf_t)5,
	/* write data at the current zone write pointer */
	REQ_OP_ZONE_APPEND = (__force blk_opf_t)7,
	/* write the zero filled sector many times */
	REQ_OP_WRITE_ZEROES = (__force blk_opf_t)9,
	/* Open a zone */
	REQ_OP_ZONE_OPEN = (__force blk_opf_t)10,
	/* Close a zone */
	REQ_OP_ZONE_CLOSE = (__force blk_opf_t)11,
	/* Transition a zone to full */
	REQ_OP_ZONE_FINISH = (__force blk_opf_t)13,
	/* reset a zone write pointer */
	REQ_OP_ZONE_RESET = (__force blk_opf_t)15,
	/* reset all the zone present on the device */
	REQ_OP_ZONE_RESET_ALL = (__force blk_opf_t)17,

	/* Driver private requests */
	REQ_OP_DRV_IN = (__force blk_opf_t)34,
	REQ_OP_DRV_OUT = (__force blk_opf_t)35,

	REQ_OP_LAST = (__force blk_opf_t)36,
};

enum req_flag_bits {
	__REQ_FAILFAST_DEV = /* no driver retries of device errors */
	REQ_OP_BITS,
	__REQ_FAILFAST_TRANSPORT, /* no driver retries of transport errors */
	__REQ_FAILFAST_DRIVER,	  /* no driver retries of driver errors */
	__REQ_SYNC,		  /* request is sync (sync write or read) */
	__REQ_META,		  /* metadata io request */
	__REQ_PRIO,		  /* boost priority in cfq */
	__REQ_NOMERGE,		  /* don't touch this for merging */
	__REQ_IDLE,		  /* anticipate more IO after this one */
	__REQ_INTEGRITY,	  /* I/O includes block integrity payload */
	__REQ_FUA,		  /* forced unit access */
	__REQ_PREFLUSH,		  /* request for cache flush */
	__REQ_RAHEAD,		  /* read ahead, can fail anytime */
	__REQ_BACKGROUND,	  /* background IO */
	__REQ_NOWAIT,		  /* Don't wait if request will block */
	__REQ_POLLED,		  /* caller polls for completion (bio_poll) */
	__REQ_ALLOC_CACHE,	  /* allocate IO from cache if available */
	__REQ_SWAP,		  /* swap I/O */
	__REQ_DRV,		  /* for driver use */
	__REQ_FS_PRIVATE,	  /* for file system (submitter) use */
	__REQ_ATOMIC,		  /* for atomic write operations */
	__REQ_P2PDMA,		  /* contains P2P DMA pages */
	/*
	 * Command specific flags, keep last:
	 */
	/* for REQ_OP_WRITE_ZEROES: */
	__REQ_NOUNMAP, /* do not free blocks when zeroing */

	__REQ_NR_BITS, /* stops here */
};

#define REQ_FAILFAST_DEV (__force blk_opf_t)(1ULL << __REQ_FAILFAST_DEV)
#define REQ_FAILFAST_TRANSPORT \
	(__force blk_opf_t)(1ULL << __REQ_FAILFAST_TRANSPORT)
#define REQ_FAILFAST_DRIVER (__force blk_opf_t)(1ULL << __REQ_FAILFAST_DRIVER)
#define REQ_SYNC (__force blk_opf_t)(1ULL << __REQ_SYNC)
#define REQ_META (__force blk_opf_t)(1ULL << __REQ_META)
#define REQ_PRIO (__force blk_opf_t)(1ULL << __REQ_PRIO)
#define REQ_NOMERGE (__force blk_opf_t)(1ULL << __REQ_NOMERGE)
#define REQ_IDLE (__force blk_opf_t)(1ULL << __REQ_IDLE)
#define REQ_INTEGRITY (__force blk_opf_t)(1ULL << __REQ_INTEGRITY)
#define REQ_FUA (__force blk_opf_t)(1ULL << __REQ_FUA)
#define REQ_PREFLUSH (__force blk_opf_t)(1ULL << __REQ_PREFLUSH)
#define REQ_RAHEAD (__force blk_opf_t)(1ULL << __REQ_RAHEAD)
#define REQ_BACKGROUND (__force blk_opf_t)(1ULL << __REQ_BACKGROUND)
#define REQ_NOWAIT (__force blk_opf_t)(1ULL << __REQ_NOWAIT)
#define REQ_POLLED (__force blk_opf_t)(1ULL << __REQ_POLLED)
#define REQ_ALLOC_CACHE (__force blk_opf_t)(1ULL << __REQ_ALLOC_CACHE)
#define REQ_SWAP (__force blk_opf_t)(1ULL << __REQ_SWAP)
#define REQ_DRV (__force blk_opf_t)(1ULL << __REQ_DRV)
#define REQ_FS_PRIVATE (__force blk_opf_t)(1ULL << __REQ_FS_PRIVATE)
#define REQ_ATOMIC (__force blk_opf_t)(1ULL << __REQ_ATOMIC)
#define REQ_P2PDMA (__force blk_opf_t)(1ULL << __REQ_P2PDMA)

#define REQ_NOUNMAP (__force blk_opf_t)(1ULL << __REQ_NOUNMAP)

#define REQ_FAILFAST_MASK \
	(REQ_FAILFAST_DEV | REQ_FAILFAST_TRANSPORT | REQ_FAILFAST_DRIVER)

#define REQ_NOMERGE_FLAGS (REQ_NOMERGE | REQ_PREFLUSH | REQ_FUA)

enum stat_group {
	STAT_READ,
	STAT_WRITE,
	STAT_DISCARD,
	STAT_FLUSH,

	NR_STAT_GROUPS
};

static inline enum req_op bio_op(const struct bio *bio)
{
	return (enum req_op)(bio->bi_opf & REQ_OP_MASK);
}

static inline bool op_is_write(blk_opf_t op)
{
	return (op & (__force blk_opf_t)1) || op == REQ_OP_ZONE_FINISH;
}

/*
 * Check if the bio or request is one that needs special treatment in the
 * flush state machine.
 */
static inline bool op_is_flush(blk_opf_t op)
{
	return op & (REQ_FUA | REQ_PREFLUSH);
}

/*
 * Reads are always treated as synchronous, as are requests with the FUA or
 * PREFLUSH flag.  Other operations may be marked as synchronous using the
 * REQ_SYNC flag.
 */
static inline bool op_is_sync(blk_opf_t op)
{
	return (op & REQ_OP_MASK) == REQ_OP_READ ||
	       (op & (REQ_SYNC | REQ_FUA | REQ_PREFLUSH));
}

static inline bool op_is_discard(blk_opf_t op)
{
	return (op & REQ_OP_MASK) == REQ_OP_DISCARD;
}

static inline bool op_is_zone_mgmt(enum req_op op)
{
	switch (op & REQ_OP_MASK) {
	case REQ_OP_ZONE_RESET:
	case REQ_OP_ZONE_RESET_ALL:
	case REQ_OP_ZONE_OPEN:
	case REQ_OP_ZONE_CLOSE:
	case REQ_OP_ZONE_FINISH:
		return true;
	default:
		return false;
	}
}

static inline int op_stat_group(enum req_op op)
{
	if (op_is_discard(op))
		return STAT_DISCARD;
	return op_is_write(op);
}

#endif /* _LINUX_BLK_TYPES_H */
