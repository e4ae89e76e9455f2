// SPDX-License-Identifier: GPL-2.0-only
/*
 * struct iov_iter runtime, after lib/iov_iter.c and include/linux/iov_iter.h:
 * constructors, advance/revert, the copy and zero helpers, page counting and
 * alignment, and page extraction for the bio layer.
 *
 * Differences from the kernel, all forced by running in user space:
 *  - "User memory" (UBUF, IOVEC) is ordinary process memory, so a copy
 *    never faults and nofault changes nothing;
 *  - pin_user_pages_fast() is the loop in iov_iter_extract_user_pages(),
 *    which pins through the page side table (sim_pin_user_page) and asks the
 *    fault injector how much it may pin (<sim/fault.h>);
 *  - a few walks that could read past the end of the segment array when
 *    count and nr_segs disagree stop at nr_segs here (ASan would rightly
 *    object); they are marked where they occur;
 *  - pages carry no compound order, so page_copy_sane() can only catch an
 *    overflowing range;
 *  - BVEC extraction checks its page-list allocation, which the kernel
 *    does not.
 */
#include <string.h>

#include <linux/bvec.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <sim/fault.h>

/*
 * The kernel walks KVEC iterators with the IOVEC code because the two
 * segment types have the same layout; so do we, and make sure it holds.
 */
_Static_assert(sizeof(struct iovec) == sizeof(struct kvec),
	       "iovec and kvec must have one layout");
_Static_assert(offsetof(struct iovec, iov_base) ==
		       offsetof(struct kvec, iov_base),
	       "iovec and kvec must have one layout");
_Static_assert(offsetof(struct iovec, iov_len) ==
		       offsetof(struct kvec, iov_len),
	       "iovec and kvec must have one layout");

#ifndef kvmalloc_array
/* <linux/slab.h> has no vmalloc: kvmalloc is kmalloc, still accounted. */
#define kvmalloc_array(n, size, flags) kmalloc_array(n, size, flags)
#endif

/* ---- constructors ---------------------------------------------------- */

void iov_iter_ubuf(struct iov_iter *i, unsigned int direction, void *buf,
		   size_t count)
{
	WARN_ON(direction & ~(READ | WRITE));
	*i = (struct iov_iter){
		.iter_type = ITER_UBUF,
		.data_source = direction,
		.ubuf = buf,
		.count = count,
		.nr_segs = 1,
	};
}

void iov_iter_init(struct iov_iter *i, unsigned int direction,
		   const struct iovec *iov, unsigned long nr_segs, size_t count)
{
	WARN_ON(direction & ~(READ | WRITE));
	*i = (struct iov_iter){
		.iter_type = ITER_IOVEC,
		.nofault = false,
		.data_source = direction,
		.__iov = iov,
		.nr_segs = nr_segs,
		.iov_offset = 0,
		.count = count,
	};
}

void iov_iter_kvec(struct iov_iter *i, unsigned int direction,
		   const struct kvec *kvec, unsigned long nr_segs, size_t count)
{
	WARN_ON(direction & ~(READ | WRITE));
	*i = (struct iov_iter){
		.iter_type = ITER_KVEC,
		.data_source = direction,
		.kvec = kvec,
		.nr_segs = nr_segs,
		.iov_offset = 0,
		.count = count,
	};
}

/*
 * bvec_fixed starts false: only an owner that keeps the array and pages
 * stable for the whole I/O (io_uring fixed buffers) sets it afterwards.
 */
void iov_iter_bvec(struct iov_iter *i, unsigned int direction,
		   const struct bio_vec *bvec, unsigned long nr_segs,
		   size_t count)
{
	WARN_ON(direction & ~(READ | WRITE));
	*i = (struct iov_iter){
		.iter_type = ITER_BVEC,
		.data_source = direction,
		.bvec_fixed = false,
		.bvec = bvec,
		.nr_segs = nr_segs,
		.iov_offset = 0,
		.count = count,
	};
}

/* A sink for data nobody wants: only ever a destination. */
void iov_iter_discard(struct iov_iter *i, unsigned int direction, size_t count)
{
	BUG_ON(direction != READ);
	*i = (struct iov_iter){
		.iter_type = ITER_DISCARD,
		.data_source = false,
		.count = count,
		.iov_offset = 0,
	};
}

