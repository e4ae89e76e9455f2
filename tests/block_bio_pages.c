// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pages in bios: bio_iov_vecs_to_alloc(), bio_iov_iter_get_pages() for
 * each iterator type with aligned and misaligned segments, the no-copy
 * bvec path, length alignment, releasing pins, bio_add_page(), and the
 * dirty-page helpers with their deferred worker.
 */
#include <stdint.h>
#include <sys/uio.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/uio.h>
#include <sim/alloc.h>
#include <sim/engine.h>
#include <sim/fault.h>
#include <sim/stats.h>
#include "block_testdev.h"
#include "harness.h"

static long pins(void)
{
	return td_stat("pages_pinned");
}

static struct bio *read_bio(struct iov_iter *iter)
{
	return bio_alloc(NULL, bio_iov_vecs_to_alloc(iter, BIO_MAX_VECS),
			 REQ_OP_READ, GFP_KERNEL);
}

/* A read bio sized for @len bytes at @buf, and @iter (UBUF) over them. */
static struct bio *ubuf_read_bio(struct iov_iter *iter, char *buf, size_t len)
{
	iov_iter_ubuf(iter, ITER_DEST, buf, len);
	return read_bio(iter);
}

/* The same with the pages added under @mask, which must succeed. */
static struct bio *pinned_read_bio(struct iov_iter *iter, char *buf, size_t len,
				   unsigned int mask)
{
	struct bio *bio = ubuf_read_bio(iter, buf, len);

	ck_assert_int_eq(bio_iov_iter_get_pages(bio, iter, mask), 0);
	return bio;
}

/* @bio holds @size bytes in @vcnt bvecs */
static void check_bio_holds(struct bio *bio, unsigned int size,
			    unsigned short vcnt)
{
	ck_assert_uint_eq(bio->bi_iter.bi_size, size);
	ck_assert_uint_eq(bio->bi_vcnt, vcnt);
}

/* Release a read's pages clean, back to the @pinned it began with; put it. */
static void release_read_bio(struct bio *bio, long pinned)
{
	bio_release_pages(bio, false);
	ck_assert_int_eq(pins(), pinned);
	bio_put(bio);
}

static void check_bvec(struct bio *bio, int i, void *addr, unsigned int len)
{
	struct bio_vec *bv = &bio->bi_io_vec[i];

	ck_assert_ptr_eq(bv->bv_page, virt_to_page(addr));
	ck_assert_uint_eq(bv->bv_offset, offset_in_page(addr));
	ck_assert_uint_eq(bv->bv_len, len);
}

/* covers B-13 */
START_TEST(test_vecs_to_alloc)
{
	char *buf = td_buf(4 * PAGE_SIZE);
	struct bio_vec bv[3];
	struct iov_iter iter;

	iov_iter_ubuf(&iter, ITER_DEST, buf, 4 * PAGE_SIZE);
	ck_assert_int_eq(bio_iov_vecs_to_alloc(&iter, BIO_MAX_VECS), 4);
	ck_assert_int_eq(bio_iov_vecs_to_alloc(&iter, 2), 2);
	iov_iter_ubuf(&iter, ITER_DEST, buf + 100, 2 * PAGE_SIZE);
	ck_assert_int_eq(bio_iov_vecs_to_alloc(&iter, BIO_MAX_VECS), 3);

	for (int i = 0; i < 3; i++)
		bvec_set_virt(&bv[i], buf + i * PAGE_SIZE, PAGE_SIZE);
	iov_iter_bvec(&iter, ITER_DEST, bv, 3, 3 * PAGE_SIZE);
	ck_assert_int_eq(bio_iov_vecs_to_alloc(&iter, BIO_MAX_VECS), 0);
	free(buf);
}
END_TEST

/* covers B-16, I-12: aligned UBUF, one bvec per page, every page pinned */
START_TEST(test_ubuf_aligned)
{
	char *buf = td_buf(4 * PAGE_SIZE);
	long pinned = pins();
	struct iov_iter iter;
	struct bio *bio;

	bio = pinned_read_bio(&iter, buf, 4 * PAGE_SIZE, 511);
	check_bio_holds(bio, 4 * PAGE_SIZE, 4);
	for (int i = 0; i < 4; i++)
		check_bvec(bio, i, buf + i * PAGE_SIZE, PAGE_SIZE);
	ck_assert(bio_flagged(bio, BIO_PAGE_PINNED));
	ck_assert(!bio_flagged(bio, BIO_CLONED));
	ck_assert_int_eq(pins() - pinned, 4);
	ck_assert_uint_eq(iov_iter_count(&iter), 0);

	release_read_bio(bio, pinned);
	free(buf);
}
END_TEST

