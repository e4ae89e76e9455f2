/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel-source mode: struct folio_batch (include/linux/folio_batch.h of
 * newer trees, pagevec.h before).  iter.c releases an iterator's batch;
 * direct I/O never attaches one, but the helpers are real.
 */
#ifndef _LINUX_FOLIO_BATCH_H
#define _LINUX_FOLIO_BATCH_H

#include <linux/mm.h>

#define PAGEVEC_SIZE	31

struct folio_batch {
	unsigned char nr;
	unsigned char i;
	bool percpu_pvec_drained;
	struct folio *folios[PAGEVEC_SIZE];
};

static inline void folio_batch_init(struct folio_batch *fbatch)
{
	fbatch->nr = 0;
	fbatch->i = 0;
	fbatch->percpu_pvec_drained = false;
}

static inline void folio_batch_reinit(struct folio_batch *fbatch)
{
	fbatch->nr = 0;
	fbatch->i = 0;
}

static inline unsigned int folio_batch_count(const struct folio_batch *fbatch)
{
	return fbatch->nr;
}

static inline unsigned int folio_batch_space(const struct folio_batch *fbatch)
{
	return PAGEVEC_SIZE - fbatch->nr;
}

static inline unsigned int folio_batch_add(struct folio_batch *fbatch,
		struct folio *folio)
{
	fbatch->folios[fbatch->nr++] = folio;
	return folio_batch_space(fbatch);
}

/* drop the batch's references and empty it */
static inline void folio_batch_release(struct folio_batch *fbatch)
{
	for (unsigned int i = 0; i < fbatch->nr; i++)
		folio_put(fbatch->folios[i]);
	folio_batch_reinit(fbatch);
}

#endif /* _LINUX_FOLIO_BATCH_H */
