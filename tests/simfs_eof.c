// SPDX-License-Identifier: GPL-2.0-only
/*
 * F-01 in process, on a ram device: space past end of file reads as
 * zeroes whatever the device holds there, on every path that moves
 * i_size out: truncate up, extending direct and buffered writes,
 * fallocate (allocate and zero range) past the old end, and a
 * mount/unmount cycle.
 *
 * Stale bytes past EOF come two ways.  A crash after an extending
 * write's blocks reached the disk but before its new size was committed
 * (made here as the crash leaves it: a file written and committed, then
 * its i_size lowered in the copy, resealed): mount frees the written
 * blocks wholly past EOF, and fsck says so; the bytes after EOF in the
 * EOF block stay on disk.  And a buffered write cut short by ENOSPC,
 * which leaves written blocks past EOF in memory, with no crash at all.
 */
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include "simfs_image.h"
#include "simfs_ram.h"

#define BS 4096
#define STALE 0x5a

/* @notes gets fsck's notes, one a line. */
struct notes {
	char text[2048];
	unsigned int errors;
};

static void collect(void *arg, bool error, const char *text)
{
	struct notes *n = arg;
	size_t l = strlen(n->text);

	if (error)
		n->errors++;
	snprintf(n->text + l, sizeof(n->text) - l, "%s\n", text);
}

static int count_of(const char *text, const char *what)
{
	int k = 0;

	for (const char *p = text; (p = strstr(p, what)); p++)
		k++;
	return k;
}

static void fsck_notes(struct notes *n)
{
	struct simfs_fsck_report r = { .msg = collect, .arg = n };

	memset(n, 0, sizeof(*n));
	ck_assert_int_eq(simfs_fsck(bdev, &r), 0);
	ck_assert_msg(!n->errors, "fsck: %s", n->text);
}

/* Root file @name, @len bytes of STALE written directly, committed. */
static void write_stale(struct super_block *sb, const char *name, size_t len)
{
	struct simfs_inode_info *f =
		simfs_create(root_of(sb), name, S_IFREG | 0644, 0, 0, false);
	struct file *file;
	char *buf = abuf(len, STALE);

	ck_assert(!IS_ERR(f));
	file = simfs_file_open(f, O_RDWR | O_DIRECT);
	ck_assert(!IS_ERR(file));
	ck_assert_int_eq(rw(file, true, true, buf, len, 0), (ssize_t)len);
	simfs_file_release(file);
	free(buf);
}

/*
 * A 16 MiB image with files a..e of 64 KiB of STALE each, unmounted;
 * then the crash's state: each i_size lowered to @cut[i].
 */
static const char *const names[] = { "a", "b", "c", "d", "e" };

static void crashed_image(const u64 cut[5])
{
	struct super_block *sb;
	struct on_disk od;

	ram_dev(16 * MiB, 512);
	do_mkfs(BS);
	sb = do_mount();
	for (int i = 0; i < 5; i++)
		write_stale(sb, names[i], 64 << 10);
	do_umount(sb);
	find_committed(&od, blksim_bdev_ram_data(bdev), BS);
	for (int i = 0; i < 5; i++)
		cut_size(&od, names[i], cut[i]);
}

static struct file *open_named(struct super_block *sb, const char *name,
			       int flags)
{
	struct simfs_inode_info *f = simfs_lookup(root_of(sb), name, false);
	struct file *file;

	ck_assert(!IS_ERR(f));
	file = simfs_file_open(f, flags);
	ck_assert(!IS_ERR(file));
	return file;
}

/* [from, to) of @file reads as zeroes, buffered and (aligned) direct. */
static void zero_between(struct file *file, loff_t from, loff_t to)
{
	loff_t start = round_down(from, BS), end = round_up(to, BS);
	char *buf = abuf(end - start, 0xee);
	struct file *d = simfs_file_open(SIMFS_I(file_inode(file)), O_RDONLY);

	ck_assert_int_eq(rw(d, false, false, buf, to - from, from), to - from);
	ck_assert_msg(all_bytes(buf, 0, to - from),
		      "buffered read of "
		      "%lld..%lld: stale bytes past the old end of file",
		      (long long)from, (long long)to);
	simfs_file_release(d);
	d = simfs_file_open(SIMFS_I(file_inode(file)), O_RDONLY | O_DIRECT);
	memset(buf, 0xee, end - start);
	ck_assert_int_ge(rw(d, false, true, buf, end - start, start),
			 to - start);
	ck_assert_msg(all_bytes(buf + (from - start), 0, to - from),
		      "direct read of %lld..%lld: stale bytes past the old "
		      "end of file",
		      (long long)from, (long long)to);
	simfs_file_release(d);
	free(buf);
}

