// SPDX-License-Identifier: GPL-2.0-only
/*
 * The file backend: real O_DIRECT through io_uring on a file in the build
 * tree (IOMAPSIM_BIN), and on a loop device when root can make one; its
 * limits from statx / libblkid; the exact errors for a missing path, a
 * directory, a too-small or odd-sized file and a read-only target; queue
 * depth with more bios than tags; REQ_NOWAIT refused with BLK_STS_AGAIN
 * when the tags are gone; FUA as RWF_DSYNC and flushes as fdatasync;
 * bouncing of misaligned buffers; and the threaded engine's reaper.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sim/report.h>
#include "block_backend.h"

static char path[4096];
static bool have_path;

static const char *bin_dir(void)
{
	const char *d = getenv("IOMAPSIM_BIN");

	return d && *d ? d : ".";
}

/* A sparse file of @size bytes in the build tree; its name in path[]. */
static void make_file(u64 size)
{
	int fd;

	snprintf(path, sizeof(path), "%s/bb-file-XXXXXX", bin_dir());
	fd = mkstemp(path);
	ck_assert_msg(fd >= 0, "mkstemp %s: %s", path, strerror(errno));
	ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	close(fd);
	have_path = true;
}

static void file_teardown(void)
{
	if (have_path) {
		unlink(path);
		have_path = false;
	}
	sim_test_teardown();
}

/*
 * Open a fresh file; NULL (after printing SKIP) if its filesystem has no
 * O_DIRECT at all, which is a property of the machine, not a failure.
 */
static struct block_device *open_file(u64 size,
				      const struct blksim_file_opts *o)
{
	char err[256] = "";
	struct block_device *bdev;

	make_file(size);
	bdev = blksim_bdev_file_open(path, o, err, sizeof(err));
	if (IS_ERR(bdev) && strstr(err, "does not support O_DIRECT")) {
		printf("SKIP: %s\n", err);
		return NULL;
	}
	ck_assert_msg(!IS_ERR(bdev), "open %s: %s", path, err);
	return bdev;
}

static void roundtrip(struct block_device *bdev, sector_t sector,
		      unsigned int len, unsigned int seed)
{
	char *w = bb_alloc(len), *r = bb_alloc(len);

	bb_fill(w, len, sector << 9, seed);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, sector, w, len), 0);
	memset(r, 0, len);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, sector, r, len), 0);
	ck_assert(bb_check(r, len, sector << 9, seed));
	bb_free(w, len);
	bb_free(r, len);
}

/* What is in the file at @off, read behind the backend's back. */
static bool file_has(u64 off, unsigned int len, unsigned int seed)
{
	char *buf = malloc(len);
	int fd = open(path, O_RDONLY);
	bool ok;

	ck_assert(buf && fd >= 0);
	ck_assert_int_eq(pread(fd, buf, len, (off_t)off), (ssize_t)len);
	ok = bb_check(buf, len, off, seed);
	close(fd);
	free(buf);
	return ok;
}

START_TEST(test_file_roundtrip_statx_limits)
{
	struct block_device *bdev = open_file(8 << 20, NULL);
	struct blksim_file_info info;

	if (!bdev)
		return;
	ck_assert(blksim_bdev_file_info(bdev, &info));
	ck_assert(!info.is_blockdev);
	ck_assert(info.from_statx || info.probed);
	ck_assert_uint_eq(info.size, 8 << 20);
	ck_assert_uint_eq(info.queue_depth, BLKSIM_BDEV_FILE_DEF_QD);
	ck_assert_uint_eq(bdev_nr_sectors(bdev), (8 << 20) >> 9);
	/* the limits are the filesystem's O_DIRECT alignment */
	ck_assert_uint_eq(bdev_logical_block_size(bdev),
			  max(info.dio_offset_align, 512u));
	ck_assert_uint_eq(bdev_dma_alignment(bdev), info.dio_mem_align - 1);
	ck_assert(bdev_write_cache(bdev));
	ck_assert(bdev_fua(bdev));
	ck_assert_str_eq(bdev->bd_name, strrchr(path, '/') + 1);

	roundtrip(bdev, 0, 4096, 1);
	roundtrip(bdev, 2048, 256 << 10, 2); /* 64 pages, one bio */
	roundtrip(bdev, (8 << 11) - 8, 4096, 3); /* the last 4 KiB */
	ck_assert(file_has(2048 << 9, 256 << 10, 2));
	blksim_bdev_destroy(bdev);
}
END_TEST

START_TEST(test_file_missing_path)
{
	char err[256] = "";
	struct block_device *bdev;

	snprintf(path, sizeof(path), "%s/no-such-dir/disk.img", bin_dir());
	bdev = blksim_bdev_file_open(path, NULL, err, sizeof(err));
	ck_assert_int_eq(PTR_ERR(bdev), -ENOENT);
	ck_assert_str_eq(strstr(err, "/no-such-dir/"),
			 "/no-such-dir/disk.img: No such file or directory");
}
END_TEST

START_TEST(test_file_directory)
{
	char err[256] = "", want[4200];
	struct block_device *bdev;

	bdev = blksim_bdev_file_open(bin_dir(), NULL, err, sizeof(err));
	ck_assert_int_eq(PTR_ERR(bdev), -EISDIR);
	snprintf(want, sizeof(want),
		 "%s: is a directory, not a regular file or block device",
		 bin_dir());
	ck_assert_str_eq(err, want);

	bdev = blksim_bdev_file_open("/dev/null", NULL, err, sizeof(err));
	ck_assert_int_eq(PTR_ERR(bdev), -ENODEV);
	ck_assert_str_eq(err, "/dev/null: not a regular file or block device");
}
END_TEST

