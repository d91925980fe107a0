/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BHSCOPE_WHY_H
#define BHSCOPE_WHY_H

#include <stddef.h>

/*
 * Writes a one-line reason into why (len bytes) and returns -1, so a
 * parser can say what is wrong and fail in one statement.
 */
int why_fail(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
