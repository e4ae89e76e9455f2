/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the tests/iomap_generic_*.c suites, the generic direct I/O
 * path by rule group (docs/rules.md 3.G): the requests they start from.
 */
#ifndef _IOMAP_GENERIC_H
#define _IOMAP_GENERIC_H

#include "iomap_common.h"

/* A generic request: the simple path is switched off per call. */
static inline void gen_req(struct testfs_request *r)
{
	req_init(r);
	r->no_simple = true;
	r->pos = 8192;
	r->len = 8192;
}

/* Three extents over the first 64 KiB, the rest mapped too. */
static inline void three_extents(struct testfs_request *r)
{
	req_map(r, IOMAP_MAPPED, 0, 16384, 0);
	req_map(r, IOMAP_MAPPED, 16384, 16384, 0);
	req_map(r, IOMAP_MAPPED, 32768, (256 << 10) - 32768, 0);
}

/* A generic read of @len bytes from the start, over three_extents(). */
static inline void three_extents_req(struct testfs_request *r, size_t len)
{
	gen_req(r);
	r->pos = 0;
	r->len = len;
	three_extents(r);
}

/* A 4 KiB write, the simple path left on: it takes no writes (S-03). */
static inline void write_req(struct testfs_request *r)
{
	gen_req(r);
	r->write = true;
	r->no_simple = false;
	r->len = 4096;
}

/*
 * An O_DSYNC write of write_req(), on a device with a volatile write
 * cache if @cache, which has FUA if @fua (G-26).
 */
static inline void dsync_req(struct testfs_request *r, bool cache, bool fua)
{
	write_req(r);
	r->ki_flags = IOCB_DSYNC;
	r->write_cache = cache;
	r->fua = fua;
}

#endif /* _IOMAP_GENERIC_H */
