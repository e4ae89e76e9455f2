// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ram backend: data round trips at each logical block size, the
 * limits it reports, per-op counters, the volatile write cache against a
 * power failure (FUA, PREFLUSH, flush), the checks a device makes (end
 * of device, alignment, read-only), a no-copy bio whose iterator starts
 * mid-table, and concurrent I/O in the threaded engine.
 */
#include <errno.h>
#include <linux/uio.h>
#include "block_backend.h"

static struct block_device *ram_new(unsigned int lbs, u64 size, bool wc,
				    bool fua)
{
	struct blksim_ram_opts o = { .logical_block_size = lbs,
				     .size = size,
				     .write_cache = wc,
				     .fua = fua };
	char err[128] = "";
	struct block_device *bdev =
		blksim_bdev_ram_create(&o, err, sizeof(err));

	ck_assert_msg(!IS_ERR(bdev), "ram create: %s", err);
	return bdev;
}

static void roundtrip(unsigned int lbs)
{
	struct block_device *bdev = ram_new(lbs, 4 << 20, false, false);
	const unsigned int len = 64 << 10;
	char *w = bb_alloc(len), *r = bb_alloc(len);
	sector_t sector = (3 * lbs) >> SECTOR_SHIFT;

	bb_fill(w, len, 0, lbs);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, sector, w, len), 0);
	memset(r, 0, len);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, sector, r, len), 0);
	ck_assert(bb_check(r, len, 0, lbs));
	/* the device's own image holds it at the bio's byte offset */
	ck_assert(
		!memcmp((char *)blksim_bdev_ram_data(bdev) + 3 * lbs, w, len));
	/* a read of one block in the middle */
	memset(r, 0, lbs);
	ck_assert_int_eq(
		bb_rw(bdev, REQ_OP_READ, sector + (lbs >> 9) * 5, r, lbs), 0);
	ck_assert(bb_check(r, lbs, 5 * lbs, lbs));

	bb_free(w, len);
	bb_free(r, len);
	blksim_bdev_destroy(bdev);
}

START_TEST(test_ram_roundtrip_lbs512)
{
	roundtrip(512);
}
END_TEST

START_TEST(test_ram_roundtrip_lbs1024)
{
	roundtrip(1024);
}
END_TEST

START_TEST(test_ram_roundtrip_lbs4096)
{
	roundtrip(4096);
}
END_TEST

