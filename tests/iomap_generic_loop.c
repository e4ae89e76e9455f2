// SPDX-License-Identifier: GPL-2.0-only
/*
 * The generic direct I/O path, docs/rules.md 3.G "Mapping loop"
 * (G-19..G-41, N-02).  How iomap_iter() walks the mappings and
 * iomap_dio_iter() dispatches them: one mapping per extent, holes and
 * unwritten extents zero-filled, inline data copied, delalloc refused,
 * the iterator cut to each mapping, IOCB_HIPRI kept for the first mapping
 * only, ->iomap_end errors after progress.  Then the bios
 * iomap_dio_bio_iter() builds for a mapping: alignment, op flags,
 * sub-block zeroing of new and unwritten blocks, FUA write-through, pages
 * pinned and dirtied, bios split by their vectors, atomic bios, which bio
 * may be polled, and the file system's submit_io and bio_set.
 */
#include <stdlib.h>
#include <linux/bio.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "iomap_generic.h"

/* covers G-19, G-20, G-41: one mapping per extent, one bio per mapping */
START_TEST(test_read_multi_extent)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.pos = 4096;
	r.len = 40960;
	three_extents(&r);
	run_ret(&r, &o, 40960);
	ck_assert_uint_eq(o.bios, 3);
	ck_assert_uint_eq(o.begin_calls, 3);
	ck_assert_uint_eq(o.end_calls, 3);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	/* N-02: ->iomap_end sees each mapping's progress */
	ck_assert_int_eq(cb_at(&o, 1)->op, TESTFS_CB_END);
	ck_assert_int_eq(cb_at(&o, 1)->pos, 4096);
	ck_assert_int_eq(cb_at(&o, 1)->written, 12288);
	ck_assert_int_eq(cb_at(&o, 3)->written, 16384);
	ck_assert_int_eq(cb_at(&o, 5)->written, 12288);
}
END_TEST

/* covers G-21: a hole between mapped extents reads as zeroes */
START_TEST(test_read_hole_between)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.pos = 0;
	r.len = 49152;
	req_map(&r, IOMAP_MAPPED, 0, 16384, 0);
	req_map(&r, IOMAP_HOLE, 16384, 16384, 0);
	req_map(&r, IOMAP_MAPPED, 32768, 65536, 0);
	run_ret(&r, &o, 49152);
	ck_assert_uint_eq(o.bios, 2);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* covers G-20, G-21: unwritten extents read as zeroes, no bio */
START_TEST(test_read_unwritten)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	req_map(&r, IOMAP_UNWRITTEN, 0, 65536, 0);
	run_ret(&r, &o, 8192);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_ZERO);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_SUBMITTER);
}
END_TEST

/* covers G-22: inline data is copied, no bio */
START_TEST(test_read_inline)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.pos = 0;
	req_map(&r, IOMAP_INLINE, 0, 16384, 0);
	run_ret(&r, &o, 8192);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* covers G-20: delalloc is -EIO, reported as a file error */
START_TEST(test_read_delalloc)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	req_map(&r, IOMAP_DELALLOC, 0, 65536, 0);
	run_ret(&r, &o, -EIO);
	ck_assert_int_eq(o.fserror_reports, FSERROR_REPORTS(1));
	ck_assert_int_eq(o.ki_pos, 8192);
}
END_TEST

/* covers G-19, G-37: a single-bio async HIPRI read is polled */
START_TEST(test_async_hipri_single_bio)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.async = true;
	r.ki_flags = IOCB_HIPRI;
	run_ret(&r, &o, 8192);
	ck_assert_uint_eq(o.dev.polled_bios, 1);
	ck_assert(!(o.ki_flags_after & IOCB_HIPRI)); /* G-19 */
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_END_IO);
}
END_TEST

/* covers G-19, G-36: only the first mapping's bio can be polled */
START_TEST(test_async_hipri_multi_mapping)
{
	struct testfs_request r;
	struct testfs_outcome o;

	three_extents_req(&r, 32768);
	r.async = true;
	r.ki_flags = IOCB_HIPRI;
	run_ret(&r, &o, 32768);
	ck_assert_uint_eq(o.bios, 2);
	ck_assert_uint_eq(o.dev.polled_bios, 1);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* covers N-02: ->iomap_end errors after progress are ignored */
START_TEST(test_end_error_ignored)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.end_error = -EIO;
	run_ret(&r, &o, 8192);
}
END_TEST

