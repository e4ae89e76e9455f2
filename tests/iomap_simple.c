// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simple dio path (docs/rules.md 3.S): eligibility both ways,
 * the fallbacks inside it, its own errors, its completion ways, and its
 * bio_set.
 */
#include <stdlib.h>
#include <linux/bio.h>
#include <linux/cache.h>
#include <sim/rand.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include <sim/iomap_features.h>
#include "iomap_common.h"

/* The minimal request that passes every condition: 4 KiB sync read. */
static void base_req(struct testfs_request *r)
{
	req_init(r);
	r->pos = 8192;
	r->len = 4096;
}

/*
 * The path is observed (__iomap_dio_rw() did not begin), the bios' bio_set
 * too: the simple path's own pool, never fs_bio_set; and the reason
 * mirror must not contradict what was observed.
 */
static void expect_simple(const struct testfs_outcome *o, long ret)
{
	ck_assert_int_eq(o->ret, ret);
	ck_assert(o->simple);
	ck_assert(!o->why_mismatch);
	ck_assert_int_eq(o->fallback, IOMAP_SIMPLE_OK);
	ck_assert_uint_eq(o->bios_fs_bio_set, 0);
	ck_assert_uint_eq(o->bios_dops_set, 0);
	if (ret > 0)
		ck_assert_uint_eq(o->bios_simple_pool, 1);
}

static void expect_generic(const struct testfs_outcome *o,
			   enum iomap_simple_reason why)
{
	ck_assert(!o->simple);
	ck_assert_msg(!o->why_mismatch,
		      "the reason mirror contradicts the path");
	ck_assert_msg(o->fallback == why, "fallback %s, expected %s",
		      iomap_simple_reason_name(o->fallback) ?: "null",
		      iomap_simple_reason_name(why) ?: "null");
	/* only a short pin got as far as a bio from the simple pool */
	if (why != IOMAP_SIMPLE_SHORT_PIN)
		ck_assert_uint_eq(o->bios_simple_pool, 0);
}

/* Run @r, which must take the simple path and return @ret. */
static void run_simple(const struct testfs_request *r, struct testfs_outcome *o,
		       long ret)
{
	run_ok(r, o);
	expect_simple(o, ret);
}

/* Run @r, which must fall back for @why and return @ret. */
static void run_generic(const struct testfs_request *r,
			struct testfs_outcome *o, enum iomap_simple_reason why,
			long ret)
{
	run_ok(r, o);
	expect_generic(o, why);
	ck_assert_int_eq(o->ret, ret);
}

/* ---- eligibility, one condition at a time, both ways ---------------- */

/* covers S-01..S-08: the minimal request takes the simple path */
START_TEST(test_eligible_minimal)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	run_simple(&r, &o, 4096);
	ck_assert_uint_eq(o.bios, 1);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_SUBMITTER);
	ck_assert_int_eq(o.ki_pos, 12288);
	ck_assert_uint_eq(o.iter_count, 0);
	ck_assert_uint_eq(o.begin_calls, 1);
}
END_TEST

/* the cover letter's simple=0, per call */
START_TEST(test_disabled_per_call)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.no_simple = true;
	run_generic(&r, &o, IOMAP_SIMPLE_DISABLED, 4096);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	ck_assert_uint_eq(o.begin_calls, 1);
}
END_TEST

/* simple=0 per mount (super block flag) */
START_TEST(test_disabled_per_mount)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.no_simple_mount = true;
	run_generic(&r, &o, IOMAP_SIMPLE_DISABLED, 4096);
	ck_assert_uint_eq(sim_stat_get("iomap_simple_fallback_disabled"), 1);
}
END_TEST

/* covers S-01, S-35: any dops keeps a request off the simple path */
START_TEST(test_refuse_dops)
{
	static const enum testfs_dops d[] = { TESTFS_DOPS_END_IO,
					      TESTFS_DOPS_SUBMIT_IO,
					      TESTFS_DOPS_BIO_SET };
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.dops = d[_i];
	run_generic(&r, &o, IOMAP_SIMPLE_DOPS, 4096);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	if (d[_i] == TESTFS_DOPS_SUBMIT_IO)
		ck_assert_uint_eq(o.submit_io_calls, 1);
	if (d[_i] == TESTFS_DOPS_END_IO)
		ck_assert_uint_eq(o.end_io_calls, 1);
}
END_TEST

/* covers S-01, S-36: done_before != 0 refuses; the result includes it */
START_TEST(test_refuse_done_before)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.done_before = 512;
	run_generic(&r, &o, IOMAP_SIMPLE_DONE_BEFORE, 4096 + 512);
	ck_assert_int_eq(o.ki_pos, 8192 + 4096); /* G-57 */
}
END_TEST

/* covers S-02: writes are never simple */
START_TEST(test_refuse_write)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.write = true;
	run_generic(&r, &o, IOMAP_SIMPLE_WRITE, 4096);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* covers S-03, G-02: an empty read is generic and returns 0 untouched */
START_TEST(test_refuse_empty)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.len = 0;
	run_generic(&r, &o, IOMAP_SIMPLE_EMPTY, 0);
	ck_assert_uint_eq(o.begin_calls, 0);
	ck_assert_int_eq(o.ki_pos, 8192);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_NONE);
}
END_TEST

/* covers S-04: count == s_blocksize passes, one byte block more refuses */
START_TEST(test_refuse_too_large)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.len = 4096 + 512;
	run_generic(&r, &o, IOMAP_SIMPLE_TOO_LARGE, 4608);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* covers S-04 with small blocks: the gate is the super block's size */