START_TEST(test_ram_limits)
{
	struct blksim_ram_opts o = {
		.name = "ramx",
		.size = 8 << 20,
		.logical_block_size = 1024,
		.physical_block_size = 4096,
		.io_opt = 65536,
		.dma_alignment = 4095,
		.write_cache = true,
		.fua = true,
	};
	struct block_device *bdev = blksim_bdev_ram_create(&o, NULL, 0);

	ck_assert(!IS_ERR(bdev));
	ck_assert_str_eq(bdev->bd_name, "ramx");
	ck_assert_uint_eq(bdev_nr_sectors(bdev), (8 << 20) >> 9);
	ck_assert_uint_eq(bdev_logical_block_size(bdev), 1024);
	ck_assert_uint_eq(bdev_physical_block_size(bdev), 4096);
	ck_assert_uint_eq(bdev_io_min(bdev), 4096);
	ck_assert_uint_eq(bdev_io_opt(bdev), 65536);
	ck_assert_uint_eq(bdev_dma_alignment(bdev), 4095);
	ck_assert(bdev_write_cache(bdev));
	ck_assert(bdev_fua(bdev));
	ck_assert(bdev_nowait(bdev));
	ck_assert(!bdev_read_only(bdev));
	ck_assert_uint_eq(blksim_bdev_ram_size(bdev), 8 << 20);
	blksim_bdev_destroy(bdev);

	/* defaults: 512-byte blocks, the kernel's dma alignment, no cache */
	bdev = blksim_bdev_ram_create(NULL, NULL, 0);
	ck_assert(!IS_ERR(bdev));
	ck_assert_str_eq(bdev->bd_name, "ram0");
	ck_assert_uint_eq(bdev_logical_block_size(bdev), 512);
	ck_assert_uint_eq(bdev_physical_block_size(bdev), 512);
	ck_assert_uint_eq(bdev_dma_alignment(bdev), 511);
	ck_assert_uint_eq(queue_dma_alignment(bdev_get_queue(bdev)), 511);
	ck_assert(!bdev_write_cache(bdev));
	ck_assert(!bdev_fua(bdev));
	ck_assert_uint_eq(bdev_nr_sectors(bdev), (64 << 20) >> 9);
	blksim_bdev_destroy(bdev);

	/* a driver may ask for less than 512 (NVMe: 3); it is kept */
	o = (struct blksim_ram_opts){ .dma_alignment = 3 };
	bdev = blksim_bdev_ram_create(&o, NULL, 0);
	ck_assert(!IS_ERR(bdev));
	ck_assert_uint_eq(bdev_dma_alignment(bdev), 3);
	ck_assert(bdev_get_queue(bdev)->limits.features & BLK_FEAT_POLL);
	blksim_bdev_destroy(bdev);

	/* no poll queues, and a fault wrapper over it says the same */
	o = (struct blksim_ram_opts){ .no_poll = true, .dma_alignment = 4095 };
	bdev = blksim_bdev_ram_create(&o, NULL, 0);
	ck_assert(!IS_ERR(bdev));
	ck_assert(!(bdev_get_queue(bdev)->limits.features & BLK_FEAT_POLL));
	bdev = blksim_bdev_fault_wrap(bdev, NULL, 0);
	ck_assert(!IS_ERR(bdev));
	ck_assert(!(bdev_get_queue(bdev)->limits.features & BLK_FEAT_POLL));
	ck_assert_uint_eq(bdev_dma_alignment(bdev), 4095);
	blksim_bdev_destroy(bdev);
}
END_TEST

START_TEST(test_ram_bad_options)
{
	static const struct {
		struct blksim_ram_opts o;
		const char *msg;
	} bad[] = {
		{ { .logical_block_size = 768 },
		  "ram: logical block size 768 is not a power of two from 512 to 4096" },
		{ { .logical_block_size = 8192 },
		  "ram: logical block size 8192 is not a power of two from 512 to 4096" },
		{ { .logical_block_size = 4096, .physical_block_size = 512 },
		  "ram: physical block size 512 is not a power of two >= the logical block size 4096" },
		{ { .logical_block_size = 4096, .size = 4096 * 10 + 512 },
		  "ram: size 41472 is not a multiple of the logical block size 4096" },
		{ { .dma_alignment = 6 },
		  "ram: dma_alignment 0x6 is not a mask (2^n - 1)" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char err[160] = "";
		struct block_device *bdev =
			blksim_bdev_ram_create(&bad[i].o, err, sizeof(err));

		ck_assert(IS_ERR(bdev));
		ck_assert_int_eq(PTR_ERR(bdev), -EINVAL);
		ck_assert_str_eq(err, bad[i].msg);
	}
}
END_TEST

START_TEST(test_ram_counters)
{
	struct block_device *bdev = ram_new(512, 1 << 20, true, true);
	struct blksim_bdev_counters c;
	char *buf = bb_alloc(8192);

	bb_fill(buf, 8192, 0, 1);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 0, buf, 4096), 0);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE | REQ_FUA, 8, buf, 8192), 0);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, buf, 512), 0);
	ck_assert_int_eq(bb_flush(bdev), 0);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE | REQ_PREFLUSH, 0, buf, 512),
			 0);
	ck_assert_int_eq(bdev->bd_ops->flush(bdev), 0);

	ck_assert(blksim_bdev_get_counters(bdev, &c));
	ck_assert_uint_eq(c.write_bios, 3);
	ck_assert_uint_eq(c.write_bytes, 4096 + 8192 + 512);
	ck_assert_uint_eq(c.read_bios, 1);
	ck_assert_uint_eq(c.read_bytes, 512);
	ck_assert_uint_eq(c.flush_bios, 1);
	ck_assert_uint_eq(c.fua_bios, 1);
	ck_assert_uint_eq(c.preflush_bios, 2); /* the flush is one too */
	ck_assert_uint_eq(c.flush_calls, 1);
	ck_assert_uint_eq(c.error_bios, 0);

	blksim_bdev_reset_counters(bdev);
	ck_assert(blksim_bdev_get_counters(bdev, &c));
	ck_assert_uint_eq(c.write_bios + c.read_bios + c.flush_bios, 0);
	bb_free(buf, 8192);
	blksim_bdev_destroy(bdev);
}
END_TEST

