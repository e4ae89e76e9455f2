// SPDX-License-Identifier: GPL-2.0-only
/*
 * The log-writes wrapper (dm-log-writes): writes are logged with their
 * data and flags in completion order, reads pass untouched and unlogged;
 * an empty REQ_PREFLUSH bio, ->flush() and a write's preflush each log a
 * flush covering exactly the writes completed when it was submitted (not
 * one still in flight); a failed write is not logged but still fails;
 * marks are logged by name; a log file that exists is refused.
 */
#include <errno.h>
#include <unistd.h>
#include <sim/logw-format.h>
#include "block_backend.h"

static struct block_device *ram;
static char dir[64], logp[128];

struct rec {
	struct logw_entry e;
	unsigned char data[8192];
};

static struct rec recs[32];
static u32 want_features = LOGW_SUPER_WRITE_CACHE;
static int nr_recs;

/* A log-writes device over a 1 MiB ram device (in @ram), or @lower. */
static struct block_device *logw_new(struct block_device *lower)
{
	struct blksim_ram_opts o = { .size = 1 << 20,
				     .write_cache = true,
				     .fua = true };
	char err[256] = "";
	struct block_device *bdev;

	snprintf(dir, sizeof(dir), "/tmp/iomapsim-logw-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(logp, sizeof(logp), "%s/log", dir);
	if (!lower) {
		ram = blksim_bdev_ram_create(&o, err, sizeof(err));
		ck_assert_msg(!IS_ERR(ram), "%s", err);
		lower = ram;
	}
	bdev = blksim_bdev_logw_wrap(lower, logp, err, sizeof(err));
	ck_assert_msg(!IS_ERR(bdev), "%s", err);
	return bdev;
}

/* Destroy @bdev (the log is complete then) and read the log back. */
static void logw_read(struct block_device *bdev)
{
	struct logw_super s;
	FILE *f;

	blksim_bdev_destroy(bdev);
	f = fopen(logp, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fread(&s, sizeof(s), 1, f), 1);
	ck_assert(!memcmp(s.magic, LOGW_MAGIC, sizeof(s.magic)));
	ck_assert_uint_eq(s.version, LOGW_VERSION);
	ck_assert_uint_eq(s.nr_sectors, (1 << 20) >> 9);
	ck_assert_uint_eq(s.features, want_features);
	for (nr_recs = 0; nr_recs < (int)ARRAY_SIZE(recs); nr_recs++) {
		struct rec *r = &recs[nr_recs];

		if (fread(&r->e, sizeof(r->e), 1, f) != 1)
			break;
		ck_assert_uint_eq(r->e.magic, LOGW_ENTRY_MAGIC);
		ck_assert_uint_eq(r->e.seq, nr_recs);
		ck_assert_uint_le(r->e.len, sizeof(r->data));
		if (r->e.len)
			ck_assert_int_eq(fread(r->data, r->e.len, 1, f), 1);
	}
	fclose(f);
	unlink(logp);
	rmdir(dir);
}

static void want_write(int i, sector_t sector, unsigned int len, u32 flags,
		       unsigned int seed)
{
	ck_assert_uint_eq(recs[i].e.type, LOGW_WRITE);
	ck_assert_uint_eq(recs[i].e.sector, sector);
	ck_assert_uint_eq(recs[i].e.len, len);
	ck_assert_uint_eq(recs[i].e.flags, flags);
	ck_assert(bb_check(recs[i].data, len, sector << 9, seed));
}

static void want_flush(int i, u64 covers)
{
	ck_assert_uint_eq(recs[i].e.type, LOGW_FLUSH);
	ck_assert_uint_eq(recs[i].e.covers, covers);
	ck_assert_uint_eq(recs[i].e.len, 0);
}

static void fill_write(struct block_device *bdev, blk_opf_t flags,
		       sector_t sector, char *buf, unsigned int len,
		       unsigned int seed)
{
	bb_fill(buf, len, sector << 9, seed);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE | flags, sector, buf, len),
			 0);
}

START_TEST(test_logw_order_and_flags)
{
	struct block_device *bdev = logw_new(NULL);
	char *buf = bb_alloc(8192);

	ck_assert_ptr_eq(blksim_bdev_logw_lower(bdev), ram);
	fill_write(bdev, 0, 0, buf, 4096, 1);
	fill_write(bdev, REQ_FUA, 8, buf, 8192, 2);
	/* a read reaches the device and is not logged */
	memset(buf, 0, 4096);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, buf, 4096), 0);
	ck_assert(bb_check(buf, 4096, 0, 1));
	ck_assert_int_eq(bb_flush(bdev), 0);
	fill_write(bdev, REQ_PREFLUSH | REQ_FUA | REQ_META, 24, buf, 4096, 3);
	ck_assert_int_eq(bdev->bd_ops->flush(bdev), 0);
	ck_assert_uint_eq(blksim_bdev_logw_entries(bdev), 6);
	ck_assert_int_eq(blksim_bdev_logw_mark(bdev, "done"), 0);
	/* what the device holds is what was written */
	ck_assert(bb_check(blksim_bdev_ram_data(ram) + (24 << 9), 4096, 24 << 9,
			   3));
	logw_read(bdev);

	ck_assert_int_eq(nr_recs, 7);
	want_write(0, 0, 4096, 0, 1);
	want_write(1, 8, 8192, LOGW_FUA, 2);
	want_flush(2, 2);
	/* a preflush logs its flush first, then the write */
	want_flush(3, 3);
	want_write(4, 24, 4096, LOGW_PREFLUSH | LOGW_FUA | LOGW_META, 3);
	want_flush(5, 5);
	ck_assert_uint_eq(recs[6].e.type, LOGW_MARK);
	ck_assert_uint_eq(recs[6].e.len, 4);
	ck_assert(!memcmp(recs[6].data, "done", 4));
	bb_free(buf, 8192);
}
END_TEST

