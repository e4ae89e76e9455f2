// SPDX-License-Identifier: GPL-2.0-only
/*
 * The iomap iterator (fs/iomap/iter.c, N-01..N-07, G-41), driven
 * directly with a scripted begin/end pair, through the walk's report of
 * the code linked in: iomap_iter_advance() and ->status, or ->processed
 * in trees before them (iomapsim_iter_advance()).
 */
#include <string.h>
#include <linux/fs.h>
#include <linux/iomap.h>
#include <sim/iomap_fs.h>
#include <sim/report.h>
#include "harness.h"

/* The scripted file system: mappings of 4 KiB, calls counted. */
static struct {
	int begins, ends, nexts;
	int begin_ret; /* returned by every begin when set */
	int end_ret;
	u64 map_len; /* mapping length (4096 default) */
	loff_t last_end_pos;
	loff_t last_end_len;
	ssize_t last_written;
	bool start_late; /* map starting after pos: a bug */
} fs;

static struct inode test_inode;

static int fake_begin(struct inode *inode, loff_t pos, loff_t length,
		      unsigned flags, struct iomap *iomap, struct iomap *srcmap)
{
	fs.begins++;
	if (fs.begin_ret)
		return fs.begin_ret;
	iomap->offset = pos - pos % fs.map_len + (fs.start_late ? 512 : 0);
	iomap->length = fs.map_len;
	iomap->type = IOMAP_MAPPED;
	iomap->addr = 1 << 20;
	return 0;
}

static int fake_end(struct inode *inode, loff_t pos, loff_t length,
		    ssize_t written, unsigned flags, struct iomap *iomap)
{
	fs.ends++;
	fs.last_end_pos = pos;
	fs.last_end_len = length;
	fs.last_written = written;
	return fs.end_ret;
}

/* begin and end as one ->iomap_next, for a tree of iomap_iter_next_fn */
IOMAPSIM_DEFINE_IOMAP_NEXT_END(fake_begin_end_next, fake_begin, fake_end);

static const struct iomapsim_fs_ops fake_ops = {
	.begin = fake_begin,
	.end = fake_end,
	.next = fake_begin_end_next,
};

#define HAVE_NEXT (IOMAPSIM_MAPPING_NEXT_FN || IOMAPSIM_PROPOSAL)
#if HAVE_NEXT
static int fake_next(const struct iomap_iter *iter, struct iomap *iomap,
		     struct iomap *srcmap)
{
	fs.nexts++;
	return iomap_iter_next(iter, iomap, srcmap, fake_begin, fake_end);
}

static const struct iomapsim_fs_ops next_ops = { .next = fake_next };
#endif

/*
 * The body's report of its step: @v is iomap_iter_advance()'s result or
 * an error.  With ->processed, the count was stored by the advance and
 * only an error replaces it.
 */
static void set_status(struct iomap_iter *it, int v)
{
#if IOMAPSIM_ITER_STATUS
	it->status = v;
#else
	if (v)
		it->processed = v;
#endif
}

static void reset(void)
{
	memset(&fs, 0, sizeof(fs));
	fs.map_len = 4096;
	memset(&test_inode, 0, sizeof(test_inode));
}

static struct iomap_iter mkiter(loff_t pos, u64 len)
{
	return (struct iomap_iter){ .inode = &test_inode,
				    .pos = pos,
				    .len = len,
				    .flags = IOMAP_DIRECT };
}

/* A walk of @len bytes at @pos through @ops, at its first mapping. */
static struct iomap_iter first_mapping(const struct iomapsim_fs_ops *ops,
				       loff_t pos, u64 len)
{
	struct iomap_iter it = mkiter(pos, len);

	ck_assert_int_eq(iomapsim_iter(&it, ops), 1);
	return it;
}

/* Advance @it by @n bytes and ask @ops for the next step: its result. */
static int step(struct iomap_iter *it, const struct iomapsim_fs_ops *ops, u64 n)
{
	iomapsim_iter_advance(it, n);
	return iomapsim_iter(it, ops);
}

/* The file system's begin and end were called @begins and @ends times. */
static void expect_calls(int begins, int ends)
{
	ck_assert_int_eq(fs.begins, begins);
	ck_assert_int_eq(fs.ends, ends);
}

/*
 * Walk @it through @ops to its end, each mapping done whole; returns how
 * many mappings it took.  @from_start: check that each step starts where
 * the iterator stands (iter_start_pos, kept by iomap_iter_advance()).
 */
static int walk(struct iomap_iter *it, const struct iomapsim_fs_ops *ops,
		bool from_start)
{
	int loops = 0, ret;

#if !IOMAPSIM_ITER_STATUS
	(void)from_start; /* no iter_start_pos before iomap_iter_advance() */
#endif
	while ((ret = iomapsim_iter(it, ops)) > 0) {
#if IOMAPSIM_ITER_STATUS
		/* incremental advances came with iomap_iter_advance() */
		if (from_start)
			ck_assert_int_eq(it->iter_start_pos, it->pos);
#endif
		set_status(it, iomapsim_iter_advance(it, iomap_length(it)));
		loops++;
	}
	ck_assert_int_eq(ret, 0);
	return loops;
}

