/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel-source mode: older trees' direct-io.c includes <linux/module.h>
 * for EXPORT_SYMBOL_GPL() (<linux/export.h>: there are no modules here)
 * and the initcall macros (<linux/init.h>).
 */
#ifndef _LINUX_MODULE_H
#define _LINUX_MODULE_H

#include <linux/export.h>
#include <linux/init.h>

#endif /* _LINUX_MODULE_H */
