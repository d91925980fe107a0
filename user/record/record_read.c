// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record_read.h"
#include "record/record_schema.h"

/* Far above any real record (a few hundred KiB with per-CPU histograms). */
#define RECORD_MAX_BYTES	(64L << 20)

enum want { WANT_OBJECT, WANT_ARRAY, WANT_STRING, WANT_BOOL, WANT_INT,
	    WANT_NUMBER, WANT_OBJECT_OR_NULL };

static const char *const want_names[] = {
	[WANT_OBJECT] = "an object", [WANT_ARRAY] = "an array",
	[WANT_STRING] = "a string", [WANT_BOOL] = "true or false",
	[WANT_INT] = "an integer", [WANT_NUMBER] = "a number",
	[WANT_OBJECT_OR_NULL] = "an object or null",
};

/* The fields every reader of a record relies on. */
static const struct {
	const char *path;
	enum want want;
} required[] = {
	{ "time", WANT_STRING },
	{ "ok", WANT_BOOL },
	{ "host", WANT_OBJECT },
	{ "host.kernel", WANT_STRING },
	{ "host.nr_cpus", WANT_INT },
	{ "target", WANT_OBJECT_OR_NULL },
	{ "tunables", WANT_OBJECT },
	{ "workload", WANT_OBJECT },
	{ "workload.kind", WANT_STRING },
	{ "workload.command", WANT_ARRAY },
	{ "runs", WANT_ARRAY },
};

/* ... and in every run. */
static const struct {
	const char *key;
	enum want want;
} run_required[] = {
	{ "ok", WANT_BOOL },
	{ "exit_status", WANT_INT },
	{ "wall_s", WANT_NUMBER },
};

static int fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *type_name(struct json_object *o)
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

static bool has_type(struct json_object *o, enum want want)
{
	enum json_type t = json_object_get_type(o);

	switch (want) {
	case WANT_OBJECT: return t == json_type_object;
	case WANT_ARRAY: return t == json_type_array;
	case WANT_STRING: return t == json_type_string;
	case WANT_BOOL: return t == json_type_boolean;
	case WANT_INT: return t == json_type_int;
	case WANT_NUMBER: return t == json_type_int || t == json_type_double;
	case WANT_OBJECT_OR_NULL: return t == json_type_object || !o;
	}
	return false;
}

struct json_object *record_get(struct json_object *root, const char *path)
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

int record_get_number(struct json_object *root, const char *path, double *out,
		      char *err, size_t errlen)
{
	struct json_object *o = record_get(root, path);

	if (!o)
		return 0;
	if (!has_type(o, WANT_NUMBER))
		return fail(err, errlen, "field %s: want a number, found %s",
			    path, type_name(o));
	*out = json_object_get_double(o);
	return 1;
}

const char *record_get_string(struct json_object *root, const char *path)
{
	struct json_object *o = record_get(root, path);

	return json_object_is_type(o, json_type_string) ?
		       json_object_get_string(o) : NULL;
}

/* Whether key exists at path (a null value counts as present). */
static bool present(struct json_object *root, const char *path)
{
	const char *dot = strrchr(path, '.');
	struct json_object *parent = root;
	char head[128];

	if (dot) {
		if ((size_t)(dot - path) >= sizeof(head))
			return false;
		memcpy(head, path, dot - path);
		head[dot - path] = '\0';
		parent = record_get(root, head);
	}
	return json_object_is_type(parent, json_type_object) &&
	       json_object_object_get_ex(parent, dot ? dot + 1 : path, NULL);
}

static int check_schema(struct json_object *root, char *err, size_t len)
{
	struct json_object *s;
	const char *name, *slash;
	char *end;
	long v;

	if (!json_object_is_type(root, json_type_object))
		return fail(err, len, "not a bhscope record: the top level is %s, not an object",
			    type_name(root));
	if (!json_object_object_get_ex(root, "schema", &s))
		return fail(err, len, "not a bhscope record: no \"schema\" field");
	if (!json_object_is_type(s, json_type_string))
		return fail(err, len, "field schema: want a string, found %s",
			    type_name(s));
	name = json_object_get_string(s);
	slash = strchr(name, '/');
	if (!slash || (size_t)(slash - name) != strlen(RECORD_SCHEMA_NAME) ||
	    strncmp(name, RECORD_SCHEMA_NAME, slash - name))
		return fail(err, len, "foreign schema \"%s\": not a bhscope record (want %s)",
			    name, RECORD_SCHEMA);
	errno = 0;
	v = strtol(slash + 1, &end, 10);
	if (errno || end == slash + 1 || *end || v < 1)
		return fail(err, len, "bad schema version in \"%s\" (want %s)",
			    name, RECORD_SCHEMA);
	if (v > RECORD_SCHEMA_VERSION)
		return fail(err, len, "schema %s is newer than this bhscope reads (%s); upgrade bhscope",
			    name, RECORD_SCHEMA);
	return 0;
}