/* ---- advance and revert (I-05, I-08) -------------------------------- */

/*
 * Walk forward from the start of the current segment, dropping every
 * segment the new position has passed (zero-length ones included), so the
 * offset always ends inside the current segment.  IOVEC and KVEC share it.
 */
static void iov_iter_iovec_advance(struct iov_iter *i, size_t size)
{
	const struct iovec *iov, *end;

	if (!i->count)
		return;
	i->count -= size;

	size += i->iov_offset;
	for (iov = iter_iov(i), end = iov + i->nr_segs; iov < end; iov++) {
		if (likely(size < iov->iov_len))
			break;
		size -= iov->iov_len;
	}
	i->iov_offset = size;
	i->nr_segs -= iov - iter_iov(i);
	i->__iov = iov;
}

static void iov_iter_bvec_advance(struct iov_iter *i, size_t size)
{
	const struct bio_vec *bvec, *end;

	if (!i->count)
		return;
	i->count -= size;

	size += i->iov_offset;
	for (bvec = i->bvec, end = bvec + i->nr_segs; bvec < end; bvec++) {
		if (likely(size < bvec->bv_len))
			break;
		size -= bvec->bv_len;
	}
	i->iov_offset = size;
	i->nr_segs -= bvec - i->bvec;
	i->bvec = bvec;
}

void iov_iter_advance(struct iov_iter *i, size_t size)
{
	if (unlikely(i->count < size))
		size = i->count;
	if (likely(iter_is_ubuf(i))) {
		i->iov_offset += size;
		i->count -= size;
	} else if (likely(iter_is_iovec(i) || iov_iter_is_kvec(i))) {
		iov_iter_iovec_advance(i, size);
	} else if (iov_iter_is_bvec(i)) {
		iov_iter_bvec_advance(i, size);
	} else if (iov_iter_is_discard(i)) {
		i->count -= size;
	}
}

/*
 * Back to a state iov_iter_save_state() took of @i: only forward moves in
 * between, over UBUF, IOVEC, KVEC or BVEC (a DISCARD has no segments to
 * go back over, and the kernel WARNs for it as for any other type).
 */
void iov_iter_restore(struct iov_iter *i, struct iov_iter_state *state)
{
	if (WARN_ON_ONCE(!iov_iter_is_bvec(i) && !iter_is_iovec(i) &&
			 !iter_is_ubuf(i) && !iov_iter_is_kvec(i)))
		return;
	i->iov_offset = state->iov_offset;
	i->count = state->count;
	if (iter_is_ubuf(i))
		return;
	if (iov_iter_is_bvec(i))
		i->bvec -= state->nr_segs - i->nr_segs;
	else if (iov_iter_is_kvec(i))
		i->kvec -= state->nr_segs - i->nr_segs;
	else
		i->__iov -= state->nr_segs - i->nr_segs;
	i->nr_segs = state->nr_segs;
}

void iov_iter_revert(struct iov_iter *i, size_t unroll)
{
	if (!unroll)
		return;
	if (WARN_ON(unroll > MAX_RW_COUNT))
		return;
	i->count += unroll;
	if (unlikely(iov_iter_is_discard(i)))
		return;
	if (unroll <= i->iov_offset) {
		i->iov_offset -= unroll;
		return;
	}
	unroll -= i->iov_offset;
	if (iter_is_ubuf(i)) {
		/*
		 * Going back past the start of the buffer would hand out
		 * memory nobody pinned or checked: a caller bug.
		 */
		BUG();
	} else if (iov_iter_is_bvec(i)) {
		const struct bio_vec *bvec = i->bvec;

		for (;;) {
			size_t n = (--bvec)->bv_len;

			i->nr_segs++;
			if (unroll <= n) {
				i->bvec = bvec;
				i->iov_offset = n - unroll;
				return;
			}
			unroll -= n;
		}
	} else {
		/* IOVEC and KVEC */
		const struct iovec *iov = iter_iov(i);

		for (;;) {
			size_t n = (--iov)->iov_len;

			i->nr_segs++;
			if (unroll <= n) {
				i->__iov = iov;
				i->iov_offset = n - unroll;
				return;
			}
			unroll -= n;
		}
	}
}

/* ---- iterate_and_advance (include/linux/iov_iter.h) ----------------- */

