/* SPDX-License-Identifier: GPL-2.0-only */
/* The iomapsim subcommands (one file each) and their shared helpers. */
#ifndef _IOMAPSIM_CLI_H
#define _IOMAPSIM_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "args.h"

struct cli_cmd {
	const char *name;
	const char *help;
	/* argv[0] is the command's name; returns the exit status */
	int (*fn)(int argc, char **argv);
};

int cmd_run(int argc, char **argv);
int cmd_batch(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/*
 * One `iomapsim run` request from its options: parsed, run on the
 * deterministic engine, its outcome printed as one JSON line on @f ("line"
 * first when @line is not 0).  0 when it ran; 2 when the options are bad
 * or the request was refused, 1 when the engine did not start or the
 * --trace-json file could not be written, with the reason (one line, no
 * prefix) in cli_run_error().
 */
int cli_run_request(int argc, char **argv, FILE *f, long line, bool help_ok);
const char *cli_run_error(void);

/* @s as a JSON string, quoted and escaped, on @f. */
void cli_json_string(FILE *f, const char *s);
int cmd_trace(int argc, char **argv);

/*
 * Trace-ring text (sim_trace_dump()'s lines; other lines are skipped) from
 * @in as Chrome trace-event JSON on @out (trace-json.c); 0 or -errno.
 */
int trace_json_convert(FILE *in, FILE *out);
/*
 * The same from @in into the file @path ("-": stdout), written whole or
 * not at all (a temporary file renamed over it); 0 or -errno.
 */
int trace_json_to_path(FILE *in, const char *path);
/* The whole trace ring of this process as that JSON into @path. */
int trace_json_write_ring(const char *path);

#endif /* _IOMAPSIM_CLI_H */