/* The first @n bytes of @file are still its STALE data. */
static void kept(struct file *file, size_t n)
{
	char *buf = abuf(n, 0);

	ck_assert_int_eq(rw(file, false, false, buf, n, 0), (ssize_t)n);
	ck_assert(all_bytes(buf, STALE, n));
	free(buf);
}

/*
 * covers F-01: mount frees the written blocks wholly past EOF; fsck said
 * it would (blocks from the one after EOF's on, for each file), and
 * after the mount's commit nothing is left to say.
 */
START_TEST(test_mount_frees_written_blocks_past_eof)
{
	static const u64 cut[5] = { 0, 5000, 8192, 64 << 10, 100 };
	struct super_block *sb;
	struct notes n;
	u64 free_before;

	crashed_image(cut);
	fsck_notes(&n);
	ck_assert_msg(strstr(n.text,
			     "written blocks 0..15 past end of file "
			     "(a write was cut short); mount frees them"),
		      "%s", n.text);
	ck_assert_ptr_nonnull(strstr(n.text, "written blocks 2..15 past"));
	ck_assert_ptr_nonnull(strstr(n.text, "written blocks 1..15 past"));
	/* a, b, c and e; d's size covers all it maps */
	ck_assert_int_eq(count_of(n.text, "past end of file"), 4);

	sb = do_mount();
	{
		u64 want[5] = { 0, 2, 2, 16, 1 };

		for (int i = 0; i < 5; i++) {
			struct simfs_inode_info *f =
				simfs_lookup(root_of(sb), names[i], false);

			ck_assert_msg(simfs_ext_blocks(f) == want[i],
				      "%s maps %llu blocks, want %llu",
				      names[i],
				      (unsigned long long)simfs_ext_blocks(f),
				      (unsigned long long)want[i]);
		}
	}
	/* the mount's commit made the free durable: usable at once */
	free_before = simfs_alloc_free_count(SIMFS_SB(sb));
	ck_assert_uint_eq(simfs_alloc_pending_count(SIMFS_SB(sb)), 0);
	do_umount(sb);
	fsck_notes(&n);
	ck_assert_msg(!strstr(n.text, "past end of file"), "%s", n.text);
	sb = do_mount();
	ck_assert_uint_eq(simfs_alloc_free_count(SIMFS_SB(sb)), free_before);
	do_umount(sb);
	put_dev();
}
END_TEST

/*
 * covers F-01: each way of extending a file whose EOF block still holds
 * stale bytes after EOF (mount cannot free a block the file uses).
 */
START_TEST(test_eof_block_tail_is_zeroed_on_every_extension)
{
	static const u64 cut[5] = { 100, 100, 100, 100, 100 };
	struct super_block *sb;
	struct file *f;
	char *buf = abuf(BS, 0x33);

	crashed_image(cut);
	sb = do_mount();

	/* truncate up, within the EOF block and past it */
	f = open_named(sb, "a", O_RDWR);
	ck_assert_int_eq(simfs_truncate(SIMFS_I(file_inode(f)), 3000), 0);
	zero_between(f, 100, 3000);
	ck_assert_int_eq(simfs_truncate(SIMFS_I(file_inode(f)), 3 * BS), 0);
	zero_between(f, 100, 3 * BS);
	kept(f, 100);
	simfs_file_release(f);

	/* an extending direct write, aligned, into the EOF block */
	f = open_named(sb, "b", O_RDWR | O_DIRECT);
	ck_assert_int_eq(rw(f, true, true, buf, 512, 1024), 512);
	zero_between(f, 100, 1024);
	kept(f, 100);
	simfs_file_release(f);

	/* an extending buffered write past the EOF block */
	f = open_named(sb, "c", O_RDWR);
	ck_assert_int_eq(rw(f, true, false, buf, 10, 2 * BS + 7), 10);
	zero_between(f, 100, 2 * BS + 7);
	kept(f, 100);
	simfs_file_release(f);

	/* fallocate past the old end of file, allocating */
	f = open_named(sb, "d", O_RDWR);
	ck_assert_int_eq(simfs_fallocate(f, 0, BS, BS), 0);
	ck_assert_int_eq(i_size_read(file_inode(f)), 2 * BS);
	zero_between(f, 100, 2 * BS);
	kept(f, 100);
	simfs_file_release(f);

	/* zero range past the old end of file, growing it */
	f = open_named(sb, "e", O_RDWR);
	ck_assert_int_eq(simfs_fallocate(f, FALLOC_FL_ZERO_RANGE, 2000, 500),
			 0);
	ck_assert_int_eq(i_size_read(file_inode(f)), 2500);
	zero_between(f, 100, 2500);
	kept(f, 100);
	simfs_file_release(f);

	/* and the zeroes are on disk: a mount/unmount cycle keeps them */
	umount_clean(sb);
	sb = do_mount();
	f = open_named(sb, "a", O_RDONLY);
	zero_between(f, 100, 3 * BS);
	simfs_file_release(f);
	f = open_named(sb, "b", O_RDONLY);
	zero_between(f, 100, 1024);
	simfs_file_release(f);
	f = open_named(sb, "c", O_RDONLY);
	zero_between(f, 100, 2 * BS + 7);
	simfs_file_release(f);
	do_umount(sb);
	put_dev();
	free(buf);
}
END_TEST

