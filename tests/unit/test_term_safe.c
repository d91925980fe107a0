// SPDX-License-Identifier: GPL-2.0
/* Text from files reaches a terminal without its control characters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/term_safe.h"

static char buf[256];

static void plain_text_is_kept(void **state)
{
	(void)state;
	assert_string_equal(term_safe(buf, sizeof(buf), "loop0 6.18.0-1-amd64 a,b=c"),
			    "loop0 6.18.0-1-amd64 a,b=c");
}

static void utf8_text_is_kept(void **state)
{
	(void)state;
	assert_string_equal(term_safe(buf, sizeof(buf), "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x92\xbe"),
			    "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x92\xbe");
}

static void escape_sequences_become_visible(void **state)
{
	(void)state;
	/* ESC [ 2 J clears the screen; OSC 0 retitles the window. */
	assert_string_equal(term_safe(buf, sizeof(buf), "a\x1b[2Jb\x1b]0;pwned\x07"),
			    "a\\x1b[2Jb\\x1b]0;pwned\\x07");
}

static void newlines_and_tabs_cannot_forge_lines(void **state)
{
	(void)state;
	assert_string_equal(term_safe(buf, sizeof(buf), "x\nbhscope: fake\r\t"),
			    "x\\x0abhscope: fake\\x0d\\x09");
}

/* C1 CSI, both as a raw byte (8-bit terminals) and as UTF-8 U+009B. */
static void c1_controls_and_del_become_visible(void **state)
{
	(void)state;
	assert_string_equal(term_safe(buf, sizeof(buf), "\x9b" "2J"), "\\x9b2J");
	assert_string_equal(term_safe(buf, sizeof(buf), "\xc2\x9b" "2J"),
			    "\\xc2\\x9b2J");
	assert_string_equal(term_safe(buf, sizeof(buf), "del\x7f"), "del\\x7f");
}

/*
 * Bidirectional overrides and isolates would show "gnp.exe" reversed, or
 * hide the text after them: U+202E (RLO), U+2066 (LRI), U+2069 (PDI),
 * U+200F (RLM), a zero width joiner, the line separator, a BOM.
 */
static void bidi_and_invisible_characters_become_visible(void **state)
{
	(void)state;
	assert_string_equal(term_safe(buf, sizeof(buf), "a\xe2\x80\xaegnp.exe"),
			    "a\\u202egnp.exe");
	assert_string_equal(term_safe(buf, sizeof(buf),
				      "\xe2\x81\xa6x\xe2\x81\xa9\xe2\x80\x8f"),
			    "\\u2066x\\u2069\\u200f");
	assert_string_equal(term_safe(buf, sizeof(buf),
				      "\xe2\x80\x8d\xe2\x80\xa8\xef\xbb\xbf"),
			    "\\u200d\\u2028\\ufeff");
	/* neighbours that are text stay: a hyphen, an ellipsis */
	assert_string_equal(term_safe(buf, sizeof(buf), "\xe2\x80\x90\xe2\x80\xa6"),
			    "\xe2\x80\x90\xe2\x80\xa6");
}

static void broken_utf8_becomes_visible_bytes(void **state)
{
	(void)state;
	/* A cut sequence, an overlong '/', a surrogate, a lone continuation. */
	assert_string_equal(term_safe(buf, sizeof(buf), "\xe6\x97"), "\\xe6\\x97");
	assert_string_equal(term_safe(buf, sizeof(buf), "\xc0\xaf"), "\\xc0\\xaf");
	assert_string_equal(term_safe(buf, sizeof(buf), "\xed\xa0\x80"),
			    "\\xed\\xa0\\x80");
	assert_string_equal(term_safe(buf, sizeof(buf), "\x80"), "\\x80");
}

/* A short buffer cuts between characters, never inside one or an escape. */
static void short_buffer_cuts_at_a_boundary(void **state)
{
	char small[6];

	(void)state;
	assert_string_equal(term_safe(small, sizeof(small), "ab\x1b" "cd"), "ab");
	assert_string_equal(term_safe(small, sizeof(small), "abcd\xc3\xa9"), "abcd");
	assert_string_equal(term_safe(small, sizeof(small), "abcde"), "abcde");
}

static void error_line_is_one_safe_line(void **state)
{
	char out[256] = "";
	FILE *f = tmpfile();
	int saved = dup(2);

	(void)state;
	assert_non_null(f);
	fflush(stderr);
	dup2(fileno(f), 2);
	term_safe_error("%s: %s", "rec\n.json", "label \x1b[31mred");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	assert_non_null(fgets(out, sizeof(out), f));
	assert_string_equal(out, "bhscope: rec\\x0a.json: label \\x1b[31mred\n");
	assert_null(fgets(out, sizeof(out), f));
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_text_is_kept),
		cmocka_unit_test(utf8_text_is_kept),
		cmocka_unit_test(escape_sequences_become_visible),
		cmocka_unit_test(newlines_and_tabs_cannot_forge_lines),
		cmocka_unit_test(c1_controls_and_del_become_visible),
		cmocka_unit_test(bidi_and_invisible_characters_become_visible),
		cmocka_unit_test(broken_utf8_becomes_visible_bytes),
		cmocka_unit_test(short_buffer_cuts_at_a_boundary),
		cmocka_unit_test(error_line_is_one_safe_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
