// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runner's user buffers and iterators: see request-buf.h.  The write
 * pattern and the explicit segments' layout are request.h's (shared with
 * the fuzzer's oracles).
 */
#include <stdlib.h>
#include <string.h>
#include <linux/bvec.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/uio.h>
#include "request-buf.h"

/*
 * The pattern repeats every 64 KiB (the low byte of x * 11 depends only
 * on the low byte of x, the key on the next byte): filled and checked by
 * copying from and comparing with one period, as fast as memcpy() and
 * memcmp() (requests reach 256 KiB and the fuzzer makes several per
 * input).
 */
#define WRITE_PATTERN_PERIOD 65536
static u8 write_pattern_period[WRITE_PATTERN_PERIOD];

static void __attribute__((constructor)) write_pattern_init(void)
{
	for (unsigned int i = 0; i < WRITE_PATTERN_PERIOD; i++)
		write_pattern_period[i] = testfs_write_pattern(i);
}

void testfs_write_pattern_fill(u8 *dst, loff_t off, size_t len)
{
	while (len) {
		size_t in = (u64)off % WRITE_PATTERN_PERIOD;
		size_t n = min_t(size_t, len, WRITE_PATTERN_PERIOD - in);

		memcpy(dst, write_pattern_period + in, n);
		dst += n;
		off += n;
		len -= n;
	}
}

size_t testfs_write_pattern_diff(const u8 *buf, loff_t off, size_t len)
{
	size_t done = 0;

	while (done < len) {
		size_t in = ((u64)off + done) % WRITE_PATTERN_PERIOD;
		size_t n = min_t(size_t, len - done, WRITE_PATTERN_PERIOD - in);
		const u8 *want = write_pattern_period + in;

		if (memcmp(buf + done, want, n)) {
			size_t k = 0;

			while (buf[done + k] == want[k])
				k++;
			return done + k;
		}
		done += n;
	}
	return len;
}

/*
 * Where explicit segment @i starts in the buffer memory, given where the
 * previous one ended (@end): right there, or page_off bytes into the page
 * after the one it ends in.
 */
static size_t iov_seg_start(const struct testfs_request *req, unsigned int i,
			    size_t end)
{
	if (!i)
		return req->buf_offset;
	if (req->iov[i].page_off < 0)
		return end;
	return ALIGN(end, PAGE_SIZE) + (size_t)req->iov[i].page_off;
}

size_t testfs_buf_mem_size(const struct testfs_request *req)
{
	size_t end = 0;
	unsigned int i;

	if (req->iter != IOMAPSIM_ITER_IOVEC || !req->nr_iov)
		return IOMAPSIM_BUF_MEM_SIZE(req->buf_offset, req->len);
	for (i = 0; i < req->nr_iov; i++)
		end = iov_seg_start(req, i, end) + req->iov[i].len;
	return IOMAPSIM_BUF_MEM_SIZE(0, end);
}

bool testfs_iov_apart(const struct testfs_request *req)
{
	unsigned int i;

	if (req->iter != IOMAPSIM_ITER_IOVEC)
		return false;
	for (i = 1; i < req->nr_iov; i++)
		if (req->iov[i].page_off >= 0)
			return true;
	return false;
}

bool testfs_iov_later_misaligned(const struct testfs_request *req,
				 unsigned long mask)
{
	unsigned int k = req->iovec_segs ? req->iovec_segs : 1;
	size_t end = 0, base;
	unsigned int i;

	if (req->iter != IOMAPSIM_ITER_IOVEC)
		return false;
	for (i = 0; i < req->nr_iov; i++) {
		size_t start = iov_seg_start(req, i, end);

		if (i && ((start | req->iov[i].len) & mask))
			return true;
		end = start + req->iov[i].len;
	}
	if (req->nr_iov || k < 2 || k > req->len)
		return false;
	/* equal pieces, as testfs_buf_build() lays them out */
	base = req->len / k;
	for (i = 1; i < k; i++) {
		size_t n = i + 1 < k ? base : req->len - (size_t)i * base;

		if (((req->buf_offset + (size_t)i * base) | n) & mask)
			return true;
	}
	return false;
}

bool testfs_iov_gather(const struct testfs_request *req, const u8 *mem, u8 *dst)
{
	size_t end = 0, done = 0;
	unsigned int i;

	if (!testfs_iov_apart(req))
		return false;
	for (i = 0; i < req->nr_iov; i++) {
		size_t start = iov_seg_start(req, i, end);

		memcpy(dst + done, mem + start, req->iov[i].len);
		done += req->iov[i].len;
		end = start + req->iov[i].len;
	}
	return true;
}

/*
 * The request's bytes at @p, from file offset @pos: a write's source
 * (the pattern), a read's fill; nothing where the caller's memory holds
 * them already (buf_filled).
 */
static void lay_out(const struct testfs_request *req, u8 *p, loff_t pos,
		    size_t len)
{
	if (req->buf_mem && req->buf_filled)
		return;
	if (req->write)
		testfs_write_pattern_fill(p, pos, len);
	else
		/* not zero, so that zero-filled holes show */
		memset(p, 0xee, len);
}

/*
 * The explicit segments (--iter iovec:L1,L2@OFF): filled as the request
 * wants (the write pattern at each one's file offset, or the read
 * poison), and gathered afterwards by testfs_buf_gather().
 */
static int build_iov(const struct testfs_request *req, struct testfs_buf *b,
		     char *err, size_t errlen)
{
	size_t end = 0, done = 0;
	unsigned int i;

	for (i = 0; i < req->nr_iov; i++)
		done += req->iov[i].len;
	if (req->nr_iov > IOMAPSIM_MAX_IOV || done != req->len) {
		snprintf(
			err, errlen,
			"iovec: %u segments of %zu bytes in all for a request of %zu",
			req->nr_iov, done, req->len);
		return -EINVAL;
	}
	b->iov = calloc(req->nr_iov, sizeof(*b->iov));
	if (!b->iov)
		return -ENOMEM;
	done = 0;
	for (i = 0; i < req->nr_iov; i++) {
		u8 *p = b->mem + iov_seg_start(req, i, end);

		b->iov[i].iov_base = p;
		b->iov[i].iov_len = req->iov[i].len;
		lay_out(req, p, req->pos + (loff_t)done, req->iov[i].len);
		end = (size_t)(p - b->mem) + req->iov[i].len;
		done += req->iov[i].len;
	}
	return 0;
}

int testfs_buf_gather(const struct testfs_request *req, struct testfs_buf *b)
{
	if (!testfs_iov_apart(req))
		return 0;
	b->gather = malloc(req->len ? req->len : 1);
	if (!b->gather)
		return -ENOMEM;
	testfs_iov_gather(req, b->mem, b->gather);
	b->data = b->gather;
	return 0;
}

/*
 * The caller's buffer: kept between requests and grown when needed, as
 * fresh mappings of up to 320 KiB per request cost more in page faults
 * than the request itself.  Single threaded, like the rest of the runner
 * (testfs_buf_kept_free() at its teardown).
 */
static struct {
	u8 *mem;
	size_t size;
} kept_buf;

void testfs_buf_kept_free(void)
{
	free(kept_buf.mem);
	kept_buf.mem = NULL;
	kept_buf.size = 0;
}

int testfs_buf_build(const struct testfs_request *req, struct testfs_buf *b,
		     struct iov_iter *iter, char *err, size_t errlen)
{
	unsigned int dir = req->write ? ITER_SOURCE : ITER_DEST;
	size_t i;

	b->memsize = testfs_buf_mem_size(req);
	if (req->buf_mem) {
		if (req->buf_mem_size < b->memsize ||
		    offset_in_page(req->buf_mem)) {
			snprintf(
				err, errlen,
				"buffer memory: %zu bytes, page aligned, needed",
				b->memsize);
			return -EINVAL;
		}
		b->mem = req->buf_mem;
	} else if (b->memsize > kept_buf.size) {
		testfs_buf_kept_free();
		kept_buf.mem = aligned_alloc(PAGE_SIZE, b->memsize);
		if (!kept_buf.mem)
			return -ENOMEM;
		kept_buf.size = b->memsize;
	}
	if (!req->buf_mem)
		b->mem = kept_buf.mem;
	b->data = b->mem + req->buf_offset;
	if (req->iter == IOMAPSIM_ITER_IOVEC && req->nr_iov) {
		int rc = build_iov(req, b, err, errlen);

		if (rc)
			return rc;
		iov_iter_init(iter, dir, b->iov, req->nr_iov, req->len);
		return 0;
	}
	lay_out(req, b->data, req->pos, req->len);

	switch (req->iter) {
	case IOMAPSIM_ITER_IOVEC: {
		unsigned int k = req->iovec_segs ? req->iovec_segs : 1;
		size_t base, off = 0;

		if (k > 1024 || (req->len && k > req->len)) {
			snprintf(
				err, errlen,
				"iovec:%u: 1..1024 segments, no more than --len bytes",
				k);
			return -EINVAL;
		}
		b->iov = calloc(k, sizeof(*b->iov));
		if (!b->iov)
			return -ENOMEM;
		/*
		 * Equal pieces of one contiguous buffer (the last takes the
		 * remainder): the layout stays the one --buf-offset chose.
		 */
		base = req->len / k;
		for (i = 0; i < k; i++) {
			size_t n = i + 1 < k ? base : req->len - off;

			b->iov[i].iov_base = b->data + off;
			b->iov[i].iov_len = n;
			off += n;
		}
		iov_iter_init(iter, dir, b->iov, k, req->len);
		break;
	}
	case IOMAPSIM_ITER_KVEC:
		b->kv.iov_base = b->data;
		b->kv.iov_len = req->len;
		iov_iter_kvec(iter, dir, &b->kv, 1, req->len);
		break;
	case IOMAPSIM_ITER_BVEC: {
		size_t n = 0, off = 0, left = req->len;

		b->bv = calloc(b->memsize / PAGE_SIZE + 1, sizeof(*b->bv));
		if (!b->bv)
			return -ENOMEM;
		/* one vector per page piece, as a pinned user buffer gives */
		while (left) {
			u8 *p = b->data + off;
			size_t chunk = min_t(size_t, left,
					     PAGE_SIZE - offset_in_page(p));

			bvec_set_virt(&b->bv[n++], p, chunk);
			off += chunk;
			left -= chunk;
		}
		iov_iter_bvec(iter, dir, b->bv, n, req->len);
		break;
	}
	default:
		iov_iter_ubuf(iter, dir, b->data, req->len);
		break;
	}
	return 0;
}

void testfs_buf_free(struct testfs_buf *b)
{
	free(b->gather);
	free(b->iov);
	free(b->bv);
}