START_TEST(test_too_large_small_block)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.fs_block = 1024;
	r.len = 1024;
	run_simple(&r, &o, 1024);
	r.len = 2048;
	run_generic(&r, &o, IOMAP_SIMPLE_TOO_LARGE, 2048);
}
END_TEST

/* covers S-05: FORCE_WAIT, PARTIAL and BOUNCE each refuse */
START_TEST(test_refuse_dio_flags)
{
	static const unsigned int f[] = { IOMAP_DIO_FORCE_WAIT,
					  IOMAP_DIO_PARTIAL, IOMAP_DIO_BOUNCE };
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.dio_flags = f[_i];
	if (f[_i] == IOMAP_DIO_BOUNCE)
		r.iter = IOMAPSIM_ITER_KVEC; /* no dirtying from IRQ context */
	run_generic(&r, &o, IOMAP_SIMPLE_DIO_FLAGS, 4096);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* covers S-08: OVERWRITE_ONLY, FSBLOCK_ALIGNED and NO_IOMAP_END accepted */
START_TEST(test_accept_other_dio_flags)
{
	static const unsigned int f[] = { IOMAP_DIO_OVERWRITE_ONLY,
					  IOMAP_DIO_FSBLOCK_ALIGNED,
					  IOMAP_DIO_NO_IOMAP_END };
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.dio_flags = f[_i];
	run_simple(&r, &o, 4096);
}
END_TEST

/*
 * covers S-05, S-08, S-14: every public IOMAP_DIO_* flag this code has,
 * alone on the minimal read, as the code decides it: the baseline refuses
 * FORCE_WAIT, PARTIAL and BOUNCE inside iomap_dio_rw(); where the file
 * system calls iomap_dio_read_simple() itself it does so only for a read
 * it would give no flags (IOMAPSIM_SIMPLE_REFUSES_FLAGS).  A refused read
 * falls back with "dio_flags" and still reads the file.
 */
START_TEST(test_dio_flags_by_code)
{
	static const unsigned int f[] = {
		IOMAP_DIO_FORCE_WAIT, IOMAP_DIO_OVERWRITE_ONLY,
		IOMAP_DIO_PARTIAL,    IOMAP_DIO_FSBLOCK_ALIGNED,
		IOMAP_DIO_BOUNCE,
	};
	struct testfs_request r;
	struct testfs_outcome o;
	unsigned int i, seen = 0;

	for (i = 0; i < ARRAY_SIZE(f); i++) {
		/* a flag this code lacks is 0 (<sim/iomap_fs.h>) */
		if (!f[i])
			continue;
		seen++;
		base_req(&r);
		r.dio_flags = f[i];
		/*
		 * a bounced read unpins user pages where it completes, which
		 * may sleep (test_bounce_read_user_needs_offload): kernel
		 * memory here
		 */
		if (f[i] == IOMAP_DIO_BOUNCE)
			r.iter = IOMAPSIM_ITER_KVEC;
		run_ok(&r, &o);
		if (f[i] & IOMAPSIM_SIMPLE_REFUSES_FLAGS) {
			expect_generic(&o, IOMAP_SIMPLE_DIO_FLAGS);
			ck_assert_int_eq(o.ret, 4096);
		} else {
			expect_simple(&o, 4096);
		}
		ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	}
	ck_assert_uint_ge(seen, 3);
}
END_TEST

/*
 * covers S-10: private data is passed through: a file system that hands
 * iomap_dio_rw() private data still gets the simple path.
 */
START_TEST(test_private_data)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.private_data = true;
	run_simple(&r, &o, 4096);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/*
 * covers S-18: the simple path's bio comes from its own bio_set with
 * GFP_KERNEL, which cannot fail, under IOCB_NOWAIT too: no failable
 * allocation is seen, and the read is served.
 */
START_TEST(test_nowait_bio_alloc)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.ki_flags = IOCB_NOWAIT;
	r.alloc_fail_nth = 1;
	run_simple(&r, &o, 4096);
	ck_assert_int_eq(o.alloc_seen, 0);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* covers S-06: ending exactly at i_size passes, one block past refuses */
START_TEST(test_refuse_beyond_eof)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.size = 12288;
	run_simple(&r, &o, 4096);

	r.size = 12288 - 512;
	/* G-55: a short read */
	run_generic(&r, &o, IOMAP_SIMPLE_BEYOND_EOF, 4096 - 512);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* covers S-07: encrypted inodes use the generic path */
START_TEST(test_refuse_encrypted)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.encrypted = true;
	run_generic(&r, &o, IOMAP_SIMPLE_ENCRYPTED, 4096);
}
END_TEST

/* covers S-08: HIPRI, NOWAIT and every iterator type are accepted */
START_TEST(test_accept_iterators)
{
	static const struct {
		enum testfs_iter it;
		unsigned int segs;
	} v[] = {
		{ IOMAPSIM_ITER_UBUF, 1 },  { IOMAPSIM_ITER_IOVEC, 1 },
		{ IOMAPSIM_ITER_IOVEC, 4 }, { IOMAPSIM_ITER_KVEC, 1 },
		{ IOMAPSIM_ITER_BVEC, 1 },
	};
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.iter = v[_i].it;
	r.iovec_segs = v[_i].segs;
	run_simple(&r, &o, 4096);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	ck_assert_uint_eq(o.iter_count, 0);
}
END_TEST

/* covers S-08: NOWAIT stays on the simple path and marks the bio (S-22) */
START_TEST(test_nowait_simple)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.ki_flags = IOCB_NOWAIT;
	run_simple(&r, &o, 4096);
	ck_assert_uint_eq(o.dev.nowait_bios, 1);
	ck_assert(cb_at(&o, 0)->flags == (IOMAP_DIRECT | IOMAP_NOWAIT));
}
END_TEST

