// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/term_safe.h"

/*
 * The length of the UTF-8 character at s that a terminal shows as text:
 * 1 to 4, or 0 for a control character, a C1 control (U+0080..U+009F) or
 * a byte that does not start a well-formed sequence.
 */
static size_t printable_len(const unsigned char *s)
{
	size_t n;
	unsigned int cp;

	if (*s >= 0x20 && *s < 0x7f)
		return 1;
	if (*s < 0xc2 || *s > 0xf4)
		return 0;
	n = *s >= 0xf0 ? 4 : *s >= 0xe0 ? 3 : 2;
	cp = *s & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond Unicode, C1 controls. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ||
	    (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

char *term_safe(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	while (*p) {
		size_t n = printable_len(p);
		char esc[8];

		if (n) {
			if (o + n >= len)
				break;
			memcpy(buf + o, p, n);
			o += n;
			p += n;
			continue;
		}
		snprintf(esc, sizeof(esc), "\\x%02x", *p);
		if (o + 4 >= len)
			break;
		memcpy(buf + o, esc, 4);
		o += 4;
		p++;
	}
	buf[o] = '\0';
	return buf;
}

void term_safe_error(const char *fmt, ...)
{
	char *msg = NULL, *safe;
	size_t len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fputs("bhscope: out of memory\n", stderr);
		return;
	}
	len = 4 * (size_t)n + 1;	/* every byte may become \xNN */
	safe = malloc(len);
	if (safe)
		fprintf(stderr, "bhscope: %s\n", term_safe(safe, len, msg));
	else
		fputs("bhscope: out of memory\n", stderr);
	free(safe);
	free(msg);
}