/* covers G-22: inline writes copy into the inode and extend i_size */
START_TEST(test_write_inline)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.size = 1000;
	r.pos = 2048;
	r.len = 1024;
	req_map(&r, IOMAP_INLINE, 0, 4096, 0);
	run_ret(&r, &o, 1024);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.i_size, 3072);
}
END_TEST

/*
 * Inline data of any length: a read past it gets the bytes up to
 * i_size; a write inside it lands in the inline buffer; neither builds a
 * bio.
 */
START_TEST(test_inline_byte_length)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.size = 100;
	r.pos = 0;
	r.len = 512;
	req_map(&r, IOMAP_INLINE, 0, 100, 0);
	run_ret(&r, &o, 100);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);

	write_req(&r);
	r.size = 50;
	r.pos = 60;
	r.len = 40;
	req_map(&r, IOMAP_INLINE, 0, 100, 0);
	run_ret(&r, &o, 40);
	ck_assert_int_eq(o.i_size, 100);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);

	/*
	 * The rest of inline data's block is its own: a write there would
	 * need the data moved out to a block first (gfs2's unstuffing),
	 * which testfs does not do: -EOPNOTSUPP, and no block allocated
	 * over the inline data (fuzz/regressions/dio/
	 * runner-inline-tail-block-write).
	 */
	r.size = 262144;
	r.pos = 3584;
	r.len = 8192;
	r.nr_map = 0;
	req_map(&r, IOMAP_INLINE, 0, 3328, 0);
	run_ret(&r, &o, -EOPNOTSUPP);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_uint_eq(o.allocations, 0);
}
END_TEST

/*
 * covers G-28: the iterator is cut to each mapping while its bio is
 * built (a 4 KiB mapping gives a 4 KiB bio even though 8 KiB are asked
 * for) and given back the rest after (the hole then reads as zeroes).
 */
START_TEST(test_iter_truncated_per_mapping)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.pos = 0;
	r.len = 8192;
	req_map(&r, IOMAP_MAPPED, 0, 4096, 0);
	req_map(&r, IOMAP_HOLE, 4096, 4096, 0);
	req_map(&r, IOMAP_MAPPED, 8192, (256 << 10) - 8192, 0);
	run_ret(&r, &o, 8192);
	ck_assert_uint_eq(o.bios, 1);
	ck_assert_uint_eq(o.dev.read_bytes, 4096);
	ck_assert_uint_eq(o.iter_count, 0);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* ---- the bios of a mapping ---------------------------------------------- */

/* covers G-23, G-55, K-14: misalignment in the generic path is reported */
START_TEST(test_read_misaligned)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.lbs = 4096;
	r.pos = 512;
	run_ret(&r, &o, -EINVAL);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.ki_pos, 512);
	/* unlike the simple path's -EINVAL, this one reaches completion */
	ck_assert_int_eq(o.fserror_reports, FSERROR_REPORTS(1));
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_SUBMITTER);
}
END_TEST

/* covers G-23, G-56: a later mapping's -EINVAL discards earlier progress */
START_TEST(test_read_misaligned_second_mapping)
{
	struct testfs_request r;
	struct testfs_outcome o;

	three_extents_req(&r, 16384 + 100);
	run_ret(&r, &o, -EINVAL);
	ck_assert_uint_eq(o.bios, 1);
	ck_assert_int_eq(o.ki_pos, 0);
}
END_TEST

/*
 * covers G-31: a failure seen before the next bio stops submission.  Each
 * 1 MiB bio holds 256 single-page vectors; the block layer splits it at
 * the device's 128 segments (B-29's split step), so the device sees two
 * bios per iomap bio, the front first.
 */
START_TEST(test_error_stops_submission)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.size = 4 << 20;
	r.pos = 0;
	r.len = 3 << 20; /* one extent, at most 1 MiB per bio */
	r.complete = IOMAPSIM_COMPLETE_INLINE;
	req_fault(&r, "bio-error:1");
	run_ret(&r, &o, -EIO);
	ck_assert_uint_eq(o.bios, 2);

	r.complete = IOMAPSIM_COMPLETE_IRQ; /* not seen in time: all go */
	run_ret(&r, &o, -EIO);
	ck_assert_uint_eq(o.bios, 6);
}
END_TEST

/*
 * covers G-36: a mapping that takes two bios is not polled at all: the
 * first bio sees the iterator has more and clears IOCB_HIPRI before it
 * is submitted.
 */
