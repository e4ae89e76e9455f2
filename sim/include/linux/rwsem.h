/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _LINUX_RWSEM_H
#define _LINUX_RWSEM_H
#include <linux/mutex.h>
#endif
