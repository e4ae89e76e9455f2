// SPDX-License-Identifier: GPL-2.0-only
/*
 * The test file system's contract (allocation rules, extent map, model)
 * and the page-cache and fserror models direct I/O relies on; and
 * sequences of requests on one file, which the one-shot runner cannot do.
 */
#include <stdlib.h>
#include <linux/fserror.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include <sim/iomap_features.h>
#include "iomap_common.h"

#define E(t, o, l)                                                            \
	{                                                                     \
		.off = (o), .len = (l), .type = (t), .addr = TESTFS_ADDR_AUTO \
	}

/* The type of the extent at @pos, which must exist. */
static u16 type_at(struct testfs *tf, loff_t pos)
{
	struct testfs_extent e;

	ck_assert(testfs_lookup(tf, pos, &e));
	return e.type;
}

/* A direct write of @len bytes of @fill at @pos, all written. */
static void write_fill(struct testfs *tf, loff_t pos, size_t len, u8 fill)
{
	char *w = aligned_alloc(4096, 8192);

	memset(w, fill, len);
	ck_assert_int_eq(tf_dio(tf, true, pos, w, len), len);
	free(w);
}

/* A direct read of the 4 KiB at @pos: @fill in [@from, @to), else zero. */
static void read_back(struct testfs *tf, loff_t pos, u8 fill, int from, int to)
{
	char *r = aligned_alloc(4096, 4096);

	ck_assert_int_eq(tf_dio(tf, false, pos, r, 4096), 4096);
	for (int i = 0; i < 4096; i++)
		ck_assert_int_eq((u8)r[i], i >= from && i < to ? fill : 0);
	free(r);
}

/* each extent comes back whole, never merged with its neighbour */
START_TEST(test_extent_returned_whole)
{
	static const struct testfs_extent map[] = {
		E(IOMAP_MAPPED, 0, 8192),
		E(IOMAP_MAPPED, 8192, 8192),
	};
	struct testfs *tf = tf_mkfs(map, 2, TESTFS_DOPS_NONE);
	struct iomap m = { 0 }, s = { 0 };

	ck_assert_int_eq(tf->ops.begin(&tf->inode, 4096, 12288, 0, &m, &s), 0);
	ck_assert_int_eq(m.offset, 0);
	ck_assert_uint_eq(m.length, 8192);
	ck_assert_int_eq(m.type, IOMAP_MAPPED);
	testfs_destroy(tf);
}
END_TEST

/* neighbouring extents are not contiguous on the device */
START_TEST(test_extents_not_contiguous)
{
	static const struct testfs_extent map[] = {
		E(IOMAP_MAPPED, 0, 8192),
		E(IOMAP_MAPPED, 8192, 8192),
		E(IOMAP_UNWRITTEN, 16384, 8192),
	};
	struct testfs *tf = tf_mkfs(map, 3, TESTFS_DOPS_NONE);
	struct testfs_extent a, b, c;

	ck_assert(testfs_lookup(tf, 0, &a));
	ck_assert(testfs_lookup(tf, 8192, &b));
	ck_assert(testfs_lookup(tf, 16384, &c));
	ck_assert_uint_ne(a.addr + a.len, b.addr);
	ck_assert_uint_ne(b.addr + b.len, c.addr);
	testfs_destroy(tf);
}
END_TEST

/* gaps in the map read as holes up to the next extent */
START_TEST(test_gap_is_hole)
{
	static const struct testfs_extent map[] = {
		E(IOMAP_MAPPED, 0, 4096),
		E(IOMAP_MAPPED, 16384, 4096),
	};
	struct testfs *tf = tf_mkfs(map, 2, TESTFS_DOPS_NONE);
	struct iomap m = { 0 }, s = { 0 };

	ck_assert_int_eq(tf->ops.begin(&tf->inode, 8192, 4096, 0, &m, &s), 0);
	ck_assert_int_eq(m.type, IOMAP_HOLE);
	ck_assert_int_eq(m.offset, 4096);
	ck_assert_uint_eq(m.length, 12288);
	testfs_destroy(tf);
}
END_TEST

