// SPDX-License-Identifier: GPL-2.0-only
/* Generation (a): struct iomap_ops, the simple path inside iomap_dio_rw(). */
#include <linux/iomap.h>

ssize_t probe(struct kiocb *iocb, struct iov_iter *iter,
	      const struct iomap_ops *ops);
ssize_t probe(struct kiocb *iocb, struct iov_iter *iter,
	      const struct iomap_ops *ops)
{
	struct iomap_iter it = { 0 };

	if (iomap_iter(&it, ops) < 0 || !ops->iomap_begin)
		return -EIO;
	return iomap_dio_rw(iocb, iter, ops, NULL, 0, NULL, 0);
}