START_TEST(test_async_hipri_two_bios_not_polled)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.async = true;
	r.ki_flags = IOCB_HIPRI;
	r.size = 4 << 20;
	r.pos = 0;
	r.len = (1 << 20) + 8192;
	run_ret(&r, &o, r.len);
	/*
	 * two from iomap, both from fs_bio_set; the device may see them
	 * split further, from the block layer's own set, which is none of
	 * the paths'
	 */
	ck_assert_uint_ge(o.bios, 2);
	ck_assert_uint_eq(o.bios_fs_bio_set, 2);
	ck_assert_uint_eq(o.bios_simple_pool, 0);
	ck_assert_uint_eq(o.dev.polled_bios, 0);
	ck_assert(!(o.ki_flags_after & IOCB_HIPRI));
}
END_TEST

/* covers G-37: a sync HIPRI request is not polled */
START_TEST(test_sync_hipri_not_polled)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.ki_flags = IOCB_HIPRI;
	run_ok(&r, &o);
	ck_assert_uint_eq(o.dev.polled_bios, 0);
	ck_assert(!(o.ki_flags_after & IOCB_HIPRI));
}
END_TEST

/* covers G-08, G-35, B-20: user buffers are dirtied, kvec ones not */
START_TEST(test_read_dirtying)
{
	struct testfs_request r;
	struct testfs_outcome o;
	long before, deferred;

	gen_req(&r);
	r.iter = _i ? IOMAPSIM_ITER_KVEC : IOMAPSIM_ITER_IOVEC;
	r.iovec_segs = 2;
	before = sim_stat_get("pages_dirtied");
	deferred = sim_stat_get("bio_dirty_deferred");
	run_ret(&r, &o, 8192);
	if (_i)
		ck_assert_int_eq(sim_stat_get("pages_dirtied"), before);
	else
		ck_assert_int_gt(sim_stat_get("pages_dirtied"), before);
	/*
	 * Dirtied before submission: the completion finds them dirty and
	 * need not re-dirty them from the worker (B-21), which would raise
	 * pages_dirtied as well.
	 */
	ck_assert_int_eq(sim_stat_get("bio_dirty_deferred"), deferred);
}
END_TEST

/* many small segments, one bio */
START_TEST(test_read_many_segments)
{
	struct testfs_request r;
	struct testfs_outcome o;

	gen_req(&r);
	r.len = 65536;
	r.iter = IOMAPSIM_ITER_IOVEC;
	r.iovec_segs = 128;
	run_ret(&r, &o, 65536);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	ck_assert_uint_eq(o.bios, 1);
}
END_TEST

/*
 * covers G-32, B-06: more pages than one bio holds take several bios; the
 * first (256 page vectors) is split once more at the device's 128
 * segments, so the device sees three.
 */
START_TEST(test_read_bio_split_by_vecs)
{
	struct testfs_request r;
	struct testfs_outcome o;
	long splits;

	gen_req(&r);
	r.size = 4 << 20;
	r.pos = 0;
	r.len = (1 << 20) + 8192;
	splits = sim_stat_get("bio_split");
	run_ret(&r, &o, r.len);
	ck_assert_uint_eq(o.bios, 3);
	ck_assert_int_eq(sim_stat_get("bio_split") - splits, 1);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* A 1 KiB write 512 bytes into a block of a hole: it allocates. */
static void hole_subblock_req(struct testfs_request *r)
{
	write_req(r);
	req_map(r, IOMAP_HOLE, 0, 65536, 0);
	r->pos = 8192 + 512;
	r->len = 1024;
}

/* An 8 KiB IOCB_ATOMIC write, mapped for atomic bios up to 64 KiB. */
static void atomic_req(struct testfs_request *r)
{
	write_req(r);
	r->ki_flags = IOCB_ATOMIC;
	r->pos = 0;
	r->len = 8192;
	req_map(r, IOMAP_MAPPED, 0, 65536, IOMAP_F_ATOMIC_BIO);
	r->atomic_max = 65536;
}

/* covers G-10, G-25: an aligned overwrite is one bio and no completion work */
START_TEST(test_overwrite)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	run_ret(&r, &o, 4096);
	ck_assert_uint_eq(o.dev.write_bios, 1);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	ck_assert_uint_eq(cb_at(&o, 0)->flags, IOMAP_DIRECT | IOMAP_WRITE);
	ck_assert_uint_eq(o.fsync_calls, 0);
	ck_assert_int_eq(o.i_size, 256 << 10);
}
END_TEST

