/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The caller's side of a runner request (request-buf.c): the user buffer
 * laid out as --buf-offset and --iter ask, filled with the write pattern
 * or the read poison, and the iov_iter over it.  Private to the runner.
 */
#ifndef _IOMAPSIM_REQUEST_BUF_H
#define _IOMAPSIM_REQUEST_BUF_H

#include <linux/uio.h>
#include "request.h"

/* Where the caller's buffer and the iterator over it live. */
struct testfs_buf {
	u8 *mem; /* page aligned allocation */
	size_t memsize;
	u8 *data; /* mem + buf_offset */
	struct iovec *iov;
	struct kvec kv;
	struct bio_vec *bv;
	/* explicit segments apart in memory: their bytes in file order */
	u8 *gather;
};

/*
 * The buffer and the iterator @req describes, in @b and @iter; 0, or
 * -EINVAL with the reason in @err (segments that do not add up to the
 * length, caller memory too small or not page aligned), or -ENOMEM.
 */
int testfs_buf_build(const struct testfs_request *req, struct testfs_buf *b,
		     struct iov_iter *iter, char *err, size_t errlen);
/*
 * After the run: explicit segments apart in memory gathered in file
 * order, where the data checks look for them (b->data); 0 or -ENOMEM.
 */
int testfs_buf_gather(const struct testfs_request *req, struct testfs_buf *b);
void testfs_buf_free(struct testfs_buf *b);
/* The buffer kept between requests, at the runner's teardown. */
void testfs_buf_kept_free(void);

#endif /* _IOMAPSIM_REQUEST_BUF_H */
