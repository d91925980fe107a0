// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/input_file.h"
#include "record/record_read.h"
#include "lib/why.h"

/* Far above any real record (a few hundred KiB with per-CPU histograms). */
#define RECORD_MAX_BYTES	(64L << 20)

static struct json_object *parse(const char *buf, size_t size, char *err,
				 size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root;
	enum json_tokener_error jerr;
	size_t end;

	if (!tok) {
		why_fail(err, len, "out of memory");
		return NULL;
	}
	root = json_tokener_parse_ex(tok, buf, (int)size);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue) {
		/*
		 * The file is whole: a NUL says the input ends, which ends a
		 * top-level number or literal ("null" without a newline) and
		 * leaves only what is truly cut short unfinished.
		 */
		root = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
		if (jerr == json_tokener_error_parse_eof)
			jerr = json_tokener_continue;	/* cut short */
		else
			end = size;
	}
	json_tokener_free(tok);
	if (jerr == json_tokener_continue) {
		why_fail(err, len, "truncated JSON: the file ends inside a value after %zu bytes",
		     size);
		return NULL;
	}
	if (!root && jerr != json_tokener_success) {
		why_fail(err, len, "not JSON: %s at byte %zu",
		     json_tokener_error_desc(jerr), end);
		return NULL;
	}
	while (end < size && isspace((unsigned char)buf[end]))
		end++;
	if (end < size) {
		json_object_put(root);
		why_fail(err, len, "not one JSON document: trailing data at byte %zu",
		     end);
		return NULL;
	}
	/* The document "null" parses to NULL, which is no error to json-c. */
	if (!root)
		why_fail(err, len, "not a bhscope record: the top level is null, not an object");
	return root;
}

int record_read_parse(const char *buf, size_t size, struct json_object **out,
		      char *err, size_t errlen)
{
	struct json_object *root;
	size_t i;

	for (i = 0; i < size && isspace((unsigned char)buf[i]); i++)
		;
	if (i == size)
		return why_fail(err, errlen, "empty file, not a bhscope record");
	if (memchr(buf, '\0', size))
		return why_fail(err, errlen, "not JSON: contains NUL bytes (a binary file?)");
	if (size > RECORD_MAX_BYTES)
		return why_fail(err, errlen, "larger than %ld MiB", RECORD_MAX_BYTES >> 20);
	root = parse(buf, size, err, errlen);
	if (!root)
		return -1;
	if (record_check(root, err, errlen)) {
		json_object_put(root);
		return -1;
	}
	*out = root;
	return 0;
}

int record_read(const char *path, struct json_object **out, char *err,
		size_t errlen)
{
	size_t size;
	char *buf;
	int ret;

	if (input_file_read(path, RECORD_MAX_BYTES, INPUT_FILE_STDIN, &buf,
			    &size, err, errlen))
		return -1;
	ret = record_read_parse(buf, size, out, err, errlen);
	free(buf);
	return ret;
}
