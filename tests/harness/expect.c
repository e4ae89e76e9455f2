// SPDX-License-Identifier: GPL-2.0-only
/*
 * The expectation table (expect.h): each entry's condition is a feature
 * of the iomap code this build links (<sim/iomap_features.h>), evaluated
 * when the harness is compiled against that code's headers.
 */
#include <linux/kernel.h>
#include <sim/iomap_features.h>
#include "expect.h"

#define NO_SIMPLE (IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_NONE)
#define FS_CALLED (IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_FS_CALLED)
#define DMA_AT_BUILD IOMAPSIM_DMA_CHECKED_AT_BUILD
#define DMA_UPFRONT IOMAPSIM_DMA_CHECKED_UPFRONT
#define NO_COMP_WORK (!IOMAPSIM_DIO_COMP_WORK)
#define INLINE_COMP IOMAPSIM_DIO_INLINE_COMP

/* a loop test whose baseline still holds in some iterations */
#define SOME true
#define ALL false

#define DECOUPLED                                                         \
	"iomap: the simple read path leaves iomap_dio_rw(): "             \
	"exported __iomap_dio_read_simple() and the inline "              \
	"iomap_dio_read_simple(iocb, iter, begin) in iomap.h, called by " \
	"the file system (xfs_file_dio_read(), ext4_dio_read_iter()) "    \
	"before iomap_dio_rw()"
#define DMA_MASK                                              \
	"block: bio_iov_iter_get_pages(bio, iter, dma_mask, " \
	"len_mask); direct-io.c passes bdev_dma_alignment()"
#define NOT_MERGED                                                             \
	"the ->iomap_next proposal entry points "                              \
	"(iomap_dio_rw_next(), iomap_dio_rw_begin(), IOMAP_DIO_NO_IOMAP_END) " \
	"were not merged"

#define NO_END_BASE                                        \
	"->iomap_end(written = count) before submission, " \
	"(written = 0) on every error exit and before a fallback"
#define NO_END_TREE                                            \
	"the simple read path calls only the begin function: " \
	"no ->iomap_end on any exit"

#define COMP_WORK                                                        \
	"the completion rework that removed caller completion "          \
	"(\"fs, iomap: remove IOCB_DIO_CALLER_COMP\") and replaced "     \
	"IOMAP_DIO_INLINE_COMP by IOMAP_DIO_COMP_WORK: an async write "  \
	"that needs no completion work completes inline in end_io, and " \
	"polling no longer depends on inline completion"
#define UPFRONT                                                             \
	"iomap_dio_bio_iter() checked the user memory with "                \
	"bdev_iter_is_aligned() (every segment on dma_alignment and a "     \
	"multiple of the logical block size) before building any bio; the " \
	"check later moved to the block layer, which refuses only what a "  \
	"bio it builds or splits breaks"
#define ADVANCE                                                 \
	"the incremental advance conversion: the body reports " \
	"by iomap_iter_advance() and ->status, where it set ->processed"
#define READ_WQ "\"iomap: allocate s_dio_done_wq for async reads as well\""
#define ERROR_PUNT "\"iomap: always run error completions in user context\""
/* finding 0006: error completions punted to a workqueue reads never make */
#define NULL_WQ (IOMAPSIM_ERROR_PUNT && !IOMAPSIM_READ_WQ)
#define NULL_WQ_BASELINE \
	"a failed async read completes on s_dio_done_wq, which the read allocated"
#define NULL_WQ_CHANGED                                                       \
	"the read punts its error completion to s_dio_done_wq, which only a " \
	"write allocates: queue_work() on NULL, the kernel oopses"
#define NULL_WQ_BUG                                                                \
	"bug in the code (docs/findings/0006-read-error-punt-null-workqueue.md), " \
	"fixed upstream by " READ_WQ                                               \
	" (CVE-2025-68357): iomapsim run --op read "                               \
	"--pos 0 --len 4096 --async --no-simple --fault bio-error:1:IOERR"
#define NOT_YET(what) "not in this code: " what " arrived in a later release"

/* entries split by the suite their tests are in */
#define ATOMIC \
	"IOCB_ATOMIC writes with IOMAP_F_ATOMIC_BIO mappings (REQ_ATOMIC)"
#define NO_ATOMIC "no untorn writes in iomap"
#define FSBLOCK "FSBLOCK_ALIGNED makes the file system block the alignment unit"
#define LBS_ONLY "the logical block size is the only unit"
#define COMP_END_IO "Assertion 'o.completion == IOMAP_DIO_COMP_END_IO' failed"
#define OVERWRITE_INLINE                                    \
	"an async pure overwrite (no zeroing, conversion, " \
	"size change or cache flush) completes inline in end_io"
