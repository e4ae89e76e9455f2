// SPDX-License-Identifier: GPL-2.0-only
/*
 * iomapsim trace MOUNTPOINT --json FILE: the mount's trace ring
 * (MOUNTPOINT/.iomapsim/trace) as a Chrome trace-event timeline
 * (trace-json.c).  MOUNTPOINT may also be a file holding such ring text,
 * e.g. a copy of that control file or `iomapsim run --trace`'s stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "iomapsim-mount.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iomapsim trace MOUNTPOINT --json FILE\n"
		"\n"
		"Write the trace ring of the iomapsim mount at MOUNTPOINT (its\n"
		".iomapsim/trace file; MOUNTPOINT may also be a saved copy of such a\n"
		"file) as Chrome trace-event JSON to FILE ('-': stdout), for Perfetto,\n"
		"chrome://tracing or scripts/trace-plot.py.  The ring records only while\n"
		"tracing is on (mount -o trace=on, or echo 1 > .iomapsim/trace).\n");
}

int cmd_trace(int argc, char **argv)
{
	const char *json = NULL, *mnt = NULL;
	char path[4096];
	struct stat st;
	FILE *in;
	int ret;

	/* MOUNTPOINT and --json FILE (or --json=FILE), in either order */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strncmp(a, "--json=", 7)) {
			json = a + 7;
		} else if (!strcmp(a, "--json") || !strcmp(a, "-j")) {
			if (++i == argc)
				break;
			json = argv[i];
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"iomapsim trace: unknown option '%s' "
				"(try 'iomapsim trace --help')\n",
				a);
			return 2;
		} else if (mnt) {
			fprintf(stderr,
				"iomapsim trace: one MOUNTPOINT only\n");
			return 2;
		} else {
			mnt = a;
		}
	}
	if (!mnt || !json || !*json) {
		fprintf(stderr,
			"iomapsim trace: missing %s (try 'iomapsim "
			"trace --help')\n",
			mnt ? "--json FILE" : "MOUNTPOINT");
		return 2;
	}
	if (stat(mnt, &st)) {
		fprintf(stderr, "iomapsim trace: %s: %s\n", mnt,
			strerror(errno));
		return 1;
	}
	if (S_ISDIR(st.st_mode))
		snprintf(path, sizeof(path), "%s/%s/trace", mnt,
			 IOMAPSIM_CTL_DIR);
	else
		snprintf(path, sizeof(path), "%s", mnt);
	in = fopen(path, "r");
	if (!in) {
		fprintf(stderr, "iomapsim trace: %s: %s\n", mnt,
			errno == ENOENT ? "not an iomapsim mount (no "
					  ".iomapsim/trace)" :
					  strerror(errno));
		return 1;
	}
	ret = trace_json_to_path(in, json);
	fclose(in);
	if (ret) {
		fprintf(stderr, "iomapsim trace: %s: %s\n", json,
			strerror(-ret));
		return 1;
	}
	return 0;
}