/* covers G-25, G-30, G-38, G-40: a sub-block write into a hole */
START_TEST(test_write_hole_subblock)
{
	struct testfs_request r;
	struct testfs_outcome o;

	hole_subblock_req(&r);
	run_ret(&r, &o, 1024);
	ck_assert_uint_eq(o.allocations, 1);
	/* head zero, data, tail zero */
	ck_assert_uint_eq(o.dev.write_bios, 3);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	ck_assert(cb_at(&o, 0)->iomap.flags & IOMAP_F_NEW);
}
END_TEST

/* covers G-14, G-38: a write past EOF allocates, zeroes the tail, extends */
START_TEST(test_write_extend)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.pos = 256 << 10;
	r.len = 512;
	run_ret(&r, &o, 512);
	ck_assert_uint_eq(o.dev.write_bios, 2);
	ck_assert_int_eq(o.i_size, (256 << 10) + 512);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/*
 * covers G-29: a single-bio async HIPRI write whose only reason for
 * completion work is the size update (G-14) is not polled, since polling
 * would complete it in the poller's context; the same write inside EOF
 * is polled.
 */
START_TEST(test_hipri_cleared_for_completion_work)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.async = true;
	r.ki_flags = IOCB_HIPRI;
	req_map(&r, IOMAP_MAPPED, 0, 512 << 10, 0);
	r.pos = (256 << 10) - 4096 * _i;
	r.len = 4096;
	run_ret(&r, &o, 4096);
	ck_assert_uint_eq(o.dev.write_bios, 1);
	ck_assert_uint_eq(o.dev.polled_bios, _i ? 1 : 0);
	ck_assert(!(o.ki_flags_after & IOCB_HIPRI));
}
END_TEST

/* covers G-38: a write ending past EOF inside a mapped block zeroes too */
START_TEST(test_write_past_eof_in_block)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.size = (256 << 10) - 4096 + 512;
	r.pos = (256 << 10) - 4096 + 1024;
	r.len = 1024;
	run_ret(&r, &o, 1024);
	/* data, then the tail of the EOF block is zeroed */
	ck_assert_uint_eq(o.dev.write_bios, 2);
	ck_assert_int_eq(o.i_size, r.pos + 1024);
}
END_TEST

/* covers G-25, G-30, G-38: unwritten conversion at end_io */
START_TEST(test_write_unwritten_end_io)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.dops = TESTFS_DOPS_END_IO;
	req_map(&r, IOMAP_UNWRITTEN, 0, 65536, 0);
	req_map(&r, IOMAP_MAPPED, 65536, (256 << 10) - 65536, 0);
	r.pos = 8192 + 512;
	r.len = 2048;
	run_ret(&r, &o, 2048);
	ck_assert_uint_eq(o.dev.write_bios, 3);
	ck_assert_uint_eq(o.conversions, 1);
	ck_assert(o.end_io_flags & IOMAP_DIO_UNWRITTEN);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* without ->end_io the extent stays unwritten (reads stay zero) */
START_TEST(test_write_unwritten_no_conversion)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	req_map(&r, IOMAP_UNWRITTEN, 0, 65536, 0);
	run_ret(&r, &o, 4096);
	ck_assert_uint_eq(o.conversions, 0);
	ck_assert_uint_eq(o.dev.write_bios, 1);
}
END_TEST

/* covers G-25: shared extents set IOMAP_DIO_COW and need completion work */
START_TEST(test_write_shared_cow)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.async = true;
	r.dops = TESTFS_DOPS_END_IO;
	req_map(&r, IOMAP_MAPPED, 0, 65536, IOMAP_F_SHARED);
	run_ret(&r, &o, 4096);
	ck_assert(o.end_io_flags & IOMAP_DIO_COW);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_WORKQUEUE);
}
END_TEST

/* covers G-13, G-26, G-46: DSYNC on a FUA device writes through */
START_TEST(test_dsync_fua)
{
	struct testfs_request r;
	struct testfs_outcome o;

	dsync_req(&r, true, true);
	run_ret(&r, &o, 4096);
	ck_assert_uint_eq(o.dev.fua_bios, 1);
	ck_assert_uint_eq(o.fsync_calls, 0);

	r.async = true; /* write-through needs no process context */
	run_ok(&r, &o);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_END_IO);
}
END_TEST

/* covers G-26, G-46, K-11: a volatile cache without FUA needs a flush */
START_TEST(test_dsync_cache_no_fua)
{
	struct testfs_request r;
	struct testfs_outcome o;

	dsync_req(&r, true, false);
	run_ret(&r, &o, 4096);
	ck_assert_uint_eq(o.dev.fua_bios, 0);
	ck_assert_uint_eq(o.fsync_calls, 1);
	ck_assert_int_eq(o.fsync_datasync, 1);
	ck_assert_uint_ge(o.dev.flush_calls + o.dev.flush_bios, 1);

	r.async = true;
	run_ok(&r, &o);
	ck_assert_int_eq(o.completion, IOMAP_DIO_COMP_WORKQUEUE);
}
END_TEST

