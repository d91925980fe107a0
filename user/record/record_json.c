// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/why.h"
#include "record/record_json.h"

struct json_object *record_json_get(struct json_object *root, const char *path)
{
	struct json_object *o = root;
	char key[128];

	while (o && *path) {
		size_t n = strcspn(path, ".");
		char *end;

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		path += n + (path[n] == '.');
		if (json_object_is_type(o, json_type_array)) {
			long i = strtol(key, &end, 10);

			if (*end || i < 0 ||
			    (size_t)i >= json_object_array_length(o))
				return NULL;
			o = json_object_array_get_idx(o, i);
		} else if (!json_object_is_type(o, json_type_object) ||
			   !json_object_object_get_ex(o, key, &o)) {
			return NULL;
		}
	}
	return o;
}

int record_json_number(struct json_object *root, const char *path, double *out,
		       char *err, size_t errlen)
{
	struct json_object *o = record_json_get(root, path);

	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_int) &&
	    !json_object_is_type(o, json_type_double))
		return why_fail(err, errlen, "field %s: want a number, found %s",
			    path, record_json_type_name(o));
	*out = json_object_get_double(o);
	if (!isfinite(*out))
		return why_fail(err, errlen, "field %s: %s is not a finite number",
			    path, json_object_to_json_string(o));
	return 1;
}

const char *record_json_string(struct json_object *root, const char *path)
{
	struct json_object *o = record_json_get(root, path);

	return json_object_is_type(o, json_type_string) ?
		       json_object_get_string(o) : NULL;
}

const char *record_json_type_name(struct json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a number";
	case json_type_int: return "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "something else";
}
