// SPDX-License-Identifier: GPL-2.0-only
/*
 * F-01 through the FUSE mount: space past end of file reads as zeroes,
 * whatever the image holds there (see mount/fixture.h for the fixture).
 *
 * The state under test is the one a crash leaves when an extending
 * write's blocks reached the disk but its size update did not: written
 * blocks past i_size, and bytes past i_size in the last block.  It is
 * made as the crash would leave it: files written and synced, the mount
 * gone, then i_size lowered in the committed copy with the checksums
 * resealed.  fsck calls such an image clean and says what mount does with
 * the blocks; mount frees them; and truncate -s, an extending direct or
 * buffered write, and fallocate past the old end of file all read zeroes
 * there, before and after a mount/unmount cycle.
 */
#include <sys/mman.h>
#include "mount/fixture.h"
#include "simfs_image.h"

#define BS 4096

/* Each file as written: 4 MiB of pattern @seed, synced. */
static const struct {
	const char *name;
	unsigned int seed;
} files[] = {
	{ "f", 40 }, { "d", 41 }, { "b", 42 }, { "a", 43 }, { "t", 44 },
};

/* Map the image (the mount is gone), @fn edits it, written back. */
static void edit_image(void (*fn)(struct on_disk *od))
{
	struct on_disk od;
	struct stat st;
	u8 *disk;
	int fd = open(img, O_RDWR);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	disk = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    0);
	ck_assert(disk != MAP_FAILED);
	find_committed(&od, disk, BS);
	fn(&od);
	ck_assert_int_eq(msync(disk, st.st_size, MS_SYNC), 0);
	ck_assert_int_eq(munmap(disk, st.st_size), 0);
	close(fd);
}

/*
 * @len bytes of @name from @off, direct or buffered: at least @need of
 * them must come back (a direct read may stop at end of file).
 */
static char *read_at(const char *name, size_t len, off_t off, bool direct,
		     size_t need)
{
	char *buf = abuf(len);
	int fd = open(path_in(name), O_RDONLY | (direct ? O_DIRECT : 0));
	ssize_t n;

	ck_assert_msg(fd >= 0, "open %s: %s", name, strerror(errno));
	memset(buf, 0xee, len);
	n = pread(fd, buf, len, off);
	ck_assert_msg(n >= (ssize_t)need, "%s: read %zd of %zu bytes at %lld",
		      name, n, need, (long long)off);
	close(fd);
	return buf;
}

static size_t nonzero_bytes(const char *buf, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += buf[i] != 0;
	return n;
}

/* [from, to) of @name reads as zeroes, both ways. */
static void zero_between(const char *name, off_t from, off_t to)
{
	for (int direct = 0; direct < 2; direct++) {
		off_t start = direct ? from & ~(off_t)(BS - 1) : from;
		off_t end = direct ? (to + BS - 1) & ~(off_t)(BS - 1) : to;
		char *buf =
			read_at(name, end - start, start, direct, to - start);
		size_t n = nonzero_bytes(buf + (from - start), to - from);

		ck_assert_msg(n == 0,
			      "%s: %zu non-zero bytes in %lld..%lld "
			      "(%s read), past the old end of file",
			      name, n, (long long)from, (long long)to,
			      direct ? "direct" : "buffered");
		free(buf);
	}
}

static void write_all_files(void)
{
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		write_file(files[i].name, 4 * MiB, 1 * MiB, files[i].seed,
			   true);
}

static void cut_f_to_zero(struct on_disk *od)
{
	cut_size(od, "f", 0);
}

/*
 * covers F-01.  The reproduction: a file of 1024 written blocks, its
 * i_size 0 in the image; fsck says clean and what mount does; truncate
 * -s 4M must read zeroes, and still after a mount/unmount cycle.
 */