/* covers G-26: no volatile cache means written through without a flush */
START_TEST(test_dsync_no_cache)
{
	struct testfs_request r;
	struct testfs_outcome o;

	dsync_req(&r, false, false);
	run_ret(&r, &o, 4096);
	ck_assert_uint_eq(o.fsync_calls, 0);
}
END_TEST

/* covers G-26: new blocks or dirty metadata turn write-through off */
START_TEST(test_dsync_fua_refused)
{
	static const u16 flags[] = { IOMAP_F_NEW, IOMAP_F_DIRTY,
				     IOMAP_F_SHARED };
	struct testfs_request r;
	struct testfs_outcome o;

	dsync_req(&r, true, true);
	req_map(&r, IOMAP_MAPPED, 0, 65536, flags[_i]);
	run_ret(&r, &o, 4096);
	ck_assert_uint_eq(o.dev.fua_bios, 0);
	ck_assert_uint_eq(o.fsync_calls, 1);
}
END_TEST

/* covers G-26: one mapping without FUA clears it for the whole request */
START_TEST(test_dsync_fua_sticky_clear)
{
	struct testfs_request r;
	struct testfs_outcome o;

	dsync_req(&r, true, true);
	r.pos = 0;
	r.len = 32768;
	req_map(&r, IOMAP_MAPPED, 0, 16384, IOMAP_F_DIRTY);
	req_map(&r, IOMAP_MAPPED, 16384, 65536, 0);
	run_ret(&r, &o, 32768);
	ck_assert_uint_eq(o.dev.fua_bios, 0);
	ck_assert_uint_eq(o.fsync_calls, 1);
}
END_TEST

/* covers G-30, G-40: a failing zeroing bio fails the write */
START_TEST(test_zeroing_bio_error)
{
	struct testfs_request r;
	struct testfs_outcome o;

	hole_subblock_req(&r);
	req_fault(&r, "bio-error:1"); /* the head zeroing */
	run_ret(&r, &o, -EIO);
	ck_assert_uint_eq(o.dev.write_bios, 3);
}
END_TEST

/* covers G-12, G-25: atomic writes need one mapping covering it all */
START_TEST(test_atomic_write)
{
	struct testfs_request r;
	struct testfs_outcome o;

	atomic_req(&r);
	run_ret(&r, &o, 8192);
	ck_assert(cb_at(&o, 0)->flags & IOMAP_ATOMIC);
	ck_assert_uint_eq(o.bios, 1);

	/* a device without atomic writes refuses the REQ_ATOMIC bio */
	r.atomic_max = 0;
	run_ret(&r, &o, -EINVAL);
	ck_assert_uint_eq(o.bios, 0);
	r.atomic_max = 65536;

	r.nr_map = 0;
	req_map(&r, IOMAP_MAPPED, 0, 4096, IOMAP_F_ATOMIC_BIO);
	req_map(&r, IOMAP_MAPPED, 4096, 65536, IOMAP_F_ATOMIC_BIO);
	run_ret(&r, &o, -EINVAL);
	ck_assert_uint_eq(o.bios, 0);
}
END_TEST

/*
 * An atomic bio that comes out short (here the second page of the user
 * buffer does not pin) trips the length check: the kernel's WARN and
 * -EINVAL, and the pages the bio pinned are released.  The baseline only
 * put the bio and leaked them (docs/fuzzing.md, K8); the harness's
 * teardown fails on a pin left behind, so this also pins the fix.
 */
START_TEST(test_atomic_short_bio_releases_pins)
{
	struct testfs_request r;
	struct testfs_outcome o;

	atomic_req(&r);
	pin_first_page_only(&r);
	/* one WARN, and no leak (run_expect() checks the pins) */
	run_expect(&r, &o, 1, 0);
	ck_assert_int_eq(o.ret, -EINVAL);
	ck_assert_uint_eq(o.bios, 0);
	ck_assert_int_eq(o.ki_pos, 0);

	/*
	 * A bounced one past what a bounce bio carries (1 MiB): its bounce
	 * buffer is given back instead.
	 */
	r.short_pin_nth = 0;
	r.iter = IOMAPSIM_ITER_UBUF;
	r.dio_flags = IOMAP_DIO_BOUNCE;
	r.size = 4 << 20;
	r.len = 2 << 20;
	r.nr_map = 0;
	req_map(&r, IOMAP_MAPPED, 0, 4 << 20, IOMAP_F_ATOMIC_BIO);
	run_expect(&r, &o, 1, 0);
	ck_assert_int_eq(o.ret, -EINVAL);
	ck_assert_uint_eq(o.bios, 0);
}
END_TEST

