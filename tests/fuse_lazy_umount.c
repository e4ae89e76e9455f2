// SPDX-License-Identifier: GPL-2.0-only
/*
 * Files still open when the mount goes away: `fusermount3 -u -z` with
 * descriptors open (half of them of files unlinked meanwhile), then the
 * close()s end the session.  The FUSE client sends that RELEASE without waiting for it and
 * the session may end first, so the daemon must release what is left
 * itself before its last commit: it exits 0, the image is fsck-clean and
 * the unlinked files' blocks are free again.  Before that fix the handle
 * and its struct file leaked (LeakSanitizer in the ASan build stopped the
 * daemon: found by simfs_fsx).
 *
 * Needs root, /dev/fuse and fusermount3, or exits 77 with the reason.
 */
#include <sys/statvfs.h>
#include "simfs_daemon.h"

#define ROUNDS 6
#define NOPEN 16

static struct sd_mount dm;
static char tmpdir[256], img[512];

static void __attribute__((format(printf, 1, 2), noreturn))
fail(const char *fmt, ...)
{
	va_list ap;

	printf("fuse_lazy_umount: FAILED: ");
	va_start(ap, fmt);
	sd_vfail(&dm, fmt, ap);
	va_end(ap);
	exit(1);
}

static unsigned long long free_blocks(void)
{
	struct statvfs sv;

	if (statvfs(dm.mnt, &sv))
		fail("statvfs: %s", strerror(errno));
	return sv.f_bfree;
}

int main(void)
{
	unsigned long long before;
	char out[2048], path[600];
	static char buf[256 << 10];
	int status, fd[NOPEN];

	sd_setup(&dm, "lazy", tmpdir, sizeof(tmpdir));
	snprintf(img, sizeof(img), "%s/img", tmpdir);
	if (sd_run(out, sizeof(out), "%s mkfs %s --size 32m", dm.bin, img))
		fail("mkfs: %s", out);
	if (sd_mount(&dm, img, NULL, out, sizeof(out)))
		fail("%s", out);
	before = free_blocks();

	/*
	 * Whether the client's RELEASEs reach the daemon before the session
	 * ends is a race: many files, several rounds, so a daemon that does
	 * not release them itself is caught (LeakSanitizer, ASan build).
	 */
	for (int round = 0; round < ROUNDS; round++) {
		if (round && sd_mount(&dm, img, NULL, out, sizeof(out)))
			fail("%s", out);
		for (int i = 0; i < NOPEN; i++) {
			snprintf(path, sizeof(path), "%s/open%d", dm.mnt, i);
			fd[i] = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
			if (fd[i] < 0)
				fail("open: %s", strerror(errno));
			memset(buf, 0x5a + i, sizeof(buf));
			if (write(fd[i], buf, sizeof(buf)) !=
			    (ssize_t)sizeof(buf))
				fail("write: %s", strerror(errno));
			/* every other one unlinked while open */
			if ((i & 1) && unlink(path))
				fail("unlink: %s", strerror(errno));
		}
		if (sd_run(out, sizeof(out), "fusermount3 -u -z %s", dm.mnt))
			fail("fusermount3 -u -z: %s", out);
		/* the last references: the session ends with these */
		for (int i = 0; i < NOPEN; i++)
			close(fd[i]);
		if (waitpid(dm.pid, &status, 0) != dm.pid)
			fail("waitpid: %s", strerror(errno));
		dm.pid = -1;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			fail("round %d: the daemon ended with status %#x",
			     round, status);
	}

	if (sd_run(out, sizeof(out), "%s fsck %s", dm.bin, img) ||
	    !strstr(out, "clean"))
		fail("fsck: %s", out);
	if (sd_mount(&dm, img, NULL, out, sizeof(out)))
		fail("%s", out);
	/* the files kept hold (NOPEN / 2) x 256 KiB: no more, no less */
	if (free_blocks() != before - NOPEN / 2 * (sizeof(buf) >> 12))
		fail("%llu blocks free after the remount, want %llu",
		     free_blocks(), before - NOPEN / 2 * (sizeof(buf) >> 12));
	if (sd_umount(&dm, out, sizeof(out)))
		fail("%s", out);
	printf("fuse_lazy_umount: %d rounds of %d files open at the "
	       "unmount released by the daemon; fsck clean, the unlinked "
	       "files' blocks free again\n",
	       ROUNDS, NOPEN);
	unlink(img);
	unlink(dm.log);
	rmdir(dm.mnt);
	rmdir(tmpdir);
	return 0;
}
