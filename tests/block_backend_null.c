// SPDX-License-Identifier: GPL-2.0-only
/*
 * The null backend: reads fill the bio with zeroes, writes and flushes
 * are dropped but counted; irqmode TIMER gives real latency in the
 * threaded engine and none (virtual time) in the deterministic one.
 */
#include <errno.h>
#include "block_backend.h"

START_TEST(test_null_reads_zeroes)
{
	struct block_device *bdev = blksim_bdev_null_create(NULL, NULL, 0);
	char *buf = bb_alloc(3 * PAGE_SIZE);

	ck_assert(!IS_ERR(bdev));
	ck_assert_str_eq(bdev->bd_name, "nullb0");
	ck_assert_uint_eq(bdev_nr_sectors(bdev), (250ull << 30) >> 9);
	memset(buf, 0xaa, 3 * PAGE_SIZE);
	/* a read across page boundaries, not starting on one */
	ck_assert_int_eq(
		bb_rw(bdev, REQ_OP_READ, 1000, buf + 512, 2 * PAGE_SIZE), 0);
	for (size_t i = 0; i < 3 * PAGE_SIZE; i++) {
		bool in = i >= 512 && i < 512 + 2 * PAGE_SIZE;

		ck_assert_int_eq((unsigned char)buf[i], in ? 0 : 0xaa);
	}
	bb_free(buf, 3 * PAGE_SIZE);
	blksim_bdev_destroy(bdev);
}
END_TEST

START_TEST(test_null_writes_dropped_and_counted)
{
	struct blksim_null_opts o = { .logical_block_size = 4096,
				      .size = 1 << 30,
				      .write_cache = true,
				      .fua = true };
	struct block_device *bdev = blksim_bdev_null_create(&o, NULL, 0);
	struct blksim_bdev_counters c;
	char *buf = bb_alloc(16384);

	ck_assert(!IS_ERR(bdev));
	ck_assert_uint_eq(bdev_logical_block_size(bdev), 4096);
	ck_assert(bdev_write_cache(bdev) && bdev_fua(bdev));
	bb_fill(buf, 16384, 0, 1);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 0, buf, 16384), 0);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE | REQ_FUA, 8, buf, 4096), 0);
	ck_assert_int_eq(bb_flush(bdev), 0);
	/* nothing was kept */
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, buf, 16384), 0);
	for (int i = 0; i < 16384; i++)
		ck_assert_int_eq(buf[i], 0);
	ck_assert(blksim_bdev_get_counters(bdev, &c));
	ck_assert_uint_eq(c.write_bios, 2);
	ck_assert_uint_eq(c.write_bytes, 16384 + 4096);
	ck_assert_uint_eq(c.fua_bios, 1);
	ck_assert_uint_eq(c.flush_bios, 1);
	ck_assert_uint_eq(c.read_bios, 1);
	ck_assert_uint_eq(c.read_bytes, 16384);
	/* past the end is still an error, as on any device */
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, (1 << 30) >> 9, buf, 4096),
			 -EIO);
	bb_free(buf, 16384);
	blksim_bdev_destroy(bdev);
}
END_TEST

START_TEST(test_null_bad_options)
{
	struct blksim_null_opts o = { .irqmode = 1 };
	char err[128] = "";
	struct block_device *bdev =
		blksim_bdev_null_create(&o, err, sizeof(err));

	ck_assert_int_eq(PTR_ERR(bdev), -EINVAL);
	ck_assert_str_eq(err, "null: irqmode 1 is not 0 (none) or 2 (timer)");
	o = (struct blksim_null_opts){ .logical_block_size = 2000 };
	bdev = blksim_bdev_null_create(&o, err, sizeof(err));
	ck_assert_int_eq(PTR_ERR(bdev), -EINVAL);
	ck_assert_str_eq(
		err,
		"null: logical block size 2000 is not a power of two from 512 to 4096");
}
END_TEST

/* Deterministic engine: time is virtual, the latency costs nothing. */
START_TEST(test_null_timer_det_is_virtual)
{
	struct blksim_null_opts o = { .irqmode = BLKSIM_NULL_IRQ_TIMER,
				      .completion_nsec = 5000000000ull };
	struct block_device *bdev = blksim_bdev_null_create(&o, NULL, 0);
	char *buf = bb_alloc(4096);
	u64 t0 = bb_now_ns();

	ck_assert(!IS_ERR(bdev));
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, buf, 4096), 0);
	ck_assert_uint_lt(bb_now_ns() - t0, 1000000000ull);
	bb_free(buf, 4096);
	blksim_bdev_destroy(bdev);
}
END_TEST

/* Threaded engine: a timer thread ends the bio after the latency. */
START_TEST(test_null_timer_threaded_latency)
{
	struct blksim_null_opts o = { .irqmode = BLKSIM_NULL_IRQ_TIMER,
				      .completion_nsec = 20000000 };
	struct block_device *bdev = blksim_bdev_null_create(&o, NULL, 0);
	enum { N = 16 };
	struct bb_async a[N];
	char *buf = bb_alloc(N * 4096);
	u64 t0 = bb_now_ns(), dt;

	ck_assert(!IS_ERR(bdev));
	for (int i = 0; i < N; i++)
		bb_submit_nth(bdev, REQ_OP_READ, buf, 4096, i, &a[i]);
	for (int i = 0; i < N; i++) {
		wait_for_completion(&a[i].done);
		ck_assert_int_eq(a[i].status, BLK_STS_OK);
		ck_assert_int_eq(a[i].ended, 1);
	}
	dt = bb_now_ns() - t0;
	/* all in flight together: about one latency, not N of them */
	ck_assert_uint_ge(dt, 20000000);
	ck_assert_uint_lt(dt, (u64)N * 20000000);
	ck_assert_int_eq(sim_stat_get("bdev_null_timer_pending"), 0);
	bb_free(buf, N * 4096);
	blksim_bdev_destroy(bdev);
}
END_TEST

static Suite *null_suite(void)
{
	Suite *s = sim_suite("block_backend_null", sim_tcase("null"),
			     test_null_reads_zeroes,
			     test_null_writes_dropped_and_counted,
			     test_null_bad_options,
			     test_null_timer_det_is_virtual);

	sim_suite_add(s, sim_tcase_threaded("null-threaded"),
		      test_null_timer_threaded_latency);
	return s;
}

SIM_TEST_MAIN(null_suite)
