// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-generation expectation tables (generation.h).  Rule IDs are
 * SEMANTICS.md's; "upstream" names the change in the VFS tree
 * (brauner/linux 2913b382, ../shared/kernel/vfs-2913b382/README.md).
 */
#include <linux/iomap.h>
#include <sim/iomap_fs.h>
#include "generation.h"

/* ---- generation (a): the baseline, the embedded copy ------------------- */

static const struct iomapsim_generation __maybe_unused gen_a = {
	.id = 'a',
	.name = "baseline: struct iomap_ops, simple path inside iomap_dio_rw()",
	.empty_read_simple = false,
	.simple_refuses_flags = IOMAP_DIO_FORCE_WAIT | IOMAP_DIO_PARTIAL |
				IOMAP_DIO_BOUNCE,
	.simple_calls_end = true,
	.dma_checked_at_build = false,
	.proposal_apis = true,
};

/* ---- generation (b): the VFS tree -------------------------------------- */

/* a loop test whose baseline still holds in some iterations */
#define SOME	, true
#define ALL	, false

#define DECOUPLED "iomap: the simple read path leaves iomap_dio_rw(): " \
	"exported __iomap_dio_read_simple() and the inline " \
	"iomap_dio_read_simple(iocb, iter, begin) in iomap.h, called by " \
	"the file system (xfs_file_dio_read(), ext4_dio_read_iter()) " \
	"before iomap_dio_rw()"
#define DMA_MASK "block: bio_iov_iter_get_pages(bio, iter, dma_mask, " \
	"len_mask); direct-io.c passes bdev_dma_alignment()"
#define NEXT_CONV "iomap: ->iomap_next conversion (iomap_iter_next_fn " \
	"replaces struct iomap_ops); the proposal entry points were not merged"

/* tests of the proposal entry points, which only the embedded copy has */
#define PROPOSAL_NA \
	{ "N-06..N-14", GEN_NA, "iomap_next", "*", "*", NULL ALL, \
	  "iomap_dio_rw_next(), iomap_dio_rw_begin(), IOMAP_DIO_NO_IOMAP_END (proposals)", \
	  "not in the tree", NEXT_CONV }, \
	{ "N-13", GEN_NA, "iomap_simple", "*", \
	  "test_stale_mapping_unchecked", NULL ALL, \
	  "iomap_dio_rw_begin() (proposal) maps without the iterator's checks", \
	  "not in the tree", NEXT_CONV }, \
	{ "N-06", GEN_CHANGED, "iomap_batch", "batch", "test_outcome_is_runs", \
	  "--iomap next: the proposal entry points are not in this build's iomap code" ALL, \
	  "--iomap next selects the proposal's iomap_dio_rw_next()", \
	  "`iomapsim run --iomap next` is refused (exit 2): the requests before it still compare", \
	  NEXT_CONV }, \
	{ "N-06", GEN_CHANGED, "iomap_cli", "run", "test_bench_polled_and_modes", \
	  "--iomap next: the proposal entry points are not in this build's iomap code" ALL, \
	  "iomapsim bench --iomap next|begin runs the proposal entry points", \
	  "refused (exit 2): only --iomap ops runs", NEXT_CONV }, \
	{ "N-06", GEN_NA, "iomap_cli", "run", "test_all_options", NULL ALL, \
	  "--iomap next selects the proposal's iomap_dio_rw_next()", \
	  "not in the tree: `iomapsim run --iomap next` is refused (exit 2)", NEXT_CONV }

#define NO_END_BASE "->iomap_end(written = count) before submission, " \
	"(written = 0) on every error exit and before a fallback"
#define NO_END_TREE "the simple read path calls only the begin function: " \
	"no ->iomap_end on any exit"

#ifdef IOMAPSIM_KSRC
/*
 * A kernel tree of generation (a): the baseline's rules, without the
 * embedded copy's proposal entry points.  (No fixture of this generation
 * exists yet: built and detected, not run here.)
 */
static const struct gen_change gen_a_tree_changes[] = {
	PROPOSAL_NA,
};

static const struct iomapsim_generation gen_a_tree = {
	.id = 'a',
	.name = "baseline kernel tree: struct iomap_ops, simple path inside iomap_dio_rw()",
	.empty_read_simple = false,
	.simple_refuses_flags = IOMAP_DIO_FORCE_WAIT | IOMAP_DIO_PARTIAL |
				IOMAP_DIO_BOUNCE,
	.simple_calls_end = true,
	.dma_checked_at_build = false,
	.proposal_apis = false,
	.changes = gen_a_tree_changes,
	.nr_changes = ARRAY_SIZE(gen_a_tree_changes),
};
#endif