START_TEST(test_file_too_small_and_odd_size)
{
	char err[256] = "", want[4300];
	struct block_device *bdev;

	make_file(64 << 10);
	bdev = blksim_bdev_file_open(path, NULL, err, sizeof(err));
	ck_assert_int_eq(PTR_ERR(bdev), -EINVAL);
	if (strstr(err, "does not support O_DIRECT"))
		BB_SKIP("%s", err);
	snprintf(want, sizeof(want),
		 "%s: too small: 65536 bytes, at least 1048576 needed", path);
	ck_assert_str_eq(err, want);
	unlink(path);

	make_file((2 << 20) + 512);
	{
		struct blksim_file_opts o = { .logical_block_size = 4096 };

		bdev = blksim_bdev_file_open(path, &o, err, sizeof(err));
	}
	ck_assert_int_eq(PTR_ERR(bdev), -EINVAL);
	snprintf(
		want, sizeof(want),
		"%s: size 2097664 is not a multiple of the logical block size 4096",
		path);
	ck_assert_str_eq(err, want);
}
END_TEST

/* Writes wanted from a target that refuses them: -EROFS, clear text. */
START_TEST(test_file_read_only_target)
{
	struct blksim_file_opts ro = { .read_only = true };
	char err[256] = "", cmd[4200];
	struct block_device *bdev;
	bool immutable = false;

	make_file(2 << 20);
	if (geteuid() == 0) {
		/* root ignores modes: make the file immutable instead */
		snprintf(cmd, sizeof(cmd), "chattr +i '%s' 2>/dev/null", path);
		if (system(cmd))
			BB_SKIP("chattr +i not supported under %s", bin_dir());
		immutable = true;
	} else {
		ck_assert_int_eq(chmod(path, 0444), 0);
	}
	bdev = blksim_bdev_file_open(path, NULL, err, sizeof(err));
	ck_assert_int_eq(PTR_ERR(bdev), -EROFS);
	ck_assert_msg(strstr(err, ": read-only (") &&
			      strstr(err, "), but writes were asked for"),
		      "message: %s", err);
	ck_assert(!strncmp(err, path, strlen(path)));

	/* read-only mode opens it; reads work, writes fail with EIO */
	bdev = blksim_bdev_file_open(path, &ro, err, sizeof(err));
	if (IS_ERR(bdev) && strstr(err, "does not support O_DIRECT")) {
		printf("SKIP: %s\n", err);
	} else {
		char *buf = bb_alloc(4096);

		ck_assert_msg(!IS_ERR(bdev), "%s", err);
		ck_assert(bdev_read_only(bdev));
		ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, buf, 4096), 0);
		ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 0, buf, 4096), -EIO);
		bb_free(buf, 4096);
		blksim_bdev_destroy(bdev);
	}
	if (immutable) {
		snprintf(cmd, sizeof(cmd), "chattr -i '%s'", path);
		ck_assert_int_eq(system(cmd), 0);
	}
}
END_TEST

/* More bios than tags: all complete, never more than depth in flight. */
START_TEST(test_file_queue_depth)
{
	struct blksim_file_opts o = { .queue_depth = 4 };
	struct block_device *bdev = open_file(4 << 20, &o);
	enum { N = 40, LEN = 16384 };
	struct bb_async a[N];
	struct blksim_bdev_counters c;
	char *buf, *r;

	if (!bdev)
		return;
	buf = bb_alloc(N * LEN);
	r = bb_alloc(N * LEN);
	bb_fill(buf, N * LEN, 0, 4);
	for (int i = 0; i < N; i++)
		bb_submit_nth(bdev, REQ_OP_WRITE, buf, LEN, i, &a[i]);
	for (int i = 0; i < N; i++) {
		wait_for_completion(&a[i].done);
		ck_assert_int_eq(a[i].status, BLK_STS_OK);
		ck_assert_int_eq(a[i].ended, 1);
	}
	ck_assert(blksim_bdev_get_counters(bdev, &c));
	ck_assert_uint_eq(c.write_bios, N);
	ck_assert_uint_eq(c.max_inflight, 4);
	ck_assert_uint_gt(c.qd_waits, 0);
	ck_assert_int_eq(sim_stat_get("bdev_file_qd_wait"), (long)c.qd_waits);

	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, r, N * LEN), 0);
	ck_assert(bb_check(r, N * LEN, 0, 4));
	ck_assert(file_has(0, N * LEN, 4));
	bb_free(buf, N * LEN);
	bb_free(r, N * LEN);
	blksim_bdev_destroy(bdev);
}
END_TEST