/* a write into a hole allocates new blocks (IOMAP_F_NEW), once */
START_TEST(test_write_allocates)
{
	static const struct testfs_extent map[] = {
		E(IOMAP_HOLE, 0, 65536),
	};
	struct testfs *tf = tf_mkfs(map, 1, TESTFS_DOPS_NONE);
	struct iomap m = { 0 }, s = { 0 };
	struct testfs_extent e;

	ck_assert_int_eq(tf->ops.begin(&tf->inode, 4096 + 100, 1000,
				       IOMAP_WRITE | IOMAP_DIRECT, &m, &s),
			 0);
	ck_assert(m.flags & IOMAP_F_NEW);
	ck_assert_int_eq(m.type, IOMAP_MAPPED);
	ck_assert_int_eq(m.offset, 4096);
	ck_assert_uint_eq(m.length, 4096);
	ck_assert(testfs_lookup(tf, 4096, &e));
	ck_assert_int_eq(e.type, IOMAP_MAPPED);
	ck_assert(!(e.flags & IOMAP_F_NEW)); /* new only for this mapping */
	ck_assert_int_eq(type_at(tf, 0), IOMAP_HOLE);
	ck_assert_uint_eq(tf->allocations, 1);

	memset(&m, 0, sizeof(m));
	ck_assert_int_eq(tf->ops.begin(&tf->inode, 4096, 4096,
				       IOMAP_WRITE | IOMAP_DIRECT, &m, &s),
			 0);
	ck_assert(!(m.flags & IOMAP_F_NEW));
	testfs_destroy(tf);
}
END_TEST

/* past the mapped range too; but never under NOWAIT */
START_TEST(test_write_past_map_nowait)
{
	struct testfs *tf = tf_mkfs(NULL, 0, TESTFS_DOPS_NONE);
	struct iomap m = { 0 }, s = { 0 };

	ck_assert_int_eq(tf->ops.begin(&tf->inode, 1 << 20, 4096,
				       IOMAP_WRITE | IOMAP_NOWAIT, &m, &s),
			 -EAGAIN);
	ck_assert_uint_eq(tf->allocations, 0);
	ck_assert_int_eq(tf->ops.begin(&tf->inode, 1 << 20, 4096, IOMAP_WRITE,
				       &m, &s),
			 0);
	ck_assert(m.flags & IOMAP_F_NEW);
	testfs_destroy(tf);
}
END_TEST

/* written data reads back; the zeroed rest of the new block reads zero */
START_TEST(test_write_then_read_new_block)
{
	static const struct testfs_extent map[] = {
		E(IOMAP_HOLE, 0, 65536),
	};
	struct testfs *tf = tf_mkfs(map, 1, TESTFS_DOPS_NONE);

	write_fill(tf, 8192 + 1024, 1024, 0x77);
	read_back(tf, 8192, 0x77, 1024, 2048);
	testfs_destroy(tf);
}
END_TEST

/* an unwritten extent written without ->end_io still reads as zeroes */
START_TEST(test_unwritten_stays_without_end_io)
{
	static const struct testfs_extent map[] = {
		E(IOMAP_UNWRITTEN, 0, 65536),
	};
	struct testfs *tf = tf_mkfs(map, 1, TESTFS_DOPS_NONE);

	write_fill(tf, 4096, 4096, 0x55);
	read_back(tf, 4096, 0x55, 0, 0);
	ck_assert_int_eq(type_at(tf, 4096), IOMAP_UNWRITTEN);
	testfs_destroy(tf);
}
END_TEST

/* with ->end_io the written blocks convert, split out of the extent */
START_TEST(test_unwritten_converts_with_end_io)
{
	static const struct testfs_extent map[] = {
		E(IOMAP_UNWRITTEN, 0, 65536),
	};
	struct testfs *tf = tf_mkfs(map, 1, TESTFS_DOPS_END_IO);
	struct testfs_extent e;

	write_fill(tf, 4096 + 512, 2048, 0x55);
	ck_assert_uint_eq(tf->conversions, 1);
	ck_assert(testfs_lookup(tf, 4096, &e));
	ck_assert_int_eq(e.type, IOMAP_MAPPED);
	ck_assert_int_eq(e.off, 4096);
	ck_assert_uint_eq(e.len, 4096);
	ck_assert_int_eq(type_at(tf, 0), IOMAP_UNWRITTEN);
	ck_assert_int_eq(type_at(tf, 8192), IOMAP_UNWRITTEN);

	read_back(tf, 4096, 0x55, 512, 2560);
	testfs_destroy(tf);
}
END_TEST

/*
 * The runner's write check compares the device with the data directly
 * (testfs_device_holds_dio_write()): it must say what updating the model
 * and comparing with it says, for a good device and for one wrong byte in
 * a zeroed head, in the data, in a kept tail and in an allocated block.
 */