/* covers N-01, N-02, N-03: walk three mappings, one end each */
START_TEST(test_walk)
{
	struct iomap_iter it = mkiter(1024, 9216);

	ck_assert_int_eq(walk(&it, &fake_ops, true), 3);
	expect_calls(3, 3);
	ck_assert_int_eq(it.pos, 10240);
	ck_assert_uint_eq(it.len, 0);
	/* the last end saw the last mapping's share */
	ck_assert_int_eq(fs.last_end_pos, 8192);
	ck_assert_int_eq(fs.last_end_len, 2048);
	ck_assert_int_eq(fs.last_written, 2048);
}
END_TEST

/* covers N-01: a begin error on the first call ends it, no end call */
START_TEST(test_first_begin_error)
{
	struct iomap_iter it;

	fs.begin_ret = -EIO;
	it = mkiter(0, 4096);
	ck_assert_int_eq(iomapsim_iter(&it, &fake_ops), -EIO);
	ck_assert_int_eq(fs.ends, 0);
}
END_TEST

/* covers N-02: an end error counts only when nothing was done */
START_TEST(test_end_error_no_progress)
{
	struct iomap_iter it;

	fs.end_ret = -ENOSPC;
	it = first_mapping(&fake_ops, 0, 8192);
	ck_assert_int_eq(iomapsim_iter(&it, &fake_ops), -ENOSPC);
	ck_assert_int_eq(fs.last_written, 0);
}
END_TEST

START_TEST(test_end_error_after_progress)
{
	struct iomap_iter it;

	fs.end_ret = -ENOSPC;
	it = first_mapping(&fake_ops, 0, 8192);
	/* the error is dropped, the walk goes on */
	ck_assert_int_eq(step(&it, &fake_ops, 4096), 1);
	ck_assert_int_eq(step(&it, &fake_ops, 4096), 0);
}
END_TEST

/* covers N-03, N-05: a negative status ends the walk with it */
START_TEST(test_status_error)
{
	struct iomap_iter it = first_mapping(&fake_ops, 0, 8192);

	iomapsim_iter_advance(&it, 512);
	set_status(&it, -EFAULT);
	ck_assert_int_eq(iomapsim_iter(&it, &fake_ops), -EFAULT);
	ck_assert_int_eq(fs.ends, 1);
	ck_assert_int_eq(fs.last_written, 512);
}
END_TEST

/* covers N-03: a positive status is the old convention: warn, -EIO */
#if IOMAPSIM_ITER_STATUS
START_TEST(test_status_positive)
{
	struct iomap_iter it;

	sim_test_expect_warnings(1);
	it = first_mapping(&fake_ops, 0, 8192);
	iomapsim_iter_advance(&it, 512);
	it.status = 512;
	ck_assert_int_eq(iomapsim_iter(&it, &fake_ops), -EIO);
}
END_TEST
#else
SIM_TEST_NA(test_status_positive)
#endif

/* covers N-03: no progress on a valid mapping stops the walk */
START_TEST(test_no_progress_stops)
{
	struct iomap_iter it = first_mapping(&fake_ops, 0, 8192);

	ck_assert_int_eq(iomapsim_iter(&it, &fake_ops), 0);
	expect_calls(1, 1);
}
END_TEST

/* covers N-03: a mapping the body marked stale is mapped again */
START_TEST(test_stale_remaps)
{
	struct iomap_iter it = first_mapping(&fake_ops, 0, 8192);

	it.iomap.flags |= IOMAP_F_STALE;
	ck_assert_int_eq(iomapsim_iter(&it, &fake_ops), 1);
	ck_assert_int_eq(fs.begins, 2);
	ck_assert_int_eq(it.pos, 0);
	ck_assert(!(it.iomap.flags & IOMAP_F_STALE));
}
END_TEST

/* covers N-03: the mappings are cleared before the next begin */
START_TEST(test_maps_cleared)
{
	struct iomap_iter it = first_mapping(&fake_ops, 0, 8192);

	it.srcmap.type = IOMAP_MAPPED;
	it.srcmap.length = 4096;
	ck_assert_int_eq(step(&it, &fake_ops, 4096), 1);
	ck_assert_int_eq(it.srcmap.type, IOMAP_HOLE);
	ck_assert_uint_eq(it.srcmap.length, 0);
}
END_TEST