/*
 * The reason mirror agrees with what the kernel code did on thousands of
 * random requests: whether the simple path asked for a mapping before
 * __iomap_dio_rw() began is observed, and a mirror that says otherwise is
 * flagged (why_mismatch); a fallback's reason is the mirror's.
 */
START_TEST(test_why_agrees_with_observed)
{
	struct testfs_opts opts = { .size = 64 << 10 };
	struct sim_rand rng;
	struct testfs *tf;
	char err[128];
	static char buf[16384];
	int n, simple = 0, generic = 0;

	sim_rand_seed(&rng, 77);
	tf = testfs_create(&opts, err, sizeof(err));
	ck_assert_msg(!IS_ERR(tf), "%s", err);
	for (n = 0; n < 3000; n++) {
		struct kiocb iocb = { .ki_filp = &tf->file,
				      .ki_flags = IOCB_DIRECT };
		struct iomap_dio_obs obs;
		struct iov_iter iter;
		unsigned int flags = sim_rand_below(&rng, 64) &
				     (IOMAP_DIO_FORCE_WAIT | IOMAP_DIO_PARTIAL |
				      IOMAP_DIO_FSBLOCK_ALIGNED);
		size_t len = sim_rand_below(&rng, 3) == 0 ?
				     0 :
				     512 * sim_rand_below(&rng, 18);
		size_t done = sim_rand_below(&rng, 4) == 0 ? 512 : 0;
		bool write = sim_rand_below(&rng, 8) == 0;
		enum iomap_simple_reason why;
		ssize_t ret;

		tf->dops = NULL;
		iocb.ki_pos = 512 * sim_rand_below(&rng, write ? 64 : 160);
		iov_iter_ubuf(&iter, write ? ITER_SOURCE : ITER_DEST, buf, len);
		if (sim_rand_below(&rng, 5) == 0)
			tf->inode.i_flags |= S_ENCRYPTED;
		else
			tf->inode.i_flags &= ~S_ENCRYPTED;
		if (sim_rand_below(&rng, 6) == 0)
			flags |= IOMAPSIM_DIO_NO_SIMPLE;
		why = (flags & IOMAPSIM_DIO_NO_SIMPLE) ?
			      IOMAP_SIMPLE_DISABLED :
			      iomap_dio_simple_why(&iocb, &iter, NULL, flags,
						   done);
		/*
		 * Where the file system calls the simple read itself, it does
		 * so only for a request it would give iomap_dio_rw() no
		 * flags, after its own residual and direction checks
		 * (fs-dio.c).
		 */
		if (IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_FS_CALLED &&
		    why != IOMAP_SIMPLE_DISABLED &&
		    why != IOMAP_SIMPLE_DONE_BEFORE &&
		    why != IOMAP_SIMPLE_WRITE &&
		    (flags & IOMAPSIM_SIMPLE_REFUSES_FLAGS))
			why = IOMAP_SIMPLE_DIO_FLAGS;
		iomap_dio_obs_start(&obs);
		ret = testfs_dio_rw(tf, &iocb, &iter, flags, done);
		sim_engine_drain();
		iomap_dio_obs_stop();
		ck_assert_msg(
			!obs.why_mismatch,
			"mirror %s contradicts the path (pos %lld len %zu flags %#x ret %zd)",
			iomap_simple_reason_name(why) ?: "eligible",
			(long long)iocb.ki_pos, len, flags, ret);
		if (obs.generic && why != IOMAP_SIMPLE_OK) {
			ck_assert_int_eq(obs.fallback, why);
			generic++;
		} else if (!obs.generic) {
			/* iomap_dio_read_simple() answers an empty one */
			if (why != IOMAP_SIMPLE_EMPTY ||
			    !IOMAPSIM_EMPTY_READ_SIMPLE)
				ck_assert_int_eq(why, IOMAP_SIMPLE_OK);
			simple++;
		}
	}
	ck_assert_int_gt(simple, 50);
	ck_assert_int_gt(generic, 1000);
	tf->inode.i_flags &= ~S_ENCRYPTED;
	testfs_destroy(tf);
}
END_TEST

/* the gate helper names each of the mapping gate's conditions */
START_TEST(test_gate_why)
{
	struct iomap m = { .offset = 0, .length = 8192, .type = IOMAP_MAPPED };

	ck_assert_int_eq(iomap_dio_simple_gate_why(&m, 4096, 4096),
			 IOMAP_SIMPLE_SHORT_PIN);
	ck_assert_int_eq(iomap_dio_simple_gate_why(&m, 4096, 8192),
			 IOMAP_SIMPLE_EXTENT_SHORT);
	m.flags = IOMAP_F_INTEGRITY;
	ck_assert_int_eq(iomap_dio_simple_gate_why(&m, 0, 4096),
			 IOMAP_SIMPLE_INTEGRITY);
	m.type = IOMAP_UNWRITTEN;
	ck_assert_int_eq(iomap_dio_simple_gate_why(&m, 0, 4096),
			 IOMAP_SIMPLE_NOT_MAPPED);
}
END_TEST

/* ---- fallbacks inside the simple path (S-13, S-20, S-38) -------------- */

static void expect_fallback_side_effects(const struct testfs_outcome *o)
{
	/*
	 * S-38: the simple path's begin and end(written=0), then the generic
	 * path begins again (once per mapping it walks).
	 */
	ck_assert_uint_ge(o->begin_calls, 2);
	ck_assert_int_eq(cb_at(o, 0)->op, TESTFS_CB_BEGIN);
	ck_assert_int_eq(cb_at(o, 1)->op, TESTFS_CB_END);
	ck_assert_int_eq(cb_at(o, 1)->written, 0);
	ck_assert_int_eq(cb_at(o, 2)->op, TESTFS_CB_BEGIN);
}

