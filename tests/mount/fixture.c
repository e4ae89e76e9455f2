// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE mount tests' fixture (declared in fixture.h): `iomapsim mkfs`,
 * then `iomapsim mount -f` as its own process, the mount's stats and
 * control files, O_DIRECT helpers with data patterns, and the run of a
 * suite without fork, so teardown always unmounts.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include "fixture.h"

char bin[4096];
char tmpdir[256];
char img[512], mnt[512], target[1024];
static char log_path[512];
static char loopdev[1024];
pid_t daemon_pid = -1;
bool use_loop;

void say_skip(const char *why)
{
	printf("SKIP: %s\n", why);
	fflush(stdout);
	exit(SKIP_CODE);
}

bool is_mounted(void)
{
	return sd_mounted_at(mnt);
}

void mount_fs(const char *opts)
{
	char stats[600];
	struct stat st;
	pid_t pid;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (opts)
			execl(bin, bin, "mount", "-f", "-o", opts, target, mnt,
			      (char *)NULL);
		else
			execl(bin, bin, "mount", "-f", target, mnt,
			      (char *)NULL);
		_exit(127);
	}
	daemon_pid = pid;
	snprintf(stats, sizeof(stats), "%s/.iomapsim/stats", mnt);
	for (int i = 0; i < 1000; i++) {
		int status;

		if (is_mounted() && !stat(stats, &st))
			return;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			daemon_pid = -1;
			ck_abort_msg("iomapsim mount exited (%d) before "
				     "mounting; see %s",
				     status, log_path);
		}
		usleep(10000);
	}
	ck_abort_msg("mount did not come up in 10 s; see %s", log_path);
}

/* fusermount3 -u, then the daemon must exit 0 (it committed). */
void umount_fs(void)
{
	char out[1024];
	int status = -1;

	ck_assert_msg(sd_run(out, sizeof(out), "fusermount3 -u %s", mnt) == 0,
		      "fusermount3 -u: %s", out);
	if (daemon_pid > 0) {
		ck_assert_int_eq(waitpid(daemon_pid, &status, 0), daemon_pid);
		daemon_pid = -1;
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "daemon exit status %#x; see %s", status,
			      log_path);
	}
}

/* The stats file's text: one snapshot, the counters consistent. */
char *stats_text(void)
{
	char path[600];
	char *text = NULL;
	size_t len = 0;
	FILE *f, *out = open_memstream(&text, &len);
	int c;

	snprintf(path, sizeof(path), "%s/.iomapsim/stats", mnt);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(out);
	while ((c = getc(f)) != EOF)
		putc(c, out);
	fclose(f);
	fclose(out);
	return text;
}

