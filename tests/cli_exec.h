/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the cli_*.c suites: run the built iomapsim (found through
 * IOMAPSIM_BIN, which CTest sets to the build directory) as a user would,
 * with a standard input of our choosing, and keep its exit status and
 * outputs.  The outputs go to temporary files, so no pipe can fill
 * whatever the command prints.
 */
#ifndef _TESTS_CLI_EXEC_H
#define _TESTS_CLI_EXEC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

struct cli_result {
	int status;
	char out[65536];
	char err[8192];
};

/* A temporary file holding @text, open for reading from its start. */
static inline int cli_tmp_with(const char *text)
{
	char name[] = "/tmp/iomapsim-cli-XXXXXX";
	int fd = mkstemp(name);

	ck_assert_int_ge(fd, 0);
	unlink(name);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	lseek(fd, 0, SEEK_SET);
	return fd;
}

static inline void cli_slurp(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	lseek(fd, 0, SEEK_SET);
	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += r;
	buf[n] = '\0';
}

/*
 * Run iomapsim with @args (NULL terminated, without argv[0]) and @input
 * (or nothing) on its standard input.
 */
static inline void cli_exec(struct cli_result *res, const char *const *args,
			    const char *input)
{
	const char *dir = getenv("IOMAPSIM_BIN");
	char bin[4096];
	const char *argv[64];
	int in, out, err, i, st;
	pid_t pid;

	ck_assert_msg(dir, "IOMAPSIM_BIN is not set (run through ctest)");
	snprintf(bin, sizeof(bin), "%s/iomapsim", dir);
	ck_assert_msg(access(bin, X_OK) == 0, "%s is not built", bin);
	argv[0] = bin;
	for (i = 0; args[i]; i++) {
		ck_assert_int_lt(i + 2, 64);
		argv[i + 1] = args[i];
	}
	argv[i + 1] = NULL;

	in = cli_tmp_with(input ? input : "");
	out = cli_tmp_with("");
	err = cli_tmp_with("");
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		dup2(in, 0);
		dup2(out, 1);
		dup2(err, 2);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	res->status = WEXITSTATUS(st);
	cli_slurp(out, res->out, sizeof(res->out));
	cli_slurp(err, res->err, sizeof(res->err));
	close(in);
	close(out);
	close(err);
}

/*
 * Run iomapsim with the arguments in @line, split at spaces (no argument
 * of these tests holds one): a command line reads as a user types it.
 */
static inline void cli_exec_line(struct cli_result *res, const char *line)
{
	char buf[1024], *save = NULL, *tok;
	const char *args[64];
	int n = 0;

	ck_assert_uint_lt(strlen(line), sizeof(buf));
	strcpy(buf, line);
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		ck_assert_int_lt(n, 63);
		args[n++] = tok;
	}
	args[n] = NULL;
	cli_exec(res, args, NULL);
}

static inline int cli_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/*
 * Bad usage, as every iomapsim command answers it: exit status 2, one
 * line on stderr that says why, nothing on stdout.
 */
static inline void cli_expect_usage_error(const struct cli_result *res,
					  const char *cmd)
{
	ck_assert_msg(res->status == 2, "%s: exit %d", cmd, res->status);
	ck_assert_msg(cli_lines(res->err) == 1, "%s: stderr '%s'", cmd,
		      res->err);
	ck_assert_msg(!res->out[0], "%s: stdout '%s'", cmd, res->out);
}

#endif /* _TESTS_CLI_EXEC_H */