/*
 * A step handles one contiguous piece of the iterator at @iter_base, the
 * piece starting @progress bytes into the whole transfer, and returns how
 * much of @len it did NOT process (0: all of it).  User memory cannot
 * fault here, so one step type serves user and kernel iterators alike.
 */
typedef size_t (*iov_step_f)(void *iter_base, size_t progress, size_t len,
			     void *priv);

static size_t iterate_ubuf(struct iov_iter *iter, size_t len, void *priv,
			   iov_step_f step)
{
	char *base = iter->ubuf;
	size_t progress, remain;

	remain = step(base + iter->iov_offset, 0, len, priv);
	progress = len - remain;
	iter->iov_offset += progress;
	iter->count -= progress;
	return progress;
}

/*
 * IOVEC and KVEC.  Unlike advance, this stops on the segment right after
 * the last byte and does not skip zero-length segments beyond it.
 */
static size_t iterate_iovec(struct iov_iter *iter, size_t len, void *priv,
			    iov_step_f step)
{
	const struct iovec *p = iter_iov(iter);
	size_t progress = 0, skip = iter->iov_offset;

	do {
		size_t part = min(len, p->iov_len - skip);

		if (likely(part)) {
			size_t remain, consumed;

			remain = step((char *)p->iov_base + skip, progress,
				      part, priv);
			consumed = part - remain;
			progress += consumed;
			skip += consumed;
			len -= consumed;
			if (skip < p->iov_len)
				break;
		}
		p++;
		skip = 0;
	} while (len);

	iter->nr_segs -= p - iter_iov(iter);
	iter->__iov = p;
	iter->iov_offset = skip;
	iter->count -= progress;
	return progress;
}

/* BVEC: one page at a time, as the kernel maps one page at a time. */
static size_t iterate_bvec(struct iov_iter *iter, size_t len, void *priv,
			   iov_step_f step)
{
	const struct bio_vec *p = iter->bvec;
	size_t progress = 0, skip = iter->iov_offset;

	do {
		size_t offset = p->bv_offset + skip;
		char *kaddr =
			page_address(nth_page(p->bv_page, offset / PAGE_SIZE));
		size_t remain, consumed, part;

		part = min(len, min((size_t)(p->bv_len - skip),
				    (size_t)(PAGE_SIZE - offset % PAGE_SIZE)));
		remain = step(kaddr + offset % PAGE_SIZE, progress, part, priv);
		consumed = part - remain;
		len -= consumed;
		progress += consumed;
		skip += consumed;
		if (skip >= p->bv_len) {
			skip = 0;
			p++;
		}
		if (remain)
			break;
	} while (len);

	iter->nr_segs -= p - iter->bvec;
	iter->bvec = p;
	iter->iov_offset = skip;
	iter->count -= progress;
	return progress;
}

static size_t iterate_and_advance(struct iov_iter *iter, size_t len, void *priv,
				  iov_step_f step)
{
	if (unlikely(iter->count < len))
		len = iter->count;
	if (unlikely(!len))
		return 0;

	if (likely(iter_is_ubuf(iter)))
		return iterate_ubuf(iter, len, priv, step);
	if (likely(iter_is_iovec(iter) || iov_iter_is_kvec(iter)))
		return iterate_iovec(iter, len, priv, step);
	if (iov_iter_is_bvec(iter))
		return iterate_bvec(iter, len, priv, step);
	/* DISCARD: everything is "processed" by dropping it. */
	iter->count -= len;
	return len;
}

/* ---- copies and zeroing (I-09, I-10) -------------------------------- */

static size_t memcpy_to_iter(void *iter_to, size_t progress, size_t len,
			     void *from)
{
	memcpy(iter_to, (char *)from + progress, len);
	return 0;
}

static size_t memcpy_from_iter(void *iter_from, size_t progress, size_t len,
			       void *to)
{
	memcpy((char *)to + progress, iter_from, len);
	return 0;
}

static size_t zero_to_iter(void *iter_to, size_t progress, size_t len,
			   void *priv)
{
	memset(iter_to, 0, len);
	return 0;
}

/*
 * The kernel's copy_to_iter() is an inline object-size check in front of
 * _copy_to_iter(); the check has nothing to look at here, so this is
 * _copy_to_iter() under the public name.
 */
