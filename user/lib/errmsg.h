/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bhscope's one way to say something on stderr: one line, "bhscope: "
 * then the message, which says what failed and what to do. A message
 * holding text from a file or a user goes through term_safe_error().
 */
#ifndef BHSCOPE_ERRMSG_H
#define BHSCOPE_ERRMSG_H

#include <stdarg.h>

/* The prefix of every line bhscope writes on stderr. */
#define ERRMSG_PREFIX	"bhscope: "

/* "bhscope: MESSAGE\n" on stderr (the format without its newline). */
void errmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same from a va_list. */
void errmsg_v(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif /* BHSCOPE_ERRMSG_H */