/* No free tag and REQ_NOWAIT: BLK_STS_AGAIN at once, -EAGAIN above. */
START_TEST(test_file_nowait_again)
{
	struct blksim_file_opts o = { .queue_depth = 1 };
	struct block_device *bdev = open_file(2 << 20, &o);
	struct bb_async a, b;
	struct blksim_bdev_counters c;
	char *buf;

	if (!bdev)
		return;
	buf = bb_alloc(8192);
	/*
	 * The deterministic engine reaps only when someone waits, so the
	 * first bio holds the only tag while the second is submitted.
	 */
	bb_submit_async(bb_bio(bdev, REQ_OP_READ, 0, buf, 4096), &a);
	bb_submit_async(bb_bio(bdev, REQ_OP_READ | REQ_NOWAIT, 8, buf + 4096,
			       4096),
			&b);
	wait_for_completion(&b.done);
	ck_assert_int_eq(b.status, BLK_STS_AGAIN);
	ck_assert_int_eq(blk_status_to_errno(b.status), -EAGAIN);
	wait_for_completion(&a.done);
	ck_assert_int_eq(a.status, BLK_STS_OK);
	ck_assert_int_eq(sim_stat_get("bdev_file_nowait_again"), 1);
	ck_assert(blksim_bdev_get_counters(bdev, &c));
	ck_assert_uint_eq(c.again_bios, 1);
	/* with a tag free, REQ_NOWAIT goes through */
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ | REQ_NOWAIT, 8, buf, 4096),
			 0);
	bb_free(buf, 8192);
	blksim_bdev_destroy(bdev);
}
END_TEST

/*
 * Out of tags in interrupt context: sleeping there is a bug, reported as
 * one; the bio is refused (BLK_STS_AGAIN) rather than hanging.
 */
static struct block_device *irq_bdev;
static char *irq_buf;
static struct bio *irq_bio;
static struct bb_async irq_async;

static void irq_submit(struct sim_event *ev)
{
	bb_submit_async(irq_bio, &irq_async);
}

START_TEST(test_file_no_tag_in_irq)
{
	struct blksim_file_opts o = { .queue_depth = 1 };
	struct sim_event ev = { .fn = irq_submit };
	struct bb_async a;

	irq_bdev = open_file(2 << 20, &o);
	if (!irq_bdev)
		return;
	irq_buf = bb_alloc(8192);
	sim_test_expect_violations(1);
	bb_submit_async(bb_bio(irq_bdev, REQ_OP_READ, 0, irq_buf + 4096, 4096),
			&a);
	/* allocated in task context: only the submission is in the IRQ */
	irq_bio = bb_bio(irq_bdev, REQ_OP_READ, 8, irq_buf, 4096);
	sim_event_run_now(&ev, SIM_CTX_HARDIRQ);
	wait_for_completion(&irq_async.done);
	ck_assert_int_eq(irq_async.status, BLK_STS_AGAIN);
	ck_assert_int_eq(sim_context_violations(), 1);
	wait_for_completion(&a.done);
	ck_assert_int_eq(a.status, BLK_STS_OK);
	bb_free(irq_buf, 8192);
	blksim_bdev_destroy(irq_bdev);
}
END_TEST

/* A REQ_POLLED bio is found by bio_poll(), which drives the ring. */
static int polled_done;
static blk_status_t polled_status;

static void polled_end_io(struct bio *bio)
{
	polled_status = bio->bi_status;
	polled_done++;
}

START_TEST(test_file_polled)
{
	struct block_device *bdev = open_file(2 << 20, NULL);
	struct blksim_bdev_counters c;
	struct bio *bio;
	char *buf;
	int polls = 0;

	if (!bdev)
		return;
	buf = bb_alloc(4096);
	bb_fill(buf, 4096, 4096, 12);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 8, buf, 4096), 0);
	memset(buf, 0, 4096);
	polled_done = 0;
	bio = bb_bio(bdev, REQ_OP_READ | REQ_POLLED, 8, buf, 4096);
	bio->bi_end_io = polled_end_io;
	submit_bio(bio);
	while (!polled_done && polls++ < 1000)
		bio_poll(bio, NULL, 0);
	ck_assert_int_eq(polled_done, 1);
	ck_assert_int_eq(polled_status, BLK_STS_OK);
	ck_assert(bb_check(buf, 4096, 4096, 12));
	bio_put(bio);
	ck_assert(blksim_bdev_get_counters(bdev, &c));
	ck_assert_uint_eq(c.polled_bios, 1);
	bb_free(buf, 4096);
	blksim_bdev_destroy(bdev);
}
END_TEST

/*
 * Real I/O finishes in whatever order the host likes, yet under the
 * deterministic engine a seed must replay: the same bios, the same seed,
 * the same order of completions, even with the RANDOM policy.
 */
enum { ORDER_N = 24 };
static int order_seen[ORDER_N], order_len;

static void order_end_io(struct bio *bio)
{
	order_seen[order_len++] = (int)(long)bio->bi_private;
	bio_put(bio);
}

static void order_run(struct block_device *bdev, char *buf, u64 seed, int *out)
{
	struct sim_engine_opts eo = { .kind = SIM_ENGINE_DET,
				      .policy = SIM_SCHED_RANDOM,
				      .seed = seed };

	ck_assert_int_eq(sim_engine_init(&eo), 0);
	order_len = 0;
	for (int i = 0; i < ORDER_N; i++) {
		struct bio *bio = bb_bio(bdev, REQ_OP_READ, (sector_t)i * 8,
					 buf + i * 4096, 4096);

		bio->bi_private = (void *)(long)i;
		bio->bi_end_io = order_end_io;
		submit_bio(bio);
	}
	sim_engine_drain();
	ck_assert_int_eq(order_len, ORDER_N);
	memcpy(out, order_seen, sizeof(order_seen));
}

