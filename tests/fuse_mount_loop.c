// SPDX-License-Identifier: GPL-2.0-only
/*
 * The same end-to-end checks as fuse_mount.c, on a loop device over an
 * image file: the backend then opens a real block device with O_DIRECT,
 * its limits from libblkid.  Skipped (exit 77, reason printed) where no
 * loop device can be set up.
 */
#include "mount/fixture.h"

int main(void)
{
	Suite *s = suite_create("fuse_mount_loop");

	require_env();
	if (system("losetup -f >/dev/null 2>&1") != 0) {
		rmdir(tmpdir);
		say_skip("no free loop device (losetup -f failed)");
	}
	use_loop = true;
	suite_add_tcase(s, mount_tcase("loop"));
	suite_add_tcase(s, mkfs_tcase("mkfs-loop"));
	return run_suite(s);
}