size_t copy_to_iter(const void *addr, size_t bytes, struct iov_iter *i)
{
	if (WARN_ON_ONCE(i->data_source))
		return 0;
	if (user_backed_iter(i))
		might_fault();
	return iterate_and_advance(i, bytes, (void *)addr, memcpy_to_iter);
}

size_t copy_from_iter(void *addr, size_t bytes, struct iov_iter *i)
{
	if (WARN_ON_ONCE(!i->data_source))
		return 0;
	if (user_backed_iter(i))
		might_fault();
	return iterate_and_advance(i, bytes, addr, memcpy_from_iter);
}

size_t iov_iter_zero(size_t bytes, struct iov_iter *i)
{
	return iterate_and_advance(i, bytes, NULL, zero_to_iter);
}

/*
 * The kernel also checks offset + n against the size of a compound page.
 * Pages here carry no order (a folio is one page, alloc_pages(order) has
 * no head page to ask), so only the arithmetic overflow can be caught.
 */
static bool page_copy_sane(struct page *page, size_t offset, size_t n)
{
	size_t v = n + offset;

	if (WARN_ON(n > v))
		return false;
	return true;
}

/*
 * One page at a time, as the kernel's copy_page_to_iter() and
 * copy_page_from_iter() map one page at a time; a short copy ends it.
 */
static size_t copy_page_iter(struct page *page, size_t offset, size_t bytes,
			     struct iov_iter *i, bool to_iter)
{
	size_t res = 0;

	page = nth_page(page, offset / PAGE_SIZE);
	offset %= PAGE_SIZE;
	for (;;) {
		char *kaddr = page_address(page);
		size_t n = min(bytes, (size_t)PAGE_SIZE - offset);

		if (to_iter)
			n = copy_to_iter(kaddr + offset, n, i);
		else
			n = copy_from_iter(kaddr + offset, n, i);
		res += n;
		bytes -= n;
		if (!bytes || !n)
			break;
		offset += n;
		if (offset == PAGE_SIZE) {
			page = nth_page(page, 1);
			offset = 0;
		}
	}
	return res;
}

size_t copy_page_to_iter(struct page *page, size_t offset, size_t bytes,
			 struct iov_iter *i)
{
	if (!page_copy_sane(page, offset, bytes))
		return 0;
	if (WARN_ON_ONCE(i->data_source))
		return 0;
	return copy_page_iter(page, offset, bytes, i, true);
}

size_t copy_page_from_iter(struct page *page, size_t offset, size_t bytes,
			   struct iov_iter *i)
{
	if (!page_copy_sane(page, offset, bytes))
		return 0;
	return copy_page_iter(page, offset, bytes, i, false);
}

size_t copy_folio_to_iter(struct folio *folio, size_t offset, size_t bytes,
			  struct iov_iter *i)
{
	return copy_page_to_iter(folio_page(folio, 0), offset, bytes, i);
}

/* ---- page counting and alignment (I-11) ----------------------------- */

static int iov_npages(const struct iov_iter *i, int maxpages)
{
	size_t skip = i->iov_offset, size = i->count;
	const struct iovec *p;
	int npages = 0;

	for (p = iter_iov(i); size; skip = 0, p++) {
		unsigned int offs = offset_in_page((char *)p->iov_base + skip);
		size_t len = min(p->iov_len - skip, size);

		if (len) {
			size -= len;
			npages += DIV_ROUND_UP(offs + len, PAGE_SIZE);
			if (unlikely(npages > maxpages))
				return maxpages;
		}
	}
	return npages;
}

static int bvec_npages(const struct iov_iter *i, int maxpages)
{
	size_t skip = i->iov_offset, size = i->count;
	const struct bio_vec *p;
	int npages = 0;

	for (p = i->bvec; size; skip = 0, p++) {
		unsigned int offs = (p->bv_offset + skip) % PAGE_SIZE;
		size_t len = min(p->bv_len - skip, size);

		size -= len;
		npages += DIV_ROUND_UP(offs + len, PAGE_SIZE);
		if (unlikely(npages > maxpages))
			return maxpages;
	}
	return npages;
}

