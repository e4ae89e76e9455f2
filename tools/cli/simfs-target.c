// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the simfs subcommands share: opening a target as a simulated block
 * device (O_DIRECT, deterministic engine), mkfs with its libblkid checks,
 * and the default image a newcomer's `iomapsim mount MNT` uses.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/iomap.h>
#include <sim/bdev.h>
#include <sim/engine.h>
#include "cmd-simfs.h"
#include "simfs-host.h"
#include "simfs.h"

int cli_help_or_bad(int c, void (*usage)(FILE *f))
{
	usage(c == 'h' ? stdout : stderr);
	return c == 'h' ? 0 : 2;
}

/*
 * The one operand @what of command @cmd after its options: its index in
 * @argv, or -1 after one line on stderr (none, or more than one).
 */
static int one_operand(int argc, char **argv, const char *cmd, const char *what)
{
	if (optind == argc - 1)
		return optind;
	if (optind < argc)
		fprintf(stderr, "iomapsim %s: one %s only", cmd, what);
	else
		fprintf(stderr, "iomapsim %s: missing %s", cmd, what);
	fprintf(stderr, " (try 'iomapsim %s --help')\n", cmd);
	return -1;
}

int cli_flag_operand(int argc, char **argv, const char *cmd, const char *flag,
		     bool *set, const char *what, void (*usage)(FILE *f))
{
	const struct option lopts[] = {
		{ flag, no_argument, NULL, flag[0] },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char shorts[] = { flag[0], 'h', '\0' };
	int c;

	/* GNU getopt permutes: the option may follow the operand too */
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		if (c != flag[0])
			return -cli_help_or_bad(c, usage);
		*set = true;
	}
	return one_operand(argc, argv, cmd, what) < 0 ? -2 : optind;
}

struct block_device *cli_open_target(const char *path, bool read_only,
				     char *err, size_t errlen)
{
	struct sim_engine_opts eo = { .kind = SIM_ENGINE_DET, .seed = 1 };
	struct blksim_file_opts fo = { .read_only = read_only };
	struct block_device *bdev;
	int ret;

	ret = sim_engine_init(&eo);
	if (ret) {
		snprintf(err, errlen, "cannot start the engine: %s",
			 strerror(-ret));
		return NULL;
	}
	bdev = blksim_bdev_file_open(path, &fo, err, errlen);
	if (IS_ERR(bdev)) {
		sim_engine_exit();
		return NULL;
	}
	return bdev;
}

void cli_close_target(struct block_device *bdev)
{
	blksim_bdev_destroy(bdev);
	sim_engine_exit();
}

int cli_default_image(char *buf, size_t len)
{
	const char *env = getenv("IOMAPSIM_IMAGE");
	const char *home = getenv("HOME");
	char dir[4096];

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return 0;
	}
	if (home && *home) {
		snprintf(dir, sizeof(dir), "%s/.cache", home);
		mkdir(dir, 0755);
		snprintf(dir, sizeof(dir), "%s/.cache/iomapsim", home);
	} else {
		snprintf(dir, sizeof(dir), "/var/tmp/iomapsim");
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "iomapsim: cannot create %s: %s\n", dir,
			strerror(errno));
		return -1;
	}
	snprintf(buf, len, "%s/default.img", dir);
	return 0;
}

static void describe(const struct simfs_host_probe *p, char *buf, size_t len)
{
	if (p->ambivalent)
		snprintf(buf, len,
			 "several signatures (libblkid cannot tell "
			 "which is current)");
	else if (p->found[0])
		snprintf(buf, len, "a%s %s %s%s%s%s",
			 strchr("aeiou", p->found[0]) ? "n" : "", p->found,
			 p->found_usage[0] ? p->found_usage : "signature",
			 p->found_label[0] ? " (label '" : "", p->found_label,
			 p->found_label[0] ? "')" : "");
	else
		snprintf(buf, len, "a simfs file system");
}

