// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE mount over io_uring (tools/fuse/host/fuse-uring.c, Linux 6.14+;
 * see mount/fixture.h for the harness).  The kernel offers it to a new
 * connection only while its module parameter enable_uring is Y: each
 * mount here sets it, and puts the old value back as soon as the mount is
 * up (a connection keeps what it negotiated), so mounts started meanwhile
 * elsewhere see it only for that moment.
 *
 * Data verified both ways, requests arriving only through the queues, a
 * reply committed from another thread (a write's completion), many
 * clients at once, the lone read's polling window (and none with
 * poll=0), a clean unmount, and uring=on refused where the kernel does
 * not offer it.  Skipped (77) where the kernel has no FUSE io_uring.
 */
#include <limits.h>
#include <pthread.h>
#include "mount/fixture.h"
#include "../tools/fuse/host/fuse-uring.h"

static char param_was = -1; /* enable_uring before we set it, -1: not */

static void param_set(char v)
{
	int fd = open(FUSE_URING_PARAM, O_RDWR);
	char c;

	ck_assert_msg(fd >= 0, "%s: %s", FUSE_URING_PARAM, strerror(errno));
	ck_assert_int_eq(read(fd, &c, 1), 1);
	if (param_was < 0)
		param_was = c == 'Y' ? 'Y' : 'N';
	ck_assert_int_eq(pwrite(fd, &v, 1, 0), 1);
	close(fd);
}

static void param_restore(void)
{
	int fd;

	if (param_was < 0)
		return;
	fd = open(FUSE_URING_PARAM, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, &param_was, 1) != 1)
			perror(FUSE_URING_PARAM);
		close(fd);
	}
	param_was = -1;
}

/* Mount with @opts over io_uring, and check that it took. */
static void mount_uring(const char *opts)
{
	param_set('Y');
	mount_fs(opts);
	param_restore();
	/* reading the stats is itself a request: it came over the ring */
	ck_assert_int_ge(stat_of("fuse_uring_requests"), 1);
}

static void setup_uring(void)
{
	setup();
	/* setup() mounted without it: again, over io_uring */
	umount_fs();
	mount_uring(NULL);
}

static void teardown_uring(void)
{
	param_restore();
	teardown();
}

START_TEST(test_uring_serves_requests)
{
	char *st;
	long before;

	ctl_write("stats", "reset\n");
	before = stat_of("fuse_uring_requests");
	write_file("u", 1 * MiB, 64 << 10, 21, true);
	verify_file("u", 1 * MiB, 4096, 21);
	/* a write's reply is committed by the device's completion thread */
	reads_and_writes_in_turn("u", 21);
	st = stats_text();
	/* 16 + 256 direct requests, then 3 * 64 */
	ck_assert_int_ge(stat_in(st, "fuse_uring_requests") - before,
			 16 + 256 + 3 * 64);
	/* none of them came through /dev/fuse */
	ck_assert_int_eq(stat_in(st, "fuse_clone_reads"), 0);
	ck_assert_int_ge(stat_in(st, "fuse_reply_from_completion"), 64);
	ck_assert_int_eq(stat_in(st, "fuse_reply_failed"), 0);
	free(st);
	umount_fs();
	{
		char out[1024];

		ck_assert_msg(fsck_image(out, sizeof(out)) == 0, "fsck: %s",
			      out);
	}
}
END_TEST

#define CLIENTS 8
#define CLIENT_READS 256

static char many_path[600]; /* set before the clients start */

/* No ck_assert here: a failure is counted and returned to the test. */
static void *client(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg, bad = 0;
	void *buf = NULL;
	int fd = open(many_path, O_RDONLY | O_DIRECT);

	if (fd < 0 || posix_memalign(&buf, 4096, 4096)) {
		if (fd >= 0)
			close(fd);
		return (void *)(uintptr_t)1;
	}
	for (int i = 0; i < CLIENT_READS; i++) {
		unsigned int k = (seed * 7919u + i * 104729u) % 1024;
		const unsigned int *w = (const void *)buf;

		if (pread(fd, buf, 4096, (off_t)k * 4096) != 4096) {
			bad++;
			continue;
		}
		for (int j = 0; j < 1024; j++)
			if (w[j] !=
			    31 * 2654435761u + (k * 1024u + j) * 40503u) {
				bad++;
				break;
			}
	}
	close(fd);
	free(buf);
	return (void *)(uintptr_t)bad;
}

