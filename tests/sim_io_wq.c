// SPDX-License-Identifier: GPL-2.0-only
/*
 * io_wq_should_hash(): whether io-wq serialises queued work on a regular
 * file's inode (P-04..P-08, io_prep_async_work()).
 */
#include <sys/stat.h>
#include <linux/fs.h>
#include <sim/io_wq.h>
#include "harness.h"

#define SIM_O_DIRECT 040000

static struct inode inode;
static struct file_operations fops;
static struct file file;

/* A regular file, buffered, no parallel-write flag anywhere. */
static void plain_file(void)
{
	inode = (struct inode){ .i_mode = S_IFREG | 0644 };
	fops = (struct file_operations){ 0 };
	file = (struct file){ .f_inode = &inode, .f_op = &fops };
}

struct hash_case {
	const char *rule;
	enum sim_io_wq_op op;
	bool odirect, fop_flag, fmode_flag, iopoll;
	bool hashed;
};

static const struct hash_case cases[] = {
	/* P-04: O_DIRECT write, the file system allows parallel writes */
	{ "P-04 fop flag", IO_WQ_SIM_WRITE, true, true, false, false, false },
	{ "P-04 f_mode flag", IO_WQ_SIM_WRITE, true, false, true, false,
	  false },
	/* P-04: without the flag the write is hashed */
	{ "P-04 no flag", IO_WQ_SIM_WRITE, true, false, false, false, true },
	/* P-05: IOPOLL hashes a regular file's work whatever the flag says */
	{ "P-05 write", IO_WQ_SIM_WRITE, true, true, true, true, true },
	{ "P-05 read", IO_WQ_SIM_READ, true, true, true, true, true },
	/* P-06: a buffered write always hashes, a read never does */
	{ "P-06 buffered write", IO_WQ_SIM_WRITE, false, true, true, false,
	  true },
	{ "P-06 buffered read", IO_WQ_SIM_READ, false, true, true, false,
	  false },
	{ "P-06 direct read", IO_WQ_SIM_READ, true, false, false, false,
	  false },
};

/* P-04..P-06, P-08: each combination's answer, as io_prep_async_work() */
START_TEST(test_should_hash_rules)
{
	const struct hash_case *hc = &cases[_i];

	plain_file();
	file.f_flags = hc->odirect ? SIM_O_DIRECT : 0;
	fops.fop_flags = hc->fop_flag ? FOP_DIO_PARALLEL_WRITE : 0;
	file.f_mode = hc->fmode_flag ? FMODE_DIO_PARALLEL_WRITE : 0;
	ck_assert_msg(io_wq_should_hash(hc->op, &file, hc->iopoll) ==
			      hc->hashed,
		      "%s: hashed should be %d", hc->rule, hc->hashed);
}
END_TEST

/* Another fop flag is not the parallel-write one (P-04). */
START_TEST(test_other_fop_flag_still_hashed)
{
	plain_file();
	file.f_flags = SIM_O_DIRECT;
	fops.fop_flags = FOP_BUFFER_WASYNC | FOP_MMAP_SYNC;
	ck_assert(io_wq_should_hash(IO_WQ_SIM_WRITE, &file, false));
}
END_TEST

/* The rules apply to regular files only: a block device is not hashed. */
START_TEST(test_not_regular_not_hashed)
{
	plain_file();
	inode.i_mode = S_IFBLK | 0600;
	ck_assert(!io_wq_should_hash(IO_WQ_SIM_WRITE, &file, false));
	ck_assert(!io_wq_should_hash(IO_WQ_SIM_WRITE, &file, true));
	ck_assert(!io_wq_should_hash(IO_WQ_SIM_WRITE, NULL, false));
}
END_TEST

/*
 * P-07, P-08: the predicate reads only the file and the ring flag; the
 * same file gives the same answer before and after (no side effect).
 */
START_TEST(test_predicate_has_no_side_effects)
{
	plain_file();
	file.f_flags = SIM_O_DIRECT;
	file.f_mode = FMODE_DIO_PARALLEL_WRITE;
	ck_assert(!io_wq_should_hash(IO_WQ_SIM_WRITE, &file, false));
	ck_assert_uint_eq(file.f_mode, FMODE_DIO_PARALLEL_WRITE);
	ck_assert_uint_eq(file.f_flags, SIM_O_DIRECT);
	ck_assert(!io_wq_should_hash(IO_WQ_SIM_WRITE, &file, false));
}
END_TEST

static Suite *io_wq_suite(void)
{
	Suite *s = suite_create("io_wq");
	TCase *tc = sim_tcase("io_wq");

	tcase_add_loop_test(tc, test_should_hash_rules, 0, ARRAY_SIZE(cases));
	sim_suite_add(s, tc, test_other_fop_flag_still_hashed,
		      test_not_regular_not_hashed,
		      test_predicate_has_no_side_effects);
	return s;
}

SIM_TEST_MAIN(io_wq_suite)
