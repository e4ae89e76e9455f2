/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel-source mode: include/linux/bio-integrity.h as the direct I/O code
 * of newer trees uses it.  The simulated devices have no integrity profile
 * (no protection information, no metadata), so a bio never carries an
 * integrity payload: bio_integrity() is NULL, and the fs_bio_integrity_*()
 * helpers find no profile on the device and leave the bio alone, as the
 * kernel's do for such a device.
 */
#ifndef _LINUX_BIO_INTEGRITY_H
#define _LINUX_BIO_INTEGRITY_H

#include <linux/bio.h>

struct bio_integrity_payload;

static inline struct bio_integrity_payload *bio_integrity(struct bio *bio)
{
	return NULL;
}

/* a device without an integrity profile: nothing to allocate or check */
static inline void fs_bio_integrity_alloc(struct bio *bio)
{
}

/* ... and nothing to generate for a write */
static inline void fs_bio_integrity_generate(struct bio *bio)
{
}

/* only called when bio_integrity(bio) is set, which it never is here */
static inline void fs_bio_integrity_free(struct bio *bio)
{
	WARN_ON_ONCE(1);
}

#endif /* _LINUX_BIO_INTEGRITY_H */
