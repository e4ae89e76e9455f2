// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bounce buffering an iov_iter into a bio (block/bio.c's
 * bio_iov_iter_bounce() / bio_iov_iter_unbounce(), with the inline
 * bio_iov_bounce_nr_vecs() of include/linux/bio.h): direct I/O for devices
 * that need the data stable while in flight (checksums, parity), used by
 * iomap under IOMAP_DIO_BOUNCE.
 *
 * Writes copy the caller's data into freshly allocated pages.  Reads are
 * the tricky side: the copy back happens at completion, without the
 * iterator, so the bio's first vector is the bounce buffer the device
 * reads into, and vectors 1..bi_vcnt record (and pin) the caller's
 * buffer pieces for the copy at bio_iov_iter_unbounce() time.
 *
 * Added for iomap's IOMAP_DIO_BOUNCE as a separate file; the declarations
 * live in iomap/internal.h until <linux/bio.h> carries them.
 */
#include <linux/bio.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include "blk.h"

#define BOUNCE_MAX (1U << 20)

static unsigned int order_for(size_t size)
{
	unsigned int order = 0;

	while ((PAGE_SIZE << order) < size)
		order++;
	return order;
}

unsigned short bio_iov_bounce_nr_vecs(struct iov_iter *iter, blk_opf_t op)
{
	/*
	 * Bvec iterators are bounced too (no reuse of the caller's array),
	 * and a read needs one more vector for the bounce buffer itself.
	 */
	if (op_is_write(op))
		return iov_iter_npages(iter, BIO_MAX_VECS);
	return iov_iter_npages(iter, BIO_MAX_VECS - 1) + 1;
}

/*
 * Write side: bounce pages are whole pages of the bio's own, except the
 * zero folio.  iomap_dio_zero() bios of a BOUNCE dio reach
 * bio_iov_iter_unbounce() through the same end_io, carrying the shared
 * zero folio, which must not be freed (the kernel's bio_free_folios()
 * skips it the same way).
 */
static void bio_free_bounce_pages(struct bio *bio)
{
	unsigned int i;

	for (i = 0; i < bio->bi_vcnt; i++) {
		struct page *page = bio->bi_io_vec[i].bv_page;

		if (!is_zero_folio(page_folio(page)))
			__free_pages(page, 0);
	}
}

/*
 * Give back the last @trim bytes of a bounced write: the pages past the
 * aligned length go, the iterator steps back over them.
 */
static void bounce_write_trim(struct bio *bio, struct iov_iter *iter,
			      size_t trim)
{
	size_t left = trim;

	while (left) {
		struct bio_vec *bv = &bio->bi_io_vec[bio->bi_vcnt - 1];
		size_t n = min_t(size_t, left, bv->bv_len);

		bv->bv_len -= n;
		left -= n;
		if (!bv->bv_len) {
			__free_pages(bv->bv_page, 0);
			bio->bi_vcnt--;
		}
	}
	bio->bi_iter.bi_size -= trim;
	iov_iter_revert(iter, trim);
}

static int bio_iov_iter_bounce_write(struct bio *bio, struct iov_iter *iter,
				     size_t maxlen, unsigned int align)
{
	size_t total = min(iov_iter_count(iter), maxlen);

	if (WARN_ON_ONCE(bio_flagged(bio, BIO_CLONED)))
		return -EINVAL;
	if (WARN_ON_ONCE(bio->bi_iter.bi_size))
		return -EINVAL;
	if (WARN_ON_ONCE(bio->bi_vcnt >= bio->bi_max_vecs))
		return -EINVAL;

	do {
		size_t this_len = min_t(size_t, total, PAGE_SIZE);
		struct page *page;

		if (bio->bi_iter.bi_size > UINT_MAX - this_len)
			break;
		page = alloc_page(GFP_KERNEL);
		if (!page)
			break;
		__bio_add_page(bio, page, this_len, 0);
		if (copy_from_iter(page_address(page), this_len, iter) !=
		    this_len) {
			bio_free_bounce_pages(bio);
			return -EFAULT;
		}
		total -= this_len;
	} while (total && bio->bi_vcnt < bio->bi_max_vecs);

	/* a page that could not be had, or no vector left: whole units only */
	bounce_write_trim(bio, iter, bio->bi_iter.bi_size & (align - 1));
	if (!bio->bi_iter.bi_size)
		return -ENOMEM;
	return 0;
}

static void bio_unpin_user_vecs(struct bio *bio, bool mark_dirty)
{
	unsigned int i;

	for (i = 0; i < bio->bi_vcnt; i++) {
		struct page *page = bio->bi_io_vec[1 + i].bv_page;

		if (mark_dirty)
			set_page_dirty_lock(page);
		unpin_user_page(page);
	}
}

/*
 * Unpin the last @trim bytes of the caller's pieces of a bounced read and
 * step the iterator back over them.
 */
