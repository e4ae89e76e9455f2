// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE mount end to end, one set of tests shared by fuse_mount.c (an
 * image file) and fuse_mount_loop.c (a loop device over one): real
 * O_DIRECT system calls against the mount, checked against the data and
 * against the counters in MOUNT/.iomapsim/stats.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/falloc.h>
#include "fixture.h"

static const char *mount_tcase_name = "image"; /* for sim_test_na() */

START_TEST(test_direct_write_read_verify)
{
	write_file("data", 4 * MiB, 64 << 10, 1, false);
	verify_file("data", 4 * MiB, 4096, 1);
	verify_file("data", 4 * MiB, 1 << 20, 1);
	/* a buffered reader sees the same bytes */
	{
		char *buf = abuf(4 * MiB);
		int fd = open(path_in("data"), O_RDONLY);

		ck_assert_int_eq(pread(fd, buf, 4 * MiB, 0),
				 (ssize_t)(4 * MiB));
		check_pattern(buf, 4 * MiB, 1, "buffered");
		close(fd);
		free(buf);
	}
	umount_fs();
}
END_TEST

START_TEST(test_simple_hits_and_fallbacks)
{
	char *buf;
	long hits, large, enc, fb_dops, set_bios;
	int fd;

	if (!sd_has_simple(bin)) {
		sim_test_na(mount_tcase_name, "test_simple_hits_and_fallbacks",
			    "no simple path");
		return;
	}
	buf = abuf(8192);

	write_file("s", 1 * MiB, 1 << 20, 2, false);
	write_file("enc", 64 << 10, 64 << 10, 3, false);
	ck_assert_int_eq(setxattr(path_in("enc"), "user.iomapsim.encrypted",
				  "1", 1, 0),
			 0);
	ctl_write("stats", "reset\n");
	ck_assert_int_eq(stat_of("iomap_simple_hits"), 0);

	fd = open(path_in("s"), O_RDONLY | O_DIRECT);
	for (int i = 0; i < 20; i++)
		ck_assert_int_eq(pread(fd, buf, 4096, i * 4096), 4096);
	for (int i = 0; i < 7; i++)
		ck_assert_int_eq(pread(fd, buf, 8192, i * 8192), 8192);
	check_pattern_at(buf, 8192, 2, 6 * 8192, "8 KiB read");
	close(fd);
	fd = open(path_in("enc"), O_RDONLY | O_DIRECT);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(pread(fd, buf, 4096, i * 4096), 4096);
	close(fd);

	hits = stat_of("iomap_simple_hits");
	large = stat_of("iomap_simple_fallback_too_large");
	enc = stat_of("iomap_simple_fallback_encrypted");
	ck_assert_int_eq(hits, 20);
	ck_assert_int_eq(large, 7);
	ck_assert_int_eq(enc, 5);

	/* simple=0 in the control file: every read falls back, "disabled" */
	ctl_write("simple", "0\n");
	fd = open(path_in("s"), O_RDONLY | O_DIRECT);
	ck_assert_int_eq(pread(fd, buf, 4096, 0), 4096);
	close(fd);
	ck_assert_int_eq(stat_of("iomap_simple_fallback_disabled"), 1);
	ctl_write("simple", "1\n");

	/* a file's own dops keep it off the simple path too */
	ck_assert_int_eq(setxattr(path_in("s"), "user.iomapsim.dops", "bio_set",
				  7, 0),
			 0);
	fb_dops = stat_of("iomap_simple_fallback_dops");
	set_bios = stat_of("simfs_dops_bio_set_bios");
	fd = open(path_in("s"), O_RDONLY | O_DIRECT);
	ck_assert_int_eq(pread(fd, buf, 4096, 4096), 4096);
	check_pattern_at(buf, 4096, 2, 4096, "bio_set");
	close(fd);
	ck_assert_int_eq(stat_of("iomap_simple_fallback_dops"), fb_dops + 1);
	/* G-32: the one bio came from the file's own bio_set */
	ck_assert_int_eq(stat_of("simfs_dops_bio_set_bios"), set_bios + 1);
	ck_assert_int_eq(stat_of("iomap_simple_why_mismatch"), 0);
	ck_assert_int_eq(setxattr(path_in("s"), "user.iomapsim.dops",
				  "nonsense", 8, 0),
			 -1);
	ck_assert_int_eq(errno, EINVAL);
	free(buf);
	umount_fs();
}
END_TEST