/*
 * Volatile cache + FUA: what survives a power failure is exactly what was
 * written with FUA or covered by a flush.
 */
START_TEST(test_ram_power_fail_fua_and_flush)
{
	struct block_device *bdev = ram_new(512, 1 << 20, true, true);
	char *a = bb_alloc(4096), *b = bb_alloc(4096), *z = bb_alloc(4096);
	const char *media;

	memset(z, 0, 4096);
	bb_fill(a, 4096, 0, 1);
	bb_fill(b, 4096, 0, 2);
	/* sectors 0-7: plain write (volatile); 8-15: FUA (durable) */
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 0, a, 4096), 0);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE | REQ_FUA, 8, b, 4096), 0);
	media = blksim_bdev_ram_media(bdev);
	ck_assert(!memcmp(media, z, 4096));
	ck_assert(!memcmp(media + 4096, b, 4096));

	blksim_bdev_ram_power_fail(bdev);
	memset(a, 0xee, 4096);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, a, 4096), 0);
	ck_assert(!memcmp(a, z, 4096)); /* lost */
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 8, a, 4096), 0);
	ck_assert(!memcmp(a, b, 4096)); /* kept */

	/* a flush bio makes earlier writes durable */
	bb_fill(a, 4096, 0, 3);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 16, a, 4096), 0);
	ck_assert_int_eq(bb_flush(bdev), 0);
	/* a PREFLUSH write makes the ones before it durable, not itself */
	bb_fill(b, 4096, 0, 4);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 24, b, 4096), 0);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE | REQ_PREFLUSH, 32, b, 512),
			 0);
	blksim_bdev_ram_power_fail(bdev);
	media = blksim_bdev_ram_data(bdev);
	ck_assert(!memcmp(media + 16 * 512, a, 4096));
	ck_assert(!memcmp(media + 24 * 512, b, 4096));
	ck_assert(!memcmp(media + 32 * 512, z, 512));

	bb_free(a, 4096);
	bb_free(b, 4096);
	bb_free(z, 4096);
	blksim_bdev_destroy(bdev);
}
END_TEST

/*
 * blksim_bdev_ram_zero() makes both images zero and nothing dirty;
 * blksim_bdev_ram_zero_data() only what reads return: the media keeps what
 * was made durable, and a flush writes the zeroes back.
 */
START_TEST(test_ram_zero_images)
{
	struct block_device *bdev = ram_new(512, 1 << 20, true, true);
	char *a = bb_alloc(8192), *z = bb_alloc(8192);
	const char *media = blksim_bdev_ram_media(bdev);
	const char *data = blksim_bdev_ram_data(bdev);

	memset(z, 0, 8192);
	bb_fill(a, 8192, 0, 6);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE | REQ_FUA, 0, a, 8192), 0);

	blksim_bdev_ram_zero_data(bdev, 0, 4096);
	ck_assert(!memcmp(data, z, 4096));
	ck_assert(!memcmp(data + 4096, a + 4096, 4096));
	ck_assert(!memcmp(media, a, 8192));
	ck_assert_int_eq(bb_flush(bdev), 0);
	ck_assert(!memcmp(media, z, 4096));

	blksim_bdev_ram_zero(bdev, 4096, 4096);
	ck_assert(!memcmp(data + 4096, z, 4096));
	ck_assert(!memcmp(media + 4096, z, 4096));
	bb_free(a, 8192);
	bb_free(z, 8192);
	blksim_bdev_destroy(bdev);
}
END_TEST