static void bounce_read_trim(struct bio *bio, struct iov_iter *iter,
			     size_t trim, bool pin)
{
	size_t left = trim;

	while (left) {
		struct bio_vec *bv = &bio->bi_io_vec[bio->bi_vcnt];
		size_t n = min_t(size_t, left, bv->bv_len);

		bv->bv_len -= n;
		left -= n;
		if (!bv->bv_len) {
			if (pin)
				unpin_user_page(bv->bv_page);
			bio->bi_vcnt--;
		}
	}
	bio->bi_iter.bi_size -= trim;
	iov_iter_revert(iter, trim);
}

static int bio_iov_iter_bounce_read(struct bio *bio, struct iov_iter *iter,
				    size_t maxlen, unsigned int align)
{
	size_t len = min_t(size_t, min(iov_iter_count(iter), maxlen),
			   BOUNCE_MAX);
	bool pin = iov_iter_extract_will_pin(iter);
	struct page *buf;

	if (WARN_ON_ONCE(bio->bi_max_vecs < 2))
		return -EINVAL;

	do {
		struct page **pages = NULL;
		size_t offset;
		ssize_t ret;
		unsigned int room = bio->bi_max_vecs - 1 - bio->bi_vcnt;
		size_t left;
		int k;

		ret = iov_iter_extract_pages(iter, &pages, len, room, 0,
					     &offset);
		if (ret <= 0) {
			kvfree(pages);
			if (!bio->bi_vcnt)
				return ret ? ret : -EFAULT;
			break;
		}
		/* one vector per page piece, after the bounce vector */
		left = ret;
		for (k = 0; left; k++) {
			size_t n = min_t(size_t, left, PAGE_SIZE - offset);

			bvec_set_page(&bio->bi_io_vec[1 + bio->bi_vcnt],
				      pages[k], n, offset);
			bio->bi_vcnt++;
			left -= n;
			offset = 0;
		}
		kvfree(pages);
		len -= ret;
		bio->bi_iter.bi_size += ret;
	} while (len && bio->bi_vcnt < bio->bi_max_vecs - 1);

	/* short of the caller's pieces: whole units only */
	bounce_read_trim(bio, iter, bio->bi_iter.bi_size & (align - 1), pin);
	if (!bio->bi_iter.bi_size)
		return -EFAULT;

	/*
	 * The kernel allocates the bounce buffer first and sizes it
	 * greedily; allocating it once the size is known gives the same
	 * buffer and lets completion free it by its length.
	 */
	buf = alloc_pages(GFP_KERNEL, order_for(bio->bi_iter.bi_size));
	if (!buf) {
		iov_iter_revert(iter, bio->bi_iter.bi_size);
		if (pin)
			bio_unpin_user_vecs(bio, false);
		bio->bi_vcnt = 0;
		bio->bi_iter.bi_size = 0;
		return -ENOMEM;
	}

	/*
	 * The device sees only vector 0 (bi_iter covers it alone); bi_vcnt
	 * counts the caller's pieces, which only the submitter and
	 * bio_iov_iter_unbounce() look at.
	 */
	bvec_set_page(&bio->bi_io_vec[0], buf, bio->bi_iter.bi_size, 0);
	if (pin)
		bio_set_flag(bio, BIO_PAGE_PINNED);
	return 0;
}

int bio_iov_iter_bounce_aligned(struct bio *bio, struct iov_iter *iter,
				size_t maxlen, unsigned int align)
{
	int ret;

	if (WARN_ON_ONCE(!is_power_of_2(align)))
		return -EINVAL;
	maxlen = round_down(maxlen, align);
	if (op_is_write(bio_op(bio)))
		ret = bio_iov_iter_bounce_write(bio, iter, maxlen, align);
	else
		ret = bio_iov_iter_bounce_read(bio, iter, maxlen, align);
	if (ret)
		sim_stat_inc(&bio_stat_build_failed);
	return ret;
}

int bio_iov_iter_bounce(struct bio *bio, struct iov_iter *iter,
			size_t maxlen)
{
	return bio_iov_iter_bounce_aligned(bio, iter, maxlen, 1);
}

static void bio_iov_iter_unbounce_read(struct bio *bio, bool is_error,
				       bool mark_dirty)
{
	struct bio_vec *bounce = &bio->bi_io_vec[0];
	unsigned int len = bounce->bv_len;

	if (likely(!is_error)) {
		struct iov_iter to;

		iov_iter_bvec(&to, ITER_DEST, bio->bi_io_vec + 1, bio->bi_vcnt,
			      len);
		/* the destination pages are pinned: the copy cannot fault */
		WARN_ON_ONCE(copy_to_iter(bvec_virt(bounce), len, &to) != len);
	} else {
		/* nothing was copied, nothing to mark dirty */
		mark_dirty = false;
	}

	if (bio_flagged(bio, BIO_PAGE_PINNED))
		bio_unpin_user_vecs(bio, mark_dirty);
	__free_pages(bounce->bv_page, order_for(len));
}

void bio_iov_iter_unbounce(struct bio *bio, bool is_error, bool mark_dirty)
{
	if (op_is_write(bio_op(bio)))
		bio_free_bounce_pages(bio);
	else
		bio_iov_iter_unbounce_read(bio, is_error, mark_dirty);
}
