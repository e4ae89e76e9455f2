// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pages in bios (block/bio.c in the kernel): bio_add_page() and friends,
 * bio_iov_iter_get_pages() with the no-copy path for bvec iterators
 * (B-13..B-19, B-28), releasing pinned pages, and the dirty-page
 * helpers direct-I/O reads use (B-20, B-21).
 *
 * Folios are single pages in the simulator (<linux/mm.h>), so the loops
 * that walk folios walk pages.
 */
#include <string.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/spinlock.h>
#include <linux/uio.h>
#include <linux/workqueue.h>
#include <sim/stats.h>
#include "blk.h"

DEFINE_SIM_STAT(bio_stat_nocopy, "bio_iov_bvec_nocopy");
DEFINE_SIM_STAT(bio_stat_dirty_deferred, "bio_dirty_deferred");
/*
 * bio_iov_iter_get_pages() and bio_iov_iter_bounce() calls that failed:
 * a bio that could not be built (no kernel counter)
 */
DEFINE_SIM_STAT(bio_stat_build_failed, "bio_iov_build_failed");

/**
 * bio_full - check if the bio is full
 * @bio:	bio to check
 * @len:	length of one segment to be added
 *
 * Return true if @bio is full and one segment with @len bytes can't be
 * added to the bio, otherwise return false (B-18).
 */
static inline bool bio_full(struct bio *bio, unsigned int len)
{
	if (bio->bi_vcnt >= bio->bi_max_vecs)
		return true;
	if (bio->bi_iter.bi_size > UINT_MAX - len)
		return true;
	return false;
}

static bool bvec_try_merge_page(struct bio_vec *bv, struct page *page,
				unsigned int len, unsigned int off)
{
	size_t bv_end = bv->bv_offset + bv->bv_len;
	phys_addr_t vec_end_addr = bvec_phys(bv) - bv->bv_offset + bv_end - 1;
	phys_addr_t page_addr = (phys_addr_t)(unsigned long)page_address(page);

	if (vec_end_addr + 1 != page_addr + off)
		return false;

	/*
	 * Crossing into another page: it must be the page that follows in
	 * memory (nth_page), as in the kernel's mem_map check.
	 */
	if ((vec_end_addr & PAGE_MASK) != ((page_addr + off) & PAGE_MASK)) {
		if (nth_page(bv->bv_page, bv_end / PAGE_SIZE) !=
		    nth_page(page, off / PAGE_SIZE))
			return false;
	}

	bv->bv_len += len;
	return true;
}

/**
 * __bio_add_page - add page(s) to a bio in a new segment
 * @bio: destination bio
 * @page: start page to add
 * @len: length of the data to add, may cross pages
 * @off: offset of the data relative to @page, may cross pages
 *
 * Add the data at @page + @off to @bio as a new bvec.  The caller must
 * ensure that @bio has space for another bvec.
 */
void __bio_add_page(struct bio *bio, struct page *page, unsigned int len,
		    unsigned int off)
{
	WARN_ON_ONCE(bio_flagged(bio, BIO_CLONED));
	WARN_ON_ONCE(bio_full(bio, len));

	bvec_set_page(&bio->bi_io_vec[bio->bi_vcnt], page, len, off);
	bio->bi_iter.bi_size += len;
	bio->bi_vcnt++;
}

/**
 * bio_add_page - attempt to add page(s) to bio
 * @bio: destination bio
 * @page: start page to add
 * @len: vec entry length, may cross pages
 * @offset: vec entry offset relative to @page, may cross pages
 *
 * Attempt to add page(s) to the bio_vec maplist.  This will only fail if
 * either bio->bi_vcnt == bio->bi_max_vecs or it's a cloned bio.
 */
int bio_add_page(struct bio *bio, struct page *page, unsigned int len,
		 unsigned int offset)
{
	if (WARN_ON_ONCE(bio_flagged(bio, BIO_CLONED)))
		return 0;
	if (bio->bi_iter.bi_size > UINT_MAX - len)
		return 0;

	if (bio->bi_vcnt > 0 &&
	    bvec_try_merge_page(&bio->bi_io_vec[bio->bi_vcnt - 1], page, len,
				offset)) {
		bio->bi_iter.bi_size += len;
		return len;
	}

	if (bio->bi_vcnt >= bio->bi_max_vecs)
		return 0;
	__bio_add_page(bio, page, len, offset);
	return len;
}