static const struct gen_change gen_b_changes[] = {
	{ "S-03", GEN_CHANGED, "iomap_simple", "eligibility", "test_refuse_empty",
	  "Assertion '!o->simple' failed" ALL,
	  "an empty read is not offered to the simple path; __iomap_dio_rw() returns 0 (G-02)",
	  "iomap_dio_read_simple() itself returns 0 for an empty read; __iomap_dio_rw() does not run",
	  DECOUPLED },
	{ "S-05, S-08", GEN_CHANGED, "iomap_simple", "eligibility", "test_accept_other_dio_flags",
	  "Assertion 'o->simple' failed" SOME,
	  "OVERWRITE_ONLY and FSBLOCK_ALIGNED reads are simple; only FORCE_WAIT, PARTIAL, BOUNCE refuse",
	  "iomap_dio_read_simple() takes no dio_flags: a file system calls it only where it would pass 0",
	  DECOUPLED },
	{ "S-14", GEN_CHANGED, "iomap_simple", "errors", "test_fsblock_aligned_unit",
	  "Assertion 'o->simple' failed" ALL,
	  "FSBLOCK_ALIGNED makes the file system block the simple path's alignment unit",
	  "the simple path aligns to the logical block size (dio_flags 0); an FSBLOCK_ALIGNED read is generic",
	  DECOUPLED },
	{ "S-38", GEN_CHANGED, "iomap_simple", "fallbacks",
	  "test_fallback_not_mapped test_fallback_extent_short "
	  "test_fallback_integrity test_fallback_short_pin",
	  "Assertion 'cb_at(o, 1)->op == TESTFS_CB_END' failed" ALL,
	  NO_END_BASE, NO_END_TREE, DECOUPLED },
	{ "S-16", GEN_CHANGED, "iomap_simple", "fallbacks", "test_pin_fault_is_error",
	  "Assertion 'o.end_calls == 1' failed: o.end_calls == 0" ALL,
	  NO_END_BASE, NO_END_TREE, DECOUPLED },
	{ "S-16", GEN_CHANGED, "iomap_simple", "errors",
	  "test_misaligned_pos test_alloc_fail_wq",
	  "Assertion 'o.end_calls == 1' failed: o.end_calls == 0" ALL,
	  NO_END_BASE, NO_END_TREE, DECOUPLED },
	{ "S-24", GEN_CHANGED, "iomap_simple", "completion", "test_callbacks",
	  "Assertion 'o.nr_cbs == 2' failed: o.nr_cbs == 1" ALL,
	  NO_END_BASE, NO_END_TREE, DECOUPLED },
	{ "S-24", GEN_CHANGED, "iomap_simple", "completion", "test_end_before_submit",
	  "Assertion 'end_at >= 0' failed" ALL,
	  NO_END_BASE, NO_END_TREE, DECOUPLED },
	{ "B-29", GEN_CHANGED, "iomap_align", "align",
	  "test_default_mask test_device_masks test_segments",
	  "Assertion 'o->completions == 1' failed: o->completions == 0" SOME,
	  "memory off dma_alignment: the simple path's bio is submitted and ended by the split (BLK_STS_INVAL), so its completion helper reports the error",
	  "bio_iov_iter_get_pages() refuses it while building the bio: the simple path returns -EINVAL without submitting or completing (S-19)",
	  DMA_MASK },
	{ "B-29", GEN_CHANGED, "iomap_align", "align",
	  "test_fast_path_and_kernel_iters", ": ret -22" SOME,
	  "one bvec within a page needs no split and skips the check (bio_may_need_split()): 512 bytes 1 byte into a page succeed",
	  "checked while the bio is built, whatever its shape: -EINVAL",
	  DMA_MASK },
	{ "S-19, B-29", GEN_CHANGED, "iomap_diff", "simple_vs_generic",
	  "test_simple_equals_generic",
	  "Assertion 'os.iter_count == og.iter_count' failed" SOME,
	  "a refused request leaves the iterator where it was, on either path",
	  "the simple path returns bio_iov_iter_get_pages()'s -EINVAL with the iterator past the aligned segments it extracted; the generic path re-expands it",
	  DMA_MASK },
	{ "S-01..S-08", GEN_NA, "iomap_simple", "eligibility",
	  "test_why_agrees_with_supported", NULL ALL,
	  "iomap_dio_simple_supported() decides eligibility in one place",
	  "no such function: the file system and the inline helper split the checks",
	  DECOUPLED },
	PROPOSAL_NA,
	{ "S-25, S-27", GEN_BUG, "iomap_simple", "completion",
	  "test_queued_trace_after_inline_completion",
	  "offset 0x6b6b6b6b6b6b6b6b" ALL,
	  "the queued event is traced with values taken before submit_bio()",
	  "__iomap_dio_read_simple() reads iocb->ki_pos for trace_iomap_dio_rw_queued() after submit_bio(): a use after free once the bio completed inline and ki_complete's owner freed the kiocb (ASan in the mount: heap-use-after-free)",
	  "bug in the tree; iomapsim run --op read --pos 4096 --len 4096 --async --complete inline --trace" },
};

static const struct iomapsim_generation gen_b = {
	.id = 'b',
	.name = "VFS tree: iomap_iter_next_fn, iomap_dio_read_simple() called by the file system",
	.empty_read_simple = true,
	.simple_refuses_flags = ~(unsigned int)IOMAP_DIO_NO_IOMAP_END,
	.simple_calls_end = false,
	.dma_checked_at_build = true,
	.integrity_write_needs_profile = true,
	.simple_einval_moves_iter = true,
	.proposal_apis = false,
	.changes = gen_b_changes,
	.nr_changes = ARRAY_SIZE(gen_b_changes),
};

const struct iomapsim_generation *iomapsim_generation(void)
{
	if (iomap_sim_generation() == 'b')
		return &gen_b;
#ifdef IOMAPSIM_KSRC
	return &gen_a_tree;
#else
	return &gen_a;
#endif
}