/*
 * Without BLK_FEAT_FUA the device still honours REQ_FUA, as a bio-based
 * driver must: the feature only says FUA is cheap.
 */
START_TEST(test_ram_fua_without_feature)
{
	struct block_device *bdev = ram_new(512, 1 << 20, true, false);
	char *a = bb_alloc(4096);

	ck_assert(bdev_write_cache(bdev));
	ck_assert(!bdev_fua(bdev));
	bb_fill(a, 4096, 0, 5);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE | REQ_FUA, 0, a, 4096), 0);
	blksim_bdev_ram_power_fail(bdev);
	ck_assert(bb_check(blksim_bdev_ram_data(bdev), 4096, 0, 5));
	bb_free(a, 4096);
	blksim_bdev_destroy(bdev);
}
END_TEST

/* Without a write cache everything written is on the media at once. */
START_TEST(test_ram_no_cache_is_durable)
{
	struct block_device *bdev = ram_new(512, 1 << 20, false, false);
	char *a = bb_alloc(4096);

	bb_fill(a, 4096, 0, 6);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 0, a, 4096), 0);
	blksim_bdev_ram_power_fail(bdev);
	ck_assert(!memcmp(blksim_bdev_ram_media(bdev), a, 4096));
	ck_assert(blksim_bdev_ram_media(bdev) == blksim_bdev_ram_data(bdev));
	bb_free(a, 4096);
	blksim_bdev_destroy(bdev);
}
END_TEST

START_TEST(test_ram_beyond_end_and_unaligned)
{
	struct block_device *bdev = ram_new(4096, 1 << 20, false, false);
	char *a = bb_alloc(8192);
	sector_t last = bdev_nr_sectors(bdev) - 8;

	bb_fill(a, 8192, 0, 7);
	/* the last block is fine, one more is past the end */
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, last, a, 4096), 0);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, last, a, 8192), -EIO);
	/* 512 bytes on a 4096-byte-block device, and a misaligned start */
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, a, 512), -EIO);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 1, a, 4096), -EIO);
	/* nothing past the end was touched: the device still has one block */
	ck_assert(bb_check((char *)blksim_bdev_ram_data(bdev) + (last << 9),
			   4096, 0, 7));
	bb_free(a, 8192);
	blksim_bdev_destroy(bdev);
}
END_TEST

START_TEST(test_ram_read_only)
{
	struct blksim_ram_opts o = { .size = 1 << 20, .read_only = true };
	struct block_device *bdev = blksim_bdev_ram_create(&o, NULL, 0);
	char *a = bb_alloc(4096);
	struct blksim_bdev_counters c;

	ck_assert(!IS_ERR(bdev));
	ck_assert(bdev_read_only(bdev));
	bb_fill(a, 4096, 0, 8);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 0, a, 4096), -EIO);
	ck_assert_int_eq(((char *)blksim_bdev_ram_data(bdev))[0], 0);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, a, 4096), 0);
	ck_assert(blksim_bdev_get_counters(bdev, &c));
	ck_assert_uint_eq(c.error_bios, 1);
	bb_free(a, 4096);
	blksim_bdev_destroy(bdev);
}
END_TEST

/*
 * A no-copy bio (bio_iov_bvec_set) over a bvec table whose iterator
 * starts in the middle of its second entry: the data must come from and
 * go to bi_iter's position, not the start of the table.
 */
