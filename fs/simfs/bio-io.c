// SPDX-License-Identifier: GPL-2.0-only
/*
 * Synchronous block I/O for what is not direct I/O: the superblock, the
 * metadata copy, and buffered file data.  Like a file system's own
 * metadata I/O (xfs_buf, ext4's bh reads) it builds bios over its own
 * page-aligned buffers and waits with submit_bio_wait(), so it goes down
 * the same block layer and backend as the direct I/O under test.
 */
#include <errno.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "simfs.h"

void *simfs_buf_alloc(size_t len)
{
	return sim_kmalloc(ALIGN(len ? len : 1, PAGE_SIZE), PAGE_SIZE,
			   GFP_KERNEL | __GFP_ZERO, SIM_ALLOC_SITE());
}

void simfs_buf_free(void *buf)
{
	kfree(buf);
}

int simfs_bdev_rw(struct block_device *bdev, blk_opf_t opf, u64 pos, void *buf,
		  size_t len)
{
	char *p = buf;
	int ret = 0;

	/* sector-aligned memory: the O_DIRECT backend needs no bounce */
	if (WARN_ON_ONCE((unsigned long)buf & (SECTOR_SIZE - 1)) ||
	    (pos | len) & (SECTOR_SIZE - 1))
		return -EINVAL;

	while (len) {
		size_t chunk =
			min_t(size_t, len, (BIO_MAX_VECS - 1) * PAGE_SIZE);
		unsigned int nr =
			DIV_ROUND_UP(offset_in_page(p) + chunk, PAGE_SIZE);
		struct bio *bio;

		bio = bio_alloc(bdev, nr, opf, GFP_NOIO);
		if (!bio)
			return -ENOMEM;
		bio->bi_iter.bi_sector = pos >> SECTOR_SHIFT;
		for (size_t done = 0; done < chunk;) {
			char *at = p + done;
			unsigned int n = min_t(size_t, chunk - done,
					       PAGE_SIZE - offset_in_page(at));

			if (bio_add_page(bio, virt_to_page(at), n,
					 offset_in_page(at)) != (int)n) {
				bio_put(bio);
				return -EIO;
			}
			done += n;
		}
		ret = submit_bio_wait(bio);
		bio_put(bio);
		if (ret)
			return ret;
		/* only the first bio of a sequence carries the preflush */
		opf &= ~REQ_PREFLUSH;
		pos += chunk;
		p += chunk;
		len -= chunk;
	}
	return ret;
}