void bio_add_folio_nofail(struct bio *bio, struct folio *folio, size_t len,
			  size_t off)
{
	WARN_ON_ONCE(len > UINT_MAX);
	WARN_ON_ONCE(off > UINT_MAX);
	__bio_add_page(bio, folio_page(folio, 0), len, off);
}

/**
 * bio_add_folio - Attempt to add part of a folio to a bio.
 * @bio: BIO to add to.
 * @folio: Folio to add.
 * @len: How many bytes from the folio to add.
 * @off: First byte in this folio to add.
 *
 * Return: Whether the addition was successful.
 */
bool bio_add_folio(struct bio *bio, struct folio *folio, size_t len,
		   size_t off)
{
	if (len > UINT_MAX || off > UINT_MAX)
		return false;
	return bio_add_page(bio, folio_page(folio, 0), len, off) > 0;
}

/* Add kernel memory at @vaddr (which the caller made sure fits). */
void bio_add_virt_nofail(struct bio *bio, void *vaddr, unsigned int len)
{
	__bio_add_page(bio, virt_to_page(vaddr), len, offset_in_page(vaddr));
}

void __bio_release_pages(struct bio *bio, bool mark_dirty)
{
	struct folio_iter fi;

	if (!bio_flagged(bio, BIO_PAGE_PINNED)) {
		/* BIO_PAGE_REFFED: a reference per page added */
		struct bvec_iter_all iter_all;
		struct bio_vec *bv;

		bio_for_each_segment_all(bv, bio, iter_all) {
			if (mark_dirty)
				set_page_dirty_lock(bv->bv_page);
			put_page(bv->bv_page);
		}
		return;
	}
	bio_for_each_folio_all(fi, bio) {
		size_t nr_pages;

		if (mark_dirty) {
			folio_lock(fi.folio);
			folio_mark_dirty(fi.folio);
			folio_unlock(fi.folio);
		}
		nr_pages = (fi.offset + fi.length - 1) / PAGE_SIZE -
			   fi.offset / PAGE_SIZE + 1;
		unpin_user_folio(fi.folio, nr_pages);
	}
}

/*
 * The no-copy path (B-15, B-28): the bio takes the iterator's bvec
 * array as its own table instead of copying it.  bi_max_vecs stays 0, so
 * bio_free() leaves the array alone, and BIO_CLONED tells everyone the
 * bio does not own its data: nothing is pinned, and the owner of the
 * array keeps it and its pages alive until the I/O is done.
 */
void bio_iov_bvec_set(struct bio *bio, const struct iov_iter *iter)
{
	WARN_ON_ONCE(bio->bi_max_vecs);

	bio->bi_vcnt = iter->nr_segs;
	bio->bi_io_vec = (struct bio_vec *)iter->bvec;
	bio->bi_iter.bi_bvec_done = iter->iov_offset;
	bio->bi_iter.bi_size = iov_iter_count(iter);
	bio_set_flag(bio, BIO_CLONED);
	sim_stat_inc(&bio_stat_nocopy);
}

/*
 * One contiguous run of a folio: always a single page here, since folios
 * are pages (the kernel's get_contig_folio_len()).
 */
static unsigned int get_contig_folio_len(struct page **pages,
					 unsigned int *num_pages, size_t left,
					 size_t offset)
{
	struct folio *folio = page_folio(pages[0]);
	size_t contig_sz = min_t(size_t, PAGE_SIZE - offset, left);
	size_t folio_offset, len;
	unsigned int max_pages, i;

	folio_offset = offset;
	len = min(folio_size(folio) - folio_offset, left);

	/*
	 * We might COW a single page in the middle of a large folio, so we
	 * have to check that all pages belong to the same folio.
	 */
	left -= contig_sz;
	max_pages = DIV_ROUND_UP(offset + len, PAGE_SIZE);
	for (i = 1; i < max_pages; i++) {
		size_t next = min_t(size_t, PAGE_SIZE, left);

		if (page_folio(pages[i]) != folio ||
		    pages[i] != nth_page(pages[i - 1], 1))
			break;
		contig_sz += next;
		left -= next;
	}

	*num_pages = i;
	return contig_sz;
}