START_TEST(test_file_det_replay)
{
	struct blksim_file_opts o = { .queue_depth = 6 };
	struct block_device *bdev = open_file(2 << 20, &o);
	int a[ORDER_N], b[ORDER_N], c[ORDER_N];
	bool in_order = true;
	char *buf;

	if (!bdev)
		return;
	buf = bb_alloc(ORDER_N * 4096);
	order_run(bdev, buf, 99, a);
	order_run(bdev, buf, 99, b);
	order_run(bdev, buf, 100, c);
	ck_assert(!memcmp(a, b, sizeof(a)));
	for (int i = 0; i < ORDER_N; i++)
		in_order &= a[i] == i;
	/* the policy really did reorder, and a new seed another way */
	ck_assert(!in_order);
	ck_assert(memcmp(a, c, sizeof(a)));
	bb_free(buf, ORDER_N * 4096);
	blksim_bdev_destroy(bdev);
}
END_TEST

START_TEST(test_file_fua_and_flush)
{
	struct block_device *bdev = open_file(2 << 20, NULL);
	struct blksim_bdev_counters c;
	char *buf;

	if (!bdev)
		return;
	buf = bb_alloc(8192);
	bb_fill(buf, 8192, 0, 5);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 0, buf, 4096), 0);
	ck_assert_int_eq(sim_stat_get("bdev_file_rwf_dsync"), 0);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE | REQ_FUA, 0, buf, 8192), 0);
	ck_assert_int_eq(sim_stat_get("bdev_file_rwf_dsync"), 1);
	ck_assert_int_eq(sim_stat_get("bdev_file_fdatasync"), 0);
	/* REQ_PREFLUSH: an fdatasync, then the write (plain: no FUA) */
	ck_assert_int_eq(
		bb_rw(bdev, REQ_OP_WRITE | REQ_PREFLUSH, 16, buf, 4096), 0);
	ck_assert_int_eq(sim_stat_get("bdev_file_fdatasync"), 1);
	ck_assert_int_eq(sim_stat_get("bdev_file_rwf_dsync"), 1);
	/* REQ_OP_FLUSH and ->flush are fdatasync too */
	ck_assert_int_eq(bb_flush(bdev), 0);
	ck_assert_int_eq(sim_stat_get("bdev_file_fdatasync"), 2);
	ck_assert_int_eq(bdev->bd_ops->flush(bdev), 0);
	ck_assert_int_eq(sim_stat_get("bdev_file_fdatasync"), 3);
	ck_assert(blksim_bdev_get_counters(bdev, &c));
	ck_assert_uint_eq(c.fua_bios, 1);
	ck_assert_uint_eq(c.preflush_bios, 2); /* the flush is one too */
	ck_assert_uint_eq(c.flush_bios, 1);
	ck_assert_uint_eq(c.flush_calls, 1);
	ck_assert(file_has(0, 8192, 5));
	bb_free(buf, 8192);
	blksim_bdev_destroy(bdev);
}
END_TEST

/*
 * Memory that breaks the O_DIRECT alignment (a kmalloc buffer at an odd
 * offset): a bio of several bvecs is refused by the block layer's split
 * step before the device sees it (B-29: -EINVAL, nothing written), but a
 * single bvec within a page takes the split fast path, which checks
 * nothing (bio_may_need_split()); the device then reads and writes it
 * through an aligned bounce buffer: right data, counted.
 */
START_TEST(test_file_bounce_misaligned)
{
	struct block_device *bdev = open_file(2 << 20, NULL);
	struct blksim_bdev_counters c;
	char *raw, *p;

	if (!bdev)
		return;
	/*
	 * Page-aligned, so that the 512 bytes at @p sit in one page: split
	 * over two, the bvecs' lengths would break the mask too, and the
	 * block layer refuses the bio before the device sees it (B-30).
	 */
	raw = bb_alloc(3 * 4096);
	p = raw + 8; /* aligned to 8 only */
	if (bdev_dma_alignment(bdev) < 8) {
		bb_free(raw, 3 * 4096);
		blksim_bdev_destroy(bdev);
		BB_SKIP("the host file takes 8-byte aligned memory (mask %u)",
			bdev_dma_alignment(bdev));
	}
	bb_fill(p, 8192, 4096, 6);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 8, p, 8192), -EINVAL);
	ck_assert(blksim_bdev_get_counters(bdev, &c));
	ck_assert_uint_eq(c.write_bios, 0);

	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 8, p, 512), 0);
	ck_assert_int_eq(sim_stat_get("bdev_file_bounce"), 1);
	memset(p, 0, 512);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 8, p, 512), 0);
	ck_assert_int_eq(sim_stat_get("bdev_file_bounce"), 2);
	ck_assert(bb_check(p, 512, 4096, 6));
	ck_assert(file_has(4096, 512, 6));
	ck_assert(blksim_bdev_get_counters(bdev, &c));
	ck_assert_uint_eq(c.bounced_bios, 2);
	ck_assert_int_eq(sim_stat_get("bdev_file_bounce_live"), 0);
	/* an aligned buffer is not bounced */
	roundtrip(bdev, 64, 4096, 7);
	ck_assert_int_eq(sim_stat_get("bdev_file_bounce"), 2);
	bb_free(raw, 3 * 4096);
	blksim_bdev_destroy(bdev);
}
END_TEST

START_TEST(test_file_bad_queue_depth)
{
	struct blksim_file_opts o = { .queue_depth = 5000 };
	char err[256] = "", want[4300];

	make_file(2 << 20);
	ck_assert_int_eq(
		PTR_ERR(blksim_bdev_file_open(path, &o, err, sizeof(err))),
		-EINVAL);
	snprintf(want, sizeof(want), "%s: queue depth 5000 is above 4096",
		 path);
	ck_assert_str_eq(err, want);
}
END_TEST