/* covers S-13: holes, unwritten, inline and delalloc are "not mapped" */
START_TEST(test_fallback_not_mapped)
{
	static const u16 types[] = { IOMAP_HOLE, IOMAP_UNWRITTEN,
				     IOMAP_INLINE };
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	req_map(&r, types[_i], 0, 16384, 0);
	req_map(&r, IOMAP_MAPPED, 16384, (256 << 10) - 16384, 0);
	run_generic(&r, &o, IOMAP_SIMPLE_NOT_MAPPED, 4096);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.data, types[_i] == IOMAP_INLINE ?
					 IOMAPSIM_DATA_OK :
					 IOMAPSIM_DATA_ZERO);
	ck_assert_int_eq(o.ki_pos, 12288);
	expect_fallback_side_effects(&o);
}
END_TEST

/* covers S-13, G-20: delalloc falls back and the generic path says -EIO */
START_TEST(test_fallback_delalloc)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	req_map(&r, IOMAP_DELALLOC, 0, 16384, 0);
	run_generic(&r, &o, IOMAP_SIMPLE_NOT_MAPPED, -EIO);
	ck_assert_int_eq(o.ki_pos, 8192);
	ck_assert_int_eq(o.fserror_reports, FSERROR_REPORTS(1));
}
END_TEST

/* covers S-13: a mapping ending before pos + count falls back */
START_TEST(test_fallback_extent_short)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.pos = 8192 + 2048;
	req_map(&r, IOMAP_MAPPED, 0, 12288, 0);
	req_map(&r, IOMAP_MAPPED, 12288, 65536, 0);
	run_generic(&r, &o, IOMAP_SIMPLE_EXTENT_SHORT, 4096);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	ck_assert_uint_eq(o.bios, 2); /* one per extent, not contiguous */
	expect_fallback_side_effects(&o);
	ck_assert_uint_eq(o.begin_calls, 3);
}
END_TEST

/* covers S-13: a mapping ending exactly at pos + count is fine */
START_TEST(test_extent_end_exact)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	req_map(&r, IOMAP_MAPPED, 0, 12288, 0);
	req_map(&r, IOMAP_MAPPED, 12288, 65536, 0);
	run_simple(&r, &o, 4096);
}
END_TEST

/* covers S-13: IOMAP_F_INTEGRITY mappings fall back */
START_TEST(test_fallback_integrity)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	req_map(&r, IOMAP_MAPPED, 0, 65536, IOMAP_F_INTEGRITY);
	run_generic(&r, &o, IOMAP_SIMPLE_INTEGRITY, 4096);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	expect_fallback_side_effects(&o);
}
END_TEST

/*
 * covers S-20, S-38: pinning comes up short (the second segment cannot be
 * pinned): the iterator is restored and the generic path reads it all.
 */
START_TEST(test_fallback_short_pin)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	pin_first_page_only(&r);
	run_generic(&r, &o, IOMAP_SIMPLE_SHORT_PIN, 4096);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	ck_assert_uint_eq(o.iter_count, 0);
	ck_assert_int_eq(o.ki_pos, 12288);
	expect_fallback_side_effects(&o);
	ck_assert_uint_eq(o.bios, 1); /* the simple bio was never submitted */
}
END_TEST

/* covers S-19: pinning nothing at all is the simple path's -EFAULT */
START_TEST(test_pin_fault_is_error)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.short_pin_nth = 1;
	r.short_pin_bytes = 0;
	run_simple(&r, &o, -EFAULT);
	ck_assert_uint_eq(o.iter_count, 4096);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_uint_eq(o.end_calls, 1);
	ck_assert_int_eq(cb_at(&o, 1)->written, 0);
}
END_TEST

/* a one-shot short pin is made up by the next extraction: no fallback */
START_TEST(test_short_pin_refilled)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.short_pin_nth = 1;
	r.short_pin_bytes = 2048;
	run_simple(&r, &o, 4096);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* covers S-12: -ENOTBLK from ->iomap_begin itself sends it to generic */
START_TEST(test_fallback_begin_notblk)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.begin_error = -ENOTBLK;
	r.begin_error_nth = 1;
	run_generic(&r, &o, IOMAP_SIMPLE_NOT_MAPPED, 4096);
	ck_assert_uint_eq(o.begin_calls, 2);
	ck_assert_uint_eq(o.end_calls, 1); /* the generic path's only */
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* ---- the simple path's own errors ------------------------------------ */

/* covers S-14: misaligned position, -EINVAL without fallback */
START_TEST(test_misaligned_pos)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.lbs = 4096;
	r.pos = 512;
	r.len = 512;
	run_simple(&r, &o, -EINVAL);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.ki_pos, 512);
	ck_assert_uint_eq(o.iter_count, 512);
	ck_assert_uint_eq(o.begin_calls, 1);
	ck_assert_uint_eq(o.end_calls, 1); /* S-16 */
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_NONE);
	ck_assert_int_eq(o.fserror_reports, 0);
}
END_TEST

/* covers S-14: misaligned length */
START_TEST(test_misaligned_len)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.len = 1000;
	run_simple(&r, &o, -EINVAL);
}
END_TEST

/* covers S-14: FSBLOCK_ALIGNED makes the block size the unit */
START_TEST(test_fsblock_aligned_unit)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.len = 512;
	run_simple(&r, &o, 512);
	r.dio_flags = IOMAP_DIO_FSBLOCK_ALIGNED;
	run_simple(&r, &o, -EINVAL);
}
END_TEST

