/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * simfs in process, for Check suites: a ram device under the
 * deterministic engine, mkfs, mount and unmount that must succeed, fsck's
 * verdict, and the refusal both fsck and mount must give a damaged image
 * (one checker: mount says fsck's first error).
 */
#ifndef _SIMFS_RAM_H
#define _SIMFS_RAM_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bio.h>
#include <sim/bdev.h>
#include <sim/bio.h>
#include <sim/iomap.h>
#include "harness.h"
#include "simfs.h"

#define MiB (1ULL << 20)

static struct block_device *bdev;

static inline void ram_dev(u64 size, unsigned int lbs)
{
	struct blksim_ram_opts o = { .size = size, .logical_block_size = lbs };
	char err[128];

	bdev = blksim_bdev_ram_create(&o, err, sizeof(err));
	ck_assert_msg(!IS_ERR(bdev), "ram: %s", err);
}

static inline void put_dev(void)
{
	iomapsim_dio_exit();
	blksim_bio_drain_caches();
	blksim_bdev_destroy(bdev);
	bdev = NULL;
}

static inline void do_mkfs(u32 bs)
{
	struct simfs_mkfs_opts o;
	char err[256];

	simfs_mkfs_opts_init(&o);
	o.block_size = bs;
	ck_assert_msg(simfs_mkfs(bdev, &o, err, sizeof(err)) == 0, "mkfs: %s",
		      err);
}

static inline struct super_block *do_mount(void)
{
	struct simfs_mount_opts o = { 0 };
	struct super_block *sb;
	char err[256];

	sb = simfs_mount(bdev, &o, err, sizeof(err));
	ck_assert_msg(!IS_ERR(sb), "mount: %s", err);
	return sb;
}

static inline void do_umount(struct super_block *sb)
{
	ck_assert_int_eq(simfs_unmount(sb), 0);
}

static inline struct simfs_inode_info *root_of(struct super_block *sb)
{
	return simfs_iget(SIMFS_SB(sb), SIMFS_ROOT_INO);
}

static inline unsigned int fsck_errors(void)
{
	struct simfs_fsck_report r = { 0 };

	ck_assert_int_eq(simfs_fsck(bdev, &r), 0);
	return r.errors;
}

/* Unmount, and the image left behind must be fsck-clean. */
static inline void umount_clean(struct super_block *sb)
{
	do_umount(sb);
	ck_assert_uint_eq(fsck_errors(), 0);
}

/* The end of a test: the image fsck-clean after unmount, the device gone. */
static inline void finish_clean(struct super_block *sb)
{
	umount_clean(sb);
	put_dev();
}

#define rw simfs_rw_sync

static inline void *abuf(size_t len, int fill)
{
	void *p;

	ck_assert_int_eq(posix_memalign(&p, 4096, len), 0);
	memset(p, fill, len);
	return p;
}

static inline bool all_bytes(const void *p, int c, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != (unsigned char)c)
			return false;
	return true;
}

static inline void first_error(void *arg, bool error, const char *text)
{
	char *first = arg;

	if (error && !first[0])
		snprintf(first, 256, "%s", text);
}

/*
 * fsck finds @what, its first error names @field, and mount refuses the
 * image with exactly that error (one checker).
 */
static inline void fsck_and_mount_refuse(const char *what, const char *field)
{
	char first[256] = "", err[512];
	struct simfs_fsck_report r = { .msg = first_error, .arg = first };
	struct simfs_mount_opts mo = { 0 };
	struct super_block *sb;

	ck_assert_int_eq(simfs_fsck(bdev, &r), 0);
	ck_assert_msg(r.errors >= 1, "fsck missed: %s", what);
	if (field)
		ck_assert_msg(strstr(first, field),
			      "%s: fsck's first error "
			      "does not name %s: %s",
			      what, field, first);
	sb = simfs_mount(bdev, &mo, err, sizeof(err));
	ck_assert_msg(IS_ERR(sb), "mount accepted: %s (fsck: %s)", what, first);
	ck_assert_msg(!strncmp(err, first, strlen(first)),
		      "%s: mount said "
		      "'%s', fsck '%s'",
		      what, err, first);
}

#endif /* _SIMFS_RAM_H */
