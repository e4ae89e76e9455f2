// SPDX-License-Identifier: GPL-2.0-only
/*
 * Source probes of a kernel tree's fs/iomap/direct-io.c
 * (cmake/ksrc/features.cmake): the file compiled as
 * iomap/ksrc/kdirect-io.c compiles it, with one question -D'd in:
 *
 *  PROBE_BASE                 it compiles at all;
 *  PROBE_GET_PAGES_ARGS=N     every bio_iov_iter_get_pages() call has N
 *                             arguments (a macro of N parameters);
 *  PROBE_USES_<fn>            <fn> is called: a call of the
 *                             undeclared probe_called() fails;
 *  PROBE_DEFINES_<name>       the file defines the macro <name>;
 *  PROBE_SIMPLE_POOL          it has the simple path's bio_set;
 *  PROBE_IOEND_DIRECT         it has iomap_finish_ioend_direct();
 *  PROBE_BIO_OPFLAGS_HELPER   it has iomap_dio_bio_opflags();
 *  PROBE_ZERO_RETURNS_INT     its iomap_dio_zero() returns an int.
 */
#include "ksrc-compat.h"

#if defined(PROBE_GET_PAGES_ARGS)
#undef bio_iov_iter_get_pages
#if PROBE_GET_PAGES_ARGS == 2
#define bio_iov_iter_get_pages(bio, iter) 0
#elif PROBE_GET_PAGES_ARGS == 3
#define bio_iov_iter_get_pages(bio, iter, len_mask) 0
#else
#define bio_iov_iter_get_pages(bio, iter, dma_mask, len_mask) 0
#endif
#elif defined(PROBE_USES_largest_zero_folio)
#define largest_zero_folio(...) probe_called()
#elif defined(PROBE_USES_fs_bio_integrity_alloc)
#define fs_bio_integrity_alloc(...) probe_called()
#elif defined(PROBE_USES_blk_crypto_submit_bio)
#define blk_crypto_submit_bio(...) probe_called()
#elif defined(PROBE_USES_kmalloc_obj)
#undef kmalloc_obj
#define kmalloc_obj(...) probe_called()
#elif defined(PROBE_USES_fserror_report_io)
#define fserror_report_io(...) probe_called()
#elif defined(PROBE_USES_bdev_iter_is_aligned)
#define bdev_iter_is_aligned(...) probe_called()
#elif defined(PROBE_USES_iomap_inline_data_valid)
#define iomap_inline_data_valid(...) probe_called()
#elif defined(PROBE_USES_kiocb_invalidate_pages)
#define kiocb_invalidate_pages(...) probe_called()
#elif defined(PROBE_USES_bdev_write_cache)
#define bdev_write_cache(...) probe_called()
#elif defined(PROBE_USES_get_page)
#define get_page(...) probe_called()
#elif defined(PROBE_USES_trace_iomap_dio_complete)
#undef trace_iomap_dio_complete
#define trace_iomap_dio_complete(...) probe_called()
#endif

#include "direct-io.c"

#if defined(PROBE_DEFINES_IOMAP_DIO_CALLER_COMP) && !defined(IOMAP_DIO_CALLER_COMP)
#error "no IOMAP_DIO_CALLER_COMP"
#elif defined(PROBE_DEFINES_IOMAP_DIO_INLINE_COMP) && !defined(IOMAP_DIO_INLINE_COMP)
#error "no IOMAP_DIO_INLINE_COMP"
#elif defined(PROBE_DEFINES_IOMAP_DIO_COMP_WORK) && !defined(IOMAP_DIO_COMP_WORK)
#error "no IOMAP_DIO_COMP_WORK"
#elif defined(PROBE_DEFINES_IOMAP_ZERO_PAGE_SIZE) && !defined(IOMAP_ZERO_PAGE_SIZE)
#error "no IOMAP_ZERO_PAGE_SIZE"
#elif defined(PROBE_SIMPLE_POOL)
void *probe_simple_pool(void);
void *probe_simple_pool(void)
{
	return &iomap_dio_simple_pool;
}
#elif defined(PROBE_BIO_OPFLAGS_HELPER)
void *probe_bio_opflags(void);
void *probe_bio_opflags(void)
{
	return (void *)iomap_dio_bio_opflags;
}
#elif defined(PROBE_ZERO_RETURNS_INT)
_Static_assert(__builtin_types_compatible_p(
	__typeof__(iomap_dio_zero(NULL, NULL, 0, 0)), int), "void");
#elif defined(PROBE_IOEND_DIRECT)
void *probe_ioend_direct(void);
void *probe_ioend_direct(void)
{
	return (void *)iomap_finish_ioend_direct;
}
#endif