/* tmpfs has O_DIRECT but no STATX_DIOALIGN: alignment by trial reads. */
START_TEST(test_file_tmpfs_probed)
{
	struct block_device *bdev;
	struct blksim_file_info info;
	char err[256] = "";
	int fd;

	snprintf(path, sizeof(path), "/dev/shm/bb-file-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		BB_SKIP("no /dev/shm: %s", strerror(errno));
	have_path = true;
	ck_assert_int_eq(ftruncate(fd, 2 << 20), 0);
	close(fd);
	bdev = blksim_bdev_file_open(path, NULL, err, sizeof(err));
	if (IS_ERR(bdev))
		BB_SKIP("%s", err);
	ck_assert(blksim_bdev_file_info(bdev, &info));
	if (info.from_statx)
		printf("note: this kernel's tmpfs reports STATX_DIOALIGN\n");
	else
		ck_assert(info.probed);
	ck_assert(is_power_of_2(info.dio_offset_align));
	roundtrip(bdev, 8, 8192, 8);
	blksim_bdev_destroy(bdev);
}
END_TEST

/*
 * Open a loop device, read-only with @opt "-r ", over a fresh test file
 * of @size bytes into *@bdev (an ERR_PTR with @err said why), its name
 * into @loop.  It is detached at once: lazily, so it is gone when closed
 * even if an assertion fails.  Needs root and a working losetup: returns
 * why not, for the test to skip, or NULL.
 */
static const char *open_loop(u64 size, const char *opt, char (*loop)[64],
			     struct block_device **bdev, char *err, size_t len)
{
	static char why[128];
	char cmd[4400];
	FILE *p;

	if (geteuid() != 0)
		return "loop devices need root";
	make_file(size);
	snprintf(cmd, sizeof(cmd), "losetup %s--find --show '%s' 2>&1", opt,
		 path);
	p = popen(cmd, "r");
	if (!p || !fgets(*loop, sizeof(*loop), p) ||
	    strncmp(*loop, "/dev/", 5)) {
		if (p)
			pclose(p);
		snprintf(why, sizeof(why), "losetup %s--find --show failed: %s",
			 opt, *loop);
		return why;
	}
	pclose(p);
	(*loop)[strcspn(*loop, "\n")] = '\0';

	*bdev = blksim_bdev_file_open(*loop, NULL, err, len);
	snprintf(cmd, sizeof(cmd), "losetup -d %s", *loop);
	ck_assert_int_eq(system(cmd), 0);
	return NULL;
}

/*
 * A loop device over a file: the block-device path (BLKGETSIZE64,
 * libblkid topology, sysfs queue).
 */
START_TEST(test_file_loop_device)
{
	char loop[64] = "", err[256] = "";
	struct block_device *bdev;
	struct blksim_file_info info;
	const char *why =
		open_loop(16 << 20, "", &loop, &bdev, err, sizeof(err));

	if (why)
		BB_SKIP("%s", why);
	ck_assert_msg(!IS_ERR(bdev), "open %s: %s", loop, err);

	ck_assert(blksim_bdev_file_info(bdev, &info));
	ck_assert(info.is_blockdev);
	ck_assert(info.from_blkid);
	ck_assert_uint_eq(info.size, 16 << 20);
	ck_assert_uint_eq(bdev_nr_sectors(bdev), (16 << 20) >> 9);
	ck_assert_uint_eq(bdev_logical_block_size(bdev), 512);
	ck_assert_uint_ge(bdev_physical_block_size(bdev), 512);
	ck_assert_str_eq(bdev->bd_name, strrchr(loop, '/') + 1);
	roundtrip(bdev, 0, 4096, 9);
	roundtrip(bdev, 1000, 128 << 10, 10);
	ck_assert_int_eq(bb_flush(bdev), 0);
	blksim_bdev_destroy(bdev);
	/* the data went through the loop device into the file */
	ck_assert(file_has(1000 << 9, 128 << 10, 10));
}
END_TEST

START_TEST(test_file_loop_read_only)
{
	char loop[64] = "", err[256] = "", want[300];
	struct block_device *bdev;
	const char *why =
		open_loop(2 << 20, "-r ", &loop, &bdev, err, sizeof(err));

	if (why)
		BB_SKIP("%s", why);
	ck_assert_int_eq(PTR_ERR(bdev), -EROFS);
	snprintf(
		want, sizeof(want),
		"%s: read-only (read-only block device), but writes were asked for",
		loop);
	ck_assert_str_eq(err, want);
}
END_TEST

/* The threaded engine: a reaper thread ends bios in hard-IRQ context. */
START_TEST(test_file_threaded)
{
	struct blksim_file_opts o = { .queue_depth = 8 };
	struct block_device *bdev = open_file(4 << 20, &o);
	enum { N = 48, LEN = 8192 };
	struct bb_async a[N];
	char *buf, *r;

	if (!bdev)
		return;
	buf = bb_alloc(N * LEN);
	r = bb_alloc(N * LEN);
	bb_fill(buf, N * LEN, 0, 11);
	for (int i = 0; i < N; i++)
		bb_submit_nth(bdev, REQ_OP_WRITE | (i % 5 ? 0 : REQ_FUA), buf,
			      LEN, i, &a[i]);
	for (int i = 0; i < N; i++) {
		wait_for_completion(&a[i].done);
		ck_assert_int_eq(a[i].status, BLK_STS_OK);
	}
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, r, N * LEN), 0);
	ck_assert(bb_check(r, N * LEN, 0, 11));
	ck_assert_int_eq(sim_stat_get("bdev_file_rwf_dsync"), N / 5 + 1);
	bb_free(buf, N * LEN);
	bb_free(r, N * LEN);
	blksim_bdev_destroy(bdev);
}
END_TEST