/* covers G-23: FSBLOCK_ALIGNED rejects a sub-block write */
START_TEST(test_write_fsblock_aligned)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.len = 512;
	r.dio_flags = IOMAP_DIO_FSBLOCK_ALIGNED;
	run_ret(&r, &o, -EINVAL);
}
END_TEST

/*
 * covers G-30, G-33, B-29 (K6, docs/findings/0002-second-pass-rezeroes-head.md):
 * a write into unwritten blocks from 1024 iovec pieces of 8 bytes.  The
 * first pass builds one data bio of a logical block (2048 bytes, 256
 * pieces) and stops mid-block; the block layer's split step fails that
 * bio (256 segments, the queue takes 128: a split rounded down to the
 * logical block is empty, -EINVAL, BLK_STS_INVAL in the submitter's
 * context).  The second pass starts mid-block, where the first stopped:
 * the head of that block is this dio's own, and zeroing it again is the
 * finding; nothing may reach the device.  The device takes 4-byte aligned
 * memory (dma_alignment 3, as NVMe) so that the pieces' offsets and
 * lengths are not what fails, with the buffer page aligned or not.
 */
START_TEST(test_short_write_keeps_its_head)
{
	static const size_t offs[] = { 1028, 0 };
	struct testfs_request r;
	struct testfs_outcome o;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		write_req(&r);
		r.lbs = 2048;
		r.size = 61440;
		req_map(&r, IOMAP_UNWRITTEN, 0, 65536, 0);
		r.dops = TESTFS_DOPS_END_IO;
		r.pos = 0;
		r.len = 8192;
		r.iter = IOMAPSIM_ITER_IOVEC;
		r.iovec_segs = 1024;
		r.buf_offset = offs[i];
		r.dma_alignment = 3;
		r.no_simple = true;
		run_ret(&r, &o, -EINVAL);
		ck_assert_int_eq(o.ki_pos, 0);
		ck_assert_uint_eq(o.dev.write_bios, 0);
		ck_assert_int_eq(o.leaks, 0);
		ck_assert_int_eq(o.context_violations, 0);
	}
	/* pieces of whole blocks are fine */
	r.iovec_segs = 4;
	run_ret(&r, &o, 8192);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/*
 * covers G-33, G-38: a sub-block write into new blocks whose pages cannot
 * be pinned zeroes the block's head and tail and fails with the pinning
 * error, -EFAULT, nothing written.  Code whose tail zeroing assigns its
 * result to that error returns 0 instead (docs/findings/, the expectation
 * table's KNOWN BUG): a caller that retries short writes spins for ever.
 */
START_TEST(test_unpinnable_subblock_write_fails)
{
	struct testfs_request r;
	struct testfs_outcome o;

	hole_subblock_req(&r);
	r.short_pin_nth = 1;
	r.short_pin_bytes = 0;
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, -EFAULT);
	ck_assert_uint_eq(o.iter_count, 1024);
	ck_assert_uint_eq(o.dev.write_bios, 2); /* head and tail zeroing */
	ck_assert_int_eq(o.fserror_reports, FSERROR_REPORTS(1));
}
END_TEST

/*
 * 8 KiB written 512 bytes into an unwritten extent, converted at
 * completion as XFS does, from a source that is unmapped from its start
 * or from its second page: the buffers of tests/findings/dio-write-efault.c.
 */
static void unmapped_source_req(struct testfs_request *r, size_t from)
{
	write_req(r);
	req_map(r, IOMAP_UNWRITTEN, 0, 65536, 0);
	r->dops = TESTFS_DOPS_END_IO;
	r->pos = 512;
	r->len = 8192;
	r->unmapped = true;
	r->unmapped_from = from;
}

/*
 * covers G-30, G-38: unreadable from its start, the write fails with
 * -EFAULT, nothing written.  Code whose tail zeroing's 0 replaces the
 * pinning error returns 0 (docs/findings/0001-tail-zeroing-replaces-error.md,
 * KNOWN BUG), as XFS on an earlier 6.18.44 build did.
 */