#define WRITES_PUNTED                                                        \
	"only reads complete inline (IOMAP_DIO_INLINE_COMP); "               \
	"an async write is punted to s_dio_done_wq unless its issuer asked " \
	"for caller completion"

#define E(...)              \
	{                   \
		__VA_ARGS__ \
	}

const struct expect expect_table[] = {
	/* ---- the proposal entry points: the embedded copy only ---------- */
	E("N-06..N-14", EXPECT_NA, !IOMAPSIM_PROPOSAL,
	  "no proposal entry points", "iomap_next", "*", "*", NULL, ALL,
	  "iomap_dio_rw_next(), iomap_dio_rw_begin(), IOMAP_DIO_NO_IOMAP_END (proposals)",
	  "not in this code", NOT_MERGED),
	E("N-13", EXPECT_NA, !IOMAPSIM_PROPOSAL, "no proposal entry points",
	  "iomap_simple", "*", "test_stale_mapping_unchecked", NULL, ALL,
	  "iomap_dio_rw_begin() (proposal) maps without the iterator's checks",
	  "not in this code", NOT_MERGED),
	E("N-06", EXPECT_CHANGED, !IOMAPSIM_PROPOSAL,
	  "no proposal entry points", "cli_batch", "batch",
	  "test_outcome_is_runs",
	  "--iomap next: the proposal entry points are not in this build's iomap code",
	  ALL, "--iomap next selects the proposal's iomap_dio_rw_next()",
	  "`iomapsim run --iomap next` is refused (exit 2): the requests before it still compare",
	  NOT_MERGED),
	E("N-06", EXPECT_CHANGED, !IOMAPSIM_PROPOSAL,
	  "no proposal entry points", "cli_run", "run",
	  "test_bench_polled_and_modes",
	  "--iomap next: the proposal entry points are not in this build's iomap code",
	  ALL,
	  "iomapsim bench --iomap next|begin runs the proposal entry points",
	  "refused (exit 2): only --iomap ops runs", NOT_MERGED),
	E("N-06", EXPECT_NA, !IOMAPSIM_PROPOSAL, "no proposal entry points",
	  "cli_run", "run", "test_all_options", NULL, ALL,
	  "--iomap next selects the proposal's iomap_dio_rw_next()",
	  "not in this code: `iomapsim run --iomap next` is refused (exit 2)",
	  NOT_MERGED),

	/* ---- no simple path: 6.1, 6.12, mainline ------------------------- */
	E("S-01..S-38", EXPECT_NA, NO_SIMPLE, "no simple path", "iomap_simple",
	  "*", "*", NULL, ALL, "the simple read path (iomap_dio_simple())",
	  "every direct read goes through __iomap_dio_rw()",
	  NOT_YET("the simple dio path for small reads")),
	E("S-09, S-31", EXPECT_NA, NO_SIMPLE, "no simple path", "iomap_diff",
	  "simple_vs_generic", "*", NULL, ALL,
	  "the simple path and the generic path give the same outcome",
	  "nothing to compare: one path", NOT_YET("the simple dio path")),
	E("S-37", EXPECT_NA, NO_SIMPLE, "no simple path", "iomap_testfs",
	  "pagecache", "test_unwatched_hooks_run_nothing", NULL, ALL,
	  "the simple path's hit counter counts only while watched",
	  "no simple path, no hits to count", NOT_YET("the simple dio path")),

	E("S-01..S-38", EXPECT_NA, NO_SIMPLE, "no simple path", "cli_run",
	  "run",
	  "test_ref_sync_read test_ref_async_error test_ref_hole "
	  "test_ref_unaligned test_bench_allocations_per_read "
	  "test_bench_polled_and_modes",
	  NULL, ALL, "reference runs of small reads on the simple path",
	  "every direct read goes through __iomap_dio_rw()",
	  NOT_YET("the simple dio path")),

	/* ---- features later releases added ---------------------------- */
	E("G-12, G-25, G-34", EXPECT_NA, !IOMAPSIM_ATOMIC, "no atomic writes",
	  "iomap_generic_loop", "writes",
	  "test_atomic_write test_atomic_short_bio "
	  "test_atomic_short_bio_releases_pins",
	  NULL, ALL, ATOMIC, NO_ATOMIC, NOT_YET("atomic writes")),
	E("G-15", EXPECT_NA, !IOMAPSIM_ATOMIC, "no atomic writes",
	  "iomap_generic_entry", "writes", "test_write_invalidate_busy_atomic",
	  NULL, ALL, ATOMIC, NO_ATOMIC, NOT_YET("atomic writes")),
	E("G-25", EXPECT_NA, !IOMAPSIM_ATOMIC, "no atomic writes", "cli_run",
	  "run", "test_atomic_map_flag", NULL, ALL,
	  "--map ...:atomic is IOMAP_F_ATOMIC_BIO",
	  "refused: no IOMAP_F_ATOMIC_BIO", NOT_YET("atomic writes")),
	E("G-04", EXPECT_NA, !IOMAPSIM_FSBLOCK_ALIGNED,
	  "no IOMAP_DIO_FSBLOCK_ALIGNED", "iomap_generic_entry", "*",
	  "test_dio_flags_masked", NULL, ALL, FSBLOCK, LBS_ONLY,
	  NOT_YET("IOMAP_DIO_FSBLOCK_ALIGNED")),
	E("G-23", EXPECT_NA, !IOMAPSIM_FSBLOCK_ALIGNED,
	  "no IOMAP_DIO_FSBLOCK_ALIGNED", "iomap_generic_loop", "*",
	  "test_write_fsblock_aligned", NULL, ALL, FSBLOCK, LBS_ONLY,
	  NOT_YET("IOMAP_DIO_FSBLOCK_ALIGNED")),
	E("G-52", EXPECT_NA, !IOMAPSIM_DIO_CALLER_COMP,
	  "no IOCB_DIO_CALLER_COMP", "iomap_caller_comp", "*", "*", NULL, ALL,
	  "an async pure overwrite with IOCB_DIO_CALLER_COMP leaves "
	  "->dio_complete() to the issuer's task",
	  "no caller completion in this code (before it arrived, or after "
	  "its removal: the embedded copy); --iocb CALLER_COMP is refused",
	  "fs, iomap: remove IOCB_DIO_CALLER_COMP"),
	E("G-54", EXPECT_NA, !IOMAPSIM_IOEND_DIRECT,
	  "no iomap_finish_ioend_direct()", "iomap_ioend", "*", "*", NULL, ALL,
	  "a file system ends direct-write bios through ioends: "
	  "iomap_finish_ioend_direct() completes the dio in its ioend worker",
	  "no ioend completion of direct writes in this code (before it "
	  "arrived, or not carried: the embedded copy); --dops ioend is "
	  "refused",
	  "iomap: optionally use ioends for direct I/O"),
	E("G-49", EXPECT_NA, !IOMAPSIM_BOUNCE, "no IOMAP_DIO_BOUNCE",
	  "iomap_generic_completion", "*",
	  "test_bounce_read_kvec test_bounce_read_user_needs_offload "
	  "test_bounce_write test_bounce_write_zeroing_keeps_zero_folio",
	  NULL, ALL, "IOMAP_DIO_BOUNCE copies through bounce pages",
	  "user pages are always pinned", NOT_YET("IOMAP_DIO_BOUNCE")),

	/* ---- the walk's report: ->processed before iomap_iter_advance() -- */
	E("N-03, N-05", EXPECT_CHANGED, !IOMAPSIM_ITER_STATUS,
	  "->processed, no iomap_iter_advance()", "iomap_iter", "iter",
	  "test_status_error", "Assertion 'fs.last_written == 512' failed", ALL,
	  "an error after an advance within the mapping: ->iomap_end sees the bytes advanced",
	  "the error replaces the count: ->iomap_end sees written = 0",
	  ADVANCE),
	E("N-03, N-04", EXPECT_NA, !IOMAPSIM_ITER_STATUS,
	  "->processed, no iomap_iter_advance()", "iomap_iter", "iter",
	  "test_status_positive test_advance_too_far", NULL, ALL,
	  "iomap_iter_advance() and a positive ->status",
	  "->processed is the count itself", ADVANCE),
	E("N-06, N-07", EXPECT_NA,
	  !IOMAPSIM_MAPPING_NEXT_FN && !IOMAPSIM_PROPOSAL,
	  "struct iomap_ops, no ->iomap_next", "iomap_iter", "iter",
	  "test_walk_next test_next_first_call test_next_without_end", NULL,
	  ALL, "iomap_iter() driven by one ->iomap_next callback",
	  "struct iomap_ops {iomap_begin, iomap_end} only",
	  NOT_YET("the ->iomap_next conversion (iomap_iter_next_fn)")),

	/* ---- completion before IOMAP_DIO_COMP_WORK (G-61) --------------- */
	E("G-51, G-61", EXPECT_CHANGED, NO_COMP_WORK,
	  "completions before IOMAP_DIO_COMP_WORK", "iomap_generic_completion",
	  "writes", "test_async_overwrite_inline", COMP_END_IO, ALL,
	  OVERWRITE_INLINE, WRITES_PUNTED, COMP_WORK),
	E("G-51, G-61", EXPECT_CHANGED, NO_COMP_WORK,
	  "completions before IOMAP_DIO_COMP_WORK", "iomap_generic_loop",
	  "writes", "test_dsync_fua", COMP_END_IO, ALL, OVERWRITE_INLINE,
	  WRITES_PUNTED, COMP_WORK),
	E("G-51, G-61", EXPECT_CHANGED, NO_COMP_WORK,
	  "completions before IOMAP_DIO_COMP_WORK", "iomap_generic_completion",
	  "writes", "test_async_extend_mapped_isolated",
	  "Assertion 'o.completion == _i ? IOMAP_DIO_COMP_END_IO", SOME,
	  "an async write inside EOF on an isolated mapping completes inline",
	  "punted to s_dio_done_wq: writes never complete inline", COMP_WORK),
	E("G-29, G-61", EXPECT_CHANGED, INLINE_COMP,
	  "completions before IOMAP_DIO_COMP_WORK", "iomap_generic_loop",
	  "writes", "test_hipri_cleared_for_completion_work",
	  "Assertion 'o.dev.polled_bios == _i ? 1 : 0' failed", SOME,
	  "IOCB_HIPRI is cleared only for a dio that needs completion work: an async pure overwrite is polled",
	  "polling is kept only for INLINE_COMP or CALLER_COMP dios: a write is never polled",
	  COMP_WORK),

	E("B-26, G-61", EXPECT_CHANGED, INLINE_COMP,
	  "completions before IOMAP_DIO_COMP_WORK", "iomap_align", "align",
	  "test_no_poll_device", "write, async: ret 4096, want -95", SOME,
	  "an async IOCB_HIPRI pure overwrite is polled, and a queue without poll support fails its bio with -EOPNOTSUPP",
	  "a write is never polled (no INLINE_COMP): it succeeds on such a queue",
	  COMP_WORK),

	E("G-17, G-61", EXPECT_CHANGED, !IOMAPSIM_READ_WQ,
	  "s_dio_done_wq allocated for writes only", "iomap_generic_completion",
	  "*",
	  "test_async_read_inline test_async_holes_complete_in_submitter "
	  "test_dio_done_wq_lazy",
	  "Assertion 'o.wq_created' failed", ALL,
	  "an async read creates s_dio_done_wq (G-17)",
	  "only an async write creates it", READ_WQ),
	E("G-03, G-17, G-61", EXPECT_CHANGED, !IOMAPSIM_READ_WQ,
	  "s_dio_done_wq allocated for writes only", "iomap_generic_entry",
	  "reads", "test_alloc_failures", "Assertion '!o.queued' failed", ALL,
	  "an async read whose workqueue cannot be allocated fails with -ENOMEM before any I/O",
	  "a read allocates no workqueue: its second allocation is a bio, and the read is queued",
	  READ_WQ),
	E("G-51, G-61", EXPECT_CHANGED, !IOMAPSIM_ERROR_PUNT,
	  "error completions not punted", "iomap_generic_completion", "*",
	  "test_async_read_error_punted test_workqueue_keeps_private",
	  "Assertion 'o.completion == IOMAP_DIO_COMP_WORKQUEUE' failed", ALL,
	  "an error punts the completion to s_dio_done_wq",
	  "a failed async read completes in end_io like any read", ERROR_PUNT),

	/* ---- error punt without the read workqueue: finding 0006 -------- */
	E("G-17, G-51", EXPECT_BUG, NULL_WQ,
	  "error completions punted, s_dio_done_wq allocated for writes only",
	  "iomap_generic_completion", "*",
	  "test_async_read_error_punted test_workqueue_keeps_private",
	  "Received signal 6", ALL, NULL_WQ_BASELINE, NULL_WQ_CHANGED,
	  NULL_WQ_BUG),
	E("G-17, G-51", EXPECT_BUG, NULL_WQ,
	  "error completions punted, s_dio_done_wq allocated for writes only",
	  "iomap_diff", "orders", "test_completion_orders", "Received signal 6",
	  SOME, NULL_WQ_BASELINE, NULL_WQ_CHANGED, NULL_WQ_BUG),
	E("G-17, G-51", EXPECT_BUG, NULL_WQ,
	  "error completions punted, s_dio_done_wq allocated for writes only",
	  "iomap_diff", "simple_vs_generic", "test_simple_equals_generic",
	  "Received signal 6", SOME, NULL_WQ_BASELINE, NULL_WQ_CHANGED,
	  NULL_WQ_BUG),
	E("G-17, G-51", EXPECT_BUG, NULL_WQ &&NO_SIMPLE,
	  "error completions punted, s_dio_done_wq allocated for writes only",
	  "iomap_threaded", "*", "test_async_reads", "Received signal 6", ALL,
	  NULL_WQ_BASELINE, NULL_WQ_CHANGED, NULL_WQ_BUG),
	E("G-17, G-51", EXPECT_BUG, NULL_WQ,
	  "error completions punted, s_dio_done_wq allocated for writes only",
	  "cli_batch", "batch", "test_outcome_is_runs",
	  "Assertion '(((st) & 0x7f) == 0)' failed", ALL, NULL_WQ_BASELINE,
	  NULL_WQ_CHANGED, NULL_WQ_BUG),

	E("G-54, G-51", EXPECT_CHANGED,
	  !IOMAPSIM_ERROR_PUNT && IOMAPSIM_IOEND_DIRECT,
	  "error completions not punted", "iomap_ioend", "*",
	  "test_device_error_via_io_error",
	  "Assertion 'o.completion == IOMAP_DIO_COMP_WORKQUEUE' failed", SOME,
	  "an ioend write's device error sets COMP_WORK again: an async dio is punted to s_dio_done_wq",
	  "the error completes the dio in the ioend worker, as a success would",
	  ERROR_PUNT),

	/* ---- bugs found in trees of their own (docs/findings/) ----------- */
	E("G-25, G-34", EXPECT_BUG, IOMAPSIM_ATOMIC_PUT_PINNED,
	  "an atomic write's short bio put with its pages pinned",
	  "iomap_generic_loop", "writes",
	  "test_atomic_short_bio test_atomic_short_bio_releases_pins",
	  "1 leak(s)", ALL,
	  "a bio that does not cover the atomic write fails it with -EINVAL and unpins its pages",
	  "bio_put() without bio_release_pages(): the pages bio_iov_iter_get_pages() pinned stay pinned",
	  "bug in the code (docs/findings/0007-atomic-short-bio-leaks-pins.md): iomapsim run --op write --pos 0 --len 8192 --iocb ATOMIC --map mapped:0:65536:atomic --iter iovec:2 --fault short-pin:2:0"),
	E("G-26", EXPECT_BUG, IOMAPSIM_FUA_MAPPED_ONLY,
	  "IOMAP_DIO_WRITE_THROUGH cleared only for IOMAP_MAPPED, not new, mappings",
	  "iomap_generic_loop", "writes", "test_dsync_fua_refused",
	  "Assertion 'o.fsync_calls == 1' failed: o.fsync_calls == 0", SOME,
	  "an O_DSYNC write whose bio is not FUA ends with generic_write_sync()",
	  "a new (IOMAP_F_NEW) or unwritten mapping keeps WRITE_THROUGH without FUA: NEED_SYNC is dropped, nothing flushes the volatile cache",
	  "bug in the code (docs/findings/0008-dsync-new-mapping-skips-flush.md): iomapsim run --op write --pos 0 --len 4096 --iocb DSYNC --write-cache --fua --map mapped:0:65536:new"),

	/* ---- older write paths ------------------------------------------ */
	E("G-15, K-09", EXPECT_CHANGED, !IOMAPSIM_KIOCB_INVALIDATE,
	  "no kiocb_invalidate_pages()", "iomap_generic_entry", "writes",
	  "test_write_invalidate_wb_error", "Assertion 'o.ret == -15' failed",
	  ALL,
	  "a writeback error of the range is a failed invalidation: -ENOTBLK (buffered fallback)",
	  "filemap_write_and_wait_range()'s error is returned as is (-EIO)",
	  "\"fs: factor out a direct_write_invalidate helper\" series: kiocb_invalidate_pages() writes back and invalidates in one call"),
	E("G-26", EXPECT_CHANGED, !IOMAPSIM_FUA_NO_CACHE,
	  "FUA only where the device has it", "iomap_generic_loop", "writes",
	  "test_dsync_no_cache", "Assertion 'o.fsync_calls == 0' failed", ALL,
	  "an O_DSYNC pure overwrite on a device without a volatile write cache needs no flush: no fsync",
	  "without FUA support the write ends with generic_write_sync()",
	  "iomap_dio_can_use_fua(): FUA, or nothing, where the device has no volatile write cache"),
	E("G-30, G-38", EXPECT_BUG, IOMAPSIM_ZERO_RETURNS_INT,
	  "iomap_dio_zero() returns an int", "iomap_generic_loop", "writes",
	  "test_unreadable_source_subblock_write",
	  "Assertion 'o.ret == -14' failed: o.ret == 0", ALL,
	  "a write from an unreadable buffer fails with -EFAULT",
	  "the tail zeroing assigns iomap_dio_zero()'s 0 to the pinning error: the write returns 0, as XFS does on Linux 6.18",
	  "bug in the code (docs/findings/0001-tail-zeroing-replaces-error.md): iomapsim run --map unwritten:0:65536 --dops end_io --op write --pos 512 --len 8192 --fault unmapped:0"),
	E("G-30, G-38", EXPECT_BUG, IOMAPSIM_ZERO_RETURNS_INT,
	  "iomap_dio_zero() returns an int", "iomap_generic_loop", "writes",
	  "test_half_readable_source_subblock_write",
	  "bytes reported written do not read back", ALL,
	  "a write from a buffer readable in its first page fails, or reports only bytes that read back",
	  "the second pass zeroes the head of the block the first wrote and its tail zeroing's 0 hides its error: 4096 reported, the last 512 of them zeroes on the device, as XFS does on Linux 6.18",
	  "bug in the code (docs/findings/0002-second-pass-rezeroes-head.md): iomapsim run --map unwritten:0:65536 --dops end_io --op write --pos 512 --len 8192 --fault unmapped:4096"),
	E("G-33, G-38, B-29", EXPECT_BUG,
	  IOMAPSIM_ZERO_RETURNS_INT &&DMA_AT_BUILD,
	  "iomap_dio_zero() returns an int; memory checked while the bio is built",
	  "iomap_align", "align", "test_subblock_write_off_dma_alignment",
	  ": ret 0", ALL,
	  "a sub-block write from memory off dma_alignment fails with -EINVAL",
	  "the tail zeroing assigns iomap_dio_zero()'s 0 to bio_iov_iter_get_pages()'s -EINVAL: the write returns 0, nothing written",
	  "bug in the code (docs/findings/0001-tail-zeroing-replaces-error.md): iomapsim run --map hole:0:1048576 --op write --pos 512 --len 1024 --buf-offset 1"),
	E("I-05, B-29", EXPECT_BUG, DMA_AT_BUILD,
	  "memory checked while the bio is built", "iomap_align", "align",
	  "test_refused_bio_keeps_iterator_on_segments",
	  "more than its segments hold", ALL,
	  "a bio refused for its memory leaves the iterator on its segments",
	  "bio_iov_iter_get_pages() returns -EINVAL past the segments the refused bio had extracted and iomap re-expands the iterator by what it did not submit: its count exceeds its segments, and the next pass's iov_iter_npages() reads past the iovec array",
	  "bug in the code (docs/findings/0004-refused-bio-leaves-iterator-past-segments.md): iomapsim run --size 2097152 --op write --pos 0 --len 1081856 --iter iovec:32768,...(33 times),512@1"),
	E("G-33, G-38", EXPECT_BUG, IOMAPSIM_ZERO_RETURNS_INT,
	  "iomap_dio_zero() returns an int", "iomap_generic_loop", "writes",
	  "test_unpinnable_subblock_write_fails",
	  "Assertion 'o.ret == -14' failed: o.ret == 0", ALL,
	  "the write fails with bio_iov_iter_get_pages()'s -EFAULT",
	  "the tail zeroing assigns iomap_dio_zero()'s 0 to that error: the write returns 0, nothing written (a caller that retries short writes spins)",
	  "bug in the code (docs/findings/0001-tail-zeroing-replaces-error.md): iomapsim run --map hole:0:65536 --op write --pos 8704 --len 1024 --fault short-pin:1:0"),

	/* ---- the user memory checked up front --------------------------- */
	E("G-23, G-56, B-29", EXPECT_CHANGED, DMA_UPFRONT,
	  "memory checked up front (bdev_iter_is_aligned())",
	  "iomap_generic_loop", "reads", "test_read_misaligned_second_mapping",
	  "Assertion 'o.bios == 1' failed", ALL,
	  "the first mapping's bio goes out before the second, misaligned mapping fails",
	  "the whole iterator is refused before the first bio: none goes out",
	  UPFRONT),
	E("G-30, G-33, B-29", EXPECT_BUG,
	  !DMA_UPFRONT && IOMAPSIM_GET_PAGES_ARGS >= 3,
	  "bios built with iomap's alignment mask before the memory is checked",
	  "iomap_generic_loop", "writes", "test_short_write_keeps_its_head",
	  "Assertion 'o.dev.write_bios == 0' failed: o.dev.write_bios == 1",
	  ALL,
	  "a pass that resumes this dio mid-block leaves the block's head, this dio's own data, alone",
	  "the second pass zeroes the head of the block the first pass wrote (the first pass's bio failed its split here, so only the zeroing reaches the device)",
	  "bug in the code (docs/findings/0002-second-pass-rezeroes-head.md): iomapsim run --fs-block 4096 --lbs 2048 --size 61440 --map unwritten:0:65536 --dma-alignment 3 --dops end_io --op write --pos 0 --len 8192 --iter iovec:1024 --buf-offset 1028 --no-simple"),
	E("B-29", EXPECT_CHANGED, DMA_UPFRONT,
	  "memory checked up front (bdev_iter_is_aligned())", "iomap_align",
	  "align", "test_fast_path_and_kernel_iters", ": ret -22", SOME,
	  "one bvec within a page needs no split and skips the check (bio_may_need_split()): 512 bytes 1 byte into a page succeed",
	  "every segment must start on dma_alignment: -EINVAL", UPFRONT),

	/* ---- older shapes of the same rules ----------------------------- */
	E("G-22", EXPECT_CHANGED, IOMAPSIM_INLINE_ONE_PAGE,
	  "inline data within one page (iomap_inline_data_valid())",
	  "iomap_generic_loop", "reads", "test_read_inline",
	  "Assertion 'o->warnings == warn' failed", ALL,
	  "inline data of any length is copied",
	  "an inline mapping that crosses a page warns and fails with -EIO",
	  "iomap_inline_data_valid() was removed when inline data could span pages"),
	E("G-24", EXPECT_CHANGED, IOMAPSIM_BIO_OPFLAGS_HELPER,
	  "iomap_dio_bio_opflags()", "iomap_generic_loop", "*",
	  "test_bio_base_flags", "Assertion 'opf & ((", SOME,
	  "every data bio is REQ_SYNC | REQ_IDLE plus its op",
	  "a read bio is REQ_OP_READ alone; only writes add REQ_SYNC | REQ_IDLE",
	  "iomap_dio_bio_opflags() gave way to bio_opf computed in iomap_dio_bio_iter(), REQ_SYNC | REQ_IDLE for every bio"),

	/* ---- the simple read path called by the file system ------------- */
	E("S-03", EXPECT_CHANGED, FS_CALLED,
	  "simple read path called by the file system", "iomap_simple",
	  "eligibility", "test_refuse_empty", "Assertion '!o->simple' failed",
	  ALL,
	  "an empty read is not offered to the simple path; __iomap_dio_rw() returns 0 (G-02)",
	  "iomap_dio_read_simple() itself returns 0 for an empty read; __iomap_dio_rw() does not run",
	  DECOUPLED),
	E("S-05, S-08", EXPECT_CHANGED, FS_CALLED,
	  "simple read path called by the file system", "iomap_simple",
	  "eligibility", "test_accept_other_dio_flags",
	  "Assertion 'o->simple' failed", SOME,
	  "OVERWRITE_ONLY and FSBLOCK_ALIGNED reads are simple; only FORCE_WAIT, PARTIAL, BOUNCE refuse",
	  "iomap_dio_read_simple() takes no dio_flags: a file system calls it only where it would pass 0",
	  DECOUPLED),
	E("S-14", EXPECT_CHANGED, FS_CALLED,
	  "simple read path called by the file system", "iomap_simple",
	  "errors", "test_fsblock_aligned_unit", "Assertion 'o->simple' failed",
	  ALL,
	  "FSBLOCK_ALIGNED makes the file system block the simple path's alignment unit",
	  "the simple path aligns to the logical block size (dio_flags 0); an FSBLOCK_ALIGNED read is generic",
	  DECOUPLED),
	E("S-38", EXPECT_CHANGED, FS_CALLED,
	  "simple read path called by the file system", "iomap_simple",
	  "fallbacks",
	  "test_fallback_not_mapped test_fallback_extent_short "
	  "test_fallback_integrity test_fallback_short_pin",
	  "Assertion 'cb_at(o, 1)->op == TESTFS_CB_END' failed", ALL,
	  NO_END_BASE, NO_END_TREE, DECOUPLED),
	E("S-16", EXPECT_CHANGED, FS_CALLED,
	  "simple read path called by the file system", "iomap_simple",
	  "fallbacks", "test_pin_fault_is_error",
	  "Assertion 'o.end_calls == 1' failed: o.end_calls == 0", ALL,
	  NO_END_BASE, NO_END_TREE, DECOUPLED),
	E("S-16", EXPECT_CHANGED, FS_CALLED,
	  "simple read path called by the file system", "iomap_simple",
	  "errors", "test_misaligned_pos test_alloc_fail_wq",
	  "Assertion 'o.end_calls == 1' failed: o.end_calls == 0", ALL,
	  NO_END_BASE, NO_END_TREE, DECOUPLED),
	E("S-24", EXPECT_CHANGED, FS_CALLED,
	  "simple read path called by the file system", "iomap_simple",
	  "completion", "test_callbacks",
	  "Assertion 'o.nr_cbs == 2' failed: o.nr_cbs == 1", ALL, NO_END_BASE,
	  NO_END_TREE, DECOUPLED),
	E("S-24", EXPECT_CHANGED, FS_CALLED,
	  "simple read path called by the file system", "iomap_simple",
	  "completion", "test_end_before_submit",
	  "Assertion 'end_at >= 0' failed", ALL, NO_END_BASE, NO_END_TREE,
	  DECOUPLED),
	E("S-10", EXPECT_CHANGED, FS_CALLED,
	  "simple read path called by the file system", "iomap_simple",
	  "eligibility", "test_private_data", "Assertion 'o->simple' failed",
	  ALL, "private data is passed through to the simple path's iterator",
	  "iomap_dio_read_simple(iocb, iter, begin) takes no private data: a file system that passes some calls iomap_dio_rw() (fallback \"private\")",
	  DECOUPLED),
	E("S-18", EXPECT_CHANGED, FS_CALLED,
	  "simple read path called by the file system", "iomap_simple",
	  "eligibility", "test_nowait_bio_alloc",
	  "Assertion 'o.alloc_seen == 0' failed", ALL,
	  "the simple bio is allocated with GFP_KERNEL, which cannot fail",
	  "under IOCB_NOWAIT with GFP_NOWAIT: a failable allocation (the bio_set's reserve serves it; -EAGAIN when that is empty too)",
	  DECOUPLED),
	E("S-25, S-27", EXPECT_BUG, FS_CALLED,
	  "simple read path called by the file system", "iomap_simple",
	  "completion", "test_queued_trace_after_inline_completion",
	  "offset 0x6b6b6b6b6b6b6b6b", ALL,
	  "the queued event is traced with values taken before submit_bio()",
	  "__iomap_dio_read_simple() reads iocb->ki_pos for trace_iomap_dio_rw_queued() after submit_bio(): a use after free once the bio completed inline and ki_complete's owner freed the kiocb (ASan in the mount: heap-use-after-free)",
	  "bug in the code; iomapsim run --op read --pos 4096 --len 4096 --async --complete inline --trace"),

	/* ---- the DMA alignment checked as the bio is built -------------- */
	E("B-29", EXPECT_CHANGED, DMA_AT_BUILD &&FS_CALLED,
	  "DMA alignment checked while the bio is built", "iomap_align",
	  "align", "test_default_mask test_device_masks test_segments",
	  "Assertion 'o->completions == 1' failed: o->completions == 0", SOME,
	  "memory off dma_alignment: the simple path's bio is submitted and ended by the split (BLK_STS_INVAL), so its completion helper reports the error",
	  "bio_iov_iter_get_pages() refuses it while building the bio: the simple path returns -EINVAL without submitting or completing (S-19)",
	  DMA_MASK),
	E("B-29", EXPECT_CHANGED, DMA_AT_BUILD && !DMA_UPFRONT,
	  "DMA alignment checked while the bio is built", "iomap_align",
	  "align", "test_fast_path_and_kernel_iters", ": ret -22", SOME,
	  "one bvec within a page needs no split and skips the check (bio_may_need_split()): 512 bytes 1 byte into a page succeed",
	  "checked while the bio is built, whatever its shape: -EINVAL",
	  DMA_MASK),
	/* where 0006 crashes the test, its iterations end before this one */
	E("S-19, B-29", EXPECT_CHANGED, DMA_AT_BUILD &&FS_CALLED && !NULL_WQ,
	  "DMA alignment checked while the bio is built", "iomap_diff",
	  "simple_vs_generic", "test_simple_equals_generic",
	  "Assertion 'os.iter_count == og.iter_count' failed", SOME,
	  "a refused request leaves the iterator where it was, on either path",
	  "the simple path returns bio_iov_iter_get_pages()'s -EINVAL with the iterator past the aligned segments it extracted; the generic path re-expands it",
	  DMA_MASK),
};

const unsigned int expect_table_len = ARRAY_SIZE(expect_table);
