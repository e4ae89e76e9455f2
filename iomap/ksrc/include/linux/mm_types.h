/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel-source mode: what the tree's iomap.h takes from mm_types.h. */
#ifndef _LINUX_MM_TYPES_H
#define _LINUX_MM_TYPES_H

#include <linux/list.h>
#include <linux/mm.h>

/* the page fault handlers' return type (iomap_page_mkwrite()) */
typedef unsigned int vm_fault_t;

#endif /* _LINUX_MM_TYPES_H */