/* A flush covers writes completed before it, not one still in flight. */
START_TEST(test_logw_flush_covers_completed_only)
{
	struct block_device *bdev = logw_new(NULL);
	char *buf = bb_alloc(4096);
	struct bb_async w, fl;

	fill_write(bdev, 0, 0, buf, 4096, 4);
	bb_fill(buf, 4096, 8 << 9, 5);
	/* completions are engine events: neither has ended yet */
	bb_submit_async(bb_bio(bdev, REQ_OP_WRITE, 8, buf, 4096), &w);
	bb_submit_async(bb_bio(bdev, REQ_OP_WRITE | REQ_PREFLUSH, 0, NULL, 0),
			&fl);
	wait_for_completion(&w.done);
	wait_for_completion(&fl.done);
	ck_assert_int_eq(w.status, BLK_STS_OK);
	ck_assert_int_eq(fl.status, BLK_STS_OK);
	logw_read(bdev);

	ck_assert_int_eq(nr_recs, 3);
	want_write(0, 0, 4096, 0, 4);
	want_write(1, 8, 4096, 0, 5);
	/* it covers entry 0 only, although it was logged after entry 1 */
	want_flush(2, 1);
	bb_free(buf, 4096);
}
END_TEST

/* A write the device below fails is not logged, and still fails. */
START_TEST(test_logw_failed_write_not_logged)
{
	struct blksim_ram_opts o = { .size = 1 << 20 };
	char err[256] = "";
	struct block_device *r2 = blksim_bdev_ram_create(&o, err, sizeof(err));
	struct block_device *fault, *bdev;
	char *buf = bb_alloc(4096);

	ck_assert_msg(!IS_ERR(r2), "%s", err);
	fault = blksim_bdev_fault_wrap(r2, err, sizeof(err));
	ck_assert_msg(!IS_ERR(fault), "%s", err);
	bdev = logw_new(fault);
	/* no write cache below: every completed write is on the media */
	want_features = 0;
	ck_assert_int_gt(blksim_bdev_fault_add(fault,
					       "bio-error:2:MEDIUM:write", err,
					       sizeof(err)),
			 0);
	fill_write(bdev, 0, 0, buf, 4096, 6);
	bb_fill(buf, 4096, 8 << 9, 7);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 8, buf, 4096), -ENODATA);
	ck_assert_uint_eq(blksim_bdev_logw_entries(bdev), 1);
	logw_read(bdev);
	ck_assert_int_eq(nr_recs, 1);
	want_write(0, 0, 4096, 0, 6);
	want_features = LOGW_SUPER_WRITE_CACHE;
	bb_free(buf, 4096);
}
END_TEST

START_TEST(test_logw_refusals)
{
	struct block_device *bdev = logw_new(NULL);
	char err[256] = "", name[LOGW_MARK_MAX + 2];
	struct block_device *again;

	ck_assert_int_eq(blksim_bdev_logw_mark(bdev, ""), -EINVAL);
	memset(name, 'm', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	ck_assert_int_eq(blksim_bdev_logw_mark(bdev, name), -EINVAL);
	name[LOGW_MARK_MAX] = 0;
	ck_assert_int_eq(blksim_bdev_logw_mark(bdev, name), 0);
	/* not a log-writes device */
	ck_assert_int_eq(blksim_bdev_logw_mark(ram, "x"), -EINVAL);
	ck_assert_uint_eq(blksim_bdev_logw_entries(ram), 0);
	ck_assert_ptr_null(blksim_bdev_logw_lower(ram));
	/* a log is never appended to */
	again = blksim_bdev_logw_wrap(ram, logp, err, sizeof(err));
	ck_assert_int_eq(PTR_ERR(again), -EEXIST);
	ck_assert_msg(strstr(err, logp) && strstr(err, "never appended"), "%s",
		      err);
	logw_read(bdev);
	ck_assert_int_eq(nr_recs, 1);
	ck_assert_uint_eq(recs[0].e.type, LOGW_MARK);
	ck_assert_uint_eq(recs[0].e.len, LOGW_MARK_MAX);
}
END_TEST

static Suite *logw_suite(void)
{
	return sim_suite("block_backend_logw", sim_tcase("logw"),
			 test_logw_order_and_flags,
			 test_logw_flush_covers_completed_only,
			 test_logw_failed_write_not_logged, test_logw_refusals);
}

SIM_TEST_MAIN(logw_suite)
