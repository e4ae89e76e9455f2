// SPDX-License-Identifier: GPL-2.0-only
/*
 * The iomapsim command: a dispatcher over subcommands, each in its own
 * file (run.c, ...).  Errors are one line on stderr; bad usage exits 2.
 */
#include <stdio.h>
#include <string.h>
#include <sim/iomap.h>
#include "cli.h"
#include "cmd-simfs.h"

static const struct cli_cmd cmds[] = {
	{ "run", "run one direct I/O request, print its outcome as JSON",
	  cmd_run },
	{ "batch", "run requests read from standard input, one JSON line each",
	  cmd_batch },
	{ "mkfs", "make a simfs on an image file or block device", cmd_mkfs },
	{ "fsck", "check a simfs image", cmd_fsck },
	{ "mount", "mount a simfs through FUSE", cmd_mount },
	{ "stats", "print the counters of a live mount", cmd_stats },
	{ "bench", "direct I/O workload: IOPS, cost per request by layer",
	  cmd_bench },
	{ "trace", "a mount's trace ring as a timeline (Chrome JSON)",
	  cmd_trace },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: iomapsim COMMAND [OPTIONS]\n\ncommands:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f,
		"\n'iomapsim COMMAND --help' describes a command's options;\n"
		"'iomapsim --version' says which iomap code this build runs.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		fprintf(stderr,
			"iomapsim: missing command (try 'iomapsim --help')\n");
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		/* which iomap code this binary runs (-DIOMAPSIM_KERNEL_TREE) */
		printf("iomapsim\niomap code: %s\n", iomapsim_code_text());
		return 0;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr,
		"iomapsim: unknown command '%s' (try 'iomapsim --help')\n",
		argv[1]);
	return 2;
}
