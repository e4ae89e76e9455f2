/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fscrypt, as far as direct I/O sees it.  Inline encryption is not
 * simulated: a bio gets no crypt context.  Encrypted inodes (IS_ENCRYPTED)
 * still matter: they keep requests off the simple path (S-07).
 */
#ifndef _LINUX_FSCRYPT_H
#define _LINUX_FSCRYPT_H

#include <linux/fs.h>

struct bio;

static inline void fscrypt_set_bio_crypt_ctx(struct bio *bio,
					     const struct inode *inode,
					     u64 first_lblk, gfp_t gfp_mask)
{
}

#endif /* _LINUX_FSCRYPT_H */