/*
 * submitter_polls, as the FUSE loop drives it: a thread's plain reads go
 * on its own ring, its eventfd turns readable as they complete, and
 * they end only when the thread reaps them, there and then.
 */
START_TEST(test_file_thread_ring_event_loop)
{
	struct blksim_file_opts o = { .queue_depth = 8,
				      .submitter_polls = true,
				      .poll_us = 20 };
	struct block_device *bdev = open_file(1 << 20, &o);
	enum { N = 3, LEN = 4096 };
	struct bb_async a[N];
	struct pollfd p;
	char *w, *r;
	u64 deadline;
	int fd;

	if (!bdev)
		return;
	/* as the FUSE mount has it: bio_endio() where the device ends it */
	blksim_set_completion(bdev, BLKSIM_COMPLETE_INLINE);
	w = bb_alloc(N * LEN);
	r = bb_alloc(N * LEN);
	bb_fill(w, N * LEN, 0, 5);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 0, w, N * LEN), 0);

	fd = blksim_bdev_submitter_fd(bdev);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(blksim_bdev_submitter_fd(bdev), fd);
	ck_assert_uint_eq(blksim_bdev_submitter_outstanding(bdev), 0);
	memset(r, 0, N * LEN);
	for (int i = 0; i < N; i++)
		bb_submit_nth(bdev, REQ_OP_READ, r, LEN, i, &a[i]);
	ck_assert_uint_eq(blksim_bdev_submitter_outstanding(bdev), N);

	/* nobody else ends them: they wait for this thread */
	deadline = bb_now_ns() + 5000000000ull;
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	while (blksim_bdev_submitter_outstanding(bdev) &&
	       bb_now_ns() < deadline) {
		if (poll(&p, 1, 100) > 0) {
			u64 v;

			ck_assert_int_eq(read(fd, &v, sizeof(v)), sizeof(v));
			ck_assert_uint_ge(v, 1);
		}
		blksim_bdev_submitter_reap(bdev, false);
	}
	ck_assert_uint_eq(blksim_bdev_submitter_outstanding(bdev), 0);
	for (int i = 0; i < N; i++) {
		ck_assert_int_eq(a[i].ended, 1);
		ck_assert_int_eq(a[i].status, BLK_STS_OK);
	}
	ck_assert(bb_check(r, N * LEN, 0, 5));

	/* waiting: one read, reaped (busy-polled first: it went out alone) */
	bb_submit_async(bb_bio(bdev, REQ_OP_READ, 0, r, LEN), &a[0]);
	ck_assert_uint_eq(blksim_bdev_submitter_outstanding(bdev), 1);
	ck_assert_int_eq(blksim_bdev_submitter_reap(bdev, true), 1);
	ck_assert_int_eq(a[0].ended, 1);
	ck_assert_uint_eq(blksim_bdev_submitter_outstanding(bdev), 0);

	bb_free(w, N * LEN);
	bb_free(r, N * LEN);
	blksim_bdev_destroy(bdev);
}
END_TEST

/*
 * A lone read of a thread that defers: it goes out in the call that
 * waits for it (or, should something hold that up past the sweep, the
 * sweep submits it: either way it was not submitted with the bio), and
 * a poll window the caller asks for is opened and counted.  Without
 * deferral, or with something else in flight, reads go out at once.
 */
/*
 * Wait for @n reads of this thread's ring, @a[0..n): each must have
 * ended, and the wait reaps those that had not.  A read the ring had
 * already ended by then (its owner preempted on a loaded machine while
 * the completion went through) is not the wait's to reap, so it may
 * reap fewer than @n, never more.
 */
static void wait_ended(struct block_device *bdev, struct blksim_bdev_spin *spin,
		       const struct bb_async *a, int n)
{
	int reaped = blksim_bdev_submitter_wait(bdev, spin);

	ck_assert_int_ge(reaped, 0);
	ck_assert_int_le(reaped, n);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(a[i].ended, 1);
}

