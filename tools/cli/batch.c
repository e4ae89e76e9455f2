// SPDX-License-Identifier: GPL-2.0-only
/*
 * iomapsim batch: many `iomapsim run` requests, one per line of standard
 * input, each answered by one JSON line on standard output: the `run` keys
 * with "line" (the input line number) first, or {"line":N,"error":"..."}
 * for a line whose options are bad or that the runner refuses.  A bad line
 * does not stop the batch.  Blank lines and comments (from a '#' that
 * starts a word to the end of the line) are skipped.  A line may start
 * with "iomapsim run", so that a reproducer can be pasted as printed.
 *
 * Every request runs as `iomapsim run` would run it alone: the
 * deterministic engine started again with the line's seed, on CPU 0, with
 * an empty trace ring; a test checks that the two print the same outcome.
 * This is what scripts/tree-diff.sh feeds to two builds.
 *
 * Exit status: 0 when every line was answered (bad lines included), 1 when
 * the engine fails or standard output cannot be written, 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sim/engine.h>
#include "cli.h"
#include "request.h"

#define BATCH_MAX_WORDS 512

static void print_error(FILE *f, long line, const char *why)
{
	fprintf(f, "{\"line\":%ld,\"error\":", line);
	cli_json_string(f, why);
	fputs("}\n", f);
}

int cmd_batch(int argc, char **argv)
{
	char *words[BATCH_MAX_WORDS + 1];
	char *buf = NULL;
	size_t cap = 0;
	long line = 0;
	int status = 0;

	if (argc > 1) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			printf("usage: iomapsim batch < REQUESTS\n"
			       "  one request per line: the options of 'iomapsim run' (see its --help),\n"
			       "  optionally after 'iomapsim run'; '#' comments and blank lines skipped.\n"
			       "  Prints one JSON line per request: the 'run' keys with \"line\" first,\n"
			       "  or {\"line\":N,\"error\":\"...\"} for a bad line (the batch goes on).\n");
			return 0;
		}
		fprintf(stderr,
			"iomapsim batch: unexpected argument '%s' (requests come on standard input)\n",
			argv[1]);
		return 2;
	}

	while (getline(&buf, &cap, stdin) >= 0) {
		const char *why = NULL;
		char **args;
		int n, rc;

		line++;
		n = cli_split_request(buf, words, BATCH_MAX_WORDS, "batch",
				      &args, &why);
		if (n < 0) {
			print_error(stdout, line, why);
			continue;
		}
		if (!n)
			continue;
		rc = cli_run_request(n, args, stdout, line, false);
		if (rc == 1) {
			fprintf(stderr, "iomapsim batch: line %ld: %s\n", line,
				cli_run_error());
			status = 1;
			break;
		}
		if (rc)
			print_error(stdout, line, cli_run_error());
		/*
		 * Each answer out before the next request runs: one that
		 * oopses the code (kernel BUG ends the process) leaves every
		 * earlier answer whole, for scripts/tree-diff.sh to go on from
		 */
		fflush(stdout);
	}
	free(buf);
	testfs_runner_teardown();
	sim_engine_exit();
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr,
			"iomapsim batch: cannot write the outcomes: %s\n",
			strerror(errno));
		status = 1;
	}
	return status;
}
