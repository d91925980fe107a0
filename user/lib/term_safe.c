// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/errmsg.h"
#include "lib/term_safe.h"

/*
 * The length of the well-formed UTF-8 character at s (1 to 4, its code
 * point in *cp), or 0 for a byte that does not start one.
 */
static size_t char_len(const unsigned char *s, unsigned int *cp)
{
	size_t n;

	if (*s < 0x80) {
		*cp = *s;
		return 1;
	}
	if (*s < 0xc2 || *s > 0xf4)
		return 0;
	n = *s >= 0xf0 ? 4 : *s >= 0xe0 ? 3 : 2;
	*cp = *s & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond Unicode. */
	if ((n == 3 && *cp < 0x800) || (n == 4 && *cp < 0x10000) ||
	    (*cp >= 0xd800 && *cp <= 0xdfff) || *cp > 0x10ffff)
		return 0;
	return n;
}

/*
 * Characters a terminal does not show as text: the C0 and C1 controls and
 * DEL (escaped byte by byte), and the invisible ones that reorder or hide
 * what follows: the bidirectional embeddings, overrides and isolates
 * (U+202A-U+202E, U+2066-U+2069, the marks U+200E, U+200F, U+061C: a
 * label could show "json.exe" as "exe.json"), zero widths and joiners,
 * the line and paragraph separators, the BOM, the interlinear
 * annotations.
 */
static bool is_control(unsigned int cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

static bool is_hidden(unsigned int cp)
{
	return cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff ||
	       (cp >= 0xfff9 && cp <= 0xfffb);
}

char *term_safe(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	while (*p) {
		unsigned int cp;
		size_t n = char_len(p, &cp), e;
		char esc[16];

		if (n && !is_control(cp) && !is_hidden(cp)) {
			if (o + n >= len)
				break;
			memcpy(buf + o, p, n);
			o += n;
			p += n;
			continue;
		}
		if (n && is_hidden(cp)) {
			e = snprintf(esc, sizeof(esc), "\\u%04x", cp);
		} else {
			/* a control or a broken byte: that one byte */
			e = snprintf(esc, sizeof(esc), "\\x%02x", *p);
			n = 1;
		}
		if (o + e >= len)
			break;
		memcpy(buf + o, esc, e);
		o += e;
		p += n;
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
		errmsg("out of memory");
		return;
	}
	len = 4 * (size_t)n + 1;	/* every byte may become \xNN */
	safe = malloc(len);
	if (safe)
		errmsg("%s", term_safe(safe, len, msg));
	else
		errmsg("out of memory");
	free(safe);
	free(msg);
}