int iov_iter_npages(const struct iov_iter *i, int maxpages)
{
	if (unlikely(!i->count))
		return 0;
	if (likely(iter_is_ubuf(i))) {
		unsigned int offs =
			offset_in_page((char *)i->ubuf + i->iov_offset);
		int npages = DIV_ROUND_UP(offs + i->count, PAGE_SIZE);

		return min(npages, maxpages);
	}
	if (likely(iter_is_iovec(i) || iov_iter_is_kvec(i)))
		return iov_npages(i, maxpages);
	if (iov_iter_is_bvec(i))
		return bvec_npages(i, maxpages);
	return 0;
}

/*
 * The kernel's walk is a do/while over count; with count 0 on a fully
 * consumed iterator it would read one segment past the array, so these
 * walks also stop after nr_segs segments.
 */
static unsigned long iov_iter_alignment_iovec(const struct iov_iter *i)
{
	const struct iovec *iov = iter_iov(i);
	const struct iovec *end = iov + i->nr_segs;
	unsigned long res = 0;
	size_t size = i->count;
	size_t skip = i->iov_offset;

	while (iov < end) {
		size_t len = iov->iov_len - skip;

		if (len) {
			res |= (unsigned long)iov->iov_base + skip;
			if (len > size)
				len = size;
			res |= len;
			size -= len;
		}
		iov++;
		skip = 0;
		if (!size)
			break;
	}
	return res;
}

static unsigned long iov_iter_alignment_bvec(const struct iov_iter *i)
{
	const struct bio_vec *bvec = i->bvec;
	const struct bio_vec *end = bvec + i->nr_segs;
	unsigned int res = 0;
	size_t size = i->count;
	unsigned int skip = i->iov_offset;

	while (bvec < end) {
		size_t len = bvec->bv_len - skip;

		res |= (unsigned long)bvec->bv_offset + skip;
		if (len > size)
			len = size;
		res |= len;
		bvec++;
		size -= len;
		skip = 0;
		if (!size)
			break;
	}
	return res;
}

unsigned long iov_iter_alignment(const struct iov_iter *i)
{
	if (likely(iter_is_ubuf(i))) {
		size_t size = i->count;

		if (size)
			return ((unsigned long)i->ubuf + i->iov_offset) | size;
		return 0;
	}
	if (likely(iter_is_iovec(i) || iov_iter_is_kvec(i)))
		return iov_iter_alignment_iovec(i);
	if (iov_iter_is_bvec(i))
		return iov_iter_alignment_bvec(i);
	return 0;
}

static bool iov_iter_aligned_iovec(const struct iov_iter *i,
				   unsigned int addr_mask,
				   unsigned int len_mask)
{
	const struct iovec *iov = iter_iov(i);
	const struct iovec *end = iov + i->nr_segs;
	size_t size = i->count;
	size_t skip = i->iov_offset;

	while (iov < end) {
		size_t len = iov->iov_len - skip;

		if (len > size)
			len = size;
		if (len & len_mask)
			return false;
		if ((unsigned long)((char *)iov->iov_base + skip) & addr_mask)
			return false;
		iov++;
		size -= len;
		skip = 0;
		if (!size)
			break;
	}
	return true;
}

/*
 * As in the kernel, a segment's length is taken whole (bv_len, not
 * bv_len - skip): only the first segment can have a skip, and its tail
 * is what the length check is about.
 */
static bool iov_iter_aligned_bvec(const struct iov_iter *i,
				  unsigned int addr_mask, unsigned int len_mask)
{
	const struct bio_vec *bvec = i->bvec;
	const struct bio_vec *end = bvec + i->nr_segs;
	unsigned int skip = i->iov_offset;
	size_t size = i->count;

	while (bvec < end) {
		size_t len = bvec->bv_len;

		if (len > size)
			len = size;
		if (len & len_mask)
			return false;
		if ((unsigned long)(bvec->bv_offset + skip) & addr_mask)
			return false;
		bvec++;
		size -= len;
		skip = 0;
		if (!size)
			break;
	}
	return true;
}

bool iov_iter_is_aligned(const struct iov_iter *i, unsigned int addr_mask,
			 unsigned int len_mask)
{
	if (likely(iter_is_ubuf(i))) {
		if (i->count & len_mask)
			return false;
		if ((unsigned long)((char *)i->ubuf + i->iov_offset) &
		    addr_mask)
			return false;
		return true;
	}
	if (likely(iter_is_iovec(i) || iov_iter_is_kvec(i)))
		return iov_iter_aligned_iovec(i, addr_mask, len_mask);
	if (iov_iter_is_bvec(i))
		return iov_iter_aligned_bvec(i, addr_mask, len_mask);
	return true;
}

