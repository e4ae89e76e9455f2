// SPDX-License-Identifier: GPL-2.0-only
/*
 * `iomapsim run`, the scriptable contract: the built binary (found through
 * IOMAPSIM_BIN, which CTest sets to the build directory) is run as a user
 * would, and its JSON, exit status and stderr are checked.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <sim/iomap_features.h>
#include "cli_exec.h"

static const char *const keys[] = {
	"ret",
	"queued",
	"path",
	"fallback",
	"bios",
	"cache_hits",
	"punted",
	"ki_complete_calls",
	"completion",
	"ki_pos",
	"i_size",
	"iter_count",
	"iter_past_segments",
	"data",
	"leaks",
	"warnings",
	"context_violations",
	"code",
};

static void expect_json(const struct cli_result *res)
{
	const char *p = res->out;
	size_t i;

	ck_assert_msg(res->status == 0, "exit %d: %s", res->status, res->err);
	ck_assert_int_eq(cli_lines(res->out), 1);
	ck_assert(res->out[0] == '{');
	/* every key, once, in the contract's order */
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char k[64];
		const char *q;

		snprintf(k, sizeof(k), "\"%s\":", keys[i]);
		q = strstr(p, k);
		ck_assert_msg(q, "key %s missing or out of order in %s",
			      keys[i], res->out);
		ck_assert_msg(!strstr(q + 1, k), "key %s twice", keys[i]);
		p = q;
	}
}

/*
 * Does the JSON object @json hold @field ("\"key\":value") as a whole
 * member: a key, not the tail of another key, with exactly that value,
 * not a prefix of a longer one ("\"bios\":1" does not match
 * "\"bios\":10" nor "\"cache_bios\":1")?  The runner's JSON is flat and
 * its strings hold no commas or braces, so the member ends at , or }.
 */
static bool field_matches(const char *json, const char *field)
{
	size_t n = strlen(field);
	const char *p;

	for (p = strstr(json, field); p; p = strstr(p + 1, field))
		if (p > json && (p[-1] == '{' || p[-1] == ',') &&
		    (p[n] == ',' || p[n] == '}'))
			return true;
	return false;
}

static void expect_field(const struct cli_result *res, const char *field)
{
	ck_assert_msg(field_matches(res->out, field), "%s not in %s", field,
		      res->out);
}

/*
 * Run `iomapsim @line`: one JSON object with every key (expect_json()),
 * holding each field after @line, up to a NULL, as a whole member.
 */
static void __attribute__((sentinel)) run_json(const char *line, ...)
{
	struct cli_result res;
	const char *field;
	va_list ap;

	cli_exec_line(&res, line);
	expect_json(&res);
	va_start(ap, line);
	while ((field = va_arg(ap, const char *)))
		expect_field(&res, field);
	va_end(ap);
}

/* The matcher itself: whole members only. */
START_TEST(test_field_matches_whole_values)
{
	const char *json = "{\"ret\":4096,\"bios\":10,\"x_bios\":1,"
			   "\"path\":\"simple\",\"leaks\":0}";

	ck_assert(field_matches(json, "\"bios\":10"));
	ck_assert(!field_matches(json, "\"bios\":1"));
	ck_assert(!field_matches(json, "\"ret\":409"));
	ck_assert(field_matches(json, "\"ret\":4096"));
	ck_assert(!field_matches(json, "\"path\":\"simp"));
	ck_assert(field_matches(json, "\"leaks\":0"));
	ck_assert(field_matches(json, "\"x_bios\":1"));
}
END_TEST

START_TEST(test_keys_present)
{
	run_json("run", "\"leaks\":0", "\"warnings\":0",
		 "\"context_violations\":0", NULL);
}
END_TEST

/* Bad arguments: exit 2, one line on stderr, nothing on stdout. */
static const char *const bad_args[] = {
	"run --bogus",
	"run --op frob",
	"run --map mapped:0",
	"run --map sparse:0:4096",
	"run --map mapped:0:4096:shiny",
	"run --fault nope:1",
	"run --fault bio-error:1:NOSUCH",
	"run --iocb FOO",
	"run --dio-flags FAST",
	"run --iter iovec:0",
	"run --iter iovec:4096,0",
	"run --iter iovec:4096@4096",
	"run --iter iovec:4096,4096 --len 4096",
	"run --dma-alignment 500",
	"run --dma-alignment 4095x",
	"run --len",
	"run --pos -5",
	"run --lbs 3000",
	"run --map mapped:100:4096",
	"run --complete sometimes",
	"run stray",
	"frobnicate",
};

/* `iomapsim @line` is refused as bad usage: cli_expect_usage_error() */
static void run_refused(const char *line)
{
	struct cli_result r;

	cli_exec_line(&r, line);
	cli_expect_usage_error(&r, line);
}

START_TEST(test_bad_args)
{
	run_refused(bad_args[_i]);
}
END_TEST

START_TEST(test_no_command)
{
	struct cli_result r;

	cli_exec_line(&r, "");
	cli_expect_usage_error(&r, "iomapsim");
}
END_TEST