START_TEST(test_device_holds_dio_write)
{
	static const struct testfs_extent map[] = {
		{ .off = 0,
		  .len = 4096,
		  .type = IOMAP_MAPPED,
		  .flags = IOMAP_F_NEW,
		  .addr = TESTFS_ADDR_AUTO },
		E(IOMAP_MAPPED, 4096, 4096),
		E(IOMAP_MAPPED, 12288, 4096),
	};
	struct testfs *tf = tf_mkfs(map, 3, TESTFS_DOPS_NONE);
	const loff_t pos = 1024, n = 13312; /* ends mid-block at 14336 */
	/* file offsets to spoil: head, data, allocated hole, tail */
	const loff_t at[] = { 100, 5000, 9000, 15000 };
	u8 *dev = blksim_bdev_ram_data(tf->ram);
	char *w = aligned_alloc(4096, 16384);

	for (loff_t i = 0; i < n; i++)
		w[i] = (char)(i * 13 + 1);
	ck_assert_int_eq(tf_dio(tf, true, pos, w, n), n);
	ck_assert(testfs_device_holds_dio_write(tf, pos, w, n, 64 << 10));
	for (unsigned int k = 0; k < ARRAY_SIZE(at); k++) {
		struct testfs_extent e;
		u8 *b;

		ck_assert(testfs_lookup(tf, at[k], &e));
		ck_assert_int_eq(e.type, IOMAP_MAPPED);
		b = dev + e.addr + (at[k] - e.off);
		*b ^= 0x40;
		ck_assert_msg(
			!testfs_device_holds_dio_write(tf, pos, w, n, 64 << 10),
			"byte at %lld spoilt, not seen", (long long)at[k]);
		*b ^= 0x40;
	}
	/* the model's way agrees (and changes the model) */
	testfs_model_dio_write(tf, pos, w, n, 64 << 10);
	ck_assert(testfs_device_matches(tf, 0, 16384));
	for (unsigned int k = 0; k < ARRAY_SIZE(at); k++) {
		struct testfs_extent e;

		ck_assert(testfs_lookup(tf, at[k], &e));
		dev[e.addr + (at[k] - e.off)] ^= 0x40;
		ck_assert(!testfs_device_matches(tf, 0, 16384));
		dev[e.addr + (at[k] - e.off)] ^= 0x40;
	}
	testfs_destroy(tf);
	free(w);
}
END_TEST

/* the initial data is the pattern, different in every block */
START_TEST(test_pattern)
{
	struct testfs *tf = tf_mkfs(NULL, 0, TESTFS_DOPS_NONE);
	char *r = aligned_alloc(4096, 8192);

	ck_assert_int_eq(tf_dio(tf, false, 0, r, 8192), 8192);
	for (int i = 0; i < 8192; i++)
		ck_assert_int_eq((u8)r[i], testfs_pattern(i));
	ck_assert_int_ne(memcmp(r, r + 4096, 4096), 0);
	ck_assert(testfs_device_matches(tf, 0, 65536));
	testfs_destroy(tf);
	free(r);
}
END_TEST

/* geometry and map errors are refused with a reason */
/*
 * Nobody watching (tracing off, counting off, no observer): the iomap
 * hooks are one branch and run nothing, so a simple read and a generic
 * one leave no counter and no record behind; counting on again, the same
 * requests are counted and explained (too_large) as before.
 */
START_TEST(test_unwatched_hooks_run_nothing)
{
	static const char *const names[] = {
		"iomap_simple_hits",
		"iomap_dio_generic",
		"iomap_simple_fallback_too_large",
		"iomap_dio_submitter_comp",
	};
	struct testfs *tf = tf_mkfs(NULL, 0, TESTFS_DOPS_NONE);
	char *r = aligned_alloc(4096, 8192);
	long before[ARRAY_SIZE(names)];
	unsigned int i;
	u64 records;

	sim_trace_enable(false);
	sim_watch_set(SIM_WATCH_COUNT, false);
	records = sim_trace_count();
	for (i = 0; i < ARRAY_SIZE(names); i++)
		before[i] = sim_stat_get(names[i]);
	ck_assert_int_eq(tf_dio(tf, false, 0, r, 4096), 4096);
	ck_assert_int_eq(tf_dio(tf, false, 0, r, 8192), 8192);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		ck_assert_msg(sim_stat_get(names[i]) == before[i],
			      "%s counted with nobody watching", names[i]);
	ck_assert_uint_eq(sim_trace_count(), records);

	sim_watch_set(SIM_WATCH_COUNT, true);
	ck_assert_int_eq(tf_dio(tf, false, 0, r, 4096), 4096);
	ck_assert_int_eq(tf_dio(tf, false, 0, r, 8192), 8192);
	sim_trace_enable(true);
	ck_assert_int_eq(sim_stat_get("iomap_simple_hits"), before[0] + 1);
	ck_assert_int_eq(sim_stat_get("iomap_dio_generic"), before[1] + 1);
	ck_assert_int_eq(sim_stat_get("iomap_simple_fallback_too_large"),
			 before[2] + 1);
	ck_assert_int_eq(sim_stat_get("iomap_dio_submitter_comp"),
			 before[3] + 2);
	free(r);
	testfs_destroy(tf);
}
END_TEST

