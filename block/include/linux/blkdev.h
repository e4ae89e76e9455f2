/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * struct block_device and its queue limits (include/linux/blkdev.h), and
 * the simulator's backend interface underneath: a backend (ram, null,
 * O_DIRECT file through io_uring, fault wrapper) receives each submitted
 * bio through ->submit and reports its end, exactly once and from any
 * thread, with blk_sim_complete(); the block layer then runs bio_endio()
 * in simulated hard-IRQ context as the completion policy says.
 */
#ifndef _LINUX_BLKDEV_H
#define _LINUX_BLKDEV_H

#include <linux/blk_types.h>
#include <linux/kernel.h>

#define BDEVNAME_SIZE 32
#define SECTOR_SHIFT 9
#define SECTOR_SIZE (1 << SECTOR_SHIFT)

/* queue_limits.features */
#define BLK_FEAT_WRITE_CACHE (1u << 0)
#define BLK_FEAT_FUA (1u << 1)
#define BLK_FEAT_ROTATIONAL (1u << 2)
#define BLK_FEAT_POLL (1u << 5)
#define BLK_FEAT_NOWAIT (1u << 7)
#define BLK_FEAT_ATOMIC_WRITES (1u << 16)

struct queue_limits {
	unsigned int features;
	unsigned int logical_block_size;
	unsigned int physical_block_size;
	unsigned int io_min;
	unsigned int io_opt;
	unsigned int max_sectors;
	unsigned int max_hw_sectors;
	unsigned short max_segments;
	unsigned int max_segment_size;
	unsigned int dma_alignment; /* a mask: 511 means 512-byte aligned */
	unsigned int atomic_write_unit_max;
};

struct request_queue {
	struct queue_limits limits;
};

struct block_device;

struct sim_bdev_ops {
	const char *name;
	/*
	 * Start @bio (op, sector, data in bi_io_vec from bi_iter).  The
	 * backend must end it with blk_sim_complete() exactly once, now or
	 * later, from any thread.
	 */
	void (*submit)(struct block_device *bdev, struct bio *bio);
	/* Make volatile writes durable (REQ_PREFLUSH, fsync); 0 or -errno. */
	int (*flush)(struct block_device *bdev);
	/* Reap completions of polled bios (REQ_POLLED); returns how many. */
	int (*poll)(struct block_device *bdev);
	void (*destroy)(struct block_device *bdev);
};

struct block_device {
	char bd_name[BDEVNAME_SIZE];
	sector_t bd_nr_sectors;
	bool bd_read_only;
	struct request_queue *bd_queue;
	struct request_queue bd_queue_storage;
	const struct sim_bdev_ops *bd_ops;
	void *bd_private;
};

/* Backend -> block layer: @bio is done with @status. */
void blk_sim_complete(struct bio *bio, blk_status_t status);

static inline struct request_queue *bdev_get_queue(struct block_device *bdev)
{
	return bdev->bd_queue;
}

static inline unsigned int bdev_logical_block_size(struct block_device *bdev)
{
	return bdev->bd_queue->limits.logical_block_size;
}

static inline unsigned int bdev_physical_block_size(struct block_device *bdev)
{
	return bdev->bd_queue->limits.physical_block_size;
}

static inline unsigned int bdev_io_min(struct block_device *bdev)
{
	return bdev->bd_queue->limits.io_min;
}

static inline unsigned int bdev_io_opt(struct block_device *bdev)
{
	return bdev->bd_queue->limits.io_opt;
}

static inline unsigned int bdev_dma_alignment(struct block_device *bdev)
{
	return bdev->bd_queue->limits.dma_alignment;
}

static inline unsigned int bdev_max_segments(struct block_device *bdev)
{
	return bdev->bd_queue->limits.max_segments;
}

static inline bool bdev_write_cache(struct block_device *bdev)
{
	return bdev->bd_queue->limits.features & BLK_FEAT_WRITE_CACHE;
}

static inline bool bdev_fua(struct block_device *bdev)
{
	return bdev->bd_queue->limits.features & BLK_FEAT_FUA;
}

static inline bool bdev_nonrot(struct block_device *bdev)
{
	return !(bdev->bd_queue->limits.features & BLK_FEAT_ROTATIONAL);
}

static inline sector_t bdev_nr_sectors(struct block_device *bdev)
{
	return bdev->bd_nr_sectors;
}

static inline bool bdev_read_only(struct block_device *bdev)
{
	return bdev->bd_read_only;
}

#endif /* _LINUX_BLKDEV_H */