/* covers S-12: a ->iomap_begin error is returned, no ->iomap_end */
START_TEST(test_begin_error)
{
	static const int errs[] = { -EIO, -ENOMEM, -EAGAIN, -ENOSPC };
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.begin_error = errs[_i];
	r.begin_error_nth = 1;
	run_simple(&r, &o, errs[_i]);
	ck_assert_uint_eq(o.begin_calls, 1);
	ck_assert_uint_eq(o.end_calls, 0);
	ck_assert_int_eq(o.ki_pos, 8192);
	ck_assert_int_eq(o.fserror_reports, 0);
}
END_TEST

/* covers S-11, S-32, K-07: NOWAIT with dirty cache is -EAGAIN up front */
START_TEST(test_nowait_dirty_cache)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.ki_flags = IOCB_NOWAIT;
	req_page(&r, 2, SIM_PC_DIRTY);
	run_simple(&r, &o, -EAGAIN);
	ck_assert_uint_eq(o.begin_calls, 0);
	ck_assert_uint_eq(o.pc.writebacks, 0);
}
END_TEST

/* covers S-11: under writeback counts as needing it too */
START_TEST(test_nowait_writeback_cache)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.ki_flags = IOCB_NOWAIT;
	req_page(&r, 2, SIM_PC_WRITEBACK);
	run_simple(&r, &o, -EAGAIN);
}
END_TEST

/* covers S-11, K-07: without NOWAIT the cache is written back first */
START_TEST(test_write_and_wait)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	req_page(&r, 2, SIM_PC_DIRTY);
	req_page(&r, 9, SIM_PC_DIRTY);
	run_simple(&r, &o, 4096);
	ck_assert_uint_eq(o.pc.writebacks, 1); /* only the page in range */
}
END_TEST

/* covers S-11: a writeback error is the read's result */
START_TEST(test_writeback_error)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	req_page(&r, 2, SIM_PC_DIRTY | SIM_PC_WB_ERROR);
	run_simple(&r, &o, -EIO);
	ck_assert_uint_eq(o.begin_calls, 0);
	ck_assert_int_eq(o.fserror_reports, 0);
}
END_TEST

/* covers S-26, S-29, K-14: sync bio error, reported, ki_pos untouched */
START_TEST(test_bio_error_sync)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	req_fault(&r, "bio-error:1:IOERR");
	run_simple(&r, &o, -EIO);
	ck_assert_int_eq(o.ki_pos, 8192);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_SUBMITTER);
	ck_assert_int_eq(o.fserror_reports, FSERROR_REPORTS(1));
	ck_assert_int_eq(o.fserror_last.type, FSERR_DIRECTIO_READ);
	ck_assert_int_eq(o.fserror_last.pos, 8192);
	ck_assert_int_eq(o.fserror_last.len, 4096);
	ck_assert_int_eq(o.fserror_last.error, -EIO);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_NA);
}
END_TEST

/* covers S-28: an async error completes on the workqueue */
START_TEST(test_bio_error_async)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.async = true;
	req_fault(&r, "bio-error:1:IOERR");
	run_ok(&r, &o);
	ck_assert(o.queued);
	expect_simple(&o, -EIO);
	ck_assert_int_eq(o.punted, 1);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_WORKQUEUE);
	ck_assert_int_eq(o.ki_complete_ctx, IOMAP_DIO_COMP_WORKQUEUE);
	ck_assert_int_eq(o.ki_pos, 8192);
	ck_assert_int_eq(o.fserror_reports, FSERROR_REPORTS(1));
}
END_TEST

/*
 * covers S-29, K-14, B-23: each block status becomes its errno; all but
 * -EAGAIN are reported as file errors.
 */
static const struct {
	const char *spec;
	int err;
} statuses[] = {
	{ "bio-error:1:NOTSUPP", -EOPNOTSUPP },
	{ "bio-error:1:TIMEOUT", -ETIMEDOUT },
	{ "bio-error:1:NOSPC", -ENOSPC },
	{ "bio-error:1:TRANSPORT", -ENOLINK },
	{ "bio-error:1:TARGET", -EREMOTEIO },
	{ "bio-error:1:MEDIUM", -ENODATA },
	{ "bio-error:1:PROTECTION", -EILSEQ },
	{ "bio-error:1:RESOURCE", -ENOMEM },
	{ "bio-error:1:AGAIN", -EAGAIN },
	{ "bio-error:1:OFFLINE", -ENODEV },
};

START_TEST(test_bio_status_errno)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.async = _i & 1;
	req_fault(&r, statuses[_i / 2].spec);
	run_simple(&r, &o, statuses[_i / 2].err);
	ck_assert_int_eq(o.fserror_reports,
			 FSERROR_REPORTS(statuses[_i / 2].err == -EAGAIN ? 0 :
									   1));
	if (r.async)
		ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_WORKQUEUE);
}
END_TEST

/* covers S-15: the async path may fail creating s_dio_done_wq */
START_TEST(test_alloc_fail_wq)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.async = true;
	r.alloc_fail_nth = 1;
	run_simple(&r, &o, -ENOMEM);
	ck_assert(!o.queued);
	ck_assert(!o.wq_created);
	ck_assert_uint_eq(o.end_calls, 1); /* S-16 */
	ck_assert_uint_eq(o.bios, 0);
}
END_TEST

/* covers S-18: a sync simple read has no allocation that may fail */
START_TEST(test_no_failable_alloc_sync)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.alloc_fail_nth = 1;
	run_simple(&r, &o, 4096);
	ck_assert_int_eq(o.alloc_injected, 0);
	ck_assert_int_eq(o.alloc_seen, 0);
}
END_TEST

/* ---- completion ways --------------------------------------------------- */