START_TEST(test_bad_setup)
{
	static const struct testfs_extent overlap[] = {
		E(IOMAP_MAPPED, 0, 8192),
		E(IOMAP_MAPPED, 4096, 8192),
	};
	static const struct testfs_extent unaligned[] = {
		E(IOMAP_MAPPED, 100, 4096),
	};
	struct testfs_opts o = { .size = 65536, .map = overlap, .nr_map = 2 };
	char err[128];

	ck_assert(IS_ERR(testfs_create(&o, err, sizeof(err))));
	ck_assert(strstr(err, "overlap"));
	o.map = unaligned;
	o.nr_map = 1;
	ck_assert(IS_ERR(testfs_create(&o, err, sizeof(err))));
	o.map = NULL;
	o.nr_map = 0;
	o.lbs = 8192;
	ck_assert(IS_ERR(testfs_create(&o, err, sizeof(err))));
	o.lbs = 512;
	o.fs_block = 3000;
	ck_assert(IS_ERR(testfs_create(&o, err, sizeof(err))));
}
END_TEST

START_TEST(test_parse_errno)
{
	ck_assert_int_eq(testfs_parse_errno("EIO"), -EIO);
	ck_assert_int_eq(testfs_parse_errno("-ENOSPC"), -ENOSPC);
	ck_assert_int_eq(testfs_parse_errno("enotblk"), -ENOTBLK);
	ck_assert_int_eq(testfs_parse_errno("5"), -5);
	ck_assert_int_eq(testfs_parse_errno("-11"), -11);
	ck_assert_int_eq(testfs_parse_errno("nonsense"), 0);
	ck_assert_int_eq(testfs_parse_errno("0"), 0);
}
END_TEST

/* ---- page-cache model (K-07, K-08, K-10) ------------------------------- */

static struct file pc_file;
static struct inode pc_inode;

static struct kiocb pc_kiocb(loff_t pos, int flags)
{
	memset(&pc_inode, 0, sizeof(pc_inode));
	pc_inode.i_mapping = &pc_inode.i_data;
	pc_inode.i_data.host = &pc_inode;
	pc_file.f_inode = &pc_inode;
	pc_file.f_mapping = &pc_inode.i_data;
	return (struct kiocb){ .ki_filp = &pc_file,
			       .ki_pos = pos,
			       .ki_flags = flags };
}

START_TEST(test_pc_nrpages)
{
	struct kiocb k = pc_kiocb(0, 0);
	struct address_space *m = pc_file.f_mapping;

	ck_assert_int_eq(sim_pc_add(m, 3, 0), 0);
	ck_assert_int_eq(sim_pc_add(m, 1, SIM_PC_DIRTY), 0);
	ck_assert_int_eq(sim_pc_add(m, 3, SIM_PC_BUSY), 0); /* update */
	ck_assert_uint_eq(m->nrpages, 2);
	ck_assert_int_eq(sim_pc_page_flags(m, 1), SIM_PC_DIRTY);
	ck_assert_int_eq(sim_pc_page_flags(m, 2), -1);
	(void)k;
	sim_pc_destroy(m);
	ck_assert_uint_eq(m->nrpages, 0);
}
END_TEST

/* K-07: NOWAIT refuses dirty/writeback pages, else writes them back */
START_TEST(test_pc_write_and_wait)
{
	struct kiocb k = pc_kiocb(4096, IOCB_NOWAIT);
	struct address_space *m = pc_file.f_mapping;

	sim_pc_add(m, 1, SIM_PC_DIRTY);
	ck_assert_int_eq(kiocb_write_and_wait(&k, 4096), -EAGAIN);
	ck_assert_int_eq(kiocb_write_and_wait(&k, 0), 0); /* empty range */
	k.ki_flags = 0;
	ck_assert_int_eq(kiocb_write_and_wait(&k, 4096), 0);
	ck_assert_int_eq(sim_pc_page_flags(m, 1), 0);
	k.ki_flags = IOCB_NOWAIT;
	ck_assert_int_eq(kiocb_write_and_wait(&k, 4096), 0);
	sim_pc_destroy(m);
}
END_TEST

