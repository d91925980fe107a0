// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>

#include "lib/errmsg.h"

void errmsg_v(const char *fmt, va_list ap)
{
	char *msg = NULL;

	/* one write: lines of threads and processes do not interleave */
	if (vasprintf(&msg, fmt, ap) < 0) {
		fputs(ERRMSG_PREFIX "out of memory\n", stderr);
		return;
	}
	fprintf(stderr, ERRMSG_PREFIX "%s\n", msg);
	free(msg);
}

void errmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errmsg_v(fmt, ap);
	va_end(ap);
}
