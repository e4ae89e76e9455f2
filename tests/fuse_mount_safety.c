// SPDX-License-Identifier: GPL-2.0-only
/*
 * The mount keeps data safe, end to end through FUSE on an
 * image file (see mount/fixture.h for the fixture):
 *
 *  - one writer per image: a second mount and an mkfs of a mounted image
 *    are refused with the holder's pid; fsck of it runs read-only and
 *    says so, naming the mount's pid; a remount right after
 *    fusermount3 -u waits for the old daemon's last commit instead of
 *    racing it;
 *  - control files take one value per write, whole or not at all;
 *  - truncate to zero and punch or zero range on an empty file (UBSan
 *    stopped the sanitized daemon there);
 *  - the messages of a failed mount: the path once, and for an image
 *    holding another file system a mkfs command that will run.
 */
#include "mount/fixture.h"

static char mnt2[600];

static void umount2_if_mounted(void)
{
	char out[256], line[1024];
	FILE *f = fopen("/proc/self/mounts", "r");
	bool found = false;

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, mnt2))
			found = true;
	if (f)
		fclose(f);
	if (found)
		sd_run(out, sizeof(out), "fusermount3 -u %s", mnt2);
}

START_TEST(test_second_mount_and_mkfs_refused)
{
	char out[2048], want[64], live[64], before[128], after[128];
	int rc;

	write_file("keep", 256 << 10, 64 << 10, 21, true);
	snprintf(mnt2, sizeof(mnt2), "%s/mnt2", tmpdir);
	mkdir(mnt2, 0755);
	snprintf(want, sizeof(want), "image is mounted (pid %d)", daemon_pid);

	rc = sd_run(out, sizeof(out), "%s mount %s %s", bin, target, mnt2);
	umount2_if_mounted();
	ck_assert_msg(rc == 1, "second mount: exit %d: %s", rc, out);
	ck_assert_msg(strstr(out, want), "second mount should say '%s': %s",
		      want, out);
	/* one line */
	ck_assert_ptr_eq(strchr(out, '\n'), out + strlen(out) - 1);

	sd_run(before, sizeof(before), "md5sum < %s", target);
	rc = sd_run(out, sizeof(out), "%s mkfs --force %s", bin, target);
	ck_assert_msg(rc == 1 && strstr(out, want),
		      "mkfs --force of a "
		      "mounted image: exit %d: %s",
		      rc, out);
	sd_run(after, sizeof(after), "md5sum < %s", target);
	ck_assert_str_eq(before, after);

	/*
	 * fsck runs, read-only, and says why the state is MOUNTED: the live
	 * mount, named by its pid, not a process that ended
	 */
	rc = fsck_image(out, sizeof(out));
	ck_assert_msg(rc == 0, "fsck of a mounted image: %d: %s", rc, out);
	ck_assert_ptr_nonnull(strstr(out, want));
	ck_assert_ptr_nonnull(strstr(out, "checking read-only"));
	snprintf(live, sizeof(live), "mounted now, by pid %d", daemon_pid);
	ck_assert_msg(strstr(out, live), "want '%s': %s", live, out);
	snprintf(live, sizeof(live), "(mounted by pid %d)", daemon_pid);
	ck_assert_msg(strstr(out, live), "want '%s': %s", live, out);
	ck_assert_msg(!strstr(out, "process ended") &&
			      !strstr(out, "not cleanly unmounted"),
		      "%s", out);

	verify_file("keep", 256 << 10, 4096, 21);
	umount_fs();
	rmdir(mnt2);
}
END_TEST

/*
 * The daemon commits after fusermount3 -u returns.  A mount started at
 * once must wait for that commit: every round's data is there, and the
 * image stays clean.
 */
START_TEST(test_remount_right_after_unmount)
{
	char out[2048], name[32];

	for (int round = 0; round < 5; round++) {
		pid_t old = daemon_pid;

		snprintf(name, sizeof(name), "r%d", round);
		write_file(name, 64 << 10, 4096, 30 + round, false);
		ck_assert_msg(sd_run(out, sizeof(out), "fusermount3 -u %s",
				     mnt) == 0,
			      "fusermount3 -u: %s", out);
		daemon_pid = -1;
		mount_fs(NULL);
		ck_assert_int_eq(waitpid(old, NULL, 0), old);
		for (int k = 0; k <= round; k++) {
			snprintf(name, sizeof(name), "r%d", k);
			verify_file(name, 64 << 10, 4096, 30 + k);
		}
	}
	umount_fs();
	ck_assert_msg(fsck_image(out, sizeof(out)) == 0, "fsck: %s", out);
}
END_TEST

/* One write(2) of @len bytes to control file @file: 0 or errno. */
static int ctl_write_raw(const char *file, const char *data, size_t len)
{
	char path[600];
	ssize_t n;
	int fd, e;

	snprintf(path, sizeof(path), "%s/.iomapsim/%s", mnt, file);
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	n = write(fd, data, len);
	e = errno;
	close(fd);
	if (n < 0)
		return e;
	ck_assert_int_eq(n, (ssize_t)len);
	return 0;
}

