// SPDX-License-Identifier: GPL-2.0-only
/*
 * One declaration of a kernel tree's iomap.h, selected by -DPROBE_<name>,
 * for the configure message that names what a tree of neither generation
 * lacks (cmake/kernel-tree.cmake).
 */
#include <linux/iomap.h>

void probe(void);
void probe(void)
{
#if defined(PROBE_IOMAP_OPS)
	struct iomap_ops o = { 0 };

	(void)o.iomap_begin;
	(void)o.iomap_end;
#elif defined(PROBE_DIO_RW_OPS)
	ssize_t (*p)(struct kiocb *, struct iov_iter *,
		     const struct iomap_ops *, const struct iomap_dio_ops *,
		     unsigned int, void *, size_t) = iomap_dio_rw;

	(void)p;
#elif defined(PROBE_NEXT_FN)
	iomap_iter_next_fn f = 0;

	(void)f;
#elif defined(PROBE_READ_SIMPLE)
	ssize_t (*p)(struct kiocb *, struct iov_iter *, iomap_iter_begin_fn) =
		iomap_dio_read_simple;

	(void)p;
#elif defined(PROBE_DIO_RW_NEXT)
	ssize_t (*p)(struct kiocb *, struct iov_iter *, iomap_iter_next_fn,
		     const struct iomap_dio_ops *, unsigned int, void *,
		     size_t) = iomap_dio_rw;

	(void)p;
#endif
}
