/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * EXPORT_SYMBOL and friends: there are no modules here, so an export is
 * only a declaration (which also takes the semicolon that follows it).
 */
#ifndef _LINUX_EXPORT_H
#define _LINUX_EXPORT_H

#define EXPORT_SYMBOL(sym)		extern typeof(sym) sym
#define EXPORT_SYMBOL_GPL(sym)		extern typeof(sym) sym
#define EXPORT_SYMBOL_NS_GPL(sym, ns)	extern typeof(sym) sym

#endif /* _LINUX_EXPORT_H */
