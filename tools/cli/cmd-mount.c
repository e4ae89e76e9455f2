// SPDX-License-Identifier: GPL-2.0-only
/*
 * iomapsim mount [TARGET] MOUNTPOINT [-o OPTIONS] [-f]
 *
 * Serve the simfs on TARGET through FUSE at MOUNTPOINT.  Without TARGET
 * the default image is used, created and formatted on first use, so a
 * newcomer can mount at once.  Unmount with fusermount3 -u MOUNTPOINT;
 * a clean unmount commits.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "cmd-simfs.h"
#include "iomapsim-mount.h"
#include "simfs-host.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iomapsim mount [TARGET] MOUNTPOINT [-o OPTIONS] [-f]\n"
		"\n"
		"Mount the simfs on TARGET (image file or block device) at MOUNTPOINT\n"
		"through FUSE.  Without TARGET: $IOMAPSIM_IMAGE, else\n"
		"~/.cache/iomapsim/default.img (1 GiB, made on first use).\n"
		"Direct I/O (O_DIRECT) on its files runs through the simulator's iomap\n"
		"and bio code down to TARGET opened with O_DIRECT.  Control files are\n"
		"in MOUNTPOINT/.iomapsim/ (stats, trace, simple, fault, log-writes).\n"
		"Unmount with: fusermount3 -u MOUNTPOINT\n"
		"\n"
		"  -f, --foreground     do not become a daemon\n"
		"  -o OPTIONS           comma-separated:\n"
		"     simple=on|off         iomap's simple direct-I/O path (default on)\n"
		"     parallel_write=on|off declare FMODE_DIO_PARALLEL_WRITE (default on);\n"
		"                           off serialises direct writes per file\n"
		"     dops=none|end_io|submit_io|bio_set  default iomap_dio_ops\n"
		"     qd=N                  bios in flight on the device (default 128)\n"
		"     fault=SPEC            a fault rule, repeatable (see the fault file)\n"
		"     logwrites=PATH        record every write, flush and FUA bio in the new\n"
		"                           file PATH, for power-loss replay (dm-log-writes;\n"
		"                           write a NAME to the log-writes file to add a\n"
		"                           mark)\n"
		"     trace=on|off          record the trace ring from the start (default\n"
		"                           off: it costs every I/O; writing 1 to the\n"
		"                           trace file turns it on later)\n"
		"     cpus=N                simulated CPUs (default 4)\n"
		"     threads=N             FUSE worker threads (default two per CPU,\n"
		"                           at least 4)\n"
		"     poll=auto|US          a lone worker may busy-poll for its read's\n"
		"                           completion and the next request, when it\n"
		"                           measures that this pays and a CPU is idle;\n"
		"                           US microseconds bound a window, 0: never\n"
		"                           (default auto: up to 200)\n"
		"     uring=auto|on|off     requests over FUSE io_uring (Linux 6.14+, when\n"
		"                           /sys/module/fuse/parameters/enable_uring is\n"
		"                           Y): a queue per CPU, served on the client's\n"
		"                           CPU; auto (default) when the kernel offers\n"
		"                           it, on: refuse to mount without it\n"
		"     commit=SECONDS        periodic commit, 0 for fsync/unmount only\n"
		"                           (default 5)\n"
		"     max_background=N      FUSE background requests (default 256)\n"
		"     ro, allow_other, debug\n");
}

static int ensure_default_image(const char *path)
{
	struct cli_mkfs_args a = { .target = path,
				   .size = CLI_DEFAULT_IMAGE_SIZE };
	struct simfs_host_probe p;
	char err[256];
	struct stat st;

	if (stat(path, &st)) {
		if (errno != ENOENT) {
			fprintf(stderr, "iomapsim: %s: %s\n", path,
				strerror(errno));
			return 1;
		}
		printf("iomapsim: creating the default image %s (%llu MiB, "
		       "sparse)\n",
		       path, CLI_DEFAULT_IMAGE_SIZE >> 20);
		return cli_mkfs(&a);
	}
	if (simfs_host_probe(path, &p, err, sizeof(err))) {
		fprintf(stderr, "iomapsim: %s: %s\n", path, err);
		return 1;
	}
	if (!p.simfs) {
		fprintf(stderr,
			"iomapsim: %s exists but holds no simfs; make "
			"one with: iomapsim mkfs --force %s\n",
			path, path);
		return 1;
	}
	return 0;
}

int cmd_mount(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "options", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fusevfs_mount_opts o;
	char image[4096], err[512];
	int c, ret;

	fusevfs_mount_opts_init(&o);
	optind = 1;
	while ((c = getopt_long(argc, argv, "fo:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o.foreground = true;
			break;
		case 'o':
			if (fusevfs_mount_parse_opts(&o, optarg, err,
						     sizeof(err))) {
				fprintf(stderr, "iomapsim mount: %s\n", err);
				return 2;
			}
			break;
		default:
			return cli_help_or_bad(c, usage);
		}
	}
	if (argc - optind == 2) {
		o.target = argv[optind];
		o.mountpoint = argv[optind + 1];
	} else if (argc - optind == 1) {
		o.mountpoint = argv[optind];
		if (cli_default_image(image, sizeof(image)))
			return 1;
		o.target = image;
		if (ensure_default_image(image))
			return 1;
	} else {
		fprintf(stderr,
			"iomapsim mount: %s (try 'iomapsim mount "
			"--help')\n",
			argc == optind ? "missing MOUNTPOINT" :
					 "too many arguments");
		return 2;
	}
	ret = fusevfs_mount_main(&o);
	if (!ret && !o.foreground)
		printf("iomapsim: %s mounted on %s; unmount with: fusermount3 "
		       "-u %s\n",
		       o.target, o.mountpoint, o.mountpoint);
	return ret;
}