START_TEST(test_help)
{
	static const char a[] = "run --help";
	struct cli_result r;

	cli_exec_line(&r, a);
	ck_assert_int_eq(r.status, 0);
	ck_assert(strstr(r.out, "--fs-block"));
}
END_TEST

/* docs/rules.md 4: sync 4 KiB read is simple, one bio, completed in place */
START_TEST(test_ref_sync_read)
{
	run_json("run --op read --pos 8192 --len 4096", "\"ret\":4096",
		 "\"queued\":false", "\"path\":\"simple\"", "\"fallback\":null",
		 "\"bios\":1", "\"completion\":\"submitter\"",
		 "\"ki_pos\":12288", "\"iter_count\":0",
		 "\"iter_past_segments\":false", "\"data\":\"ok\"",
		 "\"ki_complete_calls\":0",
		 /* observed: the bio came from the simple path's own pool */
		 "\"bios_simple_pool\":1", "\"bios_fs_bio_set\":0",
		 "\"bios_dops_bio_set\":0", "\"why_mismatch\":false", NULL);
}
END_TEST

/* docs/rules.md 4: async with a bio error: queued, -EIO from the workqueue */
START_TEST(test_ref_async_error)
{
	run_json("run --len 4096 --async --fault bio-error:1",
		 "\"queued\":true", "\"ret\":-5",
		 "\"completion\":\"workqueue\"", "\"punted\":1",
		 "\"ki_complete_calls\":1", "\"path\":\"simple\"", NULL);
}
END_TEST

/* docs/rules.md 4: a read over a hole falls back, no bio */
START_TEST(test_ref_hole)
{
	static const char a[] =
		"run --len 4096 --map hole:0:65536 --map mapped:65536:983040";

	run_json(a, "\"path\":\"generic\"", "\"fallback\":\"not_mapped\"",
		 "\"bios\":0", "\"ret\":4096", "\"data\":\"zero\"", NULL);
}
END_TEST

/*
 * Inline data as long as the data (a gfs2 stuffed inode): a 512-byte read
 * of a 100-byte file returns the 100 bytes through the generic path.
 */
START_TEST(test_inline_byte_length)
{
	static const char a[] =
		"run --size 100 --map inline:0:100 --op read --pos 0 --len 512";
	static const char partial[] =
		"run --map inline:0:100 --map mapped:100:4096";
	struct cli_result r;

	run_json(a, "\"ret\":100", "\"path\":\"generic\"", "\"bios\":0",
		 "\"ki_pos\":100", "\"data\":\"ok\"", NULL);
	/* other extents still start on a block */
	cli_exec_line(&r, partial);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "multiples of the block size"), "%s",
		      r.err);
}
END_TEST

/*
 * An atomic write the mapping cannot cover in one bio: -EINVAL before
 * any bio (G-25), as the kernel; the device advertises atomic writes.
 */
START_TEST(test_atomic_map_flag)
{
	static const char split[] =
		"run --op write --pos 0 --len 8192 --iocb ATOMIC --map mapped:0:4096:atomic --map mapped:4096:61440:atomic";
	static const char whole[] =
		"run --op write --pos 0 --len 8192 --iocb ATOMIC --map mapped:0:65536:atomic";

	run_json(split, "\"ret\":-22", "\"bios\":0", "\"leaks\":0",
		 "\"warnings\":0", NULL);
	run_json(whole, "\"ret\":8192", "\"bios\":1", "\"data\":\"ok\"", NULL);
}
END_TEST

/* docs/rules.md 4: unaligned 512 on a 4096 device: -EINVAL from simple */
START_TEST(test_ref_unaligned)
{
	run_json("run --lbs 4096 --pos 512 --len 512", "\"ret\":-22",
		 "\"path\":\"simple\"", "\"fallback\":null",
		 "\"completion\":null", NULL);
}
END_TEST

/* the async success case: inline completion from end_io */
START_TEST(test_ref_async_read)
{
	run_json("run --async", "\"ret\":4096", "\"completion\":\"end_io\"",
		 "\"punted\":0", NULL);
}
END_TEST

/* an extending async write: zeroing bio, completion in the workqueue */
START_TEST(test_ref_extending_write)
{
	static const char a[] =
		"run --op write --pos 1048576 --len 512 --async";

	run_json(a, "\"ret\":512",
		 /* why the generic path: a write, or there is no other path */
		 IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_NONE ?
			 "\"fallback\":\"no_simple_path\"" :
			 "\"fallback\":\"write\"",
		 "\"bios\":2", "\"completion\":\"workqueue\"", NULL);
}
END_TEST

/* same arguments and seed, same output */
START_TEST(test_deterministic)
{
	static const char a[] =
		"run --len 65536 --map mapped:0:16384 --map mapped:16384:49152 --map mapped:65536:983040 --complete random --seed 42 --async";
	struct cli_result r1, r2;

	cli_exec_line(&r1, a);
	cli_exec_line(&r2, a);
	expect_json(&r1);
	ck_assert_str_eq(r1.out, r2.out);
	expect_field(&r1, "\"ret\":65536");
}
END_TEST