static int ctl_read_int(const char *file)
{
	char path[600], buf[32] = "";
	int fd;

	snprintf(path, sizeof(path), "%s/.iomapsim/%s", mnt, file);
	fd = open(path, O_RDONLY);
	ck_assert_int_gt(read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	return atoi(buf);
}

static int fault_rules(void)
{
	char path[600], buf[8192];
	ssize_t n;
	int fd, lines = 0;

	snprintf(path, sizeof(path), "%s/.iomapsim/fault", mnt);
	fd = open(path, O_RDONLY);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ck_assert_int_ge(n, 0);
	for (ssize_t i = 0; i < n; i++)
		lines += buf[i] == '\n';
	return lines;
}

START_TEST(test_control_files_one_value)
{
	static const struct {
		const char *data;
		size_t len;
	} bad[] = {
		{ "\n", 1 },	 { "\t", 1 },	      { "", 1 },
		{ " 0\n", 3 },	 { "1\0garbage", 9 }, { "0\nbogus", 7 },
		{ "0\n1\n", 4 }, { "0 1", 3 },	      { "2", 1 },
	};
	char spec[32];

	ck_assert_int_eq(ctl_read_int("simple"), 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(ctl_write_raw("simple", bad[i].data,
					    bad[i].len) == EINVAL,
			      "simple: bad write %zu accepted", i);
		/* nothing applied */
		ck_assert_int_eq(ctl_read_int("simple"), 1);
	}
	/* trailing whitespace is fine */
	ck_assert_int_eq(ctl_write_raw("simple", "0 \t\n", 4), 0);
	ck_assert_int_eq(ctl_read_int("simple"), 0);
	ck_assert_int_eq(ctl_write_raw("simple", "1", 1), 0);
	ck_assert_int_eq(ctl_read_int("simple"), 1);

	ck_assert_int_eq(ctl_write_raw("stats", "reset\nbogus", 11), EINVAL);
	ck_assert_int_eq(ctl_write_raw("trace", "clear\0", 6), EINVAL);
	ck_assert_int_eq(ctl_write_raw("fault", "bio-error:1\nclear", 17),
			 EINVAL);
	ck_assert_int_eq(fault_rules(), 0);

	/* the documented cap: 64 rules, the 65th is refused, none added */
	for (int i = 0; i < 64; i++) {
		snprintf(spec, sizeof(spec), "bio-error:%d\n", 100000 + i);
		ck_assert_int_eq(ctl_write_raw("fault", spec, strlen(spec)), 0);
	}
	ck_assert_int_eq(ctl_write_raw("fault", "bio-error:7\n", 12), ENOSPC);
	ck_assert_int_eq(fault_rules(), 64);
	ck_assert_int_eq(ctl_write_raw("fault", "clear\n", 6), 0);
	ck_assert_int_eq(fault_rules(), 0);
	umount_fs();
}
END_TEST

/*
 * Before: `truncate -s 4096 f; truncate -s 0 f` and a punch on an empty
 * file made UBSan stop the sanitized daemon (memmove from a NULL extent
 * array).  The daemon must live on and exit 0 from a clean unmount.
 */
START_TEST(test_truncate_zero_and_punch_empty)
{
	char out[2048];
	int fd = open(path_in("f"), O_RDWR | O_CREAT, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fallocate(fd,
				   FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				   0, 4096),
			 0);
	ck_assert_int_eq(fallocate(fd, FALLOC_FL_ZERO_RANGE, 0, 4096), 0);
	ck_assert_int_eq(ftruncate(fd, 4096), 0);
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(fallocate(fd,
				   FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				   0, 8192),
			 0);
	close(fd);
	ck_assert_int_eq(truncate(path_in("f"), 4096), 0);
	ck_assert_int_eq(truncate(path_in("f"), 0), 0);
	/* the daemon is still serving */
	ck_assert_int_ge(stat_of("fuse_write"), 0);
	umount_fs();
	ck_assert_msg(fsck_image(out, sizeof(out)) == 0, "fsck: %s", out);
}
END_TEST

START_TEST(test_failed_mount_messages)
{
	char out[2048], mp[600];
	int fd;

	snprintf(mp, sizeof(mp), "%s/mnt", tmpdir);
	mkdir(mp, 0755);
	/* too small: the path once */
	fd = open(img, O_RDWR | O_CREAT | O_TRUNC, 0644);
	close(fd);
	ck_assert_int_eq(sd_run(out, sizeof(out), "cd %s && %s mount img mnt",
				tmpdir, bin),
			 1);
	ck_assert_msg(strstr(out, "iomapsim: img: too small") &&
			      !strstr(out, "img: img:"),
		      "%s", out);

	if (system("command -v mkfs.ext4 >/dev/null 2>&1")) {
		printf("note: no mkfs.ext4 (e2fsprogs); the ext4 hint not "
		       "checked\n");
		return;
	}
	ck_assert_int_eq(truncate(img, 64 * MiB), 0);
	ck_assert_int_eq(sd_run(out, sizeof(out), "mkfs.ext4 -q -F %s", img),
			 0);
	ck_assert_int_eq(
		sd_run(out, sizeof(out), "%s mount %s %s", bin, img, mp), 1);
	ck_assert_msg(strstr(out, "ext4") && strstr(out, "mkfs --force"),
		      "the hint must be a mkfs that runs: %s", out);
	/* and that command does run */
	ck_assert_int_eq(
		sd_run(out, sizeof(out), "%s mkfs --force %s", bin, img), 0);
	ck_assert_int_eq(sd_run(out, sizeof(out), "%s fsck %s", bin, img), 0);
	/* block size 0 is not "the default" */
	ck_assert_int_eq(sd_run(out, sizeof(out),
				"%s mkfs --force "
				"--block-size 0 %s",
				bin, img),
			 2);
	ck_assert_ptr_nonnull(strstr(out, "bad block size '0'"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse_mount_safety");
	TCase *tc, *bare;

	require_env();
	tc = mounted_tcase("safety");
	sim_suite_add(s, tc, test_second_mount_and_mkfs_refused,
		      test_remount_right_after_unmount,
		      test_control_files_one_value,
		      test_truncate_zero_and_punch_empty);
	bare = bare_tcase("messages");
	sim_suite_add(s, bare, test_failed_mount_messages);
	return run_suite(s);
}