START_TEST(test_misaligned_einval)
{
	char *buf = abuf(8192);
	int fd;

	write_file("m", 64 << 10, 64 << 10, 4, false);
	fd = open(path_in("m"), O_RDWR | O_DIRECT);
	ck_assert_int_ge(fd, 0);
	errno = 0;
	ck_assert_int_eq(pread(fd, buf, 4096, 100), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(pread(fd, buf, 1000, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(pwrite(fd, buf, 4096, 4097), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* and nothing changed */
	close(fd);
	verify_file("m", 64 << 10, 4096, 4);
	free(buf);
	umount_fs();
}
END_TEST

/*
 * `iomapsim trace MNT --json FILE` on the mount's ring after a failed,
 * punted read: the bio as an async slice, its end_io arrow, the punt's
 * arrow into a kworker track.
 */
/* @punted: the failed read's completion went to a kworker */
static void check_trace_json(bool punted)
{
	static const char *const want[] = {
		"\"ph\":\"b\",\"name\":\"bio READ sector",
		"\"ph\":\"X\",\"name\":\"bio_endio\"",
		"\"ph\":\"f\",\"name\":\"bio\"",
		"\"name\":\"bdev_fault_inject\"",
		/* the punt's, last */
		"\"ph\":\"f\",\"name\":\"punt\"",
		"kworker\"}}",
	};
	char cmd[5400], json[600], *text = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(json, sizeof(json), "%s/trace.json", tmpdir);
	snprintf(cmd, sizeof(cmd), "%s trace %s --json %s", bin, mnt, json);
	ck_assert_int_eq(system(cmd), 0);
	f = fopen(json, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(getdelim(&text, &len, '\0', f) > 0, 1);
	fclose(f);
	for (size_t i = 0;
	     i < sizeof(want) / sizeof(want[0]) - (punted ? 0 : 2); i++)
		ck_assert_msg(strstr(text, want[i]), "%s not in %s", want[i],
			      json);
	free(text);
	unlink(json);
}

START_TEST(test_bio_error_eio_and_punt)
{
	char *buf = abuf(4096);
	char path[600], rules[512];
	long punted;
	ssize_t n;
	int fd;

	write_file("e", 64 << 10, 64 << 10, 5, false);
	punted = stat_of("iomap_dio_punted");
	ctl_write("fault", "bio-error:1:IOERR:read\n");
	snprintf(path, sizeof(path), "%s/.iomapsim/fault", mnt);
	fd = open(path, O_RDONLY);
	n = read(fd, rules, sizeof(rules) - 1);
	close(fd);
	ck_assert_int_gt(n, 0);
	rules[n] = 0;
	ck_assert_ptr_nonnull(strstr(rules, "bio-error:1"));

	ctl_write("trace", "1\n");
	fd = open(path_in("e"), O_RDONLY | O_DIRECT);
	errno = 0;
	ck_assert_int_eq(pread(fd, buf, 4096, 0), -1);
	ck_assert_int_eq(errno, EIO);
	ctl_write("trace", "0\n");
	/*
	 * the simple path punts an error completion to the dio workqueue
	 * (S-28); a sync generic read completes in the submitter (G-50)
	 */
	ck_assert_int_eq(stat_of("iomap_dio_punted"),
			 punted + sd_has_simple(bin));
	check_trace_json(sd_has_simple(bin));
	ck_assert_int_ge(stat_of("device_error_bios"), 1);
	/* the rule fired once; the next read is fine */
	ck_assert_int_eq(pread(fd, buf, 4096, 0), 4096);
	check_pattern(buf, 4096, 5, "after the error");
	close(fd);

	/* a failed write leaves the old data */
	ctl_write("fault", "bio-error:1:IOERR:write\n");
	fd = open(path_in("e"), O_RDWR | O_DIRECT);
	memset(buf, 0xee, 4096);
	errno = 0;
	ck_assert_int_eq(pwrite(fd, buf, 4096, 8192), -1);
	ck_assert_int_eq(errno, EIO);
	close(fd);
	verify_file("e", 64 << 10, 4096, 5);

	/* a bad rule is refused with EINVAL */
	snprintf(path, sizeof(path), "%s/.iomapsim/fault", mnt);
	fd = open(path, O_WRONLY | O_TRUNC);
	errno = 0;
	ck_assert_int_eq(write(fd, "nonsense\n", 9), -1);
	ck_assert_int_eq(errno, EINVAL);
	close(fd);
	ctl_write("fault", "clear\n");
	free(buf);
	umount_fs();
}
END_TEST

START_TEST(test_holes_and_unwritten_read_zero)
{
	char *buf = abuf(1 << 20);
	int fd = open(path_in("z"), O_RDWR | O_CREAT | O_DIRECT, 0644);

	ck_assert_int_ge(fd, 0);
	/* a hole: truncate up */
	ck_assert_int_eq(ftruncate(fd, 1 << 20), 0);
	memset(buf, 0xaa, 1 << 20);
	ck_assert_int_eq(pread(fd, buf, 1 << 20, 0), 1 << 20);
	ck_assert(all_zero(buf, 1 << 20));
	/* unwritten: fallocate, default mode extends i_size */
	ck_assert_int_eq(fallocate(fd, 0, 1 << 20, 1 << 20), 0);
	memset(buf, 0xaa, 1 << 20);
	ck_assert_int_eq(pread(fd, buf, 1 << 20, 1 << 20), 1 << 20);
	ck_assert(all_zero(buf, 1 << 20));
	/* a write in the middle of the unwritten range; around it zero */
	pattern(buf, 4096, 6);
	ck_assert_int_eq(pwrite(fd, buf, 4096, (1 << 20) + 8192), 4096);
	ck_assert_int_eq(pread(fd, buf, 16384, 1 << 20), 16384);
	ck_assert(all_zero(buf, 8192));
	check_pattern(buf + 8192, 4096, 6, "in unwritten");
	ck_assert(all_zero(buf + 12288, 4096));
	/* punch it out again */
	ck_assert_int_eq(fallocate(fd,
				   FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				   (1 << 20) + 8192, 4096),
			 0);
	ck_assert_int_eq(pread(fd, buf, 16384, 1 << 20), 16384);
	ck_assert(all_zero(buf, 16384));
	close(fd);

	/* full: ENOSPC reaches the client, for fallocate and for writes */
	fd = open(path_in("big"), O_RDWR | O_CREAT | O_DIRECT, 0644);
	errno = 0;
	ck_assert_int_eq(fallocate(fd, 0, 0, 1LL << 40), -1);
	ck_assert_int_eq(errno, ENOSPC);
	close(fd);
	fd = open(path_in("more"), O_RDWR | O_CREAT | O_DIRECT, 0644);
	errno = 0;
	ck_assert_int_eq(pwrite(fd, buf, 1 << 20, 0), -1);
	ck_assert_int_eq(errno, ENOSPC);
	close(fd);
	/*
	 * Space comes back once the file is gone: when the client drops
	 * its last reference (FUSE FORGET, asynchronous) and a commit has
	 * made the free durable.  Give the FORGET a moment.
	 */
	ck_assert_int_eq(unlink(path_in("big")), 0);
	fd = open(path_in("more"), O_RDWR | O_DIRECT);
	{
		ssize_t n = -1;

		for (int i = 0; i < 100 && n != 1 << 20; i++) {
			n = pwrite(fd, buf, 1 << 20, 0);
			if (n != 1 << 20)
				usleep(50000);
		}
		ck_assert_int_eq(n, 1 << 20);
	}
	close(fd);
	free(buf);
	umount_fs();
}
END_TEST

START_TEST(test_unmount_fsck_remount)
{
	char out[2048];

	write_file("keep", 2 * MiB, 256 << 10, 7, true);
	ck_assert_int_eq(mkdir(path_in("dir"), 0755), 0);
	write_file("dir/inner", 64 << 10, 4096, 8, false);
	ck_assert_int_eq(rename(path_in("dir/inner"), path_in("dir/moved")), 0);
	umount_fs();
	ck_assert_msg(fsck_image(out, sizeof(out)) == 0, "fsck: %s", out);
	ck_assert_ptr_nonnull(strstr(out, "clean"));
	mount_fs(NULL);
	verify_file("keep", 2 * MiB, 4096, 7);
	verify_file("dir/moved", 64 << 10, 64 << 10, 8);
	umount_fs();
}
END_TEST

START_TEST(test_kill9_fsynced_data_survives)
{
	char out[2048];
	int status;

	/* no periodic commit: only fsync makes things durable */
	ck_assert_int_eq(sd_run(out, sizeof(out), "fusermount3 -u %s", mnt), 0);
	waitpid(daemon_pid, &status, 0);
	daemon_pid = -1;
	mount_fs("commit=0");

	write_file("a", 1 * MiB, 64 << 10, 9, true);
	write_file("b", 256 << 10, 4096, 10, true);
	{
		int fd = open(path_in("small"), O_RDWR | O_CREAT, 0644);

		ck_assert_int_eq(write(fd, "tiny but synced", 15), 15);
		ck_assert_int_eq(fsync(fd), 0);
		close(fd);
	}
	/* not synced: may or may not survive, must not corrupt */
	write_file("c", 512 << 10, 64 << 10, 11, false);

	ck_assert_int_eq(kill(daemon_pid, SIGKILL), 0);
	waitpid(daemon_pid, &status, 0);
	daemon_pid = -1;
	ck_assert_int_eq(sd_run(out, sizeof(out), "fusermount3 -u -z %s", mnt),
			 0);

	ck_assert_msg(fsck_image(out, sizeof(out)) == 0, "fsck: %s", out);
	ck_assert_ptr_nonnull(strstr(out, "not cleanly unmounted"));
	mount_fs(NULL);
	verify_file("a", 1 * MiB, 4096, 9);
	verify_file("b", 256 << 10, 256 << 10, 10);
	{
		char buf[32] = "";
		int fd = open(path_in("small"), O_RDONLY);

		ck_assert_int_eq(read(fd, buf, sizeof(buf)), 15);
		ck_assert(!memcmp(buf, "tiny but synced", 15));
		close(fd);
	}
	umount_fs();
	ck_assert_msg(fsck_image(out, sizeof(out)) == 0, "fsck: %s", out);
}
END_TEST

/*
 * The poll governor in the mount: a client at queue depth one gets a
 * trial of polling against sleeping (decided within a second), its
 * lone reads go out in the io_uring_enter() that waits for them, and
 * whatever polling was done is counted; with poll=0 nothing polls and
 * nothing is tried.
 */
START_TEST(test_poll_governor)
{
	long windows, trials;
	char *st;

	write_file("p", 1 * MiB, 1 * MiB, 12, true);
	/* the workers' governor: requests through /dev/fuse */
	umount_fs();
	mount_fs("uring=off");
	st = lone_reads_stats("p", "fuse_poll_trials", 1, 20000);
	trials = stat_in(st, "fuse_poll_trials");
	ck_assert_int_ge(trials, 1);
	ck_assert_int_le(stat_in(st, "fuse_poll_trials_won"), trials);
	ck_assert_int_ge(stat_in(st, "bdev_file_submit_and_wait"), 1);
	windows = stat_in(st, "fuse_poll_windows");
	ck_assert_int_le(stat_in(st, "fuse_poll_hits"), windows);
	ck_assert(!windows == !stat_in(st, "fuse_poll_spent_ns"));
	ck_assert_int_le(stat_in(st, "bdev_file_poll_hits"),
			 stat_in(st, "bdev_file_poll_windows"));
	free(st);
	umount_fs();

	mount_fs("poll=0,uring=off");
	st = lone_reads_stats("p", "bdev_file_submit_and_wait", 200, 2000);
	ck_assert_int_ge(stat_in(st, "bdev_file_submit_and_wait"), 200);
	check_stats_zero(st, "fuse_poll_trials", "fuse_poll_windows",
			 "fuse_poll_no_idle_cpu", "bdev_file_poll_windows",
			 NULL);
	free(st);
	umount_fs();
}
END_TEST

/*
 * A worker with nothing in flight sleeps for the next request on its own
 * clone of /dev/fuse, and the reply must go back on that clone, whatever
 * thread sends it: a write read there after a read is answered from the
 * device's completion.  Reads and writes take turns, each checked; a
 * reply sent to the wrong descriptor would fail it (or hang the client).
 */
START_TEST(test_lone_requests_on_worker_clones)
{
	char *st;

	write_file("c", 256 << 10, 256 << 10, 14, true);
	umount_fs();
	/*
	 * One worker: with more, another one waiting in epoll may take the
	 * next request first when the machine is loaded, and how many come
	 * through the clone would depend on the scheduler.
	 */
	mount_fs("poll=0,uring=off,threads=1");
	ctl_write("stats", "reset\n");
	reads_and_writes_in_turn("c", 14);
	st = stats_text();
	/* every write follows a read that left the mount idle */
	ck_assert_int_ge(stat_in(st, "fuse_clone_reads"), 64);
	ck_assert_int_ge(stat_in(st, "fuse_reply_from_completion"), 64);
	ck_assert_int_eq(stat_in(st, "fuse_reply_failed"), 0);
	free(st);
	umount_fs();
}
END_TEST

START_TEST(test_mkfs_refuses_ext4)
{
	char out[2048], before[128], after[128];

	if (system("command -v mkfs.ext4 >/dev/null 2>&1")) {
		printf("note: no mkfs.ext4 (e2fsprogs); ext4 refusal not "
		       "checked\n");
		return;
	}
	ck_assert_msg(sd_run(out, sizeof(out), "mkfs.ext4 -q -F %s", target) ==
			      0,
		      "mkfs.ext4: %s", out);
	sd_run(before, sizeof(before), "md5sum < %s", target);
	ck_assert_int_eq(sd_run(out, sizeof(out), "%s mkfs %s", bin, target),
			 1);
	ck_assert_msg(strstr(out, "ext4") && strstr(out, "--force"),
		      "refusal should name ext4 and --force: %s", out);
	sd_run(after, sizeof(after), "md5sum < %s", target);
	ck_assert_str_eq(before, after);
	/* --force wipes the ext4 signature and makes a simfs */
	ck_assert_msg(sd_run(out, sizeof(out), "%s mkfs --force %s", bin,
			     target) == 0,
		      "mkfs --force: %s", out);
	ck_assert_int_ne(sd_run(out, sizeof(out), "blkid -p %s", target), 0);
	ck_assert_int_eq(sd_run(out, sizeof(out), "%s fsck %s", bin, target),
			 0);
	/* and now it refuses to overwrite the simfs */
	ck_assert_int_eq(sd_run(out, sizeof(out), "%s mkfs %s", bin, target),
			 1);
	ck_assert_ptr_nonnull(strstr(out, "simfs"));
}
END_TEST

TCase *mount_tcase(const char *name)
{
	TCase *tc = mounted_tcase(name);

	mount_tcase_name = name;
	sim_tcase_add(tc, test_direct_write_read_verify,
		      test_simple_hits_and_fallbacks, test_misaligned_einval,
		      test_bio_error_eio_and_punt,
		      test_holes_and_unwritten_read_zero,
		      test_unmount_fsck_remount,
		      test_kill9_fsynced_data_survives, test_poll_governor,
		      test_lone_requests_on_worker_clones);
	return tc;
}

TCase *mkfs_tcase(const char *name)
{
	TCase *tc = bare_tcase(name);

	tcase_add_test(tc, test_mkfs_refuses_ext4);
	return tc;
}