START_TEST(test_file_thread_ring_lone_read_deferred)
{
	struct blksim_file_opts o = { .queue_depth = 8,
				      .submitter_polls = true };
	struct block_device *bdev = open_file(1 << 20, &o);
	enum { LEN = 4096 };
	struct blksim_bdev_spin spin = { 0 };
	struct bb_async a[2];
	char *w, *r;

	if (!bdev)
		return;
	blksim_set_completion(bdev, BLKSIM_COMPLETE_INLINE);
	w = bb_alloc(2 * LEN);
	r = bb_alloc(2 * LEN);
	bb_fill(w, 2 * LEN, 0, 7);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 0, w, 2 * LEN), 0);

	/* not deferring: out with the bio, as before */
	ck_assert_int_ge(blksim_bdev_submitter_fd(bdev), 0);
	bb_submit_async(bb_bio(bdev, REQ_OP_READ, 0, r, LEN), &a[0]);
	wait_ended(bdev, &spin, a, 1);
	ck_assert(!spin.polled);
	ck_assert_int_eq(sim_stat_get("bdev_file_submit_and_wait") +
				 sim_stat_get("bdev_file_deferred_late"),
			 0);

	ck_assert_int_eq(blksim_bdev_submitter_defer(bdev, true), 0);
	memset(r, 0, 2 * LEN);
	bb_submit_async(bb_bio(bdev, REQ_OP_READ, 0, r, LEN), &a[0]);
	ck_assert_uint_eq(blksim_bdev_submitter_outstanding(bdev), 1);
	wait_ended(bdev, &spin, a, 1);
	ck_assert(!spin.polled);
	ck_assert_int_eq(a[0].ended, 1);
	ck_assert_int_eq(a[0].status, BLK_STS_OK);
	ck_assert(bb_check(r, LEN, 0, 7));
	ck_assert_int_eq(sim_stat_get("bdev_file_submit_and_wait") +
				 sim_stat_get("bdev_file_deferred_late"),
			 1);

	/*
	 * A window asked for: submitted first, then polled for while the read
	 * is out.  A read the device completed before the drain needs none
	 * (the FUSE loop counts it as fuse_poll_not_needed), which on a
	 * loaded machine happens often (the submitter loses its CPU between
	 * the submit and the drain): of many reads, one must still be out,
	 * and each is counted as what it was.
	 */
	for (int tries = 0; tries < 1000; tries++) {
		sim_stats_reset();
		spin = (struct blksim_bdev_spin){ .budget_us = 1000000 };
		bb_submit_async(bb_bio(bdev, REQ_OP_READ, 8, r + LEN, LEN),
				&a[1]);
		wait_ended(bdev, &spin, &a[1], 1);
		ck_assert_int_eq(sim_stat_get("bdev_file_poll_windows"),
				 spin.polled);
		ck_assert_int_eq(sim_stat_get("bdev_file_submit_and_wait"), 0);
		ck_assert_int_eq(a[1].ended, 1);
		if (spin.polled)
			break;
	}
	ck_assert_msg(spin.polled,
		      "1000 reads, each complete before its window");
	ck_assert_int_eq(sim_stat_get("bdev_file_poll_hits"), spin.hit);
	ck_assert_int_eq(sim_stat_get("bdev_file_poll_spent_ns"),
			 (long)spin.spent_ns);
	ck_assert_int_eq(sim_stat_get("bdev_file_submit_and_wait"), 0);
	ck_assert_int_eq(a[1].ended, 1);
	ck_assert(bb_check(r, 2 * LEN, 0, 7));

	/* the second of two is not alone: both out by the second's submit */
	sim_stats_reset();
	spin.budget_us = 0;
	bb_submit_async(bb_bio(bdev, REQ_OP_READ, 0, r, LEN), &a[0]);
	bb_submit_async(bb_bio(bdev, REQ_OP_READ, 8, r + LEN, LEN), &a[1]);
	wait_ended(bdev, &spin, a, 2);
	ck_assert_int_eq(sim_stat_get("bdev_file_submit_and_wait"), 0);
	ck_assert_int_eq(sim_stat_get("bdev_file_deferred_late"), 0);

	/* turning it off submits what is held */
	bb_submit_async(bb_bio(bdev, REQ_OP_READ, 0, r, LEN), &a[0]);
	ck_assert_int_eq(blksim_bdev_submitter_defer(bdev, false), 0);
	wait_ended(bdev, &spin, a, 1);
	ck_assert_int_eq(sim_stat_get("bdev_file_submit_and_wait"), 0);
	ck_assert_int_eq(a[0].ended, 1);

	bb_free(w, 2 * LEN);
	bb_free(r, 2 * LEN);
	blksim_bdev_destroy(bdev);
}
END_TEST

/*
 * Which reads a deferring owner's ring takes.  A direct I/O read marked
 * REQ_SYNC | REQ_IDLE, as iomap_dio_bio_iter() marks every bio in trees
 * since the bio_opf rework, is the owner's: held, and submitted when it
 * waits.  A read submit_bio_wait() sleeps for (REQ_SYNC too) is not:
 * held, only the sweep would submit it, BLKSIM_BDEV_FILE_SWEEP_MS late.
 */
START_TEST(test_file_thread_ring_which_reads)
{
	struct blksim_file_opts o = { .queue_depth = 8,
				      .submitter_polls = true };
	struct block_device *bdev = open_file(1 << 20, &o);
	enum { LEN = 4096 };
	struct blksim_bdev_spin spin = { 0 };
	struct bb_async a;
	char *w, *r;

	if (!bdev)
		return;
	blksim_set_completion(bdev, BLKSIM_COMPLETE_INLINE);
	w = bb_alloc(LEN);
	r = bb_alloc(LEN);
	bb_fill(w, LEN, 0, 9);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 0, w, LEN), 0);
	ck_assert_int_ge(blksim_bdev_submitter_fd(bdev), 0);
	ck_assert_int_eq(blksim_bdev_submitter_defer(bdev, true), 0);
	sim_stats_reset();

	bb_submit_async(
		bb_bio(bdev, REQ_OP_READ | REQ_SYNC | REQ_IDLE, 0, r, LEN), &a);
	ck_assert_uint_eq(blksim_bdev_submitter_outstanding(bdev), 1);
	ck_assert_int_eq(blksim_bdev_submitter_wait(bdev, &spin), 1);
	ck_assert_int_eq(a.status, BLK_STS_OK);
	ck_assert(bb_check(r, LEN, 0, 9));
	ck_assert_int_eq(sim_stat_get("bdev_file_submit_and_wait"), 1);

	memset(r, 0, LEN);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, r, LEN), 0);
	ck_assert(bb_check(r, LEN, 0, 9));
	ck_assert_uint_eq(blksim_bdev_submitter_outstanding(bdev), 0);
	ck_assert_int_eq(sim_stat_get("bdev_file_submit_and_wait"), 1);
	ck_assert_int_eq(sim_stat_get("bdev_file_deferred_late"), 0);

	ck_assert_int_eq(blksim_bdev_submitter_defer(bdev, false), 0);
	bb_free(w, LEN);
	bb_free(r, LEN);
	blksim_bdev_destroy(bdev);
}
END_TEST