/* covers B-16: a buffer starting inside a page */
START_TEST(test_ubuf_misaligned_start)
{
	char *buf = td_buf(3 * PAGE_SIZE);
	long pinned = pins();
	struct iov_iter iter;
	struct bio *bio;

	bio = ubuf_read_bio(&iter, buf + 512, 2 * PAGE_SIZE);
	ck_assert_uint_eq(bio->bi_max_vecs, BIO_INLINE_VECS);
	ck_assert_int_eq(bio_iov_iter_get_pages(bio, &iter, 511), 0);
	check_bio_holds(bio, 2 * PAGE_SIZE, 3);
	check_bvec(bio, 0, buf + 512, PAGE_SIZE - 512);
	check_bvec(bio, 1, buf + PAGE_SIZE, PAGE_SIZE);
	check_bvec(bio, 2, buf + 2 * PAGE_SIZE, 512);
	ck_assert_int_eq(pins() - pinned, 3);
	release_read_bio(bio, pinned);
	free(buf);
}
END_TEST

/* covers B-17: the length is cut to the mask; the tail goes back */
START_TEST(test_align_down_length)
{
	char *buf = td_buf(2 * PAGE_SIZE);
	long pinned = pins();
	struct iov_iter iter;
	struct bio *bio;

	/* 4096 + 100 bytes: the 100 in the second page do not fit 512s */
	bio = pinned_read_bio(&iter, buf, PAGE_SIZE + 100, 511);
	check_bio_holds(bio, PAGE_SIZE, 1);
	ck_assert_uint_eq(iov_iter_count(&iter), 100);
	/* the dropped page was unpinned */
	ck_assert_int_eq(pins() - pinned, 1);
	bio_release_pages(bio, false);
	bio_put(bio);

	/* a trailing bvec that is only shortened keeps its pin */
	bio = pinned_read_bio(&iter, buf + 1024, PAGE_SIZE + 100, 511);
	check_bio_holds(bio, PAGE_SIZE, 2);
	check_bvec(bio, 1, buf + PAGE_SIZE, 1024);
	ck_assert_uint_eq(iov_iter_count(&iter), 100);
	ck_assert_int_eq(pins() - pinned, 2);
	release_read_bio(bio, pinned);
	free(buf);
}
END_TEST

/* covers B-17: nothing left after the cut is -EFAULT, nothing pinned */
START_TEST(test_align_down_efault)
{
	char *buf = td_buf(PAGE_SIZE);
	long pinned = pins();
	struct iov_iter iter;
	struct bio *bio;

	bio = ubuf_read_bio(&iter, buf, 100);
	ck_assert_int_eq(bio_iov_iter_get_pages(bio, &iter, 511), -EFAULT);
	ck_assert_uint_eq(bio->bi_vcnt, 0);
	ck_assert_uint_eq(bio->bi_iter.bi_size, 0);
	ck_assert_uint_eq(iov_iter_count(&iter), 100);
	ck_assert_int_eq(pins(), pinned);
	bio_put(bio);
	free(buf);
}
END_TEST

/* covers B-16, B-18: extraction stops when the bio is full */
START_TEST(test_bio_full_stops)
{
	char *buf = td_buf(4 * PAGE_SIZE);
	struct iov_iter iter;
	struct bio *bio;

	iov_iter_ubuf(&iter, ITER_DEST, buf, 4 * PAGE_SIZE);
	bio = bio_alloc(NULL, 2, REQ_OP_READ, GFP_KERNEL);
	bio->bi_max_vecs = 2; /* the inline area has 4: use only 2 */
	ck_assert_int_eq(bio_iov_iter_get_pages(bio, &iter, 511), 0);
	check_bio_holds(bio, 2 * PAGE_SIZE, 2);
	ck_assert_uint_eq(iov_iter_count(&iter), 2 * PAGE_SIZE);
	bio_release_pages(bio, false);
	bio_put(bio);
	free(buf);
}
END_TEST