int cli_mkfs(const struct cli_mkfs_args *a)
{
	struct simfs_mkfs_opts mo;
	struct simfs_host_lock lk = { .fd = -1 };
	struct simfs_host_probe p;
	struct block_device *bdev;
	struct simfs_geometry g;
	char err[512], what[200];
	bool created = false;
	struct stat st;
	u32 bs;
	int ret = 1;

	if (stat(a->target, &st)) {
		if (errno != ENOENT) {
			fprintf(stderr, "iomapsim: %s: %s\n", a->target,
				strerror(errno));
			return 1;
		}
		if (!a->size) {
			fprintf(stderr,
				"iomapsim: %s does not exist; give "
				"--size to create an image file\n",
				a->target);
			return 1;
		}
		if (simfs_host_create_image(a->target, a->size, err,
					    sizeof(err))) {
			fprintf(stderr, "iomapsim: %s: %s\n", a->target, err);
			return 1;
		}
		created = true;
	} else if (a->size) {
		fprintf(stderr,
			"iomapsim: %s exists; --size only applies "
			"when creating an image file\n",
			a->target);
		return 1;
	}

	/* held until the last write: not under a mount, not twice */
	if (simfs_host_lock(a->target, SIMFS_HOLD_MKFS, false,
			    SIMFS_HOST_LOCK_WAIT_MS, &lk, err,
			    sizeof(err)) == -EBUSY) {
		fprintf(stderr, "iomapsim: %s: %s\n", a->target, err);
		goto out_unlink;
	}
	if (simfs_host_probe(a->target, &p, err, sizeof(err))) {
		fprintf(stderr, "iomapsim: %s: %s\n", a->target, err);
		goto out_unlink;
	}
	if ((p.found[0] || p.simfs) && !a->force) {
		describe(&p, what, sizeof(what));
		fprintf(stderr,
			"iomapsim: %s contains %s; refusing to "
			"overwrite it without --force\n",
			a->target, what);
		goto out_unlink;
	}

	bdev = cli_open_target(a->target, false, err, sizeof(err));
	if (!bdev) {
		/* the backend's reason names the path already */
		fprintf(stderr, "iomapsim: %s\n", err);
		goto out_unlink;
	}
	simfs_mkfs_opts_init(&mo);
	mo.block_size = a->block_size;
	mo.label = a->label;
	/* every check before the first write, the wipe included */
	if (simfs_mkfs_check(bdev, &mo, &bs, &g, err, sizeof(err))) {
		fprintf(stderr, "iomapsim: %s: %s\n", a->target, err);
		goto out_close;
	}
	if (p.found[0] && a->force) {
		if (simfs_host_wipe(a->target, err, sizeof(err))) {
			fprintf(stderr, "iomapsim: %s: wipe: %s\n", a->target,
				err);
			goto out_close;
		}
		if (!a->quiet) {
			describe(&p, what, sizeof(what));
			printf("iomapsim: wiped %s from %s\n", what, a->target);
		}
	}
	if (simfs_mkfs(bdev, &mo, err, sizeof(err))) {
		fprintf(stderr, "iomapsim: %s: %s\n", a->target, err);
		goto out_close;
	}
	if (!a->quiet) {
		printf("iomapsim: made simfs on %s: %llu blocks of %u bytes "
		       "(%llu MiB), metadata 2 x %llu KiB\n",
		       a->target, (unsigned long long)g.nr_blocks, bs,
		       (unsigned long long)((g.nr_blocks * bs) >> 20),
		       (unsigned long long)((g.meta_blocks * bs) >> 10));
		printf("iomapsim: device: logical block %u, physical %u, "
		       "optimal I/O %u (%s)",
		       bdev_logical_block_size(bdev),
		       bdev_physical_block_size(bdev), bdev_io_opt(bdev),
		       p.topology_from_blkid ? "libblkid topology" :
					       "defaults");
		if (p.dioalign_from_statx)
			printf(", O_DIRECT alignment %u/%u (statx)",
			       p.dio_mem_align, p.dio_offset_align);
		printf("\n");
	}
	ret = 0;
	created = false;
out_close:
	cli_close_target(bdev);
out_unlink:
	/* a refused or failed mkfs leaves nothing behind */
	if (created)
		unlink(a->target);
	simfs_host_unlock(&lk);
	return ret;
}
