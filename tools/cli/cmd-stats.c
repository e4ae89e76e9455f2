// SPDX-License-Identifier: GPL-2.0-only
/*
 * iomapsim stats [--reset] MOUNTPOINT: the counters of a live mount, as
 * its control file MOUNTPOINT/.iomapsim/stats has them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cmd-simfs.h"
#include "iomapsim-mount.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iomapsim stats [--reset] MOUNTPOINT\n"
		"\n"
		"Print the counters of the iomapsim mount at MOUNTPOINT: simple-path\n"
		"hits, fallbacks by reason, bios, per-CPU bio cache hits, workqueue\n"
		"punts, simfs and device counters (zero counters are left out).\n"
		"\n"
		"  -r, --reset   zero the counters after printing them\n");
}

int cmd_stats(int argc, char **argv)
{
	bool reset = false;
	char path[4096], buf[65536];
	ssize_t n;
	int c, fd;

	c = cli_flag_operand(argc, argv, "stats", "reset", &reset, "MOUNTPOINT",
			     usage);
	if (c <= 0)
		return -c;
	snprintf(path, sizeof(path), "%s/%s/stats", argv[c], IOMAPSIM_CTL_DIR);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "iomapsim stats: %s: %s\n", argv[c],
			errno == ENOENT ? "not an iomapsim mount (no "
					  ".iomapsim/stats)" :
					  strerror(errno));
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, n, stdout);
	close(fd);
	if (n < 0) {
		fprintf(stderr, "iomapsim stats: %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	if (reset) {
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, "reset\n", 6) != 6) {
			fprintf(stderr, "iomapsim stats: cannot reset: %s\n",
				strerror(errno));
			if (fd >= 0)
				close(fd);
			return 1;
		}
		close(fd);
	}
	return 0;
}