/* covers B-16: IOVEC, one segment per extraction, no merging */
START_TEST(test_iovec_segments)
{
	char *a = td_buf(2 * PAGE_SIZE), *b = td_buf(PAGE_SIZE);
	long pinned = pins();
	struct iovec iov[3] = {
		{ a, PAGE_SIZE },
		{ b + 512, 1024 },
		{ a + PAGE_SIZE, 512 },
	};
	struct iov_iter iter;
	struct bio *bio;

	iov_iter_init(&iter, ITER_DEST, iov, 3, PAGE_SIZE + 1536);
	bio = read_bio(&iter);
	ck_assert_int_eq(bio_iov_iter_get_pages(bio, &iter, 511), 0);
	check_bio_holds(bio, PAGE_SIZE + 1536, 3);
	check_bvec(bio, 0, a, PAGE_SIZE);
	check_bvec(bio, 1, b + 512, 1024);
	check_bvec(bio, 2, a + PAGE_SIZE, 512);
	ck_assert_int_eq(pins() - pinned, 3);
	ck_assert_uint_eq(iov_iter_count(&iter), 0);
	release_read_bio(bio, pinned);
	free(a);
	free(b);
}
END_TEST

/* covers B-16: a failure after some pages stops short, keeps what it got */
START_TEST(test_short_pin_stops)
{
	char *a = td_buf(PAGE_SIZE), *b = td_buf(PAGE_SIZE);
	long pinned = pins();
	struct iovec iov[2] = { { a, PAGE_SIZE }, { b, PAGE_SIZE } };
	struct iov_iter iter;
	struct bio *bio;

	iov_iter_init(&iter, ITER_DEST, iov, 2, 2 * PAGE_SIZE);
	bio = read_bio(&iter);
	sim_fault_short_pin_set(2, 0); /* the second extraction faults */
	ck_assert_int_eq(bio_iov_iter_get_pages(bio, &iter, 511), 0);
	sim_fault_short_pin_set(0, 0);
	check_bio_holds(bio, PAGE_SIZE, 1);
	ck_assert_uint_eq(iov_iter_count(&iter), PAGE_SIZE);
	ck_assert_int_eq(pins() - pinned, 1);
	bio_release_pages(bio, false);
	bio_put(bio);

	/* and a failure with nothing extracted is the error */
	iov_iter_init(&iter, ITER_DEST, iov, 2, 2 * PAGE_SIZE);
	bio = read_bio(&iter);
	sim_fault_short_pin_set(1, 0);
	ck_assert_int_eq(bio_iov_iter_get_pages(bio, &iter, 511), -EFAULT);
	sim_fault_short_pin_set(0, 0);
	ck_assert_uint_eq(bio->bi_vcnt, 0);
	ck_assert_int_eq(pins(), pinned);
	bio_put(bio);
	free(a);
	free(b);
}
END_TEST

/* covers I-04, I-12: KVEC takes the extraction path without pins */
START_TEST(test_kvec_no_pins)
{
	char *buf = td_buf(2 * PAGE_SIZE);
	long pinned = pins();
	struct kvec kv = { buf + 1024, PAGE_SIZE };
	struct iov_iter iter;
	struct bio *bio;

	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, PAGE_SIZE);
	bio = read_bio(&iter);
	ck_assert_int_eq(bio_iov_iter_get_pages(bio, &iter, 511), 0);
	check_bio_holds(bio, PAGE_SIZE, 2);
	check_bvec(bio, 0, buf + 1024, PAGE_SIZE - 1024);
	check_bvec(bio, 1, buf + PAGE_SIZE, 1024);
	ck_assert(!bio_flagged(bio, BIO_PAGE_PINNED));
	ck_assert(!bio_flagged(bio, BIO_CLONED));
	ck_assert_int_eq(pins(), pinned);
	bio_release_pages(bio, true); /* nothing to release */
	ck_assert_int_eq(pins(), pinned);
	bio_put(bio);
	free(buf);
}
END_TEST

