// SPDX-License-Identifier: GPL-2.0-only
/*
 * simfs_fsck(): read-only check of a simfs image.  It loads the committed
 * generation exactly as mount does (superblock slots, geometry, metadata
 * copy checksum, structure), then runs the checks mount runs too
 * (check.c).  Problems are errors; states a crash or a torn superblock
 * write legitimately leaves are notes.
 */
#include <errno.h>
#include "simfs.h"

int simfs_fsck(struct block_device *bdev, struct simfs_fsck_report *r)
{
	struct simfs_geometry g;
	struct simfs_dsb dsb;
	struct simfs_meta m;
	char err[256];
	int slots = 0;
	int ret;

	r->errors = r->notes = 0;
	r->used_blocks = 0;
	ret = simfs_load(bdev, &dsb, &g, &m, err, sizeof(err), &slots);
	if (ret) {
		/* no superblock at all is "cannot check", the rest errors */
		if (ret == -EINVAL || ret == -EIO || ret == -ENOMEM ||
		    ret == -ENXIO) {
			simfs_report(r, true, "%s", err);
			return ret;
		}
		simfs_report(r, true, "%s", err);
		return 0;
	}
	r->generation = m.generation;
	r->nr_inodes = m.nr_inodes;
	r->clean = simfs_le32_to_cpu(dsb.s_state) == SIMFS_STATE_CLEAN;
	if (!r->clean && r->mount_pid > 0)
		simfs_report(r, false,
			     "mounted now, by pid %ld (its state "
			     "stays MOUNTED until it unmounts); generation "
			     "%llu is its last commit",
			     r->mount_pid, (unsigned long long)m.generation);
	else if (!r->clean && r->mount_pid)
		simfs_report(r, false,
			     "in use now, by a process that does "
			     "not say which; generation %llu is its last "
			     "commit",
			     (unsigned long long)m.generation);
	else if (!r->clean)
		simfs_report(r, false,
			     "not cleanly unmounted: the file "
			     "system was still mounted when its process "
			     "ended; generation %llu is the last complete "
			     "commit",
			     (unsigned long long)m.generation);
	if (slots != 3 && m.generation > 1)
		simfs_report(r, false,
			     "superblock slot %d is not valid (a "
			     "torn superblock write; the other slot was used)",
			     (slots & 1) ? 1 : 0);

	ret = simfs_check_meta(&dsb, &g, &m, r);
	simfs_meta_free(&m);
	return ret;
}
