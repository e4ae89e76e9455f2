// SPDX-License-Identifier: GPL-2.0-only
/*
 * blksim_bdev_err(): the error-line writer of the backends and of the file
 * backend's host side, kept here since host files cannot see the
 * kernel-shaped headers the rest of block/ is built with (README.md).
 */
#include <stdarg.h>
#include <stdio.h>
#include "err-host.h"

void blksim_bdev_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}