/* covers B-15, B-28: the bio takes the iterator's bvec array as is */
START_TEST(test_bvec_nocopy)
{
	char *buf = td_buf(3 * PAGE_SIZE);
	long pinned = pins(), allocs;
	struct bio_vec bv[3], first;
	struct iov_iter iter;
	struct bio *bio;

	for (int i = 0; i < 3; i++)
		bvec_set_virt(&bv[i], buf + i * PAGE_SIZE, PAGE_SIZE);
	iov_iter_bvec(&iter, ITER_DEST, bv, 3, 3 * PAGE_SIZE);
	iov_iter_advance(&iter, 100); /* start inside the first bvec */
	bio = read_bio(&iter);
	ck_assert_uint_eq(bio->bi_max_vecs, 0);

	allocs = sim_alloc_total();
	/* a mask the size is not aligned to: not applied on this path */
	ck_assert_int_eq(bio_iov_iter_get_pages(bio, &iter, 511), 0);
	ck_assert_int_eq(sim_alloc_total(), allocs);

	ck_assert_ptr_eq(bio->bi_io_vec, bv);
	ck_assert_uint_eq(bio->bi_vcnt, 3);
	ck_assert_uint_eq(bio->bi_max_vecs, 0);
	ck_assert_uint_eq(bio->bi_iter.bi_idx, 0);
	ck_assert_uint_eq(bio->bi_iter.bi_bvec_done, 100);
	ck_assert_uint_eq(bio->bi_iter.bi_size, 3 * PAGE_SIZE - 100);
	ck_assert(bio_flagged(bio, BIO_CLONED));
	ck_assert(!bio_flagged(bio, BIO_PAGE_PINNED));
	ck_assert_int_eq(pins(), pinned);
	ck_assert_uint_eq(iov_iter_count(&iter), 0);
	ck_assert_int_eq(td_stat("bio_iov_bvec_nocopy"), 1);
	/* the first segment the bio yields starts at the iterator's offset */
	first = bio_iter_iovec(bio, bio->bi_iter);
	ck_assert_ptr_eq(bvec_virt(&first), buf + 100);
	ck_assert_uint_eq(first.bv_len, PAGE_SIZE - 100);
	bio_put(bio); /* leaves the caller's array alone */
	ck_assert_ptr_eq(bv[0].bv_page, virt_to_page(buf));
	free(buf);
}
END_TEST

/* covers B-14 */
START_TEST(test_cloned_bio_rejected)
{
	char *buf = td_buf(PAGE_SIZE);
	struct iov_iter iter;
	struct bio *bio;

	bio = ubuf_read_bio(&iter, buf, PAGE_SIZE);
	bio_set_flag(bio, BIO_CLONED);
	sim_test_expect_warnings(1);
	ck_assert_int_eq(bio_iov_iter_get_pages(bio, &iter, 511), -EIO);
	ck_assert_uint_eq(iov_iter_count(&iter), PAGE_SIZE);
	bio_put(bio);
	free(buf);
}
END_TEST

/* covers B-19: release unpins exactly, dirtying first when asked */
START_TEST(test_release_pages_dirty)
{
	char *buf = td_buf(2 * PAGE_SIZE);
	long pinned = pins(), dirtied = td_stat("pages_dirtied");
	struct iov_iter iter;
	struct bio *bio;

	bio = pinned_read_bio(&iter, buf, 2 * PAGE_SIZE, 0);
	ck_assert_int_eq(sim_page_pincount(virt_to_page(buf)), 1);
	bio_release_pages(bio, true);
	ck_assert_int_eq(td_stat("pages_dirtied") - dirtied, 2);
	ck_assert_int_eq(sim_page_pincount(virt_to_page(buf)), 0);
	ck_assert_int_eq(pins(), pinned);
	bio_put(bio);
	free(buf);
}
END_TEST

/* bio_add_page merges a contiguous range, refuses a full bio */
START_TEST(test_bio_add_page)
{
	char *buf = td_buf(3 * PAGE_SIZE), *other = td_buf(PAGE_SIZE);
	struct bio *bio = bio_alloc(NULL, 2, REQ_OP_WRITE, GFP_KERNEL);

	bio->bi_max_vecs = 2;
	ck_assert_int_eq(bio_add_page(bio, virt_to_page(buf), 512, 0), 512);
	ck_assert_int_eq(bio_add_page(bio, virt_to_page(buf), 512, 512), 512);
	ck_assert_uint_eq(bio->bi_vcnt, 1);
	ck_assert_uint_eq(bio->bi_io_vec[0].bv_len, 1024);
	ck_assert_int_eq(bio_add_page(bio, virt_to_page(other), 512, 0), 512);
	ck_assert_uint_eq(bio->bi_vcnt, 2);
	/* full: a third, non-contiguous segment does not fit */
	ck_assert_int_eq(bio_add_page(bio, virt_to_page(buf + 2 * PAGE_SIZE),
				      512, 0),
			 0);
	/* but one that continues the last bvec still merges */
	ck_assert(
		bio_add_folio(bio, page_folio(virt_to_page(other)), 512, 512));
	ck_assert_uint_eq(bio->bi_iter.bi_size, 2048);
	bio_put(bio);
	free(buf);
	free(other);
}
END_TEST