/* covers S-26, S-15: sync completes in the submitter, no workqueue */
START_TEST(test_sync_completion)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	run_ok(&r, &o);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_SUBMITTER);
	ck_assert_int_eq(o.ki_complete_calls, 0);
	ck_assert(!o.wq_created);
	ck_assert_uint_eq(o.dev.read_bios, 1);
}
END_TEST

/* covers S-25, S-27, S-15: async success completes inline in end_io */
START_TEST(test_async_inline_completion)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.async = true;
	run_ok(&r, &o);
	ck_assert(o.queued);
	ck_assert_int_eq(o.direct_ret, -EIOCBQUEUED);
	expect_simple(&o, 4096);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_END_IO);
	ck_assert_int_eq(o.ki_complete_ctx, IOMAP_DIO_COMP_END_IO);
	ck_assert_int_eq(o.punted, 0);
	ck_assert_int_eq(o.ki_pos_at_complete, 12288);
	ck_assert(!o.private_at_complete);
	ck_assert(o.wq_created);
	ck_assert_uint_eq(o.iter_count, 0);
}
END_TEST

/* the same with the bio completing inside submit_bio() */
START_TEST(test_async_completes_during_submit)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.async = true;
	r.complete = IOMAPSIM_COMPLETE_INLINE;
	run_ok(&r, &o);
	ck_assert(o.queued);
	expect_simple(&o, 4096);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_END_IO);
}
END_TEST

/* covers S-23, B-26: async HIPRI is polled and keeps IOCB_HIPRI */
START_TEST(test_async_polled)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.async = true;
	r.ki_flags = IOCB_HIPRI;
	run_simple(&r, &o, 4096);
	ck_assert_uint_eq(o.dev.polled_bios, 1);
	ck_assert(o.ki_flags_after & IOCB_HIPRI);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_END_IO);
	ck_assert(!o.private_at_complete);
}
END_TEST

/* covers S-23: a sync HIPRI read is not polled */
START_TEST(test_sync_hipri_not_polled)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.ki_flags = IOCB_HIPRI;
	run_simple(&r, &o, 4096);
	ck_assert_uint_eq(o.dev.polled_bios, 0);
}
END_TEST

/* covers S-10, S-24: begin(DIRECT), then end(written=count) */
START_TEST(test_callbacks)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	run_ok(&r, &o);
	ck_assert_uint_eq(o.nr_cbs, 2);
	ck_assert_int_eq(cb_at(&o, 0)->op, TESTFS_CB_BEGIN);
	ck_assert_int_eq(cb_at(&o, 0)->pos, 8192);
	ck_assert_int_eq(cb_at(&o, 0)->length, 4096);
	ck_assert_uint_eq(cb_at(&o, 0)->flags, IOMAP_DIRECT);
	ck_assert_int_eq(cb_at(&o, 1)->op, TESTFS_CB_END);
	ck_assert_int_eq(cb_at(&o, 1)->written, 4096);
}
END_TEST

/* covers S-24: ->iomap_end runs before the bio is submitted */
START_TEST(test_end_before_submit)
{
	struct testfs_request r;
	struct testfs_outcome o;
	char line[200];
	int end_at = -1, submit_at = -1;
	unsigned int i;

	base_req(&r);
	sim_trace_enable(true);
	run_ok(&r, &o);
	for (i = 0; i < 400 && sim_trace_get(i, line, sizeof(line)); i++) {
		/* counting back from the newest record */
		if (strstr(line, "testfs_iomap_end") && end_at < 0)
			end_at = i;
		if (strstr(line, "block_bio_queue") && submit_at < 0)
			submit_at = i;
	}
	ck_assert_int_ge(end_at, 0);
	ck_assert_int_ge(submit_at, 0);
	ck_assert_int_gt(end_at, submit_at); /* older, i.e. earlier */
}
END_TEST

/*
 * covers S-17, S-21, B-20: user buffers are dirtied, kernel ones not; the
 * USER_BACKED flag the simple path records in its request is what makes
 * the completion check them (bio_check_pages_dirty) rather than release.
 */
START_TEST(test_user_backed_dirtying)
{
	struct testfs_request r;
	struct testfs_outcome o;
	long before, deferred;

	base_req(&r);
	before = sim_stat_get("pages_dirtied");
	deferred = sim_stat_get("bio_dirty_deferred");
	run_ok(&r, &o);
	ck_assert_int_gt(sim_stat_get("pages_dirtied"), before);
	/*
	 * Dirtied before submission (S-21): the completion found them dirty
	 * and did not need the re-dirtying worker (B-21), which would raise
	 * pages_dirtied as well.
	 */
	ck_assert_int_eq(sim_stat_get("bio_dirty_deferred"), deferred);

	r.iter = IOMAPSIM_ITER_KVEC;
	before = sim_stat_get("pages_dirtied");
	run_ok(&r, &o);
	ck_assert_int_eq(sim_stat_get("pages_dirtied"), before);
	expect_simple(&o, 4096);
}
END_TEST

