/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simfs subcommands (cmd-mkfs.c, cmd-fsck.c, cmd-mount.c,
 * cmd-stats.c) and what they share (simfs-target.c).
 *
 * Exit status: 0 success, 1 the operation failed (one line on stderr,
 * the target unchanged), 2 bad usage; fsck: 0 clean, 4 errors found,
 * 8 could not check (as e2fsck).
 */
#ifndef _IOMAPSIM_CMD_SIMFS_H
#define _IOMAPSIM_CMD_SIMFS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct block_device;

int cmd_mkfs(int argc, char **argv);
int cmd_fsck(int argc, char **argv);
int cmd_mount(int argc, char **argv);
int cmd_stats(int argc, char **argv);

/*
 * The end of each command's getopt switch: -h prints @usage on stdout
 * (exit 0), anything else on stderr (exit 2, bad usage).
 */
int cli_help_or_bad(int c, void (*usage)(FILE *f));
/*
 * The options and operand of command @cmd that takes one option, --@flag
 * or -@flag[0] (*@set made true), and one operand @what: the operand's
 * index in @argv, or the exit status negated (0 after --help, -2 after
 * one line on stderr for bad usage).
 */
int cli_flag_operand(int argc, char **argv, const char *cmd, const char *flag,
		     bool *set, const char *what, void (*usage)(FILE *f));

/*
 * Start the deterministic engine and open @path with O_DIRECT as a
 * simulated block device; NULL with a reason in @err.
 */
struct block_device *cli_open_target(const char *path, bool read_only,
				     char *err, size_t errlen);
void cli_close_target(struct block_device *bdev);

struct cli_mkfs_args {
	const char *target;
	uint32_t block_size; /* 0: default */
	const char *label;
	uint64_t size; /* 0: the target's size */
	bool force;
	bool quiet;
};
/* mkfs as the command does it; returns the exit status. */
int cli_mkfs(const struct cli_mkfs_args *a);

/* $IOMAPSIM_IMAGE, else ~/.cache/iomapsim/default.img (dir created). */
int cli_default_image(char *buf, size_t len);
#define CLI_DEFAULT_IMAGE_SIZE (1ULL << 30)

#endif /* _IOMAPSIM_CMD_SIMFS_H */
