// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fault wrapper: the chosen status reaches bi_status (and the errno
 * above it) for the Nth bio, for a sector range, and with a seeded
 * probability that replays; failed writes never reach the device; rules
 * are added, listed, removed and cleared at run time; bad specs are
 * refused with a clear message; latency is real in the threaded engine.
 */
#include <errno.h>
#include "block_backend.h"

static struct block_device *ram;

/* A fault device over a 1 MiB ram device (kept in @ram). */
static struct block_device *fault_new(void)
{
	/* a write cache, or the block layer would end flushes itself */
	struct blksim_ram_opts o = { .size = 1 << 20,
				     .write_cache = true,
				     .fua = true };
	char err[128] = "";
	struct block_device *bdev;

	ram = blksim_bdev_ram_create(&o, err, sizeof(err));
	ck_assert_msg(!IS_ERR(ram), "%s", err);
	bdev = blksim_bdev_fault_wrap(ram, err, sizeof(err));
	ck_assert_msg(!IS_ERR(bdev), "%s", err);
	return bdev;
}

static int add(struct block_device *bdev, const char *spec)
{
	char err[256] = "";
	int id = blksim_bdev_fault_add(bdev, spec, err, sizeof(err));

	ck_assert_msg(id > 0, "add %s: %s", spec, err);
	return id;
}

/* bi_status of one async bio, to see the status itself, not the errno. */
static blk_status_t status_of(struct block_device *bdev, blk_opf_t opf,
			      sector_t sector, void *buf, unsigned int len)
{
	struct bb_async a;

	bb_submit_async(bb_bio(bdev, opf, sector, buf, len), &a);
	wait_for_completion(&a.done);
	ck_assert_int_eq(a.ended, 1);
	return a.status;
}

START_TEST(test_fault_wrap_is_transparent)
{
	struct block_device *bdev = fault_new();
	char *buf = bb_alloc(4096);

	ck_assert_ptr_eq(blksim_bdev_fault_lower(bdev), ram);
	ck_assert_uint_eq(bdev_nr_sectors(bdev), bdev_nr_sectors(ram));
	ck_assert_uint_eq(bdev_logical_block_size(bdev),
			  bdev_logical_block_size(ram));
	bb_fill(buf, 4096, 0, 1);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 0, buf, 4096), 0);
	ck_assert(bb_check(blksim_bdev_ram_data(ram), 4096, 0, 1));
	bb_free(buf, 4096);
	blksim_bdev_destroy(bdev); /* and ram with it */
}
END_TEST

START_TEST(test_fault_nth_bio)
{
	struct block_device *bdev = fault_new();
	char *buf = bb_alloc(4096);
	struct blksim_bdev_counters c;

	add(bdev, "bio-error:3:NOSPC");
	ck_assert_int_eq(status_of(bdev, REQ_OP_READ, 0, buf, 512), BLK_STS_OK);
	ck_assert_int_eq(status_of(bdev, REQ_OP_READ, 0, buf, 512), BLK_STS_OK);
	ck_assert_int_eq(status_of(bdev, REQ_OP_READ, 0, buf, 512),
			 BLK_STS_NOSPC);
	ck_assert_int_eq(status_of(bdev, REQ_OP_READ, 0, buf, 512), BLK_STS_OK);
	/* through submit_bio_wait the errno is the status's */
	add(bdev, "bio-error:1:medium:write");
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, buf, 512), 0);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 0, buf, 512), -ENODATA);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 0, buf, 512), 0);
	ck_assert_int_eq(sim_stat_get("bdev_fault_injected"), 2);
	ck_assert(blksim_bdev_get_counters(bdev, &c));
	ck_assert_uint_eq(c.error_bios, 2);
	/* the failed write never reached the ram device */
	ck_assert(blksim_bdev_get_counters(ram, &c));
	ck_assert_uint_eq(c.write_bios, 1);
	bb_free(buf, 4096);
	blksim_bdev_destroy(bdev);
}
END_TEST