/* covers S-37, B-15: a bvec iterator gives a no-copy bio */
START_TEST(test_bvec_nocopy)
{
	struct testfs_request r;
	struct testfs_outcome o;
	long before = sim_stat_get("bio_iov_bvec_nocopy");

	base_req(&r);
	r.iter = IOMAPSIM_ITER_BVEC;
	r.buf_offset = 1024;
	run_simple(&r, &o, 4096);
	ck_assert_int_eq(sim_stat_get("bio_iov_bvec_nocopy"), before + 1);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/*
 * a buffer crossing a page boundary still reads in one bio (sector
 * aligned offsets: others are refused by the block layer, see
 * iomap_align.c)
 */
START_TEST(test_buffer_offsets)
{
	static const size_t offs[] = { 0, 512, 2048, 3584 };
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.buf_offset = offs[_i];
	run_simple(&r, &o, 4096);
	ck_assert_uint_eq(o.bios, 1);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* S-04 with the largest block: a 64 KiB read is still simple */
START_TEST(test_large_block_simple)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	r.fs_block = 65536;
	r.pos = 65536;
	r.len = 65536;
	run_simple(&r, &o, 65536);
	ck_assert_uint_eq(o.bios, 1);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

static struct testfs *make_fs(void)
{
	struct testfs_opts opts = { .size = 64 << 10 };
	char err[128];
	struct testfs *tf = testfs_create(&opts, err, sizeof(err));

	ck_assert_msg(!IS_ERR(tf), "%s", err);
	return tf;
}

static int polled_done;
static long polled_ret;

static void polled_complete(struct kiocb *iocb, long ret)
{
	polled_done++;
	polled_ret = ret;
}

/* A polled async 4 KiB read at @pos: the bio it left in kiocb->private. */
static struct bio *polled_read(struct testfs *tf, struct kiocb *iocb, char *buf,
			       loff_t pos)
{
	struct iov_iter iter;

	*iocb = (struct kiocb){
		.ki_filp = &tf->file,
		.ki_pos = pos,
		.ki_flags = IOCB_DIRECT | IOCB_HIPRI,
		.ki_complete = polled_complete,
	};
	polled_done = 0;
	iov_iter_ubuf(&iter, ITER_DEST, buf, 4096);
	ck_assert_int_eq(testfs_dio_rw(tf, iocb, &iter, 0, 0), -EIOCBQUEUED);
	ck_assert_ptr_nonnull(iocb->private);
	return iocb->private;
}

/*
 * covers S-34, S-23, K-13: the polled bio, seen through kiocb->private,
 * starts a cache line; polling completes it and clears private.
 */
START_TEST(test_polled_bio_alignment)
{
	struct testfs *tf = make_fs();
	char *buf = aligned_alloc(4096, 4096);
	struct kiocb iocb;
	struct bio *bio = polled_read(tf, &iocb, buf, 4096);

	ck_assert_uint_eq((uintptr_t)bio % SMP_CACHE_BYTES, 0);
	ck_assert(bio->bi_opf & REQ_POLLED);
	ck_assert_int_eq(polled_done, 0); /* polled bios wait for a poller */
	sim_engine_settle(); /* whatever is ready runs; no timeout fires */
	ck_assert_int_eq(polled_done, 0);
	ck_assert_int_eq(iocb_bio_iopoll(&iocb, NULL, 0), 1);
	ck_assert_int_eq(polled_done, 1);
	ck_assert_int_eq(polled_ret, 4096);
	ck_assert_ptr_null(iocb.private);
	ck_assert_int_eq(memcmp(buf, tf->model + 4096, 4096), 0);
	sim_engine_drain();
	testfs_destroy(tf);
	free(buf);
}
END_TEST

/*
 * covers S-33, S-34: the bio the simple path submitted (seen through
 * kiocb->private) comes from a bio_set other than fs_bio_set whose
 * front_pad leaves room for the wrapper in front of it, a whole number of
 * cache lines, so the bio starts a cache line; and the wrapper's fields in
 * the pad are what its completion reads (the read completes right).
 */
START_TEST(test_front_pad_layout)
{
	struct testfs *tf = make_fs();
	char *buf = aligned_alloc(4096, 4096);
	struct kiocb iocb;
	struct bio *bio = polled_read(tf, &iocb, buf, 8192);
	unsigned int pad;

	ck_assert_ptr_nonnull(bio->bi_pool);
	ck_assert_ptr_ne(bio->bi_pool, &fs_bio_set);
	pad = bio->bi_pool->front_pad;
	/* an iocb pointer, a size and flags at least, then cache-aligned */
	ck_assert_uint_ge(pad, sizeof(void *) + 2 * sizeof(int));
	ck_assert_uint_eq(pad % SMP_CACHE_BYTES, 0);
	ck_assert_uint_eq((uintptr_t)bio % SMP_CACHE_BYTES, 0);
	ck_assert_uint_eq(((uintptr_t)bio - pad) % SMP_CACHE_BYTES, 0);
	ck_assert_int_eq(iocb_bio_iopoll(&iocb, NULL, 0), 1);
	ck_assert_int_eq(polled_done, 1);
	ck_assert_int_eq(polled_ret, 4096);
	ck_assert_int_eq(memcmp(buf, tf->model + 8192, 4096), 0);
	sim_engine_drain();
	testfs_destroy(tf);
	free(buf);
}
END_TEST

/* covers S-37, B-03: the second simple bio comes from the per-CPU cache */
START_TEST(test_percpu_cache_hit)
{
	struct testfs *tf = make_fs();
	char *buf = aligned_alloc(4096, 4096);
	long hits;
	int n;

	for (n = 0; n < 2; n++) {
		struct kiocb iocb = { .ki_filp = &tf->file,
				      .ki_pos = 4096 * n,
				      .ki_flags = IOCB_DIRECT };
		struct iov_iter iter;

		hits = sim_stat_get("bio_cache_hit");
		iov_iter_ubuf(&iter, ITER_DEST, buf, 4096);
		ck_assert_int_eq(testfs_dio_rw(tf, &iocb, &iter, 0, 0), 4096);
		sim_engine_drain();
	}
	/* the first bio went back to the cache in task context */
	ck_assert_int_eq(sim_stat_get("bio_cache_hit"), hits + 1);
	testfs_destroy(tf);
	free(buf);
}
END_TEST

/*
 * covers S-13, N-01, N-13: the simple path calls ->iomap_begin directly
 * and so skips the iterator's sanity checks: a mapping the file system
 * marked stale is used without the warning the generic path (and
 * the N-13 variant's iomap_dio_simple_iter_done()) gives.
 */
START_TEST(test_stale_mapping_unchecked)
{
	struct testfs_request r;
	struct testfs_outcome o;

	base_req(&r);
	req_map(&r, IOMAP_MAPPED, 0, 256 << 10, IOMAP_F_STALE);
	run_simple(&r, &o, 4096);

	r.no_simple = true;
	run_expect(&r, &o, 1, 0);
	ck_assert_int_eq(o.ret, 4096);

	r.no_simple = false;
	r.mode = TESTFS_MODE_BEGIN;
	r.dio_flags = IOMAP_DIO_NO_IOMAP_END;
	run_expect(&r, &o, 1, 0);
	expect_simple(&o, 4096);
}
END_TEST

/*
 * covers S-25, S-27: once its bio is submitted an async request may be
 * complete already (S-27 runs ki_complete from the bio's completion, here
 * inside submit_bio()) and its kiocb gone, as aio frees it: what the
 * submitter traces afterwards must not come from the kiocb.  The runner
 * poisons a completed kiocb as freed memory (0x6b).
 */
START_TEST(test_queued_trace_after_inline_completion)
{
	struct testfs_request r;
	struct testfs_outcome o;
	char rec[256], want[64];
	unsigned int i;

	base_req(&r);
	r.async = true;
	r.complete = IOMAPSIM_COMPLETE_INLINE;
	run_simple(&r, &o, 4096);
	ck_assert(o.queued);
	for (i = 0; sim_trace_get(i, rec, sizeof(rec)); i++)
		if (strstr(rec, "iomap_dio_rw_queued"))
			break;
	ck_assert_msg(strstr(rec, "iomap_dio_rw_queued"), "no queued event");
	snprintf(want, sizeof(want), "offset 0x%llx length 0x%zx",
		 (unsigned long long)r.pos, r.len);
	ck_assert_msg(strstr(rec, want), "queued event \"%s\", want \"%s\"",
		      rec, want);
}
END_TEST

/* iomap_simple_hits counts completed simple I/Os, not errors */
START_TEST(test_hit_counter)
{
	struct testfs_request r;
	struct testfs_outcome o;
	long h = sim_stat_get("iomap_simple_hits");

	base_req(&r);
	run_ok(&r, &o);
	r.async = true;
	run_ok(&r, &o);
	req_fault(&r, "bio-error:1");
	run_ok(&r, &o);
	ck_assert_int_eq(sim_stat_get("iomap_simple_hits"), h + 2);
}
END_TEST

static Suite *simple_suite(void)
{
	Suite *s = suite_create("iomap_simple");
	TCase *tc = sim_tcase("eligibility");

	sim_tcase_add(tc, test_eligible_minimal, test_disabled_per_call,
		      test_disabled_per_mount);
	tcase_add_loop_test(tc, test_refuse_dops, 0, 3);
	sim_tcase_add(tc, test_refuse_done_before, test_refuse_write,
		      test_refuse_empty, test_refuse_too_large,
		      test_too_large_small_block);
	tcase_add_loop_test(tc, test_refuse_dio_flags, 0, 3);
	tcase_add_loop_test(tc, test_accept_other_dio_flags, 0, 3);
	sim_tcase_add(tc, test_dio_flags_by_code, test_private_data,
		      test_nowait_bio_alloc, test_refuse_beyond_eof,
		      test_refuse_encrypted);
	tcase_add_loop_test(tc, test_accept_iterators, 0, 5);
	sim_tcase_add(tc, test_nowait_simple, test_why_agrees_with_observed,
		      test_gate_why);
	suite_add_tcase(s, tc);

	tc = sim_tcase("fallbacks");
	tcase_add_loop_test(tc, test_fallback_not_mapped, 0, 3);
	sim_tcase_add(tc, test_fallback_delalloc, test_fallback_extent_short,
		      test_extent_end_exact, test_fallback_integrity,
		      test_fallback_short_pin, test_pin_fault_is_error,
		      test_short_pin_refilled, test_fallback_begin_notblk);
	suite_add_tcase(s, tc);

	tc = sim_tcase("errors");
	sim_tcase_add(tc, test_misaligned_pos, test_misaligned_len,
		      test_fsblock_aligned_unit);
	tcase_add_loop_test(tc, test_begin_error, 0, 4);
	sim_tcase_add(tc, test_nowait_dirty_cache, test_nowait_writeback_cache,
		      test_write_and_wait, test_writeback_error,
		      test_bio_error_sync, test_bio_error_async);
	tcase_add_loop_test(tc, test_bio_status_errno, 0,
			    2 * ARRAY_SIZE(statuses));
	sim_tcase_add(tc, test_alloc_fail_wq, test_no_failable_alloc_sync);
	suite_add_tcase(s, tc);

	tc = sim_tcase("completion");
	sim_tcase_add(tc, test_sync_completion, test_async_inline_completion,
		      test_async_completes_during_submit, test_async_polled,
		      test_sync_hipri_not_polled, test_callbacks,
		      test_end_before_submit,
		      test_queued_trace_after_inline_completion,
		      test_user_backed_dirtying, test_bvec_nocopy);
	tcase_add_loop_test(tc, test_buffer_offsets, 0, 4);
	sim_tcase_add(tc, test_large_block_simple, test_front_pad_layout,
		      test_polled_bio_alignment, test_percpu_cache_hit,
		      test_hit_counter, test_stale_mapping_unchecked);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(simple_suite)