#define PAGE_PTRS_PER_BVEC (sizeof(struct bio_vec) / sizeof(struct page *))

/*
 * Where the next extraction starts and how long its segment is, against a
 * DMA mask: the test at the top of newer trees' iov_iter_extract_bvecs(),
 * "(start | iter_iov_len(iter)) & mem_align_mask".  For an IOVEC or KVEC
 * that is the head segment's address and its whole remaining length (not
 * capped by count), an empty head segment included, as iter_iov_addr()
 * and iter_iov_len() give them.  For a UBUF the kernel's iter_iov_len()
 * is count - iov_offset; count is used here, which is the same modulo
 * the mask whenever the start passed it (both the buffer and its current
 * position are then multiples of mask + 1, so iov_offset is too).
 */
static bool iov_iter_head_aligned(const struct iov_iter *iter,
				  unsigned int mem_align_mask)
{
	unsigned long start;
	size_t len;

	if (iter_is_ubuf(iter)) {
		start = (unsigned long)iter->ubuf + iter->iov_offset;
		len = iter->count;
	} else if (iov_iter_is_kvec(iter)) {
		start = (unsigned long)iter->kvec->iov_base + iter->iov_offset;
		len = iter->kvec->iov_len - iter->iov_offset;
	} else {
		start = (unsigned long)iter_iov(iter)->iov_base +
			iter->iov_offset;
		len = iter_iov(iter)->iov_len - iter->iov_offset;
	}
	return !((start | len) & mem_align_mask);
}

/*
 * __bio_iov_iter_get_pages - pin user or kernel pages and add them to a bio
 *
 * Extracts pages from @iter and appends them to @bio's bvec array, one
 * bvec per contiguous folio run (no merging with the previous bvec).
 * For a multi-segment @iter, this adds pages from the next non-empty
 * segment only.  Returns the bytes added or a negative errno; -EINVAL,
 * with nothing extracted, when the segment is off @mem_align_mask (0 for
 * none).  (Newer trees moved this loop to lib/iov_iter.c as
 * iov_iter_extract_bvecs(), which also holds that check.)
 */
static ssize_t __bio_iov_iter_get_pages(struct bio *bio,
					struct iov_iter *iter,
					unsigned int mem_align_mask)
{
	unsigned short entries_left = bio->bi_max_vecs - bio->bi_vcnt;
	unsigned short nr_pages;
	struct page **pages;
	unsigned int i = 0;
	size_t left, offset, len;
	ssize_t size;

	/*
	 * Put the page array at the top of the unused part of the bvec
	 * table, so filling bvecs from the bottom never overwrites a page
	 * pointer before it is read: no allocation on this path.
	 */
	if (mem_align_mask && !iov_iter_head_aligned(iter, mem_align_mask))
		return -EINVAL;

	BUILD_BUG_ON(PAGE_PTRS_PER_BVEC < 2);
	pages = (struct page **)(bio->bi_io_vec + bio->bi_vcnt) +
		entries_left * (PAGE_PTRS_PER_BVEC - 1);

	size = iov_iter_extract_pages(iter, &pages,
				      UINT_MAX - bio->bi_iter.bi_size,
				      entries_left, 0, &offset);
	if (unlikely(size <= 0))
		return size ? size : -EFAULT;

	nr_pages = DIV_ROUND_UP(offset + size, PAGE_SIZE);
	for (left = size; left > 0; left -= len) {
		unsigned int nr_to_add;

		len = get_contig_folio_len(&pages[i], &nr_to_add, left, offset);
		__bio_add_page(bio, pages[i], len, offset);
		i += nr_to_add;
		offset = 0;
	}

	iov_iter_revert(iter, left);
	while (i < nr_pages)
		bio_release_page(bio, pages[i++]);
	return size - left;
}