START_TEST(test_ram_nocopy_bvec_midway)
{
	struct block_device *bdev = ram_new(512, 1 << 20, false, false);
	char *pg = bb_alloc(4 * PAGE_SIZE);
	struct bio_vec bv[3];
	struct iov_iter iter;
	struct bio *bio;

	bb_fill(pg, 4 * PAGE_SIZE, 0, 9);
	bvec_set_virt(&bv[0], pg, 1024);
	bvec_set_virt(&bv[1], pg + PAGE_SIZE, 2048);
	bvec_set_virt(&bv[2], pg + 2 * PAGE_SIZE, 2048);
	iov_iter_bvec(&iter, ITER_SOURCE, bv, 3, 1024 + 2048 + 2048);
	iov_iter_advance(&iter, 1024 + 512); /* mid-way into bv[1] */

	bio = bio_alloc(bdev, 0, REQ_OP_WRITE, GFP_KERNEL);
	bio->bi_iter.bi_sector = 40;
	bio_iov_bvec_set(bio, &iter);
	ck_assert_uint_eq(bio->bi_iter.bi_size, 1536 + 2048);
	ck_assert_int_eq(submit_bio_wait(bio), 0);
	bio_put(bio);

	/* device = bv[1] from byte 512, then all of bv[2] */
	ck_assert(!memcmp((char *)blksim_bdev_ram_data(bdev) + 40 * 512,
			  pg + PAGE_SIZE + 512, 1536));
	ck_assert(!memcmp((char *)blksim_bdev_ram_data(bdev) + 40 * 512 + 1536,
			  pg + 2 * PAGE_SIZE, 2048));

	/* and a read lands at the same place in the table */
	memset(pg, 0, 4 * PAGE_SIZE);
	iov_iter_bvec(&iter, ITER_DEST, bv, 3, 1024 + 2048 + 2048);
	iov_iter_advance(&iter, 1024 + 512);
	bio = bio_alloc(bdev, 0, REQ_OP_READ, GFP_KERNEL);
	bio->bi_iter.bi_sector = 40;
	bio_iov_bvec_set(bio, &iter);
	ck_assert_int_eq(submit_bio_wait(bio), 0);
	bio_put(bio);
	ck_assert_int_eq(pg[PAGE_SIZE + 511], 0);
	ck_assert(!memcmp(pg + PAGE_SIZE + 512,
			  (char *)blksim_bdev_ram_data(bdev) + 40 * 512, 1536));
	ck_assert(!memcmp(pg + 2 * PAGE_SIZE,
			  (char *)blksim_bdev_ram_data(bdev) + 40 * 512 + 1536,
			  2048));
	bb_free(pg, 4 * PAGE_SIZE);
	blksim_bdev_destroy(bdev);
}
END_TEST

/* Many bios in flight at once from the threaded engine. */
START_TEST(test_ram_threaded_async)
{
	struct block_device *bdev = ram_new(512, 4 << 20, true, true);
	enum { N = 64, LEN = 8192 };
	struct bb_async a[N];
	char *buf = bb_alloc(N * LEN), *r = bb_alloc(N * LEN);

	bb_fill(buf, N * LEN, 0, 10);
	for (int i = 0; i < N; i++)
		bb_submit_nth(bdev, REQ_OP_WRITE | (i & 1 ? REQ_FUA : 0), buf,
			      LEN, i, &a[i]);
	for (int i = 0; i < N; i++) {
		wait_for_completion(&a[i].done);
		ck_assert_int_eq(a[i].status, BLK_STS_OK);
	}
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, r, N * LEN), 0);
	ck_assert(bb_check(r, N * LEN, 0, 10));
	bb_free(buf, N * LEN);
	bb_free(r, N * LEN);
	blksim_bdev_destroy(bdev);
}
END_TEST

static Suite *ram_suite(void)
{
	Suite *s = sim_suite("block_backend_ram", sim_tcase("ram"),
			     test_ram_roundtrip_lbs512,
			     test_ram_roundtrip_lbs1024,
			     test_ram_roundtrip_lbs4096, test_ram_limits,
			     test_ram_bad_options, test_ram_counters,
			     test_ram_power_fail_fua_and_flush,
			     test_ram_zero_images, test_ram_fua_without_feature,
			     test_ram_no_cache_is_durable,
			     test_ram_beyond_end_and_unaligned,
			     test_ram_read_only, test_ram_nocopy_bvec_midway);

	sim_suite_add(s, sim_tcase_threaded("ram-threaded"),
		      test_ram_threaded_async);
	return s;
}

SIM_TEST_MAIN(ram_suite)
