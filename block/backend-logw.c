// SPDX-License-Identifier: GPL-2.0-only
/*
 * The log-writes wrapper, after dm-log-writes: a device over any other
 * that passes every bio down unchanged and records, in a log file, each
 * write, flush and FUA bio that succeeded, in the order they completed
 * (format and what is durable when: <sim/logw-format.h>).  Replaying the
 * log into a copy of the device as it was when the wrapper was made, up
 * to some entry and dropping the writes no flush covered yet, gives what
 * the media could hold had the power failed at that moment.
 *
 * A write's data is copied when it is submitted (it may not change while
 * in flight) and logged when the lower device ends it, so its place in
 * the log is its completion.  A flush covers what had completed when it
 * was submitted (REQ_PREFLUSH, and ->flush()): it records how many
 * entries that was, and is logged when it completes.  Reads pass down
 * untouched, as the fault wrapper passes them.
 *
 * The bios sent down are clones of the caller's (struct logw_io), so the
 * wrapper sees their completion and ends the caller's bio after logging.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bio.h>
#include <sim/logw-format.h>
#include <sim/trace.h>
#include "backend.h"

DEFINE_SIM_STAT(bdev_logw_entries, "bdev_logw_entries");
DEFINE_SIM_STAT(bdev_logw_bytes, "bdev_logw_bytes");
/* Writes and flushes passed down and not yet logged. */
DEFINE_SIM_GAUGE(bdev_logw_pending, "bdev_logw_pending");

struct logw_dev {
	struct blksim_backend be;
	pthread_mutex_t lock;	/* the file and the entry count */
	FILE *log;
	u64 nr_entries;
	int error;		/* first failure to write the log */
};

struct logw_io {
	struct logw_dev *ld;
	struct bio *orig;
	u64 covers;		/* entries logged when it was submitted */
	u32 flags;		/* LOGW_* */
	u32 len;
	void *data;
	struct bio clone;	/* last: struct bio ends in a flexible array */
};

static struct logw_dev *to_logw(struct block_device *bdev)
{
	return container_of(to_backend(bdev), struct logw_dev, be);
}

static struct logw_dev *logw_of(struct block_device *bdev)
{
	if (!bdev || bdev->bd_ops != &blksim_logw_ops)
		return NULL;
	return to_logw(bdev);
}

/*
 * Append one entry; @ld->lock held.  A log that cannot be written is
 * reported once, when the device goes (logw_destroy()).
 */
static void logw_append(struct logw_dev *ld, u32 type, u64 sector,
			u32 flags, u64 covers, const void *data, u32 len)
{
	struct logw_entry e = {
		.magic = LOGW_ENTRY_MAGIC,
		.type = type,
		.seq = ld->nr_entries,
		.sector = sector,
		.len = len,
		.flags = flags,
		.covers = covers,
	};

	if (ld->error)
		return;
	if (fwrite(&e, sizeof(e), 1, ld->log) != 1 ||
	    (len && fwrite(data, len, 1, ld->log) != 1)) {
		ld->error = -EIO;
		return;
	}
	/* what a flush or FUA made durable is on the host file too */
	if ((type == LOGW_FLUSH || (flags & LOGW_FUA)) && fflush(ld->log))
		ld->error = -EIO;
	ld->nr_entries++;
	sim_stat_inc(&bdev_logw_entries);
	sim_stat_add(&bdev_logw_bytes, sizeof(e) + len);
}

static u64 logw_count(struct logw_dev *ld)
{
	u64 n;

	pthread_mutex_lock(&ld->lock);
	n = ld->nr_entries;
	pthread_mutex_unlock(&ld->lock);
	return n;
}

static void logw_end_io(struct bio *clone)
{
	struct logw_io *io = container_of(clone, struct logw_io, clone);
	struct logw_dev *ld = io->ld;
	blk_status_t status = clone->bi_status;
	struct bio *orig = io->orig;

	if (status == BLK_STS_OK) {
		pthread_mutex_lock(&ld->lock);
		if (io->flags & LOGW_PREFLUSH)
			logw_append(ld, LOGW_FLUSH, 0, 0, io->covers, NULL, 0);
		if (io->len)
			logw_append(ld, LOGW_WRITE,
				    blksim_bio_pos(orig) >> SECTOR_SHIFT,
				    io->flags, 0, io->data, io->len);
		pthread_mutex_unlock(&ld->lock);
	}
	bio_uninit(clone);
	free(io->data);
	free(io);
	sim_stat_dec(&bdev_logw_pending);
	blksim_backend_end(&ld->be, orig, status);
}