START_TEST(test_fault_sector_range)
{
	struct block_device *bdev = fault_new();
	char *buf = bb_alloc(8192), *old = bb_alloc(4096);

	bb_fill(old, 4096, 0, 2);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 8, old, 4096), 0);
	add(bdev, "sector:10-11:MEDIUM:write");
	bb_fill(buf, 8192, 0, 3);
	/* sectors 8..15 touch 10..11: fails, old data stays */
	ck_assert_int_eq(status_of(bdev, REQ_OP_WRITE, 8, buf, 4096),
			 BLK_STS_MEDIUM);
	ck_assert(
		bb_check((char *)blksim_bdev_ram_data(ram) + 4096, 4096, 0, 2));
	/* ending right before, starting right after: fine */
	ck_assert_int_eq(status_of(bdev, REQ_OP_WRITE, 2, buf, 4096),
			 BLK_STS_OK);
	ck_assert_int_eq(status_of(bdev, REQ_OP_WRITE, 12, buf, 512),
			 BLK_STS_OK);
	/* a single sector at each end of the range fails */
	ck_assert_int_eq(status_of(bdev, REQ_OP_WRITE, 10, buf, 512),
			 BLK_STS_MEDIUM);
	ck_assert_int_eq(status_of(bdev, REQ_OP_WRITE, 11, buf, 512),
			 BLK_STS_MEDIUM);
	/* reads are not in the rule */
	ck_assert_int_eq(status_of(bdev, REQ_OP_READ, 8, buf, 4096),
			 BLK_STS_OK);
	/* without a direction both fail; default status IOERR */
	add(bdev, "sector:100-100");
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 96, buf, 8192), -EIO);
	/* flushes carry no sectors */
	ck_assert_int_eq(bb_flush(bdev), 0);
	bb_free(buf, 8192);
	bb_free(old, 4096);
	blksim_bdev_destroy(bdev);
}
END_TEST

/* The failure pattern of a seeded probability, as a bit string. */
static void prob_pattern(const char *spec, char *out, int n)
{
	struct block_device *bdev = fault_new();
	char *buf = bb_alloc(512);

	add(bdev, spec);
	for (int i = 0; i < n; i++) {
		blk_status_t st = status_of(bdev, REQ_OP_READ, i, buf, 512);

		ck_assert(st == BLK_STS_OK || st == BLK_STS_TIMEOUT);
		out[i] = st ? '1' : '0';
	}
	out[n] = '\0';
	bb_free(buf, 512);
	blksim_bdev_destroy(bdev);
}

START_TEST(test_fault_prob_reproducible)
{
	enum { N = 400 };
	char a[N + 1], b[N + 1], c[N + 1];
	int ones = 0;

	prob_pattern("prob:250000:TIMEOUT:seed=42", a, N);
	prob_pattern("prob:250000:TIMEOUT:seed=42", b, N);
	prob_pattern("prob:250000:TIMEOUT:seed=43", c, N);
	ck_assert_str_eq(a, b);
	ck_assert_str_ne(a, c);
	for (int i = 0; i < N; i++)
		ones += a[i] == '1';
	/* 25% of 400 = 100; far outside 50..150 means a broken draw */
	ck_assert_int_gt(ones, 50);
	ck_assert_int_lt(ones, 150);

	/* the edges: never and always */
	prob_pattern("prob:0:TIMEOUT", a, 50);
	ck_assert(!strchr(a, '1'));
	prob_pattern("prob:1000000:TIMEOUT", a, 50);
	ck_assert(!strchr(a, '0'));
}
END_TEST

START_TEST(test_fault_bad_specs)
{
	static const struct {
		const char *spec, *msg;
	} bad[] = {
		{ "", "fault spec is empty" },
		{ "boom:3",
		  "fault spec \"boom:3\": unknown kind \"boom\" (want bio-error, sector, prob or latency)" },
		{ "bio-error",
		  "fault spec \"bio-error\": want bio-error:N[:STATUS][:read|write|flush]" },
		{ "bio-error:0",
		  "fault spec \"bio-error:0\": bio number \"0\" is not an integer >= 1" },
		{ "bio-error:x3",
		  "fault spec \"bio-error:x3\": bio number \"x3\" is not an integer >= 1" },
		{ "bio-error:3:EIO",
		  "fault spec \"bio-error:3:EIO\": unexpected field \"EIO\" (a status such as IOERR, NOSPC, AGAIN, MEDIUM; read, write, flush)" },
		{ "bio-error:3:OK",
		  "fault spec \"bio-error:3:OK\": status OK is not a failure" },
		{ "bio-error:3:IOERR:NOSPC",
		  "fault spec \"bio-error:3:IOERR:NOSPC\": unexpected field \"NOSPC\" (a status such as IOERR, NOSPC, AGAIN, MEDIUM; read, write, flush)" },
		{ "sector:9-3",
		  "fault spec \"sector:9-3\": sector range \"9-3\" is not START-END with START <= END" },
		{ "sector:12",
		  "fault spec \"sector:12\": sector range \"12\" is not START-END with START <= END" },
		{ "sector:1-2:flush",
		  "fault spec \"sector:1-2:flush\": unexpected field \"flush\" (a status such as IOERR, NOSPC, AGAIN, MEDIUM; read, write)" },
		{ "prob:1000001",
		  "fault spec \"prob:1000001\": probability \"1000001\" is not 0..1000000 (per million)" },
		{ "prob:5:seed=",
		  "fault spec \"prob:5:seed=\": unexpected field \"seed=\" (a status such as IOERR, NOSPC, AGAIN, MEDIUM; read, write, flush; seed=N)" },
		{ "latency:fast",
		  "fault spec \"latency:fast\": latency \"fast\" is not a number of ns (or with us, ms, s)" },
		{ "latency:5:IOERR",
		  "fault spec \"latency:5:IOERR\": unexpected field \"IOERR\" (a status such as IOERR, NOSPC, AGAIN, MEDIUM; read, write, flush)" },
		{ "bio-error:1::read",
		  "fault spec \"bio-error:1::read\": unexpected field \"\" (a status such as IOERR, NOSPC, AGAIN, MEDIUM; read, write, flush)" },
		{ "a:b:c:d:e:f:g:h:i",
		  "fault spec \"a:b:c:d:e:f:g:h:i\": too many fields" },
	};
	struct block_device *bdev = fault_new();

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char err[300] = "";

		ck_assert_int_eq(blksim_bdev_fault_check(bad[i].spec, err,
							 sizeof(err)),
				 -EINVAL);
		ck_assert_str_eq(err, bad[i].msg);
		err[0] = '\0';
		ck_assert_int_eq(blksim_bdev_fault_add(bdev, bad[i].spec, err,
						       sizeof(err)),
				 -EINVAL);
		ck_assert_str_eq(err, bad[i].msg);
	}
	/* nothing was added */
	{
		char list[64];

		ck_assert_uint_eq(
			blksim_bdev_fault_list(bdev, list, sizeof(list)), 0);
	}
	blksim_bdev_destroy(bdev);
}
END_TEST

