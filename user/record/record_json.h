/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A record's JSON, read by dotted paths: what the checker, compare and
 * every other reader of a record ask of it.
 */
#ifndef BHSCOPE_RECORD_JSON_H
#define BHSCOPE_RECORD_JSON_H

#include <json-c/json.h>
#include <stddef.h>

/*
 * The value at a dotted path ("runs.0.wall_s": array indices are numbers),
 * or NULL when a step is missing or null.
 */
struct json_object *record_json_get(struct json_object *root, const char *path);

/*
 * The number at path in *out. Returns 1 when found, 0 when absent or null,
 * -1 (with err) when present but not a finite number.
 */
int record_json_number(struct json_object *root, const char *path, double *out,
		       char *err, size_t errlen);

/* The string at path, or NULL when absent or not a string. */
const char *record_json_string(struct json_object *root, const char *path);

/* "a string", "null"...: a JSON value's type, for messages. */
const char *record_json_type_name(struct json_object *o);

#endif /* BHSCOPE_RECORD_JSON_H */