/* covers B-20, B-21: all pages still dirty, released at once */
START_TEST(test_check_pages_dirty_immediate)
{
	char *buf = td_buf(2 * PAGE_SIZE);
	long pinned = pins(), live = td_stat("bio_live");
	struct iov_iter iter;
	struct bio *bio;

	bio = pinned_read_bio(&iter, buf, 2 * PAGE_SIZE, 511);
	bio_set_pages_dirty(bio);
	ck_assert(folio_test_dirty(page_folio(virt_to_page(buf))));
	ck_assert(folio_test_dirty(page_folio(virt_to_page(buf + PAGE_SIZE))));
	bio_check_pages_dirty(bio);
	ck_assert_int_eq(td_stat("bio_dirty_deferred"), 0);
	ck_assert_int_eq(pins(), pinned);
	ck_assert_int_eq(td_stat("bio_live"), live);
	ck_assert_int_eq(sim_engine_pending(), 0);
	free(buf);
}
END_TEST

static void check_dirty(void *bio)
{
	bio_check_pages_dirty(bio);
}

/* covers B-21: a page cleaned meanwhile sends the bio to the worker */
START_TEST(test_check_pages_dirty_deferred)
{
	char *buf = td_buf(2 * PAGE_SIZE);
	long pinned = pins(), live = td_stat("bio_live");
	struct iov_iter iter;
	struct bio *bio;
	long dirtied;

	bio = pinned_read_bio(&iter, buf, 2 * PAGE_SIZE, 511);
	bio_set_pages_dirty(bio);
	/* writeback cleaned the second page while the read was running */
	sim_folio_clear_dirty(page_folio(virt_to_page(buf + PAGE_SIZE)));
	dirtied = td_stat("pages_dirtied");

	/* as an end_io would, in interrupt context */
	td_run_in(SIM_CTX_HARDIRQ, check_dirty, bio);
	ck_assert_int_eq(td_stat("bio_dirty_deferred"), 1);
	/* nothing released yet: the worker owns the bio */
	ck_assert_int_eq(pins() - pinned, 2);
	ck_assert_int_eq(td_stat("bio_live"), live + 1);
	ck_assert_int_eq(td_stat("work_outstanding"), 1);

	sim_engine_drain();
	ck_assert_int_eq(pins(), pinned);
	ck_assert_int_eq(td_stat("bio_live"), live);
	/* re-dirtied: only the cleaned page was clean */
	ck_assert_int_eq(td_stat("pages_dirtied") - dirtied, 1);
	free(buf);
}
END_TEST

/*
 * covers B-29 (newer trees), the four-argument bio_iov_iter_get_pages()
 * with a DMA mask: a buffer off the device's DMA alignment is refused with
 * -EINVAL before anything is pinned or added, the iterator untouched; a
 * finer mask (NVMe's 3) takes the same buffer as the three-argument form.
 */
START_TEST(test_dma_mask_misaligned)
{
	char *buf = td_buf(3 * PAGE_SIZE);
	long pinned = pins();
	struct iov_iter iter;
	struct bio *bio;

	bio = ubuf_read_bio(&iter, buf + 100, PAGE_SIZE);
	ck_assert_int_eq(bio_iov_iter_get_pages_dma(bio, &iter, 511, 511),
			 -EINVAL);
	check_bio_holds(bio, 0, 0);
	ck_assert_int_eq(pins(), pinned);
	ck_assert_uint_eq(iov_iter_count(&iter), PAGE_SIZE);
	ck_assert_int_eq(bio_iov_iter_get_pages_dma(bio, &iter, 3, 511), 0);
	ck_assert_uint_eq(bio->bi_iter.bi_size, PAGE_SIZE);
	bio_release_pages(bio, false);
	bio_put(bio);
	free(buf);
}
END_TEST

/*
 * The four-argument form refuses @iter with -EINVAL (DMA mask 511): the
 * bio empty and unpinned, @nr_pins pages pinned since @pinned_total and
 * let go, the iterator at the start of @head with @count bytes left.
 */