/*
 * Aligns the bio size to the len_align_mask, releasing excessive bio vecs
 * that __bio_iov_iter_get_pages may have inserted, and reverts the
 * trimmed length for the next iteration (B-17).
 */
static int bio_iov_iter_align_down(struct bio *bio, struct iov_iter *iter,
				   unsigned int len_align_mask)
{
	size_t nbytes = bio->bi_iter.bi_size & len_align_mask;

	if (!nbytes)
		return 0;

	iov_iter_revert(iter, nbytes);
	bio->bi_iter.bi_size -= nbytes;
	do {
		struct bio_vec *bv = &bio->bi_io_vec[bio->bi_vcnt - 1];

		if (nbytes < bv->bv_len) {
			bv->bv_len -= nbytes;
			break;
		}

		bio_release_page(bio, bv->bv_page);
		bio->bi_vcnt--;
		nbytes -= bv->bv_len;
	} while (nbytes);

	if (!bio->bi_vcnt)
		return -EFAULT;
	return 0;
}

/**
 * bio_iov_iter_get_pages - add user or kernel pages to a bio
 * @bio: bio to add pages to
 * @iter: iov iterator describing the region to be added
 * @len_align_mask: the mask to align the total size to, 0 for any length
 *
 * This takes either an iterator pointing to user memory, or one pointing
 * to kernel pages (BVEC iterator).  If we're adding user pages, we pin
 * them and map them into the kernel.  On IO completion, the caller should
 * put those pages.  For bvec based iterators bio_iov_iter_get_pages()
 * uses the provided bvecs rather than copying them.  Hence anyone issuing
 * kiocb based IO needs to ensure the bvecs and pages stay referenced
 * until the submitted I/O is completed by a call to ->ki_complete() or
 * returns with an error other than -EIOCBQUEUED.
 *
 * The function tries, but does not guarantee, to pin as many pages as
 * fit into the bio, or are requested in @iter, whatever is smaller.  If
 * MM encounters an error pinning the requested pages, it stops.  Error
 * is returned only if 0 pages could be pinned.
 */
int bio_iov_iter_get_pages(struct bio *bio, struct iov_iter *iter,
			   unsigned int len_align_mask)
{
	return bio_iov_iter_get_pages_dma(bio, iter, 0, len_align_mask);
}

/**
 * bio_iov_iter_get_pages_dma - bio_iov_iter_get_pages() of newer trees
 * @bio: bio to add pages to
 * @iter: iov iterator describing the region to be added
 * @dma_mask: the device's DMA alignment mask (bdev_dma_alignment()), 0 for
 *	no requirement
 * @len_align_mask: the mask to align the total size to, 0 for any length
 *
 * The four-argument bio_iov_iter_get_pages(bio, iter, mem_align_mask,
 * len_align_mask) that newer trees' fs/iomap/direct-io.c calls (kernel-
 * source mode maps the call here; "block: validate user space vectors
 * during extraction"): memory the device cannot DMA to or from is refused
 * while the bio is built rather than when it is split (B-29).
 *  - A no-copy BVEC iterator: only where it starts is checked (its later
 *    vectors are the caller's business), -EINVAL if off the mask.  (The
 *    kernel sets the bio up as a clone first; the caller puts it either
 *    way.)
 *  - Otherwise each segment is checked before any of it is extracted:
 *    its start and its remaining length (iov_iter_head_aligned()).  One
 *    off the mask fails the whole bio with -EINVAL: the pages earlier
 *    segments put in the bio are released and the bio emptied, and the
 *    iterator stays past those segments (the kernel does not revert it)
 *    and at the start of the refused one, which nothing has touched.
 */
