/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one-line error reason every backend constructor writes into the
 * caller's @err buffer, in plain C types so that both the backends and
 * the host files (block/host/README.md) use the same writer.
 */
#ifndef _BLOCK_HOST_ERR_HOST_H
#define _BLOCK_HOST_ERR_HOST_H

#include <stddef.h>

/* Safe error-line writer: @err may be NULL. */
void blksim_bdev_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* _BLOCK_HOST_ERR_HOST_H */