static void check_dma_refused(struct bio *bio, struct iov_iter *iter,
			      long pinned_total, long nr_pins,
			      const struct iovec *head, size_t count)
{
	ck_assert_int_eq(bio_iov_iter_get_pages_dma(bio, iter, 511, 511),
			 -EINVAL);
	ck_assert_uint_eq(bio->bi_vcnt, 0);
	ck_assert_uint_eq(bio->bi_iter.bi_size, 0);
	ck_assert(!bio_flagged(bio, BIO_PAGE_PINNED));
	ck_assert_int_eq(td_stat("pages_pin_total") - pinned_total, nr_pins);
	ck_assert_ptr_eq(iter_iov(iter), head);
	ck_assert_uint_eq(iter->iov_offset, 0);
	ck_assert_uint_eq(iov_iter_count(iter), count);
}

/*
 * covers B-29 (newer trees): the second iovec segment is the misaligned
 * one: what the first one pinned is released
 */
START_TEST(test_dma_mask_second_segment)
{
	char *buf = td_buf(3 * PAGE_SIZE);
	long pinned = pins();
	long pinned_total = td_stat("pages_pin_total");
	struct iovec iov[2] = {
		{ buf, 2048 },
		{ buf + PAGE_SIZE + 8, 2048 },
	};
	struct iov_iter iter;
	struct bio *bio;

	iov_iter_init(&iter, ITER_DEST, iov, 2, 4096);
	bio = read_bio(&iter);
	/*
	 * Only the first segment's page was ever pinned; the aligned first
	 * segment was taken, as the extraction leaves it.
	 */
	check_dma_refused(bio, &iter, pinned_total, 1, &iov[1], 2048);
	ck_assert_int_eq(pins(), pinned);
	bio_put(bio);
	free(buf);
}
END_TEST

/*
 * covers B-29, B-30 (newer trees): a segment whose start is on the DMA
 * mask but whose length is not is refused before any of it is pinned,
 * the iterator untouched; the three-argument form takes it (the split
 * refuses it later).
 */
START_TEST(test_dma_mask_segment_length)
{
	char *buf = td_buf(3 * PAGE_SIZE);
	long pinned_total = td_stat("pages_pin_total");
	struct iovec iov[2] = {
		{ buf, 2730 },
		{ buf + 2730, 1366 },
	};
	struct iov_iter iter;
	struct bio *bio;

	iov_iter_init(&iter, ITER_DEST, iov, 2, 4096);
	bio = read_bio(&iter);
	check_dma_refused(bio, &iter, pinned_total, 0, &iov[0], 4096);

	ck_assert_int_eq(bio_iov_iter_get_pages(bio, &iter, 511), 0);
	ck_assert_uint_eq(bio->bi_iter.bi_size, 4096);
	bio_release_pages(bio, false);
	bio_put(bio);
	free(buf);
}
END_TEST

/*
 * covers B-29, I-07 (newer trees): a refused bio leaves the iterator past
 * the segments it had taken, and iomap_dio_bio_iter() re-expands the
 * count by what its earlier bios did not submit: when one of them was
 * submitted, the count is then longer than the segments left.  The next
 * bio must be refused at the misaligned segment before anything of it is
 * extracted, as iov_iter_extract_bvecs() does, not walk past the last
 * segment (first_iovec_segment()'s BUG).
 */
START_TEST(test_dma_mask_checked_before_extraction)
{
	char *buf = td_buf(3 * PAGE_SIZE);
	long pinned_total;
	struct iovec iov[2] = {
		{ buf, 512 },
		{ buf + PAGE_SIZE + 8, 512 },
	};
	struct iov_iter iter;
	struct bio *bio;

	iov_iter_init(&iter, ITER_DEST, iov, 2, 1024);
	iov_iter_advance(&iter, 512);
	iov_iter_reexpand(&iter, 1024);
	pinned_total = td_stat("pages_pin_total");
	/*
	 * Not sized by bio_iov_vecs_to_alloc(): iov_npages() trusts the
	 * count and would read past the iovec array (as the kernel's does).
	 */
	bio = bio_alloc(NULL, 2, REQ_OP_READ, GFP_KERNEL);
	check_dma_refused(bio, &iter, pinned_total, 0, &iov[1], 1024);
	bio_put(bio);
	free(buf);
}
END_TEST

/*
 * covers B-15, B-29 (newer trees): a no-copy bvec iterator is checked
 * where it starts only
 */
