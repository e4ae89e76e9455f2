/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The FUSE mount tests (tests/fuse_mount*.c): `iomapsim mkfs`, then
 * `iomapsim mount -f` as its own process, and from the test process real
 * O_DIRECT system calls against the mount, checked against the data and
 * against the counters in MOUNT/.iomapsim/stats.  The fixture is
 * fixture.c; cases.c holds the end-to-end tests that fuse_mount.c (an
 * image file) and fuse_mount_loop.c (a loop device over one) both run.
 *
 * Needs root and /dev/fuse (and losetup for the loop variant): without
 * them require_env() prints why and exits 77, which CTest reports as
 * skipped.  run_suite() runs without fork (CK_NOFORK) so teardown always
 * unmounts.
 */
#ifndef _TESTS_MOUNT_FIXTURE_H
#define _TESTS_MOUNT_FIXTURE_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include "harness.h"
#include "../simfs_daemon.h"

#define MiB (1ULL << 20)

extern char bin[4096]; /* the iomapsim command */
extern char tmpdir[256];
extern char img[512], mnt[512], target[1024];
extern pid_t daemon_pid;
extern bool use_loop; /* set before the first setup() */

/* the environment and the run */
void say_skip(const char *why);
void require_env(void);
int run_suite(Suite *s);

/* the mount */
bool is_mounted(void);
void mount_fs(const char *opts);
void umount_fs(void);
int fsck_image(char *out, size_t len);

/* its stats and control files */
char *stats_text(void);
long stat_in(const char *text, const char *name);
long stat_of(const char *name);
/* each of the stats named, up to a NULL, is 0 in @text */
void check_stats_zero(const char *text, ...) __attribute__((sentinel));
void ctl_write(const char *file, const char *text);

/* files in it and their data */
char *path_in(const char *name);
void *abuf(size_t len);
void pattern(void *buf, size_t len, unsigned int seed);
void check_pattern_at(const void *buf, size_t len, unsigned int seed,
		      size_t off, const char *what);
void check_pattern(const void *buf, size_t len, unsigned int seed,
		   const char *what);
bool all_zero(const void *buf, size_t len);
void write_file(const char *name, size_t len, size_t chunk, unsigned int seed,
		bool do_fsync);
void verify_file(const char *name, size_t len, size_t chunk, unsigned int seed);
char *lone_reads_stats(const char *name, const char *stat, long min,
		       int max_reads);
void reads_and_writes_in_turn(const char *name, unsigned int seed);

/* checked fixtures: a mounted fresh file system, or the bare target */
void setup(void);
void teardown(void);
void setup_bare(void);
/* test cases in those fixtures, with time enough for them */
TCase *mounted_tcase(const char *name);
TCase *bare_tcase(const char *name);

/* cases.c: the shared end-to-end tests */
TCase *mount_tcase(const char *name);
TCase *mkfs_tcase(const char *name);

#endif /* _TESTS_MOUNT_FIXTURE_H */
