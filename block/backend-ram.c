// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ram backend: a memory-backed device whose data survives for the
 * device's life, for tests.
 *
 * With a volatile write cache (BLK_FEAT_WRITE_CACHE) the device keeps two
 * images: "data", what reads return, and "media", what a power failure
 * leaves.  A plain write reaches only data; a write with REQ_FUA also
 * reaches media; a flush (REQ_OP_FLUSH, REQ_PREFLUSH, ->flush) copies
 * every block written since the last flush.  The cache is modelled at its
 * worst: it never writes back on its own.  So blksim_bdev_ram_power_fail()
 * shows exactly what a filesystem's FUA and flush logic made durable.
 * Like the kernel's bio-based drivers, the device honours REQ_FUA whether
 * or not it advertises BLK_FEAT_FUA: the feature tells the layers above
 * that FUA is cheap (iomap's write-through choice), not that it works.
 *
 * Bios complete inside ->submit; where bio_endio() then runs is the
 * block layer's completion policy.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/bio.h>
#include <linux/slab.h>
#include <sim/engine.h>
#include "backend.h"

/* Dirty tracking granularity of the write cache. */
#define RAM_CHUNK_SHIFT 12
#define RAM_CHUNK_SIZE (1u << RAM_CHUNK_SHIFT)
#define BITS_PER_WORD (8 * sizeof(unsigned long))

struct ram_dev {
	struct blksim_backend be;
	u64 size;
	char *data;
	char *media; /* NULL without a write cache: media is data */
	unsigned long *dirty;
	u64 nr_chunks;
	/*
	 * Concurrent bios to the same blocks have no defined outcome on a
	 * real device; here they are serialised so that the threaded
	 * engine's overlapping I/O is not a data race in the simulator.
	 */
	pthread_rwlock_t lock;
};

static struct ram_dev *to_ram(struct block_device *bdev)
{
	return container_of(to_backend(bdev), struct ram_dev, be);
}

static void *ram_map(u64 size)
{
	/* anonymous memory: zero, and only touched pages cost anything */
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void ram_mark_dirty(struct ram_dev *rd, u64 pos, u64 len)
{
	u64 c, last = (pos + len - 1) >> RAM_CHUNK_SHIFT;

	for (c = pos >> RAM_CHUNK_SHIFT; c <= last; c++)
		rd->dirty[c / BITS_PER_WORD] |= 1ul << (c % BITS_PER_WORD);
}

/* Called with the lock held for writing. */
static void ram_writeback(struct ram_dev *rd, bool to_media)
{
	for (u64 w = 0; w < DIV_ROUND_UP(rd->nr_chunks, BITS_PER_WORD); w++) {
		unsigned long bits = rd->dirty[w];

		while (bits) {
			u64 c = w * BITS_PER_WORD + __builtin_ctzl(bits);
			u64 off = c << RAM_CHUNK_SHIFT;
			u64 n = min_t(u64, RAM_CHUNK_SIZE, rd->size - off);

			if (to_media)
				memcpy(rd->media + off, rd->data + off, n);
			else
				memcpy(rd->data + off, rd->media + off, n);
			bits &= bits - 1;
		}
		rd->dirty[w] = 0;
	}
}

static void ram_flush_locked(struct ram_dev *rd)
{
	if (rd->media)
		ram_writeback(rd, true);
}

/*
 * The data lock keeps a bio's copy whole against another thread's write
 * or flush; under the deterministic engine there is no other thread
 * (sim_engine_threaded()), and a bio takes no lock.
 */
static void ram_rdlock(struct ram_dev *rd)
{
	if (sim_engine_threaded())
		pthread_rwlock_rdlock(&rd->lock);
}

static void ram_wrlock(struct ram_dev *rd)
{
	if (sim_engine_threaded())
		pthread_rwlock_wrlock(&rd->lock);
}

static void ram_unlock(struct ram_dev *rd)
{
	if (sim_engine_threaded())
		pthread_rwlock_unlock(&rd->lock);
}

static blk_status_t ram_rw(struct ram_dev *rd, struct bio *bio)
{
	u64 pos = blksim_bio_pos(bio);
	u64 len = bio->bi_iter.bi_size;

	if (bio_op(bio) == REQ_OP_READ) {
		ram_rdlock(rd);
		blksim_bio_copy_from_buf(bio, rd->data + pos);
		ram_unlock(rd);
		return BLK_STS_OK;
	}

	/* a write-protected medium; an empty flush is still fine */
	if (len && bdev_read_only(&rd->be.bdev))
		return BLK_STS_IOERR;
	ram_wrlock(rd);
	if (bio->bi_opf & REQ_PREFLUSH)
		ram_flush_locked(rd);
	if (len) {
		blksim_bio_copy_to_buf(bio, rd->data + pos);
		if (rd->media) {
			if (bio->bi_opf & REQ_FUA)
				memcpy(rd->media + pos, rd->data + pos, len);
			else
				ram_mark_dirty(rd, pos, len);
		}
	}
	ram_unlock(rd);
	return BLK_STS_OK;
}

static void ram_submit(struct block_device *bdev, struct bio *bio)
{
	struct ram_dev *rd = to_ram(bdev);
	blk_status_t status;

	blksim_backend_start(&rd->be, bio);
	status = blksim_backend_check(bdev, bio);
	if (status == BLK_STS_OK) {
		switch (bio_op(bio)) {
		case REQ_OP_READ:
		case REQ_OP_WRITE:
			status = ram_rw(rd, bio);
			break;
		case REQ_OP_FLUSH:
			ram_wrlock(rd);
			ram_flush_locked(rd);
			ram_unlock(rd);
			break;
		default:
			status = BLK_STS_NOTSUPP;
			break;
		}
	}
	blksim_backend_end(&rd->be, bio, status);
}

static int ram_flush(struct block_device *bdev)
{
	struct ram_dev *rd = to_ram(bdev);

	__atomic_fetch_add(&rd->be.cnt.flush_calls, 1, __ATOMIC_RELAXED);
	ram_wrlock(rd);
	ram_flush_locked(rd);
	ram_unlock(rd);
	return 0;
}

static int ram_poll(struct block_device *bdev)
{
	/* every bio ended inside ->submit: nothing is left to reap */
	return 0;
}

static void ram_free(struct ram_dev *rd)
{
	if (rd->data)
		munmap(rd->data, rd->size);
	if (rd->media)
		munmap(rd->media, rd->size);
	kfree(rd->dirty);
	pthread_rwlock_destroy(&rd->lock);
	kfree(rd);
}

static void ram_destroy(struct block_device *bdev)
{
	struct ram_dev *rd = to_ram(bdev);

	blksim_backend_exit(&rd->be);
	ram_free(rd);
}

const struct blksim_bdev_ops blksim_ram_ops = {
	.name = "ram",
	.submit = ram_submit,
	.flush = ram_flush,
	.poll = ram_poll,
	.destroy = ram_destroy,
};

struct block_device *blksim_bdev_ram_create(const struct blksim_ram_opts *opts,
					 char *err, size_t errlen)
{
	struct blksim_ram_opts o = opts ? *opts : (struct blksim_ram_opts){ 0 };
	struct queue_limits lim;
	struct ram_dev *rd;
	int rc;

	if (!o.name)
		o.name = "ram0";
	if (!o.size)
		o.size = 64ull << 20;
	rc = blksim_backend_mem_limits(&lim, "ram", o.size, o.logical_block_size,
				    o.physical_block_size, o.dma_alignment,
				    o.max_sectors, o.write_cache, o.fua,
				    o.no_poll, err, errlen);
	if (rc)
		return ERR_PTR(rc);
	lim.io_min = o.io_min;
	lim.io_opt = o.io_opt;

	rd = kzalloc(sizeof(*rd), GFP_KERNEL);
	if (!rd)
		goto nomem;
	pthread_rwlock_init(&rd->lock, NULL);
	rd->size = o.size;
	rd->data = ram_map(o.size);
	if (!rd->data)
		goto nomem_free;
	if (o.write_cache) {
		rd->media = ram_map(o.size);
		rd->nr_chunks = DIV_ROUND_UP(o.size, RAM_CHUNK_SIZE);
		rd->dirty = kcalloc(DIV_ROUND_UP(rd->nr_chunks, BITS_PER_WORD),
				    sizeof(unsigned long), GFP_KERNEL);
		if (!rd->media || !rd->dirty)
			goto nomem_free;
	}

	blksim_backend_init(&rd->be, &blksim_ram_ops, o.name,
			 o.size >> SECTOR_SHIFT, &lim, o.read_only);
	return &rd->be.bdev;

nomem_free:
	ram_free(rd);
nomem:
	blksim_bdev_err(err, errlen, "ram: cannot allocate %llu bytes",
		     (unsigned long long)o.size);
	return ERR_PTR(-ENOMEM);
}

static struct ram_dev *ram_of(struct block_device *bdev)
{
	if (WARN_ON(!bdev || bdev->bd_ops != &blksim_ram_ops))
		return NULL;
	return to_ram(bdev);
}

void *blksim_bdev_ram_data(struct block_device *bdev)
{
	struct ram_dev *rd = ram_of(bdev);

	return rd ? rd->data : NULL;
}

u64 blksim_bdev_ram_size(struct block_device *bdev)
{
	struct ram_dev *rd = ram_of(bdev);

	return rd ? rd->size : 0;
}

const void *blksim_bdev_ram_media(struct block_device *bdev)
{
	struct ram_dev *rd = ram_of(bdev);

	if (!rd)
		return NULL;
	return rd->media ? rd->media : rd->data;
}

/*
 * Zero [@pos, @pos + @len) of what reads return; with @media the media
 * image too and nothing stays dirty, else as a write without FUA.
 */
static void ram_zero(struct block_device *bdev, u64 pos, u64 len, bool media)
{
	struct ram_dev *rd = ram_of(bdev);

	if (!rd || pos >= rd->size)
		return;
	len = min(len, rd->size - pos);
	pthread_rwlock_wrlock(&rd->lock);
	memset(rd->data + pos, 0, len);
	if (rd->media && media) {
		memset(rd->media + pos, 0, len);
		memset(rd->dirty, 0,
		       DIV_ROUND_UP(rd->nr_chunks, BITS_PER_WORD) *
			       sizeof(unsigned long));
	} else if (rd->media && len) {
		ram_mark_dirty(rd, pos, len);
	}
	pthread_rwlock_unlock(&rd->lock);
}

void blksim_bdev_ram_zero(struct block_device *bdev, u64 pos, u64 len)
{
	ram_zero(bdev, pos, len, true);
}

void blksim_bdev_ram_zero_data(struct block_device *bdev, u64 pos, u64 len)
{
	ram_zero(bdev, pos, len, false);
}

void blksim_bdev_ram_power_fail(struct block_device *bdev)
{
	struct ram_dev *rd = ram_of(bdev);

	if (!rd || !rd->media)
		return;
	pthread_rwlock_wrlock(&rd->lock);
	ram_writeback(rd, false);
	pthread_rwlock_unlock(&rd->lock);
}