START_TEST(test_dma_mask_bvec)
{
	char *buf = td_buf(2 * PAGE_SIZE);
	struct bio_vec bv, bv2[2];
	struct iov_iter iter;
	struct bio *bio;

	bvec_set_virt(&bv, buf + 8, 1024);
	iov_iter_bvec(&iter, ITER_DEST, &bv, 1, 1024);
	bio = read_bio(&iter);
	ck_assert_int_eq(bio_iov_iter_get_pages_dma(bio, &iter, 511, 511),
			 -EINVAL);
	ck_assert_uint_eq(iov_iter_count(&iter), 1024);
	ck_assert_int_eq(bio_iov_iter_get_pages_dma(bio, &iter, 7, 511), 0);
	ck_assert(bio_flagged(bio, BIO_CLONED));
	ck_assert_uint_eq(bio->bi_iter.bi_size, 1024);
	bio_put(bio);

	/* a later vector off the mask is not looked at */
	bvec_set_virt(&bv2[0], buf, 1024);
	bvec_set_virt(&bv2[1], buf + PAGE_SIZE + 8, 512);
	iov_iter_bvec(&iter, ITER_DEST, bv2, 2, 1536);
	bio = read_bio(&iter);
	ck_assert_int_eq(bio_iov_iter_get_pages_dma(bio, &iter, 511, 511), 0);
	ck_assert_uint_eq(bio->bi_iter.bi_size, 1536);
	bio_put(bio);
	free(buf);
}
END_TEST

/*
 * covers G-32: a bounced write whose pages run out part way keeps whole
 * units of the alignment the caller passed (the file system block of an
 * IOMAP_DIO_FSBLOCK_ALIGNED dio) and gives the rest back to the iterator;
 * less than one unit is -ENOMEM with the iterator untouched.
 */
START_TEST(test_bounce_write_whole_units)
{
	char *buf = td_buf(4 * PAGE_SIZE);
	struct kvec kv = { .iov_base = buf, .iov_len = 4 * PAGE_SIZE };
	struct iov_iter iter;
	struct bio *bio;
	unsigned int nth;

	for (nth = 2; nth <= 4; nth += 2) {
		struct sim_fault_alloc f = {
			.nth = nth,
			.site = "bio_iov_iter_bounce_write",
		};
		int ret;

		iov_iter_kvec(&iter, ITER_SOURCE, &kv, 1, 4 * PAGE_SIZE);
		bio = bio_alloc(NULL, 4, REQ_OP_WRITE, GFP_KERNEL);
		sim_fault_alloc_set(&f);
		sim_fault_arm(true);
		/* one page, or three, before the allocation that fails */
		ret = bio_iov_iter_bounce_aligned(bio, &iter, SIZE_MAX,
						  2 * PAGE_SIZE);
		sim_fault_arm(false);
		ck_assert_uint_eq(sim_fault_alloc_injected(), 1);
		if (nth == 2) {
			ck_assert_int_eq(ret, -ENOMEM);
			check_bio_holds(bio, 0, 0);
			ck_assert_uint_eq(iov_iter_count(&iter), 4 * PAGE_SIZE);
		} else {
			ck_assert_int_eq(ret, 0);
			check_bio_holds(bio, 2 * PAGE_SIZE, 2);
			ck_assert_uint_eq(iov_iter_count(&iter), 2 * PAGE_SIZE);
			bio_iov_iter_unbounce(bio, false, false);
		}
		bio_put(bio);
	}
	sim_fault_alloc_set(&(struct sim_fault_alloc){ 0 });
	free(buf);
}
END_TEST

static Suite *bio_pages_suite(void)
{
	return sim_suite("block_bio_pages", sim_tcase("pages"),
			 test_vecs_to_alloc, test_ubuf_aligned,
			 test_ubuf_misaligned_start, test_align_down_length,
			 test_align_down_efault, test_bio_full_stops,
			 test_iovec_segments, test_short_pin_stops,
			 test_kvec_no_pins, test_bvec_nocopy,
			 test_cloned_bio_rejected, test_release_pages_dirty,
			 test_bio_add_page, test_check_pages_dirty_immediate,
			 test_check_pages_dirty_deferred,
			 test_dma_mask_misaligned, test_dma_mask_second_segment,
			 test_dma_mask_segment_length,
			 test_dma_mask_checked_before_extraction,
			 test_dma_mask_bvec, test_bounce_write_whole_units);
}

SIM_TEST_MAIN(bio_pages_suite)