START_TEST(test_fault_list_remove_clear)
{
	struct block_device *bdev = fault_new();
	char list[512], err[128];
	char *buf = bb_alloc(512);
	int id1, id2;

	id1 = add(bdev, "bio-error:2:AGAIN:read");
	id2 = add(bdev, "sector:0-7:blk_sts_protection");
	ck_assert_int_eq(blksim_bdev_fault_command(bdev,
						   " latency:2ms:write \n", err,
						   sizeof(err)),
			 3);
	ck_assert_int_eq(blksim_bdev_fault_command(bdev, "prob:10:seed=7", err,
						   sizeof(err)),
			 4);
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, buf, 512), -EILSEQ);
	blksim_bdev_fault_list(bdev, list, sizeof(list));
	ck_assert_str_eq(list, "1 bio-error:2:AGAIN:read hits=0\n"
			       "2 sector:0-7:PROTECTION hits=1\n"
			       "3 latency:2000000:write hits=0\n"
			       "4 prob:10:IOERR:seed=7 hits=0\n");
	/* a short buffer: truncated, but the full length is returned */
	ck_assert_uint_eq(blksim_bdev_fault_list(bdev, list, 10), 124);
	ck_assert_str_eq(list, "1 bio-err");

	ck_assert_int_eq(blksim_bdev_fault_remove(bdev, id2), 0);
	ck_assert_int_eq(blksim_bdev_fault_remove(bdev, id2), -ENOENT);
	ck_assert_int_eq(
		blksim_bdev_fault_command(bdev, "-4", err, sizeof(err)), 0);
	ck_assert_int_eq(blksim_bdev_fault_command(bdev, "-9", err,
						   sizeof(err)),
			 -ENOENT);
	ck_assert_str_eq(err, "no fault rule 9");
	ck_assert_int_eq(blksim_bdev_fault_command(bdev, "-x", err,
						   sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "fault command \"-x\": want -ID with a rule id");
	/* rule 1 counts from when it was added: this read is its 2nd */
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, buf, 512), -EAGAIN);
	blksim_bdev_fault_list(bdev, list, sizeof(list));
	ck_assert_str_eq(list, "1 bio-error:2:AGAIN:read hits=1\n"
			       "3 latency:2000000:write hits=0\n");
	ck_assert_int_eq(
		blksim_bdev_fault_command(bdev, "clear", err, sizeof(err)), 0);
	ck_assert_uint_eq(blksim_bdev_fault_list(bdev, list, sizeof(list)), 0);
	ck_assert_int_eq(id1, 1);
	/* ids keep growing after a clear */
	ck_assert_int_eq(add(bdev, "bio-error:1"), 5);
	bb_free(buf, 512);
	blksim_bdev_destroy(bdev);
}
END_TEST

