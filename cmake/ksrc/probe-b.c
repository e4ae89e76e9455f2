// SPDX-License-Identifier: GPL-2.0-only
/* Generation (b): ->iomap_next and the file-system-called simple read. */
#include <linux/iomap.h>

ssize_t probe(struct kiocb *iocb, struct iov_iter *iter,
	      iomap_iter_begin_fn begin, iomap_iter_next_fn next);
ssize_t probe(struct kiocb *iocb, struct iov_iter *iter,
	      iomap_iter_begin_fn begin, iomap_iter_next_fn next)
{
	struct iomap_iter it = { 0 };
	ssize_t ret = iomap_dio_read_simple(iocb, iter, begin);

	if (ret != -ENOTBLK)
		return ret;
	if (iomap_iter(&it, next) < 0)
		return -EIO;
	return iomap_dio_rw(iocb, iter, next, NULL, 0, NULL, 0);
}