/*
 * No crash: a buffered write that runs out of space after some of its
 * blocks are written leaves them past EOF (i_size moves only for a whole
 * chunk).  Each way of extending the file must not show them.
 */
static struct file *cut_short_buffered_write(struct super_block *sb,
					     const char *name)
{
	struct simfs_sb_info *sbi = SIMFS_SB(sb);
	struct simfs_inode_info *fill, *f;
	struct file *ff, *file;
	char *buf = abuf(64 << 10, STALE);
	u64 left;

	/* nothing held back: everything but 4 blocks taken */
	ck_assert_int_eq(simfs_commit(sbi), 0);
	fill = simfs_create(root_of(sb), "fill", S_IFREG | 0644, 0, 0, false);
	ck_assert(!IS_ERR(fill));
	ff = simfs_file_open(fill, O_RDWR);
	left = simfs_alloc_free_count(sbi);
	ck_assert_int_eq(simfs_fallocate(ff, 0, 0, (left - 4) * BS), 0);
	simfs_file_release(ff);

	f = simfs_create(root_of(sb), name, S_IFREG | 0644, 0, 0, false);
	ck_assert(!IS_ERR(f));
	file = simfs_file_open(f, O_RDWR);
	ck_assert_int_eq(rw(file, true, false, buf, 64 << 10, 0), -ENOSPC);
	/* the state under test: 4 written blocks, i_size 0 */
	ck_assert_int_eq(i_size_read(&f->vfs_inode), 0);
	ck_assert_uint_eq(simfs_ext_blocks(f), 4);
	for (u32 i = 0; i < f->nr_ext; i++)
		ck_assert_uint_eq(f->ext[i].flags, 0);

	/* room again for what comes next */
	ck_assert_int_eq(simfs_unlink(root_of(sb), "fill"), 0);
	ck_assert_int_eq(simfs_commit(sbi), 0);
	free(buf);
	return file;
}

/* covers F-01: each way of extending, after the ENOSPC-cut write */
START_TEST(test_cut_short_write_never_shows)
{
	struct super_block *sb;
	struct simfs_inode_info *ei;
	struct file *f;
	char *buf = abuf(BS, 0x77);

	ram_dev(4 * MiB, 512);
	do_mkfs(BS);
	sb = do_mount();

	f = cut_short_buffered_write(sb, "t");
	ei = SIMFS_I(file_inode(f));
	ck_assert_int_eq(simfs_truncate(ei, 64 << 10), 0);
	zero_between(f, 0, 64 << 10);
	ck_assert_uint_eq(simfs_ext_blocks(ei), 0);
	simfs_file_release(f);

	f = cut_short_buffered_write(sb, "w");
	simfs_file_release(f);
	f = open_named(sb, "w", O_RDWR | O_DIRECT);
	ck_assert_int_eq(rw(f, true, true, buf, BS, 8 * BS), BS);
	zero_between(f, 0, 8 * BS);
	simfs_file_release(f);

	f = cut_short_buffered_write(sb, "bw");
	ck_assert_int_eq(rw(f, true, false, buf, 100, 3 * BS + 50), 100);
	zero_between(f, 0, 3 * BS + 50);
	simfs_file_release(f);

	f = cut_short_buffered_write(sb, "fa");
	ck_assert_int_eq(simfs_fallocate(f, 0, 0, 8 * BS), 0);
	zero_between(f, 0, 8 * BS);
	simfs_file_release(f);

	/* left as it is, the next mount frees them */
	f = cut_short_buffered_write(sb, "left");
	simfs_file_release(f);
	umount_clean(sb);
	sb = do_mount();
	ck_assert_uint_eq(
		simfs_ext_blocks(simfs_lookup(root_of(sb), "left", false)), 0);
	do_umount(sb);
	put_dev();
	free(buf);
}
END_TEST

static Suite *eof_suite(void)
{
	return sim_suite("simfs_eof", sim_tcase("eof"),
			 test_mount_frees_written_blocks_past_eof,
			 test_eof_block_tail_is_zeroed_on_every_extension,
			 test_cut_short_write_never_shows);
}

SIM_TEST_MAIN(eof_suite)