static int check_runs(struct json_object *runs, char *err, size_t len)
{
	size_t n = json_object_array_length(runs);

	if (!n)
		return fail(err, len, "field runs: empty, the record holds no run");
	for (size_t i = 0; i < n; i++) {
		struct json_object *run = json_object_array_get_idx(runs, i), *v;

		if (!json_object_is_type(run, json_type_object))
			return fail(err, len, "field runs.%zu: want an object, found %s",
				    i, type_name(run));
		for (size_t f = 0; f < sizeof(run_required) / sizeof(*run_required); f++) {
			if (!json_object_object_get_ex(run, run_required[f].key, &v))
				return fail(err, len, "missing field runs.%zu.%s",
					    i, run_required[f].key);
			if (!has_type(v, run_required[f].want))
				return fail(err, len, "field runs.%zu.%s: want %s, found %s",
					    i, run_required[f].key,
					    want_names[run_required[f].want],
					    type_name(v));
		}
	}
	return 0;
}

int record_check(struct json_object *root, char *err, size_t len)
{
	if (check_schema(root, err, len))
		return -1;
	for (size_t i = 0; i < sizeof(required) / sizeof(*required); i++) {
		const char *path = required[i].path;
		struct json_object *v = record_get(root, path);

		if (!present(root, path))
			return fail(err, len, "missing field %s", path);
		if (!has_type(v, required[i].want))
			return fail(err, len, "field %s: want %s, found %s", path,
				    want_names[required[i].want], type_name(v));
	}
	return check_runs(record_get(root, "runs"), err, len);
}

static char *slurp(const char *path, size_t *size, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f) {
		fail(err, len, "%s", strerror(errno));
		return NULL;
	}
	for (;;) {
		if (n + 4096 > cap) {
			char *b;

			cap = cap ? 2 * cap : 65536;
			if (cap > RECORD_MAX_BYTES + 4096) {
				fail(err, len, "larger than %ld MiB, not a record",
				     RECORD_MAX_BYTES >> 20);
				goto out;
			}
			b = realloc(buf, cap);
			if (!b) {
				fail(err, len, "out of memory");
				goto out;
			}
			buf = b;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		n += got;
		if (got)
			continue;
		if (ferror(f)) {
			fail(err, len, "read error: %s", strerror(errno));
			goto out;
		}
		break;
	}
	fclose(f);
	buf[n] = '\0';
	*size = n;
	return buf;
out:
	fclose(f);
	free(buf);
	return NULL;
}

static struct json_object *parse(const char *buf, size_t size, char *err,
				 size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root;
	enum json_tokener_error jerr;
	size_t end;

	if (!tok) {
		fail(err, len, "out of memory");
		return NULL;
	}
	root = json_tokener_parse_ex(tok, buf, (int)size);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (jerr == json_tokener_continue) {
		fail(err, len, "truncated JSON: the file ends inside a value after %zu bytes",
		     size);
		return NULL;
	}
	if (!root && jerr != json_tokener_success) {
		fail(err, len, "not JSON: %s at byte %zu",
		     json_tokener_error_desc(jerr), end);
		return NULL;
	}
	while (end < size && isspace((unsigned char)buf[end]))
		end++;
	if (end < size) {
		json_object_put(root);
		fail(err, len, "not one JSON document: trailing data at byte %zu",
		     end);
		return NULL;
	}
	return root;
}

int record_read(const char *path, struct json_object **out, char *err,
		size_t errlen)
{
	struct json_object *root;
	size_t size, i;
	char *buf;

	buf = slurp(path, &size, err, errlen);
	if (!buf)
		return -1;
	for (i = 0; i < size && isspace((unsigned char)buf[i]); i++)
		;
	if (i == size) {
		free(buf);
		return fail(err, errlen, "empty file, not a bhscope record");
	}
	if (strlen(buf) != size) {
		free(buf);
		return fail(err, errlen, "not JSON: contains NUL bytes (a binary file?)");
	}
	root = parse(buf, size, err, errlen);
	free(buf);
	if (!root)
		return -1;
	if (record_check(root, err, errlen)) {
		json_object_put(root);
		return -1;
	}
	*out = root;
	return 0;
}