static int __bio_iov_iter_get_pages_dma(struct bio *bio,
					struct iov_iter *iter,
					unsigned int dma_mask,
					unsigned int len_align_mask)
{
	if (WARN_ON_ONCE(bio_flagged(bio, BIO_CLONED)))
		return -EIO;

	if (iov_iter_is_bvec(iter)) {
		if ((iter->bvec->bv_offset + iter->iov_offset) & dma_mask)
			return -EINVAL;
		bio_iov_bvec_set(bio, iter);
		iov_iter_advance(iter, bio->bi_iter.bi_size);
		return 0;
	}

	if (iov_iter_extract_will_pin(iter))
		bio_set_flag(bio, BIO_PAGE_PINNED);

	do {
		ssize_t ret = __bio_iov_iter_get_pages(bio, iter, dma_mask);

		if (ret <= 0) {
			if (ret == -EINVAL) {
				bio_release_pages(bio, false);
				bio_clear_flag(bio, BIO_PAGE_PINNED);
				bio->bi_iter.bi_size = 0;
				bio->bi_vcnt = 0;
			}
			if (!bio->bi_vcnt)
				return ret;
			break;
		}
	} while (iov_iter_count(iter) && !bio_full(bio, 0));

	return bio_iov_iter_align_down(bio, iter, len_align_mask);
}

int bio_iov_iter_get_pages_dma(struct bio *bio, struct iov_iter *iter,
			       unsigned int dma_mask,
			       unsigned int len_align_mask)
{
	int ret = __bio_iov_iter_get_pages_dma(bio, iter, dma_mask,
					       len_align_mask);

	if (ret)
		sim_stat_inc(&bio_stat_build_failed);
	return ret;
}

/*
 * bio_set_pages_dirty() and bio_check_pages_dirty() are support functions
 * for performing direct-IO in BIOs.
 *
 * The problem is that we cannot run folio_mark_dirty() from interrupt
 * context because the required locks are not interrupt-safe.  So what we
 * can do is to mark the pages dirty _before_ performing IO.  And in
 * interrupt context, check that the pages are still dirty.  If so, fine.
 * If not, redirty them in process context.
 */

/*
 * bio_set_pages_dirty() will mark all the bio's pages as dirty (B-20).
 */
void bio_set_pages_dirty(struct bio *bio)
{
	struct folio_iter fi;

	bio_for_each_folio_all(fi, bio) {
		folio_lock(fi.folio);
		folio_mark_dirty(fi.folio);
		folio_unlock(fi.folio);
	}
}

/*
 * bio_check_pages_dirty() will check that all the BIO's pages are still
 * dirty.  If they are, then fine.  If, however, some pages are clean then
 * they must have been written out during the direct-IO read.  So we take
 * another ref on the BIO and re-dirty the pages in process context.
 *
 * It is expected that bio_check_pages_dirty() will wholly own the BIO
 * from here on.  It will unpin each page and will run one bio_put()
 * against the BIO (B-21).
 */
static void bio_dirty_fn(struct work_struct *work);

static DECLARE_WORK(bio_dirty_work, bio_dirty_fn);
static DEFINE_SPINLOCK(bio_dirty_lock);
static struct bio *bio_dirty_list;

/*
 * This runs in process context
 */
static void bio_dirty_fn(struct work_struct *work)
{
	struct bio *bio, *next;

	spin_lock_irq(&bio_dirty_lock);
	next = bio_dirty_list;
	bio_dirty_list = NULL;
	spin_unlock_irq(&bio_dirty_lock);

	while ((bio = next) != NULL) {
		next = bio->bi_private;

		bio_release_pages(bio, true);
		bio_put(bio);
	}
}

void bio_check_pages_dirty(struct bio *bio)
{
	struct folio_iter fi;
	unsigned long flags;

	bio_for_each_folio_all(fi, bio) {
		if (!folio_test_dirty(fi.folio))
			goto defer;
	}

	bio_release_pages(bio, false);
	bio_put(bio);
	return;
defer:
	sim_stat_inc(&bio_stat_dirty_deferred);
	spin_lock_irqsave(&bio_dirty_lock, flags);
	bio->bi_private = bio_dirty_list;
	bio_dirty_list = bio;
	spin_unlock_irqrestore(&bio_dirty_lock, flags);
	schedule_work(&bio_dirty_work);
}