START_TEST(test_truncate_up_after_cut_short_write)
{
	char out[4096];
	struct stat st;

	write_file("f", 4 * MiB, 64 << 10, files[0].seed, true);
	umount_fs();
	edit_image(cut_f_to_zero);

	ck_assert_msg(fsck_image(out, sizeof(out)) == 0, "fsck: %s", out);
	ck_assert_msg(strstr(out, "written blocks 0..1023 past end of file") &&
			      strstr(out, "mount frees them"),
		      "fsck: %s", out);

	mount_fs(NULL);
	ck_assert_int_eq(stat(path_in("f"), &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	/* mount freed them: nothing is allocated to the empty file */
	ck_assert_int_eq(st.st_blocks, 0);
	ck_assert_int_eq(truncate(path_in("f"), 4 * MiB), 0);
	zero_between("f", 0, 4 * MiB);
	umount_fs();

	/* the cycle: fsck has nothing left to note, the zeroes stay */
	ck_assert_msg(fsck_image(out, sizeof(out)) == 0, "fsck: %s", out);
	ck_assert_msg(!strstr(out, "past end of file"), "fsck: %s", out);
	mount_fs(NULL);
	zero_between("f", 0, 4 * MiB);
	umount_fs();
}
END_TEST

/*
 * i_size cut inside a block: the blocks after it are freed at mount, the
 * bytes after it in its own block are still on disk and are what each
 * way of extending the file must zero.
 */
static void cut_each_mid_block(struct on_disk *od)
{
	cut_size(od, "d", 100);
	cut_size(od, "b", 5000);
	cut_size(od, "a", 100);
	cut_size(od, "t", 1000);
}

/* The first @keep bytes of @name are its pattern still. */
static void kept(const char *name, unsigned int seed, size_t keep)
{
	char *buf = read_at(name, keep, 0, false, keep);

	check_pattern_at(buf, keep & ~(size_t)3, seed, 0, name);
	free(buf);
}

static void check_extended_files(void)
{
	char *buf;

	/* direct write at 8 KiB: 100..8 KiB zero */
	zero_between("d", 100, 8192);
	kept("d", files[1].seed, 100);
	buf = read_at("d", BS, 8192, true, BS);
	check_pattern(buf, BS, 99, "d's new block");
	free(buf);
	/* buffered write of 10 bytes at 10000: 5000..10000 zero */
	zero_between("b", 5000, 10000);
	kept("b", files[2].seed, 5000);
	buf = read_at("b", 10, 10000, false, 10);
	ck_assert(!memcmp(buf, "ten bytes!", 10));
	free(buf);
	/* fallocate of 1 MiB at 1 MiB: 100..2 MiB zero */
	zero_between("a", 100, 2 * MiB);
	kept("a", files[3].seed, 100);
	/* truncate -s 4096: 1000..4096 zero */
	zero_between("t", 1000, 4096);
	kept("t", files[4].seed, 1000);
}

/* covers F-01: truncate up, direct and buffered writes, fallocate */
START_TEST(test_each_way_of_extending_reads_zeroes)
{
	char out[4096];
	char *buf = abuf(BS);
	struct stat st;
	int fd;

	write_all_files();
	umount_fs();
	edit_image(cut_each_mid_block);
	ck_assert_msg(fsck_image(out, sizeof(out)) == 0, "fsck: %s", out);
	/* "d": block 0 keeps 100 bytes, 1..1023 are past end of file */
	ck_assert_msg(strstr(out, "written blocks 1..1023 past end of file"),
		      "fsck: %s", out);
	mount_fs(NULL);
	ck_assert_int_eq(stat(path_in("d"), &st), 0);
	ck_assert_int_eq(st.st_blocks, BS / 512);

	fd = open(path_in("d"), O_RDWR | O_DIRECT);
	pattern(buf, BS, 99);
	ck_assert_int_eq(pwrite(fd, buf, BS, 8192), BS);
	close(fd);
	fd = open(path_in("b"), O_RDWR);
	ck_assert_int_eq(pwrite(fd, "ten bytes!", 10, 10000), 10);
	close(fd);
	fd = open(path_in("a"), O_RDWR);
	ck_assert_int_eq(fallocate(fd, 0, 1 * MiB, 1 * MiB), 0);
	close(fd);
	ck_assert_int_eq(truncate(path_in("t"), 4096), 0);
	check_extended_files();
	umount_fs();

	ck_assert_msg(fsck_image(out, sizeof(out)) == 0, "fsck: %s", out);
	mount_fs(NULL);
	check_extended_files();
	umount_fs();
	free(buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse_mount_eof");
	TCase *tc;

	require_env();
	tc = mounted_tcase("eof");
	sim_suite_add(s, tc, test_truncate_up_after_cut_short_write,
		      test_each_way_of_extending_reads_zeroes);
	return run_suite(s);
}