START_TEST(test_unreadable_source_subblock_write)
{
	struct testfs_request r;
	struct testfs_outcome o;

	unmapped_source_req(&r, 0);
	run_ok(&r, &o);
	ck_assert_int_eq(o.ret, -EFAULT);
	ck_assert_uint_eq(o.iter_count, 8192);
	ck_assert_int_eq(o.fserror_reports, FSERROR_REPORTS(1));
}
END_TEST

/*
 * covers G-30, G-38: readable for one page, the write either fails or
 * reports only bytes that read back.  The first pass writes the page and
 * stops mid-block; the second pass zeroes that block's head over it
 * (docs/findings/0002-second-pass-rezeroes-head.md) and fails to pin.
 * Where that pass's error survives, the write fails with -EFAULT; where
 * the tail zeroing's 0 replaces it (0001), 4096 bytes are reported with
 * zeroes on the device where the last 512 of them were written: data
 * lost, as XFS on an earlier 6.18.44 build lost them (KNOWN BUG).
 */
START_TEST(test_half_readable_source_subblock_write)
{
	struct testfs_request r;
	struct testfs_outcome o;

	unmapped_source_req(&r, 4096);
	run_ok(&r, &o);
	ck_assert_msg(o.ret == -EFAULT || o.ret == 4096, "ret %ld", o.ret);
	ck_assert_msg(o.ret < 0 || o.data == IOMAPSIM_DATA_OK,
		      "%ld bytes reported written do not read back", o.ret);
}
END_TEST

/* covers I-12: unmapped memory is only modelled where pages are pinned */
START_TEST(test_unmapped_source_refused_elsewhere)
{
	struct testfs_request r;
	struct testfs_outcome o;
	char err[256];

	write_req(&r);
	r.unmapped = true;
	r.unmapped_from = 100; /* not a page boundary */
	ck_assert_int_eq(testfs_run(&r, &o, err, sizeof(err)), -EINVAL);
	r.unmapped_from = 4096;
	r.write = false; /* a read copies or zeroes into it too */
	ck_assert_int_eq(testfs_run(&r, &o, err, sizeof(err)), -EINVAL);
	r.write = true;
	r.iter = IOMAPSIM_ITER_KVEC;
	ck_assert_int_eq(testfs_run(&r, &o, err, sizeof(err)), -EINVAL);
	r.iter = IOMAPSIM_ITER_UBUF;
	/* a bounce copies from it too, where the code has IOMAP_DIO_BOUNCE */
	r.dio_flags = IOMAP_DIO_BOUNCE;
	if (r.dio_flags)
		ck_assert_int_eq(testfs_run(&r, &o, err, sizeof(err)), -EINVAL);
	r.dio_flags = 0;
	run_ret(&r, &o, 4096);
}
END_TEST

/*
 * covers G-32, B-16: a pin failure ends the bio being built, with what it
 * has; the next bio of the same mapping picks up the rest.
 */
START_TEST(test_write_pin_failure_mid_mapping)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.len = 8192;
	pin_first_page_only(&r);
	run_ret(&r, &o, 8192);
	ck_assert_uint_eq(o.begin_calls, 1);
	ck_assert_uint_eq(o.dev.write_bios, 2);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* covers G-32, G-37: the file system's submit_io and bio_set are used */
START_TEST(test_dops_submit_and_bioset)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.len = 16384;
	r.dops = TESTFS_DOPS_SUBMIT_IO;
	run_ret(&r, &o, 16384);
	ck_assert_uint_eq(o.submit_io_calls, 1);

	ck_assert_uint_eq(o.bios_fs_bio_set, o.bios);
	ck_assert_uint_eq(o.bios_dops_set, 0);

	/* every bio, data and zeroing alike, from the file system's set */
	r.dops = TESTFS_DOPS_BIO_SET;
	r.pos = 512;
	r.len = 16384 - 1024;
	req_map(&r, IOMAP_UNWRITTEN, 0, 256 << 10, 0);
	run_ret(&r, &o, 16384 - 1024);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
	ck_assert_uint_eq(o.dev.write_bios, 3);
	ck_assert_uint_eq(o.bios_dops_set, 3);
	ck_assert_uint_eq(o.bios_fs_bio_set, 0);
	ck_assert_uint_eq(o.bios_simple_pool, 0);
}
END_TEST

/*
 * covers G-38 on its edge: a write ending exactly at an i_size inside a
 * block zeroes the rest of that block, as one ending past it does; one
 * ending before i_size does not.
 */
