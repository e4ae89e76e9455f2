// SPDX-License-Identifier: GPL-2.0-only
/*
 * Header probes of a kernel tree's iomap.h (cmake/ksrc/features.cmake):
 * each -DPROBE_<name> section uses one declaration the way the file
 * system side (iomap/fs-dio.c) would, and compiles only where the tree
 * has it.
 */
#include <linux/iomap.h>

void probe(struct kiocb *iocb, struct iov_iter *iter);
void probe(struct kiocb *iocb, struct iov_iter *iter)
{
	struct iomap_iter it = { 0 };

	(void)iocb;
	(void)iter;
	(void)it;
#if defined(PROBE_IOMAP_OPS)
	/* struct iomap_ops {iomap_begin, iomap_end} drives iomap_iter() */
	static const struct iomap_ops o = { 0 };

	(void)o.iomap_begin;
	(void)o.iomap_end;
	(void)iomap_iter(&it, &o);
#elif defined(PROBE_DIO_RW_OPS)
	ssize_t (*p)(struct kiocb *, struct iov_iter *,
		     const struct iomap_ops *, const struct iomap_dio_ops *,
		     unsigned int, void *, size_t) = iomap_dio_rw;

	(void)p;
#elif defined(PROBE_NEXT_FN)
	/* ->iomap_next drives iomap_iter() */
	iomap_iter_next_fn f = 0;

	(void)iomap_iter(&it, f);
#elif defined(PROBE_DIO_RW_NEXT)
	ssize_t (*p)(struct kiocb *, struct iov_iter *, iomap_iter_next_fn,
		     const struct iomap_dio_ops *, unsigned int, void *,
		     size_t) = iomap_dio_rw;

	(void)p;
#elif defined(PROBE_READ_SIMPLE)
	/* the file system calls the simple read path before iomap_dio_rw() */
	ssize_t (*p)(struct kiocb *, struct iov_iter *, iomap_iter_begin_fn) =
		iomap_dio_read_simple;

	(void)p;
#elif defined(PROBE_ITER_STATUS)
	/* iter.c's walk reports by iomap_iter_advance() and ->status */
	it.status = 0;
	(void)iomap_iter_advance(&it, 1);
#elif defined(PROBE_ITER_PROCESSED)
	it.processed = 0;
#endif
}
