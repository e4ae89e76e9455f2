/* SPDX-License-Identifier: GPL-2.0-only */
/* The iomapsim subcommands (one file each) and their shared helpers. */
#ifndef _IOMAPSIM_CLI_H
#define _IOMAPSIM_CLI_H

#include <stdbool.h>
#include <stdint.h>

struct iomapsim_cmd {
	const char *name;
	const char *help;
	/* argv[0] is the command's name; returns the exit status */
	int (*fn)(int argc, char **argv);
};

int cmd_run(int argc, char **argv);

/*
 * A size or count: decimal or 0x hex, optionally followed by k, m or g
 * (binary multiples).  False if @s is not one.
 */
bool cli_parse_u64(const char *s, uint64_t *out);

#endif /* _IOMAPSIM_CLI_H */
