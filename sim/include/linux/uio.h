/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * struct iov_iter, as include/linux/uio.h, for the iterator types direct
 * I/O sees: UBUF and IOVEC (user memory; extraction pins pages), KVEC
 * (kernel memory) and BVEC (page vectors; the bio layer reuses the array,
 * B-28).  "User memory" is ordinary process memory here; faults are
 * injected (<sim/fault.h>), never taken.
 */
#ifndef _LINUX_UIO_H
#define _LINUX_UIO_H

#include <sys/uio.h> /* struct iovec, as the kernel's uapi one */
#include <linux/kernel.h>
#include <linux/mm.h>

struct bio_vec;

struct kvec {
	void *iov_base;
	size_t iov_len;
};

enum iter_type {
	ITER_UBUF,
	ITER_IOVEC,
	ITER_BVEC,
	ITER_KVEC,
	ITER_FOLIOQ,
	ITER_XARRAY,
	ITER_DISCARD,
};

#define ITER_SOURCE 1 /* == WRITE: data flows out of the iterator */
#define ITER_DEST 0   /* == READ: data flows into the iterator */
#ifndef READ
#define READ 0
#define WRITE 1
#endif

struct iov_iter {
	u8 iter_type;
	bool nofault;
	bool data_source;
	/*
	 * ITER_BVEC whose array and pages the owner keeps stable for the
	 * whole I/O (io_uring fixed buffers): the "fixed" flag of the no-copy
	 * bvec RFC (B-28).  Upstream later made every BVEC take the
	 * no-copy path, so the bio layer does not require it; it is recorded
	 * so tests and traces can tell the two kinds of BVEC apart.
	 */
	bool bvec_fixed;
	size_t iov_offset;
	union {
		const struct iovec *__iov;
		const struct kvec *kvec;
		const struct bio_vec *bvec;
		void __user *ubuf;
	};
	size_t count;
	unsigned long nr_segs;
};

typedef unsigned int iov_iter_extraction_t;
#define ITER_ALLOW_P2PDMA ((iov_iter_extraction_t)0x01)

static inline enum iter_type iov_iter_type(const struct iov_iter *i)
{
	return (enum iter_type)i->iter_type;
}

static inline bool iter_is_ubuf(const struct iov_iter *i)
{
	return iov_iter_type(i) == ITER_UBUF;
}

static inline bool iter_is_iovec(const struct iov_iter *i)
{
	return iov_iter_type(i) == ITER_IOVEC;
}

static inline bool iov_iter_is_kvec(const struct iov_iter *i)
{
	return iov_iter_type(i) == ITER_KVEC;
}

static inline bool iov_iter_is_bvec(const struct iov_iter *i)
{
	return iov_iter_type(i) == ITER_BVEC;
}

static inline bool iov_iter_is_discard(const struct iov_iter *i)
{
	return iov_iter_type(i) == ITER_DISCARD;
}

static inline bool user_backed_iter(const struct iov_iter *i)
{
	return iter_is_ubuf(i) || iter_is_iovec(i);
}

static inline const struct iovec *iter_iov(const struct iov_iter *i)
{
	return i->__iov;
}

static inline size_t iov_iter_count(const struct iov_iter *i)
{
	return i->count;
}

static inline int iov_iter_rw(const struct iov_iter *i)
{
	return i->data_source ? WRITE : READ;
}

static inline void iov_iter_truncate(struct iov_iter *i, u64 count)
{
	if (i->count > count)
		i->count = count;
}

static inline void iov_iter_reexpand(struct iov_iter *i, size_t count)
{
	i->count = count;
}

/*
 * Where an iterator stands, to go back to it whatever happened in
 * between (I-08 for the segment walk): what iov_iter_restore() needs.
 */
struct iov_iter_state {
	size_t iov_offset;
	size_t count;
	unsigned long nr_segs;
};

static inline void iov_iter_save_state(struct iov_iter *iter,
				       struct iov_iter_state *state)
{
	state->iov_offset = iter->iov_offset;
	state->count = iter->count;
	state->nr_segs = iter->nr_segs;
}

/* The pages of user-backed iterators are pinned on extraction (I-12). */
static inline bool iov_iter_extract_will_pin(const struct iov_iter *i)
{
	return user_backed_iter(i);
}

void iov_iter_ubuf(struct iov_iter *i, unsigned int direction, void *buf,
		   size_t count);
void iov_iter_init(struct iov_iter *i, unsigned int direction,
		   const struct iovec *iov, unsigned long nr_segs,
		   size_t count);
void iov_iter_kvec(struct iov_iter *i, unsigned int direction,
		   const struct kvec *kvec, unsigned long nr_segs,
		   size_t count);
void iov_iter_bvec(struct iov_iter *i, unsigned int direction,
		   const struct bio_vec *bvec, unsigned long nr_segs,
		   size_t count);
void iov_iter_discard(struct iov_iter *i, unsigned int direction,
		      size_t count);

void iov_iter_advance(struct iov_iter *i, size_t bytes);
void iov_iter_revert(struct iov_iter *i, size_t bytes);
void iov_iter_restore(struct iov_iter *i, struct iov_iter_state *state);
size_t iov_iter_zero(size_t bytes, struct iov_iter *i);
size_t copy_to_iter(const void *addr, size_t bytes, struct iov_iter *i);
size_t copy_from_iter(void *addr, size_t bytes, struct iov_iter *i);
size_t copy_page_to_iter(struct page *page, size_t offset, size_t bytes,
			 struct iov_iter *i);
size_t copy_page_from_iter(struct page *page, size_t offset, size_t bytes,
			   struct iov_iter *i);
size_t copy_folio_to_iter(struct folio *folio, size_t offset, size_t bytes,
			  struct iov_iter *i);
int iov_iter_npages(const struct iov_iter *i, int maxpages);
unsigned long iov_iter_alignment(const struct iov_iter *i);
bool iov_iter_is_aligned(const struct iov_iter *i, unsigned int addr_mask,
			 unsigned int len_mask);

/*
 * Extract up to @maxsize bytes in at most @maxpages pages starting at
 * offset *@offset0 in the first page; pins user pages (FOLL_PIN), takes no
 * reference for kernel iterators.  Returns bytes extracted (iterator
 * advanced by that much) or a negative errno.  *@pages may be allocated
 * (kvmalloc) when NULL is passed.
 */
ssize_t iov_iter_extract_pages(struct iov_iter *i, struct page ***pages,
			       size_t maxsize, unsigned int maxpages,
			       iov_iter_extraction_t extraction_flags,
			       size_t *offset0);

#endif /* _LINUX_UIO_H */