/* Many clients at once: entries of both threads of a queue in use. */
START_TEST(test_uring_many_clients)
{
	pthread_t t[CLIENTS];
	long before;

	write_file("many", 4 * MiB, 1 * MiB, 31, true);
	snprintf(many_path, sizeof(many_path), "%s", path_in("many"));
	before = stat_of("fuse_uring_requests");
	for (int i = 0; i < CLIENTS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, client,
						(void *)(uintptr_t)(i + 1)),
				 0);
	for (int i = 0; i < CLIENTS; i++) {
		void *bad;

		ck_assert_int_eq(pthread_join(t[i], &bad), 0);
		ck_assert_msg(!bad, "client %d: %lu reads wrong", i,
			      (unsigned long)(uintptr_t)bad);
	}
	ck_assert_int_ge(stat_of("fuse_uring_requests") - before,
			 CLIENTS * CLIENT_READS);
	umount_fs();
}
END_TEST

/*
 * A lone read is waited for by the pinned thread of its client's CPU,
 * which asks for a polling window for each: granted (a window), refused
 * for want of an idle CPU, or not needed because the read was complete
 * before the window polled (a device faster than the server, as under a
 * sanitizer): one of the three every time.  The leeway: the 16 lone
 * requests (URING_SETTLE) a free thread might serve before it pins
 * itself, on each of two queues.  With poll=0 none is asked for.
 */
START_TEST(test_uring_lone_reads_poll)
{
	char *st;

	/* lone_reads_stats() reads pattern 12; it never reaches LONG_MAX */
	write_file("l", 1 * MiB, 1 * MiB, 12, true);
	st = lone_reads_stats("l", "fuse_uring_requests", LONG_MAX, 400);
	ck_assert_int_ge(stat_in(st, "bdev_file_poll_windows") +
				 stat_in(st, "fuse_poll_no_idle_cpu") +
				 stat_in(st, "fuse_poll_not_needed"),
			 400 - 2 * 16);
	ck_assert_int_le(stat_in(st, "bdev_file_poll_hits"),
			 stat_in(st, "bdev_file_poll_windows"));
	/* no trial against sleeping: that is the workers' */
	ck_assert_int_eq(stat_in(st, "fuse_poll_trials"), 0);
	free(st);
	umount_fs();

	mount_uring("poll=0");
	st = lone_reads_stats("l", "fuse_uring_requests", LONG_MAX, 400);
	ck_assert_int_ge(stat_in(st, "fuse_uring_requests"), 400);
	check_stats_zero(st, "bdev_file_poll_windows", "fuse_poll_no_idle_cpu",
			 "fuse_poll_not_needed", NULL);
	ck_assert_int_ge(stat_in(st, "bdev_file_submit_and_wait"), 1);
	free(st);
	umount_fs();
}
END_TEST

/* uring=on where the kernel does not offer it: refused, nothing mounted. */
START_TEST(test_uring_on_refused_when_off)
{
	char out[2048];

	umount_fs();
	param_set('N');
	ck_assert_int_eq(sd_run(out, sizeof(out),
				"%s mount -f -o uring=on %s %s", bin, target,
				mnt),
			 1);
	param_restore();
	ck_assert_msg(strstr(out, "uring=on") && strstr(out, "io_uring"),
		      "the reason: %s", out);
	ck_assert(!is_mounted());
	ck_assert_int_ne(sd_run(out, sizeof(out),
				"%s mount -f -o uring=%s %s %s", bin,
				"sometimes", target, mnt),
			 0);
	ck_assert_ptr_nonnull(strstr(out, "uring=sometimes"));
	ck_assert(!is_mounted());
	ck_assert_msg(fsck_image(out, sizeof(out)) == 0, "fsck: %s", out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse_mount_uring");
	TCase *tc = tcase_create("uring");

	require_env();
	if (access(FUSE_URING_PARAM, R_OK | W_OK))
		say_skip(
			"the kernel has no FUSE over io_uring (" FUSE_URING_PARAM
			": Linux 6.14 and later)");
	tcase_add_checked_fixture(tc, setup_uring, teardown_uring);
	tcase_set_timeout(tc, 120);
	sim_suite_add(s, tc, test_uring_serves_requests,
		      test_uring_many_clients, test_uring_lone_reads_poll,
		      test_uring_on_refused_when_off);
	return run_suite(s);
}