/* ---- extraction (I-12) ---------------------------------------------- */

/*
 * Size the page list: the pages @size bytes starting @start into the
 * first page span, capped at @maxpages; allocate it if the caller did not
 * pass one.  0 means no list (caller passed maxpages == 0, or -ENOMEM).
 */
static unsigned int want_pages_array(struct page ***res, size_t size,
				     size_t start, unsigned int maxpages)
{
	unsigned int count = DIV_ROUND_UP(size + start, PAGE_SIZE);

	if (count > maxpages)
		count = maxpages;
	/* The caller should have prevented that. */
	if (WARN_ON(!count))
		return 0;
	if (!*res) {
		*res = kvmalloc_array(count, sizeof(struct page *), GFP_KERNEL);
		if (!*res)
			return 0;
	}
	return count;
}

/* Only for a non-empty UBUF or IOVEC: where its next byte is. */
static unsigned long first_iovec_segment(const struct iov_iter *i, size_t *size)
{
	unsigned long k;
	size_t skip;

	if (iter_is_ubuf(i))
		return (unsigned long)i->ubuf + i->iov_offset;

	for (k = 0, skip = i->iov_offset; k < i->nr_segs; k++, skip = 0) {
		const struct iovec *iov = iter_iov(i) + k;
		size_t len = iov->iov_len - skip;

		if (unlikely(!len))
			continue;
		if (*size > len)
			*size = len;
		return (unsigned long)iov->iov_base + skip;
	}
	/* count said there was data, the segments say there is none */
	BUG();
}

/*
 * User pages: pinned (FOLL_PIN), no reference.  One call covers one
 * virtually contiguous run, so never more than the current segment.
 */
static ssize_t
iov_iter_extract_user_pages(struct iov_iter *i, struct page ***pages,
			    size_t maxsize, unsigned int maxpages,
			    iov_iter_extraction_t extraction_flags,
			    size_t *offset0)
{
	struct page **p;
	unsigned long addr;
	unsigned int k, nr;
	size_t offset;
	ssize_t limit;

	addr = first_iovec_segment(i, &maxsize);
	*offset0 = offset = addr % PAGE_SIZE;
	addr &= PAGE_MASK;
	maxpages = want_pages_array(pages, maxsize, offset, maxpages);
	if (!maxpages)
		return -ENOMEM;
	maxsize = min_t(size_t, maxsize, maxpages * PAGE_SIZE - offset);

	/*
	 * pin_user_pages_fast(addr, maxpages, ...): it can pin fewer pages
	 * than asked for, or none (-EFAULT); the fault injector decides
	 * which, in bytes.
	 */
	limit = sim_fault_pin_limit(addr + offset, maxsize);
	if (limit < 0)
		return -EFAULT;
	if ((size_t)limit < maxsize)
		maxsize = limit;
	if (!maxsize)
		return 0;

	p = *pages;
	nr = DIV_ROUND_UP(offset + maxsize, PAGE_SIZE);
	for (k = 0; k < nr; k++) {
		p[k] = virt_to_page((void *)(addr + k * PAGE_SIZE));
		sim_pin_user_page(p[k]);
	}
	iov_iter_advance(i, maxsize);
	return maxsize;
}

/*
 * Kernel memory: the pages are only listed, neither pinned nor
 * referenced; the owner keeps them alive for the I/O.
 */
static ssize_t
iov_iter_extract_kvec_pages(struct iov_iter *i, struct page ***pages,
			    size_t maxsize, unsigned int maxpages,
			    iov_iter_extraction_t extraction_flags,
			    size_t *offset0)
{
	struct page **p;
	const char *kaddr;
	size_t skip = i->iov_offset, offset, size;
	unsigned int k;

	/* Step over exhausted and zero-length segments. */
	for (;;) {
		if (i->nr_segs == 0)
			return 0;
		size = min(maxsize, i->kvec->iov_len - skip);
		if (size)
			break;
		i->iov_offset = 0;
		i->nr_segs--;
		i->kvec++;
		skip = 0;
	}

	kaddr = (const char *)i->kvec->iov_base + skip;
	offset = (unsigned long)kaddr & ~PAGE_MASK;
	*offset0 = offset;

	maxpages = want_pages_array(pages, size, offset, maxpages);
	if (!maxpages)
		return -ENOMEM;
	p = *pages;

	kaddr -= offset;
	for (k = 0; k < maxpages; k++) {
		p[k] = virt_to_page(kaddr);
		kaddr += PAGE_SIZE;
	}

	size = min_t(size_t, size, maxpages * PAGE_SIZE - offset);
	iov_iter_advance(i, size);
	return size;
}

