// SPDX-License-Identifier: GPL-2.0-only
/*
 * `iomapsim batch`, the request stream that tree-diff feeds to two builds:
 * every line's outcome is exactly what `iomapsim run` prints for the same
 * options alone, numbered by input line; comments and blank lines are
 * skipped; a bad line gets an error object and the batch goes on.  The
 * built binary (IOMAPSIM_BIN, set by CTest) is run as a user would.
 */
#include "cli_exec.h"

#define NR(a) (sizeof(a) / sizeof((a)[0]))

static struct cli_result batch_res, run_res;

static void batch(const char *input)
{
	static const char *const args[] = { "batch", NULL };

	cli_exec(&batch_res, args, input);
}

/* Line @n (0-based) of @s, without its newline, into @buf. */
static void nth_line(const char *s, int n, char *buf, size_t len)
{
	const char *e;

	while (n-- > 0) {
		s = strchr(s, '\n');
		ck_assert_msg(s, "too few lines");
		s++;
	}
	e = strchr(s, '\n');
	ck_assert_msg(e, "line not ended");
	ck_assert_uint_lt((size_t)(e - s), len);
	memcpy(buf, s, e - s);
	buf[e - s] = '\0';
}

/* Output line @n (0-based) of the last batch is exactly @want. */
static void expect_line(int n, const char *want)
{
	char got[2048];

	nth_line(batch_res.out, n, got, sizeof(got));
	ck_assert_str_eq(got, want);
}

/* Output line @n (0-based) of the last batch starts with @prefix. */
static void expect_line_starts(int n, const char *prefix)
{
	char got[2048];

	nth_line(batch_res.out, n, got, sizeof(got));
	ck_assert_msg(!strncmp(got, prefix, strlen(prefix)), "%s", got);
}

/* Requests whose outcomes differ in every key between them. */
static const char *const requests[] = {
	"--op read --pos 4096 --len 4096",
	"--op read --pos 4096 --len 4096 --async --fault bio-error:1:IOERR",
	"--op read --pos 0 --len 8192 --map hole:0:8192",
	"--op read --pos 100 --len 4096",
	"--op write --pos 1048576 --len 8192 --async --complete random --seed 5",
	"--op write --pos 0 --len 4096 --map unwritten:0:1048576 --dops end_io --async",
	"--op read --pos 0 --len 65536 --iter iovec:3 --buf-offset 512 --fault alloc-fail:2",
	"--op read --pos 0 --len 4096 --iomap next --no-simple --iocb HIPRI --async",
	"--fs-block 1024 --size 3000 --op read --pos 2048 --len 2048 --iter bvec",
	"--op write --pos 0 --len 4096 --iocb NOWAIT --map hole:0:1048576",
};

START_TEST(test_outcome_is_runs)
{
	static char want[2 * sizeof(run_res.out)];
	char input[4096] = "", got[2048], line[512];
	size_t i;

	for (i = 0; i < NR(requests); i++) {
		strcat(input, requests[i]);
		strcat(input, "\n");
	}
	batch(input);
	ck_assert_msg(batch_res.status == 0, "exit %d: %s", batch_res.status,
		      batch_res.err);
	ck_assert_uint_eq(cli_lines(batch_res.out), NR(requests));
	for (i = 0; i < NR(requests); i++) {
		snprintf(line, sizeof(line), "run %s", requests[i]);
		cli_exec_line(&run_res, line);
		ck_assert_msg(run_res.status == 0, "run %s: exit %d: %s",
			      requests[i], run_res.status, run_res.err);
		ck_assert(run_res.out[0] == '{');
		/* run's object with "line":N put first */
		snprintf(want, sizeof(want), "{\"line\":%zu,%s", i + 1,
			 run_res.out + 1);
		want[strlen(want) - 1] = '\0';
		nth_line(batch_res.out, i, got, sizeof(got));
		ck_assert_str_eq(got, want);
	}
}
END_TEST

START_TEST(test_lines_numbered_as_input)
{
	char got[2048];

	batch("# a comment\n"
	      "\n"
	      "iomapsim run --op read --pos 0 --len 4096   # reproducer as printed\n"
	      "   \t\n"
	      "--op 'read' --pos \"8192\" --len 4096\n");
	ck_assert_int_eq(batch_res.status, 0);
	ck_assert_int_eq(cli_lines(batch_res.out), 2);
	expect_line_starts(0, "{\"line\":3,\"ret\":4096,");
	expect_line_starts(1, "{\"line\":5,\"ret\":4096,");
	nth_line(batch_res.out, 1, got, sizeof(got));
	ck_assert_msg(strstr(got, "\"ki_pos\":12288,"), "%s", got);
}
END_TEST

START_TEST(test_bad_line_goes_on)
{
	batch("--op read --len 4096\n"
	      "--op read --bogus 1\n"
	      "--op frob\n"
	      "--op read --pos 'unterminated\n"
	      "--help\n"
	      "--op read --fault alloc-fail:0\n"
	      "--op write --pos 0 --len 4096\n");
	ck_assert_msg(batch_res.status == 0, "exit %d", batch_res.status);
	ck_assert_str_eq(batch_res.err, "");
	ck_assert_int_eq(cli_lines(batch_res.out), 7);
	expect_line(
		1,
		"{\"line\":2,\"error\":\"unknown option '--bogus' (try --help)\"}");
	expect_line(2,
		    "{\"line\":3,\"error\":\"--op frob: want read or write\"}");
	expect_line(3, "{\"line\":4,\"error\":\"unterminated quote\"}");
	expect_line(4, "{\"line\":5,\"error\":\"--help: not a request\"}");
	expect_line(
		5,
		"{\"line\":6,\"error\":\"--fault alloc-fail:0: want alloc-fail:N with N >= 1\"}");
	/* the lines around the bad ones ran */
	expect_line_starts(0, "{\"line\":1,\"ret\":4096,");
	expect_line_starts(6, "{\"line\":7,\"ret\":4096,");
}
END_TEST

START_TEST(test_refused_request_is_error)
{
	/* parsed, but the runner refuses the geometry: as `run`'s exit 2 */
	char want[1024];

	cli_exec_line(&run_res, "run --fs-block 3000");
	ck_assert_int_eq(run_res.status, 2);
	ck_assert(!strncmp(run_res.err, "iomapsim run: ", 14));
	batch("--fs-block 3000\n");
	ck_assert_int_eq(batch_res.status, 0);
	/* the same reason, as the line's error */
	snprintf(want, sizeof(want), "{\"line\":1,\"error\":\"%.*s\"}\n",
		 (int)strlen(run_res.err + 14) - 1, run_res.err + 14);
	ck_assert_str_eq(batch_res.out, want);
}
END_TEST

START_TEST(test_batch_takes_no_arguments)
{
	cli_exec_line(&batch_res, "batch requests.txt");
	cli_expect_usage_error(&batch_res, "batch requests.txt");
	ck_assert_msg(strstr(batch_res.err, "standard input"), "%s",
		      batch_res.err);
}
END_TEST

START_TEST(test_empty_input)
{
	batch("");
	ck_assert_int_eq(batch_res.status, 0);
	ck_assert_str_eq(batch_res.out, "");
}
END_TEST

static Suite *batch_suite(void)
{
	return sim_suite("cli_batch", sim_tcase("batch"), test_outcome_is_runs,
			 test_lines_numbered_as_input, test_bad_line_goes_on,
			 test_refused_request_is_error,
			 test_batch_takes_no_arguments, test_empty_input);
}

SIM_TEST_MAIN(batch_suite)