static void logw_submit(struct block_device *bdev, struct bio *bio)
{
	struct logw_dev *ld = to_logw(bdev);
	enum req_op op = bio_op(bio);
	struct logw_io *io;

	if (op != REQ_OP_WRITE && op != REQ_OP_FLUSH) {
		/* reads (and what the lower device refuses) pass down */
		blksim_backend_account(&ld->be, bio);
		ld->be.lower->bd_ops->submit(ld->be.lower, bio);
		return;
	}
	blksim_backend_start(&ld->be, bio);
	io = calloc(1, sizeof(*io));
	if (io && bio->bi_iter.bi_size) {
		io->len = bio->bi_iter.bi_size;
		io->data = malloc(io->len);
		if (io->data)
			blksim_bio_copy_to_buf(bio, io->data);
	}
	if (!io || (io->len && !io->data) ||
	    bio_init_clone(ld->be.lower, &io->clone, bio, GFP_NOIO)) {
		if (io)
			free(io->data);
		free(io);
		blksim_backend_end(&ld->be, bio, BLK_STS_RESOURCE);
		return;
	}
	io->ld = ld;
	io->orig = bio;
	if (op == REQ_OP_FLUSH || (bio->bi_opf & REQ_PREFLUSH))
		io->flags |= LOGW_PREFLUSH;
	if (bio->bi_opf & REQ_FUA)
		io->flags |= LOGW_FUA;
	if (bio->bi_opf & REQ_META)
		io->flags |= LOGW_META;
	/* a flush covers what completed before it was submitted */
	io->covers = logw_count(ld);
	io->clone.bi_end_io = logw_end_io;
	sim_stat_inc(&bdev_logw_pending);
	ld->be.lower->bd_ops->submit(ld->be.lower, &io->clone);
}

static int logw_flush(struct block_device *bdev)
{
	struct logw_dev *ld = to_logw(bdev);
	u64 covers = logw_count(ld);
	int ret;

	__atomic_fetch_add(&ld->be.cnt.flush_calls, 1, __ATOMIC_RELAXED);
	ret = ld->be.lower->bd_ops->flush(ld->be.lower);
	if (!ret) {
		pthread_mutex_lock(&ld->lock);
		logw_append(ld, LOGW_FLUSH, 0, 0, covers, NULL, 0);
		pthread_mutex_unlock(&ld->lock);
	}
	return ret;
}

static void logw_destroy(struct block_device *bdev)
{
	struct logw_dev *ld = to_logw(bdev);

	blksim_backend_exit(&ld->be);
	if (ld->log && fclose(ld->log))
		ld->error = ld->error ? ld->error : -EIO;
	if (ld->error)
		fprintf(stderr, "iomapsim: log-writes: the log is incomplete: %s\n",
			strerror(-ld->error));
	pthread_mutex_destroy(&ld->lock);
	free(ld);
}

const struct blksim_bdev_ops blksim_logw_ops = {
	.name = "log-writes",
	.submit = logw_submit,
	.flush = logw_flush,
	.poll = blksim_backend_lower_poll,
	.destroy = logw_destroy,
	.lower = blksim_bdev_logw_lower,
};

struct block_device *blksim_bdev_logw_wrap(struct block_device *lower,
					const char *path, char *err,
					size_t errlen)
{
	struct logw_super s = { .magic = LOGW_MAGIC,
				.version = LOGW_VERSION,
				.sector_size = SECTOR_SIZE };
	struct logw_dev *ld;

	if (IS_ERR_OR_NULL(lower)) {
		blksim_bdev_err(err, errlen, "log-writes: no device to wrap");
		return ERR_PTR(-EINVAL);
	}
	ld = calloc(1, sizeof(*ld));
	if (!ld) {
		blksim_bdev_err(err, errlen, "log-writes: out of memory");
		return ERR_PTR(-ENOMEM);
	}
	/* a new log each time: entries only make sense from the start */
	ld->log = fopen(path, "wbx");
	if (!ld->log) {
		int ret = -errno;

		blksim_bdev_err(err, errlen, "log-writes: %s: %s%s", path,
			     strerror(errno), errno == EEXIST ?
			     " (a log is never appended to)" : "");
		free(ld);
		return ERR_PTR(ret);
	}
	s.nr_sectors = bdev_nr_sectors(lower);
	if (bdev_write_cache(lower))
		s.features |= LOGW_SUPER_WRITE_CACHE;
	if (fwrite(&s, sizeof(s), 1, ld->log) != 1 || fflush(ld->log)) {
		blksim_bdev_err(err, errlen, "log-writes: %s: cannot write",
			     path);
		fclose(ld->log);
		free(ld);
		return ERR_PTR(-EIO);
	}
	pthread_mutex_init(&ld->lock, NULL);
	blksim_backend_wrap_init(&ld->be, &blksim_logw_ops, lower);
	return &ld->be.bdev;
}

struct block_device *blksim_bdev_logw_lower(struct block_device *bdev)
{
	struct logw_dev *ld = logw_of(bdev);

	return ld ? ld->be.lower : NULL;
}

int blksim_bdev_logw_mark(struct block_device *bdev, const char *name)
{
	struct logw_dev *ld = logw_of(bdev);
	size_t len = strlen(name);
	int ret;

	if (!ld)
		return -EINVAL;
	if (!len || len > LOGW_MARK_MAX)
		return -EINVAL;
	pthread_mutex_lock(&ld->lock);
	logw_append(ld, LOGW_MARK, 0, 0, 0, name, len);
	/* a mark is where a test looks: on the host file at once */
	if (!ld->error && fflush(ld->log))
		ld->error = -EIO;
	ret = ld->error;
	pthread_mutex_unlock(&ld->lock);
	return ret;
}

u64 blksim_bdev_logw_entries(struct block_device *bdev)
{
	struct logw_dev *ld = logw_of(bdev);

	return ld ? logw_count(ld) : 0;
}
