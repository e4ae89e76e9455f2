// SPDX-License-Identifier: GPL-2.0-only
/*
 * iomapsim fsck [-q] TARGET: check a simfs image without changing it.
 * Lists each problem ("error: ...") and note ("note: ..."), then one
 * summary line.  Exit status as e2fsck's: 0 clean (notes allowed),
 * 4 errors found, 8 the image could not be checked; 2 bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "cmd-simfs.h"
#include "simfs-host.h"
#include "simfs.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iomapsim fsck [-q] TARGET\n"
		"\n"
		"Check the simfs on TARGET (an image file or block device), read-only.\n"
		"Exit status: 0 clean, 4 errors found, 8 could not check.\n"
		"\n"
		"  -q, --quiet   only the summary line\n");
}

struct fsck_out {
	bool quiet;
};

static void fsck_msg(void *arg, bool error, const char *text)
{
	struct fsck_out *o = arg;

	if (!o->quiet || error)
		printf("%s: %s\n", error ? "error" : "note", text);
}

int cmd_fsck(int argc, char **argv)
{
	struct fsck_out out = { 0 };
	struct simfs_fsck_report r = { .msg = fsck_msg, .arg = &out };
	struct simfs_host_lock lk = { .fd = -1 };
	struct block_device *bdev;
	bool mounted = false;
	const char *target;
	char err[512], state[64];
	int c, ret;

	c = cli_flag_operand(argc, argv, "fsck", "quiet", &out.quiet, "TARGET",
			     usage);
	if (c <= 0)
		return -c;
	target = argv[c];
	/*
	 * fsck only reads.  A shared lock keeps a mount or mkfs from
	 * starting under it; if a writer holds the image, the check runs
	 * anyway, read-only, on the last commit, and says so, and who
	 * holds it: its MOUNTED state is that mount's, not a crash's.
	 */
	if (simfs_host_lock(target, SIMFS_HOLD_FSCK, true,
			    SIMFS_HOST_LOCK_WAIT_MS, &lk, err,
			    sizeof(err)) == -EBUSY) {
		printf("note: %s; checking read-only, as of its last "
		       "commit\n",
		       err);
		mounted = true;
		if (lk.busy_holder == SIMFS_HOLD_MOUNT)
			r.mount_pid = lk.busy_pid;
		else if (lk.busy_holder == SIMFS_HOLD_NONE)
			r.mount_pid = -1;
	}
	bdev = cli_open_target(target, true, err, sizeof(err));
	if (!bdev) {
		/* the backend's reason names the path already */
		fprintf(stderr, "iomapsim fsck: %s\n", err);
		simfs_host_unlock(&lk);
		return 8;
	}
	/*
	 * A commit can land between reading the superblock and reading the
	 * copy it points at; under a live writer a failed check is retried
	 * (quietly) before its messages are believed.
	 */
	for (int i = 0; mounted && i < 3; i++) {
		struct simfs_fsck_report q = { 0 };

		if (!simfs_fsck(bdev, &q) && !q.errors)
			break;
		usleep(100000);
	}
	ret = simfs_fsck(bdev, &r);
	cli_close_target(bdev);
	simfs_host_unlock(&lk);
	if (ret) {
		printf("%s: could not be checked\n", target);
		return 8;
	}
	if (r.errors) {
		printf("%s: %u error%s, %u note%s\n", target, r.errors,
		       r.errors == 1 ? "" : "s", r.notes,
		       r.notes == 1 ? "" : "s");
		return 4;
	}
	if (r.clean)
		state[0] = 0;
	else if (r.mount_pid > 0)
		snprintf(state, sizeof(state), " (mounted by pid %ld)",
			 r.mount_pid);
	else
		snprintf(state, sizeof(state), " (%s)",
			 r.mount_pid ? "in use" : "was not cleanly unmounted");
	printf("%s: clean, generation %llu, %llu inode%s, %llu blocks in "
	       "use%s\n",
	       target, (unsigned long long)r.generation,
	       (unsigned long long)r.nr_inodes, r.nr_inodes == 1 ? "" : "s",
	       (unsigned long long)r.used_blocks, state);
	return 0;
}