/* K-08: invalidation drops clean pages, busy ones make it -EBUSY */
START_TEST(test_pc_invalidate)
{
	struct kiocb k = pc_kiocb(0, 0);
	struct address_space *m = pc_file.f_mapping;
	struct sim_pc_stats st;

	sim_pc_add(m, 0, 0);
	sim_pc_add(m, 1, SIM_PC_BUSY);
	sim_pc_add(m, 2, SIM_PC_DIRTY);
	sim_pc_add(m, 9, 0);
	ck_assert_int_eq(kiocb_invalidate_pages(&k, 3 * 4096), -EBUSY);
	ck_assert_int_eq(sim_pc_page_flags(m, 0), -1);
	ck_assert_int_eq(sim_pc_page_flags(m, 1), SIM_PC_BUSY);
	ck_assert_int_eq(sim_pc_page_flags(m, 2), -1); /* cleaned, dropped */
	ck_assert_int_eq(sim_pc_page_flags(m, 9), 0);
	ck_assert_uint_eq(m->nrpages, 2);
	sim_pc_get_stats(m, &st);
	ck_assert_uint_eq(st.writebacks, 1);
	ck_assert_uint_eq(st.invalidated, 2);
	k.ki_flags = IOCB_NOWAIT;
	ck_assert_int_eq(kiocb_invalidate_pages(&k, 4096 * 2), -EAGAIN);
	sim_pc_destroy(m);
}
END_TEST

/* K-10: post-write invalidation failure only warns */
START_TEST(test_pc_post_write)
{
	struct kiocb k = pc_kiocb(0, 0);
	struct address_space *m = pc_file.f_mapping;
	struct sim_pc_stats st;

	sim_pc_add(m, 0, SIM_PC_BUSY);
	kiocb_invalidate_post_direct_write(&k, 4096);
	sim_pc_get_stats(m, &st);
	ck_assert_uint_eq(st.stale_warnings, 1);
	ck_assert_int_eq(m->wb_err, -EIO);
	sim_pc_destroy(m);
}
END_TEST

/* K-11: generic_write_sync only syncs dsync writes, over the range */
static loff_t sync_start, sync_end;
static int sync_ds;

static int rec_fsync(struct file *f, loff_t s, loff_t e, int ds)
{
	sync_start = s;
	sync_end = e;
	sync_ds = ds;
	return 0;
}

START_TEST(test_generic_write_sync)
{
	static struct file_operations fops = { .fsync = rec_fsync };
	static struct super_block sb;
	struct kiocb k = pc_kiocb(8192, 0);

	pc_inode.i_sb = &sb;
	pc_file.f_op = &fops;
	sync_ds = -1;
	ck_assert_int_eq(generic_write_sync(&k, 4096), 4096);
	ck_assert_int_eq(sync_ds, -1);
	k.ki_flags = IOCB_DSYNC;
	ck_assert_int_eq(generic_write_sync(&k, 4096), 4096);
	ck_assert_int_eq(sync_start, 4096);
	ck_assert_int_eq(sync_end, 8191);
	ck_assert_int_eq(sync_ds, 1);
	k.ki_flags = IOCB_DSYNC | IOCB_SYNC;
	generic_write_sync(&k, 4096);
	ck_assert_int_eq(sync_ds, 0);
	pc_file.f_op = NULL;
}
END_TEST

/* ---- fserror ----------------------------------------------------------- */

START_TEST(test_fserror_record)
{
	static struct super_block sb;
	struct inode ino = { .i_ino = 42, .i_sb = &sb };
	struct sim_fserror_record rec;

	sim_fserror_reset();
	ck_assert(!sim_fserror_last(&rec));
	fserror_report_io(&ino, FSERR_DIRECTIO_WRITE, 4096, 512, -EIO,
			  GFP_NOFS);
	ck_assert_int_eq(sim_fserror_count(), 1);
	ck_assert(sim_fserror_last(&rec));
	ck_assert_uint_eq(rec.ino, 42);
	ck_assert_int_eq(rec.type, FSERR_DIRECTIO_WRITE);
	ck_assert_int_eq(rec.pos, 4096);
	ck_assert_uint_eq(rec.len, 512);
	ck_assert_int_eq(rec.error, -EIO);
}
END_TEST

/* @req writes all of its bytes, and the device holds them. */
static void run_written(const struct testfs_request *req)
{
	struct testfs_outcome out;

	run_ok(req, &out);
	ck_assert_int_eq(out.ret, req->len);
	ck_assert_int_eq(out.data, IOMAPSIM_DATA_OK);
}

/*
 * G-38: a write ending inside a block at or past EOF gets the rest of
 * that block zeroed; the runner's model must say so (was K1: a false
 * "mismatch").
 */
START_TEST(test_runner_eof_tail_zeroing)
{
	struct testfs_request req;

	testfs_request_init(&req);
	req.fs_block = 1024;
	req.size = 512;
	req.write = true;
	req.pos = 0;
	req.len = 512;
	run_written(&req);

	/* inside EOF nothing is zeroed, and the old tail must stay */
	req.size = 4096;
	run_written(&req);
}
END_TEST