/*
 * One page-sized piece of a bvec array at (idx, done), no longer than
 * @size: bvec_iter_bvec() of include/linux/bvec.h.
 */
static struct bio_vec iov_bvec_piece(const struct bio_vec *bv, unsigned int idx,
				     size_t done, size_t size)
{
	size_t mp_offset = bv[idx].bv_offset + done;
	size_t len = min(size, (size_t)bv[idx].bv_len - done);
	size_t offset = mp_offset % PAGE_SIZE;

	return (struct bio_vec){
		.bv_page = nth_page(bv[idx].bv_page, mp_offset / PAGE_SIZE),
		.bv_len = min(len, PAGE_SIZE - offset),
		.bv_offset = offset,
	};
}

/*
 * BVEC: list the virtually contiguous pages starting at the current
 * position, across bvecs while each piece ends exactly at a page end and
 * the next starts at a page start (the only offset the caller learns is
 * into the first page).  No pin, no reference.
 */
static ssize_t
iov_iter_extract_bvec_pages(struct iov_iter *i, struct page ***pages,
			    size_t maxsize, unsigned int maxpages,
			    iov_iter_extraction_t extraction_flags,
			    size_t *offset0)
{
	size_t skip = i->iov_offset, size = 0, bi_size = maxsize;
	size_t bi_done;
	unsigned int bi_idx = 0, k = 0;

	if (i->nr_segs == 0)
		return 0;

	if (i->iov_offset == i->bvec->bv_len) {
		i->iov_offset = 0;
		i->nr_segs--;
		i->bvec++;
		skip = 0;
	}
	bi_done = skip;

	maxpages = want_pages_array(pages, maxsize, skip, maxpages);
	/* (the kernel does not check here and would oops on NULL) */
	if (!maxpages)
		return -ENOMEM;

	while (bi_size && bi_idx < i->nr_segs) {
		struct bio_vec bv =
			iov_bvec_piece(i->bvec, bi_idx, bi_done, bi_size);

		/* A later page with an offset would leave a hole. */
		if (k) {
			if (bv.bv_offset)
				break;
		} else {
			*offset0 = bv.bv_offset;
		}

		(*pages)[k++] = bv.bv_page;
		size += bv.bv_len;

		if (k >= maxpages)
			break;

		/* So would a page that ends short of its end. */
		if (bv.bv_offset + bv.bv_len != PAGE_SIZE)
			break;

		/* bvec_iter_advance_single() */
		bi_done += bv.bv_len;
		if (bi_done == i->bvec[bi_idx].bv_len) {
			bi_done = 0;
			bi_idx++;
		}
		bi_size -= bv.bv_len;
	}

	iov_iter_advance(i, size);
	return size;
}

ssize_t iov_iter_extract_pages(struct iov_iter *i, struct page ***pages,
			       size_t maxsize, unsigned int maxpages,
			       iov_iter_extraction_t extraction_flags,
			       size_t *offset0)
{
	maxsize = min_t(size_t, min_t(size_t, maxsize, i->count), MAX_RW_COUNT);
	if (!maxsize)
		return 0;

	if (likely(user_backed_iter(i)))
		return iov_iter_extract_user_pages(i, pages, maxsize, maxpages,
						   extraction_flags, offset0);
	if (iov_iter_is_kvec(i))
		return iov_iter_extract_kvec_pages(i, pages, maxsize, maxpages,
						   extraction_flags, offset0);
	if (iov_iter_is_bvec(i))
		return iov_iter_extract_bvec_pages(i, pages, maxsize, maxpages,
						   extraction_flags, offset0);
	/* DISCARD has no pages */
	return -EFAULT;
}