/* Counter @name in a stats_text() snapshot (0: not listed). */
long stat_in(const char *text, const char *name)
{
	size_t len = strlen(name);
	const char *l = text;

	while (l && *l) {
		if (!strncmp(l, name, len) && l[len] == ' ')
			return strtol(l + len, NULL, 10);
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return 0;
}

void check_stats_zero(const char *text, ...)
{
	const char *name;
	va_list ap;

	va_start(ap, text);
	while ((name = va_arg(ap, const char *))) {
		long v = stat_in(text, name);

		ck_assert_msg(v == 0, "%s: %ld, 0 expected", name, v);
	}
	va_end(ap);
}

long stat_of(const char *name)
{
	char *text = stats_text();
	long v = stat_in(text, name);

	free(text);
	return v;
}

void ctl_write(const char *file, const char *text)
{
	char path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/.iomapsim/%s", mnt, file);
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

char *path_in(const char *name)
{
	static char p[4][600];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", mnt, name);
	return p[k];
}

void *abuf(size_t len)
{
	void *p;

	ck_assert_int_eq(posix_memalign(&p, 4096, len), 0);
	return p;
}

void pattern(void *buf, size_t len, unsigned int seed)
{
	unsigned int *w = buf;

	for (size_t i = 0; i < len / 4; i++)
		w[i] = seed * 2654435761u + (unsigned int)i * 40503u;
}

/* @buf holds the file's bytes from @off on */
void check_pattern_at(const void *buf, size_t len, unsigned int seed,
		      size_t off, const char *what)
{
	const unsigned int *w = buf;

	for (size_t i = 0; i < len / 4; i++)
		ck_assert_msg(w[i] == seed * 2654435761u +
					      (unsigned int)(i + off / 4) *
						      40503u,
			      "%s: word %zu differs", what, i + off / 4);
}

void check_pattern(const void *buf, size_t len, unsigned int seed,
		   const char *what)
{
	check_pattern_at(buf, len, seed, 0, what);
}

bool all_zero(const void *buf, size_t len)
{
	const unsigned char *b = buf;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/* Write @len bytes of pattern @seed at 0 with O_DIRECT, @chunk at a time. */
void write_file(const char *name, size_t len, size_t chunk, unsigned int seed,
		bool do_fsync)
{
	char *buf = abuf(len);
	int fd = open(path_in(name), O_RDWR | O_CREAT | O_DIRECT, 0644);

	ck_assert_msg(fd >= 0, "open %s: %s", name, strerror(errno));
	pattern(buf, len, seed);
	for (size_t off = 0; off < len; off += chunk)
		ck_assert_int_eq(pwrite(fd, buf + off, chunk, off),
				 (ssize_t)chunk);
	if (do_fsync)
		ck_assert_int_eq(fsync(fd), 0);
	close(fd);
	free(buf);
}

void verify_file(const char *name, size_t len, size_t chunk, unsigned int seed)
{
	char *buf = abuf(len);
	int fd = open(path_in(name), O_RDONLY | O_DIRECT);

	ck_assert_msg(fd >= 0, "open %s: %s", name, strerror(errno));
	for (size_t off = 0; off < len; off += chunk)
		ck_assert_int_eq(pread(fd, buf + off, chunk, off),
				 (ssize_t)chunk);
	check_pattern(buf, len, seed, name);
	close(fd);
	free(buf);
}

int fsck_image(char *out, size_t len)
{
	return sd_run(out, len, "%s fsck %s", bin, target);
}
/* ---- fixture ----------------------------------------------------------- */

static void global_cleanup(void)
{
	char out[256];

	if (daemon_pid > 0) {
		kill(daemon_pid, SIGTERM);
		waitpid(daemon_pid, NULL, 0);
		daemon_pid = -1;
	}
	if (mnt[0] && is_mounted())
		sd_run(out, sizeof(out), "fusermount3 -u -z %s", mnt);
	if (loopdev[0]) {
		sd_run(out, sizeof(out), "losetup -d %s", loopdev);
		loopdev[0] = 0;
	}
}

/* Where this test's files go in tmpdir: image, mount point, daemon log. */
static void set_paths(void)
{
	snprintf(img, sizeof(img), "%s/img", tmpdir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", tmpdir);
	snprintf(log_path, sizeof(log_path), "%s/mount.log", tmpdir);
}

/* The image file, @size bytes of hole. */
static void make_image(off_t size)
{
	int fd = open(img, O_RDWR | O_CREAT, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, size), 0);
	close(fd);
}

/* The image on a loop device, which becomes the target. */
static void attach_loop(void)
{
	char out[1024];
	int rc = sd_run(out, sizeof(out), "losetup -f --show %s", img);

	ck_assert_msg(rc == 0, "losetup: %s", out);
	out[strcspn(out, "\n")] = 0;
	snprintf(loopdev, sizeof(loopdev), "%s", out);
	snprintf(target, sizeof(target), "%s", loopdev);
}

void setup(void)
{
	char out[1024];

	set_paths();
	mkdir(mnt, 0755);
	unlink(img);
	if (use_loop) {
		make_image(256 * MiB);
		attach_loop();
		ck_assert_msg(sd_run(out, sizeof(out), "%s mkfs %s", bin,
				     target) == 0,
			      "mkfs: %s", out);
	} else {
		snprintf(target, sizeof(target), "%s", img);
		ck_assert_msg(sd_run(out, sizeof(out), "%s mkfs %s --size 256m",
				     bin, target) == 0,
			      "mkfs: %s", out);
	}
	mount_fs(NULL);
}

void teardown(void)
{
	global_cleanup();
	unlink(img);
}

/* The target alone, no file system on it. */
void setup_bare(void)
{
	set_paths();
	unlink(img);
	make_image(64 * MiB);
	snprintf(target, sizeof(target), "%s", img);
	if (use_loop)
		attach_loop();
}

/* A test case whose tests each run on a fresh mount: setup(). */
TCase *mounted_tcase(const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	return tc;
}

/* A test case whose tests each start from the bare target: setup_bare(). */
TCase *bare_tcase(const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, setup_bare, teardown);
	tcase_set_timeout(tc, 60);
	return tc;
}

/*
 * The stats zeroed, then lone 4 KiB direct reads of @name (1 MiB, pattern
 * 12) until @stat is at least @min: the stats they leave, in one snapshot
 * (reading the stats is itself a lone request).
 */
char *lone_reads_stats(const char *name, const char *stat, long min,
		       int max_reads)
{
	char *buf;
	int fd;

	ctl_write("stats", "reset\n");
	buf = abuf(4096);
	fd = open(path_in(name), O_RDONLY | O_DIRECT);
	ck_assert_int_ge(fd, 0);
	for (int i = 0; i < max_reads; i++) {
		off_t off = (off_t)(i * 37 % 256) * 4096;

		ck_assert_int_eq(pread(fd, buf, 4096, off), 4096);
		check_pattern_at(buf, 4096, 12, off, name);
		if (i % 64 == 63 && stat_of(stat) >= min)
			break;
	}
	close(fd);
	free(buf);
	return stats_text();
}

/*
 * 64 turns of a 4 KiB direct read of @name (pattern @seed) and a write
 * of block i with pattern @seed + 1 + i in its place; then each block
 * read back.  A write's reply comes from the device's completion.
 */
void reads_and_writes_in_turn(const char *name, unsigned int seed)
{
	char *buf = abuf(4096);
	int fd = open(path_in(name), O_RDWR | O_DIRECT);

	ck_assert_int_ge(fd, 0);
	for (int i = 0; i < 64; i++) {
		ck_assert_int_eq(pread(fd, buf, 4096, i * 4096), 4096);
		check_pattern_at(buf, 4096, seed, i * 4096, "before");
		pattern(buf, 4096, seed + 1 + i);
		ck_assert_int_eq(pwrite(fd, buf, 4096, i * 4096), 4096);
	}
	for (int i = 0; i < 64; i++) {
		ck_assert_int_eq(pread(fd, buf, 4096, i * 4096), 4096);
		check_pattern(buf, 4096, seed + 1 + i, "after");
	}
	close(fd);
	free(buf);
}

void require_env(void)
{
	const char *b = getenv("IOMAPSIM_BIN");
	struct stat st;

	if (geteuid() != 0)
		say_skip("needs root (FUSE mounts and O_DIRECT devices)");
	if (access("/dev/fuse", R_OK | W_OK))
		say_skip("no usable /dev/fuse");
	if (system("command -v fusermount3 >/dev/null 2>&1"))
		say_skip("no fusermount3 (Debian package fuse3)");
	snprintf(bin, sizeof(bin), "%s/iomapsim", b ? b : ".");
	if (stat(bin, &st))
		say_skip("no iomapsim binary (set IOMAPSIM_BIN)");
	snprintf(tmpdir, sizeof(tmpdir), "/var/tmp/iomapsim-test-XXXXXX");
	if (!mkdtemp(tmpdir))
		say_skip("cannot make a temporary directory in /var/tmp");
}

int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	char tap[] = "/tmp/iomapsim-tap.XXXXXX";
	int fd = mkstemp(tap), failed;
	FILE *f;

	ck_assert_int_ge(fd, 0);
	close(fd);
	/* the harness's report and verdicts (N/A among them) from the log */
	srunner_set_tap(sr, tap);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	f = fopen(tap, "r");
	unlink(tap);
	if (f) {
		sim_test_report(f);
		fclose(f);
	}
	global_cleanup();
	if (failed) {
		/* what the daemons said, before it goes with the temp dir */
		FILE *f = fopen(log_path, "r");
		char line[1024];

		printf("---- %s ----\n", log_path);
		while (f && fgets(line, sizeof(line), f))
			fputs(line, stdout);
		printf("----\n");
		if (f)
			fclose(f);
	}
	rmdir(mnt);
	unlink(log_path);
	unlink(img);
	rmdir(tmpdir);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