/*
 * G-30/G-38: a sub-block write into a mapped extent flagged IOMAP_F_NEW
 * gets head and tail of its block zeroed (was K3).
 */
START_TEST(test_runner_new_block_zeroing)
{
	struct testfs_request req;

	testfs_request_init(&req);
	req.size = 65536;
	req.map[0] = (struct testfs_extent)E(IOMAP_MAPPED, 0, 4096);
	req.map[0].flags = IOMAP_F_NEW;
	req.nr_map = 1;
	req.write = true;
	req.pos = 1024;
	req.len = 1024;
	run_written(&req);
}
END_TEST

/*
 * The runner keeps its testfs between requests: a write must not show
 * in the next request, and a request gives the same outcome and trace on
 * a kept testfs as on a new one.
 */
START_TEST(test_runner_reuse_is_invisible)
{
	static u8 got[8192], want[8192];
	struct testfs_request req;
	struct testfs_outcome a, b;
	u64 hash_new, hash_kept;

	testfs_request_init(&req);
	req.size = 65536;
	req.write = true;
	req.pos = 2048;
	req.len = 4096;
	run_ok(&req, &a);
	ck_assert_int_eq(a.data, IOMAPSIM_DATA_OK);

	/* a read of the written range sees the file as it was made */
	req.write = false;
	req.pos = 0;
	req.len = sizeof(got);
	req.data_out = got;
	run_ok(&req, &a);
	ck_assert_int_eq(a.ret, sizeof(got));
	testfs_pattern_fill(want, 0, sizeof(want));
	ck_assert(!memcmp(got, want, sizeof(got)));

	/* new testfs, then the kept one: the same outcome and trace */
	req.write = true;
	req.pos = 1000;
	req.len = 3000;
	req.data_out = NULL;
	req.dio_flags = 0;
	testfs_runner_teardown();
	sim_trace_reset();
	run_ok(&req, &a);
	hash_new = sim_trace_hash();
	sim_trace_reset();
	run_ok(&req, &b);
	hash_kept = sim_trace_hash();
	ck_assert_int_eq(a.ret, b.ret);
	ck_assert_int_eq(a.data, b.data);
	ck_assert_uint_eq(a.bios, b.bios);
	ck_assert_int_eq(a.i_size, b.i_size);
	ck_assert_uint_eq(a.allocations, b.allocations);
	ck_assert_uint_eq(hash_new, hash_kept);
}
END_TEST

/* What a request's outcome must be on any testfs that fits it. */
static void expect_same_run(const struct testfs_outcome *a, u64 ha,
			    const struct testfs_outcome *b, u64 hb)
{
	ck_assert_int_eq(a->ret, b->ret);
	ck_assert_int_eq(a->data, b->data);
	ck_assert_uint_eq(a->bios, b->bios);
	ck_assert_int_eq(a->i_size, b->i_size);
	ck_assert_uint_eq(a->allocations, b->allocations);
	ck_assert_uint_eq(a->conversions, b->conversions);
	ck_assert_uint_eq(a->dev.write_bytes, b->dev.write_bytes);
	ck_assert_uint_eq(ha, hb);
}

/* On a fresh engine, as `iomapsim run` and the fuzzer run a request. */
static u64 traced_run(const struct testfs_request *r, struct testfs_outcome *o)
{
	struct sim_engine_opts eo = { .kind = SIM_ENGINE_DET, .seed = 1 };

	ck_assert_int_eq(sim_engine_init(&eo), 0);
	sim_trace_reset();
	run_ok(r, o);
	return sim_trace_hash();
}

static long runner_stat(const char *name)
{
	struct sim_stat *st = sim_stat_find(name);

	ck_assert_ptr_nonnull(st);
	return sim_stat_read(st);
}

/*
 * The runner lays another request's map out on the device it has
 * (testfs_recycle()) instead of making a new one: a request must give
 * the same outcome, data and trace either way, bio fault rules included
 * (their numbers show in the trace).
 */