/*
 * The FUSE mount's stack: through a fault wrapper, the submitter's
 * context is the file device's ring.  Its reads submitted to the
 * wrapper wait there for the thread, and the wrapper reaps them.
 */
START_TEST(test_file_thread_ring_through_wrapper)
{
	struct blksim_file_opts o = { .queue_depth = 8,
				      .submitter_polls = true };
	struct block_device *file = open_file(1 << 20, &o);
	struct block_device *bdev;
	enum { LEN = 4096 };
	struct bb_async a;
	char err[256] = "";
	char *w, *r;
	int fd;

	if (!file)
		return;
	fd = blksim_bdev_submitter_fd(file);
	ck_assert_int_ge(fd, 0);
	bdev = blksim_bdev_fault_wrap(file, err, sizeof(err));
	ck_assert_msg(!IS_ERR(bdev), "%s", err);
	blksim_set_completion(file, BLKSIM_COMPLETE_INLINE);
	blksim_set_completion(bdev, BLKSIM_COMPLETE_INLINE);
	ck_assert_int_eq(blksim_bdev_submitter_fd(bdev), fd);
	w = bb_alloc(LEN);
	r = bb_alloc(LEN);
	bb_fill(w, LEN, 0, 11);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 0, w, LEN), 0);

	memset(r, 0, LEN);
	bb_submit_async(bb_bio(bdev, REQ_OP_READ, 0, r, LEN), &a);
	ck_assert_uint_eq(blksim_bdev_submitter_outstanding(bdev), 1);
	ck_assert_int_eq(blksim_bdev_submitter_reap(bdev, true), 1);
	ck_assert_uint_eq(blksim_bdev_submitter_outstanding(bdev), 0);
	ck_assert_int_eq(a.ended, 1);
	ck_assert_int_eq(a.status, BLK_STS_OK);
	ck_assert(bb_check(r, LEN, 0, 11));

	bb_free(w, LEN);
	bb_free(r, LEN);
	blksim_bdev_destroy(bdev);
}
END_TEST

/*
 * Not a file device (a ram device, bare or wrapped): no context to be
 * had, and a wait says no window was opened.
 */
START_TEST(test_file_thread_ring_other_device)
{
	struct block_device *ram = blksim_bdev_ram_create(NULL, NULL, 0);
	struct blksim_bdev_spin spin = {
		.budget_us = 10, .polled = true, .hit = true, .spent_ns = 1
	};
	struct block_device *wrapped;
	char err[256] = "";

	ck_assert(!IS_ERR(ram));
	ck_assert_int_eq(blksim_bdev_submitter_fd(ram), -EOPNOTSUPP);
	ck_assert_uint_eq(blksim_bdev_submitter_outstanding(ram), 0);
	ck_assert_int_eq(blksim_bdev_submitter_reap(ram, true), 0);
	ck_assert_int_eq(blksim_bdev_submitter_wait(ram, &spin), 0);
	ck_assert(!spin.polled && !spin.hit && !spin.spent_ns);
	ck_assert_int_eq(blksim_bdev_submitter_defer(ram, true), -EOPNOTSUPP);

	wrapped = blksim_bdev_fault_wrap(ram, err, sizeof(err));
	ck_assert_msg(!IS_ERR(wrapped), "%s", err);
	ck_assert_int_eq(blksim_bdev_submitter_fd(wrapped), -EOPNOTSUPP);
	ck_assert_int_eq(blksim_bdev_submitter_defer(wrapped, true),
			 -EOPNOTSUPP);
	blksim_bdev_destroy(wrapped);
}
END_TEST

static Suite *file_suite(void)
{
	Suite *s = sim_suite(
		"block_backend_file",
		sim_tcase_fixture("file", sim_test_setup, file_teardown),
		test_file_roundtrip_statx_limits, test_file_missing_path,
		test_file_directory, test_file_too_small_and_odd_size,
		test_file_read_only_target, test_file_queue_depth,
		test_file_nowait_again, test_file_no_tag_in_irq,
		test_file_polled, test_file_det_replay, test_file_fua_and_flush,
		test_file_bounce_misaligned, test_file_bad_queue_depth,
		test_file_tmpfs_probed, test_file_loop_device,
		test_file_loop_read_only);

	sim_suite_add(s,
		      sim_tcase_fixture("file-threaded",
					sim_test_setup_threaded, file_teardown),
		      test_file_threaded, test_file_thread_ring_event_loop,
		      test_file_thread_ring_lone_read_deferred,
		      test_file_thread_ring_which_reads,
		      test_file_thread_ring_through_wrapper,
		      test_file_thread_ring_other_device);
	return s;
}

SIM_TEST_MAIN(file_suite)