START_TEST(test_write_tail_zero_at_eof_edge)
{
	struct testfs_request r;
	struct testfs_outcome o;

	write_req(&r);
	r.size = (256 << 10) - 4096 + 2048;
	r.pos = (256 << 10) - 4096 + 1024;
	r.len = _i ? 512 : 1024;
	run_ret(&r, &o, r.len);
	ck_assert_uint_eq(o.dev.write_bios, _i ? 1 : 2);
	ck_assert_int_eq(o.data, IOMAPSIM_DATA_OK);
}
END_TEST

/* The op flags of the bios the newest request allocated, OR-ed together. */
static unsigned int traced_bio_opf(unsigned int *nr)
{
	unsigned int i, opf = 0, all = ~0U;
	char line[256];

	*nr = 0;
	for (i = 0; sim_trace_get(i, line, sizeof(line)); i++) {
		const char *p = strstr(line, "block_bio_alloc");

		if (!p || !(p = strstr(p, "opf=")))
			continue;
		opf = strtoul(p + 4, NULL, 16);
		all &= opf;
		(*nr)++;
	}
	return *nr ? all : 0;
}

/* covers G-24: every data bio is REQ_SYNC | REQ_IDLE plus its op */
START_TEST(test_bio_base_flags)
{
	struct testfs_request r;
	struct testfs_outcome o;
	unsigned int opf, nr;

	gen_req(&r);
	r.write = _i;
	sim_trace_reset();
	run_ret(&r, &o, 8192);
	opf = traced_bio_opf(&nr);
	ck_assert_uint_eq(nr, o.bios);
	ck_assert_uint_eq(opf & (REQ_SYNC | REQ_IDLE), REQ_SYNC | REQ_IDLE);
	ck_assert_uint_eq(opf & REQ_OP_MASK, _i ? REQ_OP_WRITE : REQ_OP_READ);
}
END_TEST

/*
 * covers G-34: an atomic write whose bio cannot cover the whole mapping
 * (here the pages pin short) is -EINVAL with a warning, nothing written.
 */
START_TEST(test_atomic_short_bio)
{
	struct testfs_request r;
	struct testfs_outcome o;

	atomic_req(&r);
	pin_first_page_only(&r);
	run_expect(&r, &o, 1, 0);
	ck_assert_int_eq(o.ret, -EINVAL);
	ck_assert_uint_eq(o.dev.write_bios, 0);
}
END_TEST

static Suite *generic_loop_suite(void)
{
	Suite *s = suite_create("iomap_generic_loop");
	TCase *tc;

	tc = sim_tcase("reads");
	sim_tcase_add(tc, test_read_multi_extent, test_read_hole_between,
		      test_read_unwritten, test_read_inline, test_read_delalloc,
		      test_async_hipri_single_bio,
		      test_async_hipri_multi_mapping, test_end_error_ignored,
		      test_read_misaligned, test_read_misaligned_second_mapping,
		      test_error_stops_submission,
		      test_async_hipri_two_bios_not_polled,
		      test_sync_hipri_not_polled);
	tcase_add_loop_test(tc, test_read_dirtying, 0, 2);
	sim_tcase_add(tc, test_read_many_segments, test_read_bio_split_by_vecs);
	suite_add_tcase(s, tc);

	tc = sim_tcase("writes");
	sim_tcase_add(tc, test_iter_truncated_per_mapping, test_write_inline,
		      test_inline_byte_length, test_overwrite,
		      test_write_hole_subblock, test_write_extend);
	tcase_add_loop_test(tc, test_write_tail_zero_at_eof_edge, 0, 2);
	tcase_add_loop_test(tc, test_bio_base_flags, 0, 2);
	tcase_add_test(tc, test_atomic_short_bio);
	tcase_add_loop_test(tc, test_hipri_cleared_for_completion_work, 0, 2);
	sim_tcase_add(tc, test_write_past_eof_in_block,
		      test_write_unwritten_end_io,
		      test_write_unwritten_no_conversion, test_write_shared_cow,
		      test_dsync_fua, test_dsync_cache_no_fua,
		      test_dsync_no_cache);
	tcase_add_loop_test(tc, test_dsync_fua_refused, 0, 3);
	sim_tcase_add(tc, test_dsync_fua_sticky_clear, test_zeroing_bio_error,
		      test_atomic_write, test_write_fsblock_aligned,
		      test_unpinnable_subblock_write_fails,
		      test_short_write_keeps_its_head,
		      test_unreadable_source_subblock_write,
		      test_half_readable_source_subblock_write,
		      test_unmapped_source_refused_elsewhere,
		      test_write_pin_failure_mid_mapping,
		      test_dops_submit_and_bioset,
		      test_atomic_short_bio_releases_pins);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(generic_loop_suite)