START_TEST(test_runner_recycle_is_invisible)
{
	static const struct testfs_extent map_x[] = {
		E(IOMAP_MAPPED, 0, 8192),
		E(IOMAP_UNWRITTEN, 16384, 8192),
	};
	struct testfs_request x, y, z;
	struct testfs_outcome a, a2, c, c2, c3;
	u64 ha, ha2, hc, hc2, hc3;
	long made, recycled;

	/* x writes over mapped, hole (allocates) and unwritten blocks */
	testfs_request_init(&x);
	x.size = 32768;
	memcpy(x.map, map_x, sizeof(map_x));
	x.nr_map = ARRAY_SIZE(map_x);
	x.write = true;
	x.pos = 4096;
	x.len = 16384;
	/* y: another map and size, the same device */
	testfs_request_init(&y);
	y.size = 200000;
	y.pos = 0;
	y.len = 8192;
	/* z: a read whose bio fails */
	testfs_request_init(&z);
	z.size = 65536;
	z.pos = 0;
	z.len = 8192;
	z.bio_faults[0] = "bio-error:1";
	z.nr_bio_faults = 1;

	testfs_runner_teardown();
	ha = traced_run(&x, &a);
	ck_assert_int_eq(a.ret, 16384);
	ck_assert_int_eq(a.data, IOMAPSIM_DATA_OK);
	ck_assert_uint_gt(a.allocations, 0);
	testfs_runner_teardown();
	hc = traced_run(&z, &c);

	made = runner_stat("runner_testfs_new");
	recycled = runner_stat("runner_testfs_recycled");
	run_ok(&y, &a2);
	ha2 = traced_run(&x, &a2);
	hc2 = traced_run(&z, &c2);
	hc3 = traced_run(&z, &c3);
	ck_assert_int_eq(runner_stat("runner_testfs_new"), made);
	ck_assert_int_eq(runner_stat("runner_testfs_recycled"), recycled + 3);
	expect_same_run(&a, ha, &a2, ha2);
	expect_same_run(&c, hc, &c2, hc2);
	expect_same_run(&c, hc, &c3, hc3);
}
END_TEST

/* @tf's model and device hold what a new testfs for @o holds */
static void expect_contents_as_new(struct testfs *tf,
				   const struct testfs_opts *o,
				   unsigned int step)
{
	char err[128];
	struct testfs *fresh = testfs_create(o, err, sizeof(err));
	u64 dev_size = tf->dev_geo.size;

	ck_assert_msg(!IS_ERR(fresh), "%s", err);
	ck_assert_uint_eq(fresh->dev_geo.size, dev_size);
	ck_assert_uint_eq(tf->model_size, fresh->model_size);
	ck_assert_msg(!memcmp(tf->model, fresh->model, tf->model_size),
		      "step %u: model differs from a new testfs", step);
	ck_assert_msg(!memcmp(blksim_bdev_ram_data(tf->ram),
			      blksim_bdev_ram_data(fresh->ram), dev_size),
		      "step %u: device differs from a new testfs", step);
	testfs_destroy(fresh);
}

/*
 * testfs_recycle() only rewrites what differs between the last map's
 * contents and the next one's: after any sequence of maps (longer,
 * shifted, other types, another block size, blocks a write allocated,
 * another window, before or after the reset), model and device must hold
 * exactly what a new testfs for that map and window holds.
 */
