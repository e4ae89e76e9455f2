/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel-source mode: include/linux/blk-crypto.h as newer trees' direct
 * I/O code uses it.  A bio with an inline-encryption context goes through
 * blk-crypto (the hardware keyslot or the software fallback) before the
 * device; one without is submit_bio()'s.  fscrypt sets no context in the
 * simulator (<linux/fscrypt.h>), so every bio takes the second way.
 */
#ifndef _LINUX_BLK_CRYPTO_H
#define _LINUX_BLK_CRYPTO_H

#include <linux/bio.h>

static inline bool bio_has_crypt_ctx(struct bio *bio)
{
	return false;
}

static inline void blk_crypto_submit_bio(struct bio *bio)
{
	/* (a crypt context would be handed to blk-crypto here) */
	if (WARN_ON_ONCE(bio_has_crypt_ctx(bio)))
		return;
	submit_bio(bio);
}

#endif /* _LINUX_BLK_CRYPTO_H */
