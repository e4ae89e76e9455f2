/* SPDX-License-Identifier: GPL-2.0-only */
/* include/linux/sizes.h: the SZ_* sizes kernel code spells out. */
#ifndef _LINUX_SIZES_H
#define _LINUX_SIZES_H

#define SZ_512		0x00000200
#define SZ_1K		0x00000400
#define SZ_2K		0x00000800
#define SZ_4K		0x00001000
#define SZ_8K		0x00002000
#define SZ_16K		0x00004000
#define SZ_32K		0x00008000
#define SZ_64K		0x00010000
#define SZ_128K		0x00020000
#define SZ_256K		0x00040000
#define SZ_512K		0x00080000
#define SZ_1M		0x00100000
#define SZ_2M		0x00200000
#define SZ_4M		0x00400000

#endif /* _LINUX_SIZES_H */