START_TEST(test_recycle_contents_as_new)
{
	static const struct testfs_extent m3[] = {
		E(IOMAP_MAPPED, 0, 8192),	E(IOMAP_UNWRITTEN, 16384, 8192),
		E(IOMAP_DELALLOC, 32768, 4096), E(IOMAP_INLINE, 40960, 4096),
		E(IOMAP_MAPPED, 49152, 8192),
	};
	/* the first extent longer: every later device address moves */
	static const struct testfs_extent m4[] = {
		E(IOMAP_MAPPED, 0, 12288),
		E(IOMAP_UNWRITTEN, 16384, 8192),
		E(IOMAP_MAPPED, 32768, 4096),
		E(IOMAP_MAPPED, 49152, 8192),
	};
	static const struct testfs_extent m5[] = {
		E(IOMAP_MAPPED, 0, 3072),
		E(IOMAP_MAPPED, 8192, 2048),
		E(IOMAP_UNWRITTEN, 12288, 1024),
	};
	static const struct {
		unsigned int fs_block;
		loff_t size;
		const struct testfs_extent *map;
		unsigned int nr_map;
		loff_t write_at; /* a write into a hole there, or -1 */
		loff_t win[2]; /* window, then another after the reset */
		loff_t win2[2];
	} steps[] = {
		{ 4096, 40000, NULL, 0, 65536, { 0, 0 }, { 8192, 16384 } },
		{ 4096, 100000, NULL, 0, -1, { 4096, 12288 }, { 8192, 65536 } },
		{ 4096, 60000, m3, ARRAY_SIZE(m3), 28672, { 0, 0 }, { 0, 0 } },
		{ 4096,
		  60000,
		  m4,
		  ARRAY_SIZE(m4),
		  8192 * 3 + 4096,
		  { 4096, 57344 },
		  { 16384, 20480 } },
		{ 4096, 100000, NULL, 0, -1, { 0, 0 }, { 0, 0 } },
		{ 1024,
		  20000,
		  m5,
		  ARRAY_SIZE(m5),
		  4096,
		  { 2048, 10240 },
		  { 0, 0 } },
		{ 65536, 300000, NULL, 0, -1, { 65536, 131072 }, { 0, 0 } },
		{ 4096,
		  60000,
		  m3,
		  ARRAY_SIZE(m3),
		  -1,
		  { 12288, 45056 },
		  { 40960, 53248 } },
	};
	static u8 buf[4096] __attribute__((aligned(4096)));
	struct testfs *tf = NULL;
	char err[128];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		struct testfs_opts o = {
			.fs_block = steps[i].fs_block,
			.size = steps[i].size,
			.map = steps[i].map,
			.nr_map = steps[i].nr_map,
			.reusable = true,
			.min_dev_size = 16 << 20,
			.min_span = 1 << 20,
		};

		/* code that zeroes from ZERO_PAGE(0) has no such blocks */
		if (IOMAPSIM_ZERO_PAGE == IOMAPSIM_ZERO_PAGE0 &&
		    o.fs_block > PAGE_SIZE)
			continue;
		o.window_start = steps[i].win[0];
		o.window_end = steps[i].win[1];
		if (!tf) {
			tf = testfs_create(&o, err, sizeof(err));
			ck_assert_msg(!IS_ERR(tf), "%s", err);
		} else {
			ck_assert_msg(!testfs_recycle(tf, &o, err, sizeof(err)),
				      "step %u: %s", i, err);
		}
		expect_contents_as_new(tf, &o, i);

		/* leave blocks allocated past the initial map behind */
		if (steps[i].write_at >= 0) {
			memset(buf, 0xab, sizeof(buf));
			ck_assert_int_eq(tf_dio(tf, true, steps[i].write_at,
						buf, sizeof(buf)),
					 sizeof(buf));
			ck_assert_uint_gt(tf->dev_used, tf->next_addr0);
		}
		ck_assert(testfs_reset(tf, 0, 1 << 20));

		/* a kept testfs moved to another window */
		ck_assert_int_eq(testfs_set_window(tf, steps[i].win2[0],
						   steps[i].win2[1]),
				 0);
		o.window_start = steps[i].win2[0];
		o.window_end = steps[i].win2[1];
		expect_contents_as_new(tf, &o, i);
	}
	testfs_destroy(tf);
}
END_TEST

/*
 * The write pattern filled and checked in bulk is the byte-wise one, at
 * any offset and across its 64 KiB period; a changed byte is found.
 */
START_TEST(test_write_pattern_fill_and_diff)
{
	static u8 buf[200000];
	static const loff_t offs[] = {
		0, 1, 255, 4097, 65535, 65536 * 3 - 7, (1LL << 32) + 12345
	};
	unsigned int i;
	size_t k;

	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		testfs_write_pattern_fill(buf, offs[i], sizeof(buf));
		for (k = 0; k < sizeof(buf); k++)
			ck_assert_uint_eq(buf[k],
					  testfs_write_pattern(offs[i] + k));
		ck_assert_uint_eq(testfs_write_pattern_diff(buf, offs[i],
							    sizeof(buf)),
				  sizeof(buf));
		buf[131072 + i] ^= 0x40;
		ck_assert_uint_eq(testfs_write_pattern_diff(buf, offs[i],
							    sizeof(buf)),
				  131072 + i);
	}
}
END_TEST

static Suite *testfs_suite(void)
{
	Suite *s = suite_create("iomap_testfs");
	TCase *tc = sim_tcase("testfs");

	sim_tcase_add(
		tc, test_extent_returned_whole, test_extents_not_contiguous,
		test_gap_is_hole, test_write_allocates,
		test_write_past_map_nowait, test_write_then_read_new_block,
		test_unwritten_stays_without_end_io,
		test_unwritten_converts_with_end_io, test_pattern,
		test_device_holds_dio_write, test_bad_setup, test_parse_errno,
		test_runner_eof_tail_zeroing, test_runner_new_block_zeroing,
		test_runner_reuse_is_invisible,
		test_runner_recycle_is_invisible, test_recycle_contents_as_new,
		test_write_pattern_fill_and_diff);
	suite_add_tcase(s, tc);

	tc = sim_tcase("pagecache");
	sim_tcase_add(tc, test_pc_nrpages, test_pc_write_and_wait,
		      test_pc_invalidate, test_pc_post_write,
		      test_generic_write_sync, test_fserror_record,
		      test_unwatched_hooks_run_nothing);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(testfs_suite)
