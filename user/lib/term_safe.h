/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text from files (records, configs, traces) on the way to a terminal:
 * control characters (C0, DEL, C1) and bytes that are not UTF-8 become
 * visible escapes ("\x1b"), and the invisible characters that reorder or
 * hide text (bidirectional overrides and isolates, zero widths, line
 * separators) become "\u202e", so a file cannot move the cursor, retitle
 * the window, forge a line of output or show itself reversed.
 */
#ifndef BHSCOPE_TERM_SAFE_H
#define BHSCOPE_TERM_SAFE_H

#include <stddef.h>

/*
 * s made safe, into buf (len >= 1); cut short at a character boundary when
 * it does not fit. Returns buf.
 */
char *term_safe(char *buf, size_t len, const char *s);

/*
 * Prints MESSAGE with errmsg(), made safe as one line
 * (a newline in it is escaped too).
 */
void term_safe_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* BHSCOPE_TERM_SAFE_H */
