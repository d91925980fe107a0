/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON output, one way for every command: objects that start with their
 * versioned "schema" (and, for live reports, the UTC "time"), printed as
 * one line (-j reports: JSON lines) or pretty (documents), flushed, with
 * write errors reported.
 */
#ifndef BHSCOPE_JSON_OUT_H
#define BHSCOPE_JSON_OUT_H

#include <json-c/json.h>
#include <stdio.h>

/* A new object whose first member is "schema": schema. */
struct json_object *json_out_new(const char *schema);

/* The same, then "time": now, as 2026-12-01T15:23:44Z. */
struct json_object *json_out_envelope(const char *schema);

/* "2026-12-01T15:23:44Z", now, into buf (at least 21 bytes). */
void json_out_utc_now(char *buf, size_t len);

/*
 * A number, or null where there is none: JSON has no NaN or Infinity, and
 * json-c would print them as such. Every double bhscope emits goes here.
 * Printed with 6 significant digits (0.936412, 981.6, 1.2e-05), every
 * integer digit from a million up ("12345679"), never json-c's 17
 * ("1.0014940000000001"); integers are json_object_new_int64()'s.
 */
struct json_object *json_out_double(double v);

enum json_out_style {
	JSON_OUT_LINE,		/* one line: a JSON lines stream */
	JSON_OUT_PRETTY,	/* indented: a document */
};

/*
 * Prints o and a newline to out, flushes, and drops o. Returns 0, or -1
 * with errno set when the output could not be written.
 */
int json_out_print(FILE *out, struct json_object *o, enum json_out_style s);

/*
 * The same, one line, with one more member, key: an array whose elements
 * next(arg) makes one at a time (NULL: no more), each printed and dropped
 * before the next is made, so that the memory is one element's however
 * many there are.
 */
int json_out_print_array_member(FILE *out, struct json_object *o,
				const char *key,
				struct json_object *(*next)(void *arg),
				void *arg);

#endif /* BHSCOPE_JSON_OUT_H */