/* covers N-04: advancing beyond the mapping warns and fails */
#if IOMAPSIM_ITER_STATUS
START_TEST(test_advance_too_far)
{
	struct iomap_iter it;

	sim_test_expect_warnings(1);
	it = first_mapping(&fake_ops, 0, 8192);
	ck_assert_int_eq(iomapsim_iter_advance(&it, 4097), -EIO);
	ck_assert_int_eq(it.pos, 0);
	ck_assert_int_eq(iomapsim_iter_advance(&it, 4096), 0);
	ck_assert_uint_eq(it.len, 4096);
}
END_TEST
#else
SIM_TEST_NA(test_advance_too_far)
#endif

/* covers N-01: a mapping that starts after pos is a file system bug */
START_TEST(test_mapping_after_pos_warns)
{
	sim_test_expect_warnings(1);
	fs.start_late = true;
	first_mapping(&fake_ops, 0, 4096);
}
END_TEST

/* covers G-41: iomap_length trims to the request, the map and srcmap */
START_TEST(test_length)
{
	struct iomap_iter it = mkiter(1000, 100000);

	it.iomap.offset = 0;
	it.iomap.length = 8192;
	ck_assert_uint_eq(iomap_length(&it), 8192 - 1000);
	it.srcmap.type = IOMAP_MAPPED;
	it.srcmap.offset = 0;
	it.srcmap.length = 4096;
	ck_assert_uint_eq(iomap_length(&it), 4096 - 1000);
	it.len = 100;
	ck_assert_uint_eq(iomap_length(&it), 100);
#if IOMAPSIM_ITER_STATUS
	/* came with incremental advances (iomap_iter_advance()) */
	ck_assert_uint_eq(iomap_length_trim(&it, 0, 50000), 4096);
#endif
}
END_TEST

/* covers G-41: iomap_sector, and the invalid sector of anon writes */
START_TEST(test_sector)
{
	struct iomap m = { .addr = 1 << 20, .offset = 8192, .length = 8192 };

	ck_assert_uint_eq(iomap_sector(&m, 8192), (1 << 20) >> 9);
	ck_assert_uint_eq(iomap_sector(&m, 8192 + 1536),
			  ((1 << 20) + 1536) >> 9);
#ifdef IOMAP_F_ANON_WRITE
	m.flags = IOMAP_F_ANON_WRITE;
	ck_assert_uint_eq(iomap_sector(&m, 8192), U64_MAX);
#endif
}
END_TEST

/* covers G-22: inline data is addressed relative to the mapping */
START_TEST(test_inline_data_ptr)
{
	char buf[64];
	struct iomap m = { .offset = 4096, .inline_data = buf };

	ck_assert_ptr_eq(iomap_inline_data(&m, 4096 + 10), buf + 10);
}
END_TEST

/* covers N-06, N-07: the same walk through a single ->iomap_next */
#if HAVE_NEXT
START_TEST(test_walk_next)
{
	struct iomap_iter it = mkiter(0, 12288);

	ck_assert_int_eq(walk(&it, &next_ops, false), 3);
	ck_assert_int_eq(fs.nexts, 4); /* three produce, the last finishes */
	expect_calls(3, 3);
}
END_TEST
#else
SIM_TEST_NA(test_walk_next)
#endif

/* covers N-07: the first call produces without finishing anything */
#if HAVE_NEXT
START_TEST(test_next_first_call)
{
	struct iomap_iter it = first_mapping(&next_ops, 0, 4096);

	expect_calls(1, 0);
	fs.begin_ret = -EAGAIN;
	it = mkiter(0, 4096);
	ck_assert_int_eq(iomapsim_iter(&it, &next_ops), -EAGAIN);
}
END_TEST
#else
SIM_TEST_NA(test_next_first_call)
#endif

#if HAVE_NEXT
/* a NULL end in the helper: finishing is only the continue decision */
IOMAPSIM_DEFINE_IOMAP_NEXT(begin_only_next, fake_begin);

START_TEST(test_next_without_end)
{
	const struct iomapsim_fs_ops ops = { .next = begin_only_next };
	struct iomap_iter it = first_mapping(&ops, 0, 8192);

	ck_assert_int_eq(step(&it, &ops, 4096), 1);
	ck_assert_int_eq(step(&it, &ops, 4096), 0);
	expect_calls(2, 0);
}
END_TEST
#else
SIM_TEST_NA(test_next_without_end)
#endif

static Suite *iter_suite(void)
{
	Suite *s = suite_create("iomap_iter");
	TCase *tc = sim_tcase("iter");

	/* every test starts from a fresh scripted file system */
	tcase_add_checked_fixture(tc, reset, NULL);

	sim_tcase_add(tc, test_walk, test_first_begin_error,
		      test_end_error_no_progress, test_end_error_after_progress,
		      test_status_error, test_status_positive,
		      test_no_progress_stops, test_stale_remaps,
		      test_maps_cleared, test_advance_too_far,
		      test_mapping_after_pos_warns, test_length, test_sector,
		      test_inline_data_ptr, test_walk_next,
		      test_next_first_call, test_next_without_end);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(iter_suite)
