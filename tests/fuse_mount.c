// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE mount end to end on an image file (see mount/fixture.h):
 * O_DIRECT data verified, simple-path hits and fallbacks by reason,
 * EINVAL for misalignment, EIO and a workqueue punt for a failed bio,
 * zeroes from holes and unwritten extents, mkfs refusing ext4, a clean
 * unmount / fsck / remount, and kill -9 keeping every fsync'd byte.
 */
#include "mount/fixture.h"

int main(void)
{
	Suite *s = suite_create("fuse_mount");

	require_env();
	suite_add_tcase(s, mount_tcase("image"));
	suite_add_tcase(s, mkfs_tcase("mkfs"));
	return run_suite(s);
}
