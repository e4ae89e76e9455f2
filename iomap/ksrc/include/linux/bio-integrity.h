/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel-source mode: include/linux/bio-integrity.h as the direct I/O code
 * of newer trees uses it (block/bio-integrity-fs.c).  The simulated
 * devices have no integrity profile (no protection information, no
 * metadata), so a bio never carries an integrity payload: bio_integrity()
 * is NULL, and fs_bio_integrity_alloc() finds no action for the device
 * (bio_integrity_action() == 0) and returns, as the kernel's does.
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

/*
 * The kernel's is fs_bio_integrity_alloc() then bio_integrity_generate(),
 * which dereferences the payload the first did not attach: on a device
 * without a profile that is a NULL dereference.  File systems only set
 * IOMAP_F_INTEGRITY for devices with protection information, so it "can't
 * really happen" (the review of its series); here it is a warning that
 * names the broken contract instead of a crash, and the bio goes out
 * without a payload.
 */
static inline void fs_bio_integrity_generate(struct bio *bio)
{
	fs_bio_integrity_alloc(bio);
	WARN_ON_ONCE(!bio_integrity(bio));
}

/* only called when bio_integrity(bio) is set, which it never is here */
static inline void fs_bio_integrity_free(struct bio *bio)
{
	WARN_ON_ONCE(1);
}

#endif /* _LINUX_BIO_INTEGRITY_H */