/* A device holds at most BLKSIM_FAULT_MAX_RULES rules; removing frees room. */
START_TEST(test_fault_rule_cap)
{
	struct block_device *bdev = fault_new();
	static char list[8192];
	char err[128] = "";
	int lines = 0;

	for (int i = 0; i < BLKSIM_FAULT_MAX_RULES; i++)
		add(bdev, "bio-error:1000");
	ck_assert_int_eq(blksim_bdev_fault_add(bdev, "bio-error:1", err,
					       sizeof(err)),
			 -ENOSPC);
	ck_assert_ptr_nonnull(strstr(err, "at most 64"));
	ck_assert_int_eq(blksim_bdev_fault_command(bdev, "bio-error:1", err,
						   sizeof(err)),
			 -ENOSPC);
	/* the refused rules are not there */
	blksim_bdev_fault_list(bdev, list, sizeof(list));
	for (char *p = list; (p = strchr(p, '\n')); p++)
		lines++;
	ck_assert_int_eq(lines, BLKSIM_FAULT_MAX_RULES);
	ck_assert_int_eq(blksim_bdev_fault_remove(bdev, 3), 0);
	ck_assert_int_eq(add(bdev, "bio-error:1"), BLKSIM_FAULT_MAX_RULES + 1);
	ck_assert_int_eq(
		blksim_bdev_fault_command(bdev, "clear", err, sizeof(err)), 0);
	add(bdev, "bio-error:1");
	blksim_bdev_destroy(bdev);
}
END_TEST

START_TEST(test_fault_status_names)
{
	static const char *const names[] = {
		"NOTSUPP",
		"TIMEOUT",
		"NOSPC",
		"TRANSPORT",
		"TARGET",
		"RESV_CONFLICT",
		"MEDIUM",
		"PROTECTION",
		"RESOURCE",
		"IOERR",
		"DM_REQUEUE",
		"AGAIN",
		"DEV_RESOURCE",
		"ZONE_OPEN_RESOURCE",
		"ZONE_ACTIVE_RESOURCE",
		"OFFLINE",
		"DURATION_LIMIT",
		"INVAL",
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		int st = blksim_blk_status_parse(names[i]);

		ck_assert_int_gt(st, 0);
		ck_assert_str_eq(blksim_blk_status_name((blk_status_t)st),
				 names[i]);
	}
	ck_assert_int_eq(blksim_blk_status_parse("BLK_STS_NOSPC"),
			 BLK_STS_NOSPC);
	ck_assert_int_eq(blksim_blk_status_parse("inval"), BLK_STS_INVAL);
	ck_assert_int_eq(blksim_blk_status_parse("EIO"), -1);
	ck_assert_str_eq(blksim_blk_status_name((blk_status_t)18), "?");
}
END_TEST

/* A flush rule fails REQ_OP_FLUSH bios and ->flush calls alike. */
START_TEST(test_fault_flush)
{
	struct block_device *bdev = fault_new();

	add(bdev, "bio-error:1:IOERR:flush");
	add(bdev, "bio-error:2:NOSPC:flush");
	ck_assert_int_eq(bb_flush(bdev), -EIO);
	ck_assert_int_eq(bdev->bd_ops->flush(bdev), -ENOSPC);
	ck_assert_int_eq(bdev->bd_ops->flush(bdev), 0);
	blksim_bdev_destroy(bdev);
}
END_TEST

/* Threaded engine: latency delays the bio by at least its value. */
START_TEST(test_fault_latency_threaded)
{
	struct block_device *bdev = fault_new();
	char *buf = bb_alloc(4096);
	u64 t0, dt;

	add(bdev, "latency:30ms:read");
	/*
	 * A write does not match the rule: counted, not timed, since an
	 * upper bound on wall time fails on a loaded machine.
	 */
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_WRITE, 0, buf, 4096), 0);
	ck_assert_int_eq(sim_stat_get("bdev_fault_delayed"), 0);
	t0 = bb_now_ns();
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, buf, 4096), 0);
	dt = bb_now_ns() - t0;
	ck_assert_uint_ge(dt, 30000000);
	ck_assert_int_eq(sim_stat_get("bdev_fault_delayed"), 1);
	/* a failure with latency is delayed as well */
	add(bdev, "bio-error:1:IOERR:read");
	t0 = bb_now_ns();
	ck_assert_int_eq(bb_rw(bdev, REQ_OP_READ, 0, buf, 4096), -EIO);
	ck_assert_uint_ge(bb_now_ns() - t0, 30000000);
	ck_assert_int_eq(sim_stat_get("bdev_fault_delayed"), 2);
	bb_free(buf, 4096);
	blksim_bdev_destroy(bdev);
}
END_TEST

static Suite *fault_suite(void)
{
	Suite *s = sim_suite("block_backend_fault", sim_tcase("fault"),
			     test_fault_wrap_is_transparent, test_fault_nth_bio,
			     test_fault_sector_range,
			     test_fault_prob_reproducible, test_fault_bad_specs,
			     test_fault_list_remove_clear, test_fault_rule_cap,
			     test_fault_status_names, test_fault_flush);

	sim_suite_add(s, sim_tcase_threaded("fault-threaded"),
		      test_fault_latency_threaded);
	return s;
}

SIM_TEST_MAIN(fault_suite)
