// SPDX-License-Identifier: GPL-2.0-only
/*
 * iomapsim mkfs [--block-size N] [--label L] [--force] TARGET [--size N]
 *
 * TARGET is a block device or an image file (created sparse with
 * --size).  libblkid probes it first: a target with another file system
 * or partition table signature (or a simfs) is refused unless --force,
 * and --force wipes those signatures as wipefs -a would.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "cmd-simfs.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iomapsim mkfs [--block-size N] [--label L] [--force] TARGET [--size N]\n"
		"\n"
		"Make an empty simfs on TARGET, a block device or an image file.\n"
		"\n"
		"  -b, --block-size N  file system block size, a power of two from 512\n"
		"                      to 64k, not below the device's logical block size\n"
		"                      (default: the larger of 4096 and that size)\n"
		"  -L, --label L       a label of up to 31 bytes\n"
		"  -f, --force         overwrite a target that carries another file\n"
		"                      system or partition table (its signatures are\n"
		"                      wiped first)\n"
		"  -s, --size N        create TARGET as a sparse image file of N bytes\n"
		"                      (k, m, g suffixes); TARGET must not exist\n");
}

int cmd_mkfs(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "block-size", required_argument, NULL, 'b' },
		{ "label", required_argument, NULL, 'L' },
		{ "force", no_argument, NULL, 'f' },
		{ "size", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_mkfs_args a = { 0 };
	uint64_t v;
	int c;

	/* GNU getopt permutes: options may follow TARGET too */
	optind = 1;
	while ((c = getopt_long(argc, argv, "b:L:fs:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			/* 0 is not "the default": leave the option out */
			if (!cli_parse_u64(optarg, &v) || !v ||
			    v > (1U << 20)) {
				fprintf(stderr,
					"iomapsim mkfs: bad block size "
					"'%s' (a power of two from 512 to "
					"64k)\n",
					optarg);
				return 2;
			}
			a.block_size = v;
			break;
		case 'L':
			a.label = optarg;
			break;
		case 'f':
			a.force = true;
			break;
		case 's':
			if (!cli_parse_u64(optarg, &v) || !v) {
				fprintf(stderr,
					"iomapsim mkfs: bad size "
					"'%s'\n",
					optarg);
				return 2;
			}
			a.size = v;
			break;
		default:
			return cli_help_or_bad(c, usage);
		}
	}
	if (optind < argc)
		a.target = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "iomapsim mkfs: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	if (!a.target) {
		fprintf(stderr, "iomapsim mkfs: missing TARGET (try "
				"'iomapsim mkfs --help')\n");
		return 2;
	}
	return cli_mkfs(&a);
}