/* every other option parses and runs */
START_TEST(test_all_options)
{
	static const char a[] =
		"run --fs-block 4096 --lbs 512 --size 1m --encrypted --dops end_io --op write --pos 4096 --len 8k --iter iovec:4096,3072,1024@512 --buf-offset 512 --dma-alignment 511 --no-poll --iocb DSYNC,HIPRI --dio-flags FSBLOCK_ALIGNED --done-before 0 --no-simple --complete deferred --seed 7 --fault begin-error:EIO:5 --fault short-pin:9:4096 --fault alloc-fail:99 --iomap next --write-cache --fua";

	run_json(a, "\"ret\":8192", NULL);
}
END_TEST

/* ---- iomapsim bench ---------------------------------------------------- */

static void bench(struct cli_result *res, const char *line)
{
	cli_exec_line(res, line);
	ck_assert_msg(res->status == 0, "exit %d: %s", res->status, res->err);
}

static void expect_line(const struct cli_result *res, const char *line)
{
	ck_assert_msg(strstr(res->out, line), "no \"%s\" in:\n%s", line,
		      res->out);
}

/*
 * A steady-state 4 KiB read: the simple path serves every request and
 * allocates nothing; the generic path allocates exactly its dio.
 */
START_TEST(test_bench_allocations_per_read)
{
	struct cli_result res;

	bench(&res, "bench --count 400");
	expect_line(&res,
		    "requests      400 (0 errors, 400 on the simple path)");
	expect_line(&res, "allocs per I/O 0.000 ");
}
END_TEST

/* the generic path allocates its struct iomap_dio, once per read */
START_TEST(test_bench_allocations_generic)
{
	struct cli_result res;

	bench(&res, "bench --count 400 --simple off --mode async --qd 8");
	expect_line(&res, "requests      400 (0 errors, 0 on the simple path)");
	expect_line(&res, "allocs per I/O 1.000 ");
}
END_TEST

/* Polled requests from several submitters all complete, on every iomap mode. */
START_TEST(test_bench_polled_and_modes)
{
	static const char *const modes[] = { "ops", "next", "begin" };
	struct cli_result res;
	char line[128];
	size_t i;

	bench(&res,
	      "bench --count 1000 --mode polled --qd 16 --submitters 3 --dev ram --file-size 1m");
	expect_line(&res,
		    "requests      1000 (0 errors, 1000 on the simple path)");
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		snprintf(line, sizeof(line),
			 "bench --count 500 --iomap %s --no-iomap-end",
			 modes[i]);
		bench(&res, line);
		expect_line(
			&res,
			"requests      500 (0 errors, 500 on the simple path)");
	}
}
END_TEST

/* P-04, P-07: io-wq serialises the writers unless the file allows parallel dio writes. */
START_TEST(test_bench_iowq_hashing)
{
	struct cli_result res;

	bench(&res,
	      "bench --engine threaded --op write --mode async --submitters 4 --qd 4 --iowq --count 400 --file-size 1m");
	expect_line(&res, "requests      400 (0 errors,");
	expect_line(
		&res,
		"io-wq         hashed per inode, 400 item(s) hashed, at most 1 running at once");
	bench(&res,
	      "bench --engine threaded --op write --mode async --submitters 4 --qd 4 --iowq --parallel-write on --count 400 --file-size 1m");
	expect_line(&res, "io-wq         not hashed, 0 item(s) hashed");
}
END_TEST

static const char *const bench_bad[] = {
	"bench --qd 0",
	"bench --mode sync --qd 4",
	"bench --iowq",
	"bench --latency 10parsecs",
	"bench --dev ram --latency 10us",
	"bench --duration 1s",
	"bench --profile --engine threaded",
	"bench --size 1000",
};

/* Bad usage: exit 2, one line on stderr, nothing run. */
START_TEST(test_bench_bad_args)
{
	run_refused(bench_bad[_i]);
}
END_TEST

static Suite *cli_suite(void)
{
	Suite *s = suite_create("cli_run");
	TCase *tc = sim_tcase("run");

	sim_tcase_add(tc, test_field_matches_whole_values, test_keys_present);
	tcase_add_loop_test(tc, test_bad_args, 0,
			    sizeof(bad_args) / sizeof(bad_args[0]));
	sim_tcase_add(tc, test_no_command, test_help, test_ref_sync_read,
		      test_ref_async_error, test_ref_hole, test_ref_unaligned,
		      test_inline_byte_length, test_atomic_map_flag,
		      test_ref_async_read, test_ref_extending_write,
		      test_deterministic, test_all_options,
		      test_bench_allocations_per_read,
		      test_bench_allocations_generic,
		      test_bench_polled_and_modes, test_bench_iowq_hashing);
	tcase_add_loop_test(tc, test_bench_bad_args, 0,
			    sizeof(bench_bad) / sizeof(bench_bad[0]));
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(cli_suite)
