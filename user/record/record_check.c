// SPDX-License-Identifier: GPL-2.0
/*
 * What a record must look like before anything reads it: the schema, and
 * the type and range of every field a reader (compare, its chart, sweep's
 * table) takes from it; the tracers' figures from their tables. A record is hostile input: a NaN, an Infinity, a
 * null where a string belongs or a million CPUs is refused here, with the
 * field's path, and never reaches a figure.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record_json.h"
#include "jbd2/jbd2_table.h"
#include "lib/why.h"
#include "lru/lru_table.h"
#include "record/record_check.h"
#include "record/record_read.h"
#include "record/record_schema.h"

/* Rates (ops/s, files/s, lookups/s) and times in us: far above any host. */
#define RATE_MAX	1e15
/* Counters: exact in a double, and far above any run. */
#define COUNT_MAX	9007199254740992.0	/* 2^53 */
/* Strings that name things (kernel, device, label): longer is not a name. */
#define NAME_MAX_LEN	4096
/* bhbench's phases (create, stat, remove): a metric each. */
#define MAX_PHASES	64

enum want { W_OBJECT, W_ARRAY, W_STRING, W_BOOL, W_INT, W_NUMBER };

enum {
	F_REQUIRED = 1 << 0,	/* missing is an error (where its parent is) */
	F_NULL = 1 << 1,	/* null is fine (not measured, not known) */
	F_NAMES = 1 << 2,	/* an object whose keys become metric names */
};

/*
 * A field: its path ("*" = every array element or object member), type and
 * range: the value for numbers, the element or member count for arrays
 * and objects, the length for strings.
 */
struct field {
	const char *path;
	enum want want;
	unsigned int flags;
	double min, max;
};

#define REQ		F_REQUIRED
#define NUL		F_NULL
#define STR(p, f)	{ p, W_STRING, f, 0, NAME_MAX_LEN }
#define RATE(p)		{ p, W_NUMBER, NUL, 0, RATE_MAX }
#define COUNT(p)	{ p, W_INT, NUL, 0, COUNT_MAX }
#define OBJ(p, f)	{ p, W_OBJECT, f, 0, 1e9 }

static const struct field fields[] = {
	STR("time", REQ),
	{ "ok", W_BOOL, REQ, 0, 0 },
	STR("label", NUL),
	OBJ("host", REQ),
	STR("host.kernel", REQ),
	{ "host.nr_cpus", W_INT, REQ, 1, RECORD_MAX_CPUS },
	{ "host.possible_cpus", W_INT, 0, 1, RECORD_MAX_CPUS },
	OBJ("target", REQ | NUL),
	{ "target.dev", W_STRING, NUL, 0, 32 },
	STR("target.device", NUL),
	STR("target.fstype", NUL),
	STR("target.source", NUL),
	STR("target.super_options", NUL),
	OBJ("tunables", REQ),
	{ "tunables.lru_size", W_INT, NUL, 0, 4096 },
	STR("tunables.lru_size_from", NUL),
	{ "tunables.min_batch_time_us", W_INT, NUL, -1, 4294967295.0 },
	{ "tunables.max_batch_time_us", W_INT, NUL, -1, 4294967295.0 },
	STR("tunables.batch_from", NUL),
	OBJ("workload", REQ),
	STR("workload.kind", REQ),
	{ "workload.command", W_ARRAY, REQ, 0, 4096 },
	STR("workload.name", NUL),
	{ "workload.params", W_OBJECT, NUL, 0, 256 },
	{ "runs", W_ARRAY, REQ, 1, RECORD_MAX_RUNS },
	OBJ("runs.*", REQ),
	{ "runs.*.ok", W_BOOL, REQ, 0, 0 },
	{ "runs.*.exit_status", W_INT, REQ, -2147483648.0, 2147483647.0 },
	{ "runs.*.wall_s", W_NUMBER, REQ, 0, 1e9 },
	OBJ("runs.*.result", NUL),
	{ "runs.*.result.phases", W_OBJECT, NUL | F_NAMES, 0, MAX_PHASES },
	OBJ("runs.*.result.phases.*", NUL),
	RATE("runs.*.result.phases.*.ops_per_sec"),
	OBJ("runs.*.result.results", NUL),
	RATE("runs.*.result.results.files_per_sec"),
	RATE("runs.*.result.results.avg_latency_us"),
	OBJ("runs.*.fs_mark", NUL),
	RATE("runs.*.fs_mark.files_per_sec"),
	/* the tracers' figures: each compared row of their tables, below */
	OBJ("runs.*.jbd2", NUL),
	{ "runs.*.jbd2.devices", W_ARRAY, NUL, 0, 65536 },
	OBJ("runs.*.jbd2.devices.*", 0),
	{ "runs.*.jbd2.devices.*.dev", W_STRING, 0, 0, 32 },
	{ "runs.*.jbd2.devices.*.cpus", W_ARRAY, NUL, 0, RECORD_MAX_CPUS },
	OBJ("runs.*.lru", NUL),
	OBJ("runs.*.lru.total", NUL),
	{ "runs.*.lru.cpus", W_ARRAY, NUL, 0, RECORD_MAX_CPUS },
	OBJ("runs.*.lru.cpus.*", 0),
	/* sweep's cells: its own limits (sweep's options) */
	OBJ("sweep", NUL),
	{ "sweep.config", W_STRING, 0, 1, 256 },
	{ "sweep.config_index", W_INT, 0, 0, RECORD_MAX_CELLS - 1 },
	{ "sweep.cell", W_INT, 0, 0, RECORD_MAX_CELLS - 1 },
	OBJ("sweep.params", 0),
	{ "sweep.params.tasks", W_INT, 0, 1, 1024 },
	{ "sweep.params.dir_size", W_INT, 0, 0, 100000000 },
};

static const char *const want_names[] = {
	[W_OBJECT] = "an object", [W_ARRAY] = "an array",
	[W_STRING] = "a string", [W_BOOL] = "true or false",
	[W_INT] = "an integer", [W_NUMBER] = "a number",
};

static bool has_type(struct json_object *o, enum want want)
{
	enum json_type t = json_object_get_type(o);

	switch (want) {
	case W_OBJECT: return t == json_type_object;
	case W_ARRAY: return t == json_type_array;
	case W_STRING: return t == json_type_string;
	case W_BOOL: return t == json_type_boolean;
	case W_INT: return t == json_type_int;
	case W_NUMBER: return t == json_type_int || t == json_type_double;
	}
	return false;
}

/* A metric name: it becomes part of a key and of a table's first column. */
static bool is_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 32)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

static int check_value(struct json_object *v, const struct field *f,
		       const char *path, char *err, size_t len)
{
	double x;

	if (!v) {
		if (f->flags & F_NULL)
			return 0;
		return why_fail(err, len, "field %s: want %s, found null", path,
			    want_names[f->want]);
	}
	if (!has_type(v, f->want))
		return why_fail(err, len, "field %s: want %s, found %s", path,
			    want_names[f->want], record_json_type_name(v));
	switch (f->want) {
	case W_INT:
	case W_NUMBER:
		x = json_object_get_double(v);
		if (!isfinite(x))	/* NaN, Infinity, 1e999 */
			return why_fail(err, len, "field %s: %s is not a finite number",
				    path, json_object_to_json_string(v));
		if (x < f->min || x > f->max)
			return why_fail(err, len, "field %s: %s is out of range (%.15g to %.15g)",
				    path, json_object_to_json_string(v), f->min,
				    f->max);
		return 0;
	case W_STRING:
		x = json_object_get_string_len(v);
		if (x < f->min || x > f->max)
			return why_fail(err, len, "field %s: a string of %.0f bytes (want %.0f to %.0f)",
				    path, x, f->min, f->max);
		return 0;
	case W_ARRAY:
		x = json_object_array_length(v);
		if (!x && f->min && !strcmp(path, "runs"))
			return why_fail(err, len, "field runs: empty, the record holds no run");
		if (x < f->min || x > f->max)
			return why_fail(err, len, "field %s: %.0f elements (want %.0f to %.0f)",
				    path, x, f->min, f->max);
		return 0;
	case W_OBJECT:
		x = json_object_object_length(v);
		if (x > f->max)
			return why_fail(err, len, "field %s: %.0f members (want at most %.0f)",
				    path, x, f->max);
		if (!(f->flags & F_NAMES))
			return 0;
		json_object_object_foreach(v, key, val) {
			(void)val;
			if (!is_name(key))
				return why_fail(err, len, "field %s: member \"%.40s\" is not a name (letters, digits, _ or -, at most 32)",
					    path, key);
		}
		return 0;
	case W_BOOL:
		return 0;
	}
	return 0;
}

/*
 * Checks field f at every node its remaining pattern pat matches below
 * node, whose path is path[0..used).
 */
static int check_at(struct json_object *node, const char *pat,
		    const struct field *f, char *path, size_t size, size_t used,
		    char *err, size_t len)
{
	size_t seg = strcspn(pat, "."), n;
	const char *rest = pat + seg + (pat[seg] == '.');
	struct json_object *child;
	char key[64];

	if (seg >= sizeof(key))
		return why_fail(err, len, "internal: pattern %s too long", f->path);
	memcpy(key, pat, seg);
	key[seg] = '\0';
	if (!strcmp(key, "*")) {
		if (json_object_is_type(node, json_type_array)) {
			n = json_object_array_length(node);
			for (size_t i = 0; i < n; i++) {
				size_t u = used + snprintf(path + used, size - used,
							   "%s%zu", used ? "." : "", i);

				child = json_object_array_get_idx(node, i);
				if (u >= size)
					u = size - 1;
				if (!*rest ? check_value(child, f, path, err, len) :
				    check_at(child, rest, f, path, size, u, err, len))
					return -1;
			}
		} else if (json_object_is_type(node, json_type_object)) {
			json_object_object_foreach(node, k, v) {
				size_t u = used + snprintf(path + used, size - used,
							   "%s%s", used ? "." : "", k);

				if (u >= size)
					u = size - 1;
				if (!*rest ? check_value(v, f, path, err, len) :
				    check_at(v, rest, f, path, size, u, err, len))
					return -1;
			}
		}
		/* Anything else: the parent's own entry says what is wrong. */
		return 0;
	}
	if (!json_object_is_type(node, json_type_object))
		return 0;
	n = used + snprintf(path + used, size - used, "%s%s", used ? "." : "",
			    key);
	if (n >= size)
		n = size - 1;
	if (!json_object_object_get_ex(node, key, &child)) {
		if (!*rest && (f->flags & F_REQUIRED))
			return why_fail(err, len, "missing field %s", path);
		return 0;
	}
	if (!*rest)
		return check_value(child, f, path, err, len);
	return child ? check_at(child, rest, f, path, size, n, err, len) : 0;
}

/* Every number anywhere must be finite: the parts compare -j passes on too. */
static int check_finite(struct json_object *o, char *path, size_t size,
			size_t used, char *err, size_t len)
{
	size_t u;

	switch (json_object_get_type(o)) {
	case json_type_double:
		if (isfinite(json_object_get_double(o)))
			return 0;
		return why_fail(err, len, "field %s: %s is not a finite number",
			    used ? path : "(top level)",
			    json_object_to_json_string(o));
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			u = used + snprintf(path + used, size - used, "%s%zu",
					    used ? "." : "", i);
			if (check_finite(json_object_array_get_idx(o, i), path,
					 size, u < size ? u : size - 1, err, len))
				return -1;
		}
		return 0;
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			u = used + snprintf(path + used, size - used, "%s%s",
					    used ? "." : "", k);
			if (check_finite(v, path, size, u < size ? u : size - 1,
					 err, len))
				return -1;
		}
		return 0;
	}
	default:
		return 0;
	}
}

/* Per-CPU arrays hold at most the host's possible CPUs. */
static int check_cpu_counts(struct json_object *root, char *err, size_t len)
{
	struct json_object *runs = record_json_get(root, "runs"), *a;
	double cpus;
	char path[96];

	if (record_json_number(root, "host.possible_cpus", &cpus, err, len) <= 0 &&
	    record_json_number(root, "host.nr_cpus", &cpus, err, len) <= 0)
		return 0;
	for (size_t r = 0; r < json_object_array_length(runs); r++) {
		snprintf(path, sizeof(path), "runs.%zu.lru.cpus", r);
		a = record_json_get(root, path);
		if (json_object_is_type(a, json_type_array) &&
		    json_object_array_length(a) > cpus)
			return why_fail(err, len, "field %s: %zu CPUs, but the host has %.0f",
				    path, json_object_array_length(a), cpus);
	}
	return 0;
}

static int check_schema(struct json_object *root, char *err, size_t len)
{
	struct json_object *s;
	const char *name, *slash;
	char *end;
	long v;

	if (!json_object_is_type(root, json_type_object))
		return why_fail(err, len, "not a bhscope record: the top level is %s, not an object",
			    record_json_type_name(root));
	if (!json_object_object_get_ex(root, "schema", &s))
		return why_fail(err, len, "not a bhscope record: no \"schema\" field");
	if (!json_object_is_type(s, json_type_string))
		return why_fail(err, len, "field schema: want a string, found %s",
			    record_json_type_name(s));
	name = json_object_get_string(s);
	slash = strchr(name, '/');
	if (!slash || (size_t)(slash - name) != strlen(RECORD_SCHEMA_NAME) ||
	    strncmp(name, RECORD_SCHEMA_NAME, slash - name))
		return why_fail(err, len, "foreign schema \"%.64s\": not a bhscope record (want %s)",
			    name, RECORD_SCHEMA);
	errno = 0;
	v = strtol(slash + 1, &end, 10);
	if (errno || end == slash + 1 || *end || v < 1)
		return why_fail(err, len, "bad schema version in \"%.64s\" (want %s)",
			    name, RECORD_SCHEMA);
	if (v > RECORD_SCHEMA_VERSION)
		return why_fail(err, len, "schema %.64s is newer than this bhscope reads (%s); upgrade bhscope",
			    name, RECORD_SCHEMA);
	return 0;
}

/* A figure of kind k at path in every run (null: not measured). */
static int check_figure(struct json_object *root, const char *path,
			enum figure_kind k, char *err, size_t len)
{
	struct field f = { path, k == FIGURE_COUNT ? W_INT : W_NUMBER, NUL, 0,
			   k == FIGURE_COUNT ? COUNT_MAX :
			   k == FIGURE_RATIO ? 1 : RATE_MAX };
	char at[512] = "";

	return check_at(root, path, &f, at, sizeof(at), 0, err, len);
}

/*
 * Every figure compare reads (a compared row of a tracer's table): in
 * every run's set of figures, and each CPU's where compared per CPU; a
 * figure in a group ("batch_sleep.ns") needs the group an object or null.
 */
static int check_figures(struct json_object *root, const struct figure_table *t,
			 char *err, size_t len)
{
	char path[256], group[256];

	for (size_t i = 0; i < t->nr; i++) {
		const struct figure *f = &t->rows[i];
		const struct figure *per = f->per ? figure_find(t, f->per) : NULL;
		const char *dot = strrchr(f->json ? f->json : "", '.');
		struct field obj = { group, W_OBJECT, NUL, 0, 1e9 };
		char at[512] = "";

		if (!f->compare_pos)
			continue;
		if (dot) {
			snprintf(group, sizeof(group), "runs.*.%s.%.*s",
				 t->run_path, (int)(dot - f->json), f->json);
			if (check_at(root, group, &obj, at, sizeof(at), 0, err,
				     len))
				return -1;
		}
		snprintf(path, sizeof(path), "runs.*.%s.%s", t->run_path, f->json);
		if (check_figure(root, path, f->kind, err, len))
			return -1;
		snprintf(path, sizeof(path), "runs.*.%s.%s", t->run_path, f->per);
		if (per && check_figure(root, path, per->kind, err, len))
			return -1;
		snprintf(path, sizeof(path), "runs.*.%s.%s", t->cpu_path, f->json);
		if (f->per_cpu && t->cpu_path &&
		    check_figure(root, path, f->kind, err, len))
			return -1;
	}
	return 0;
}

int record_check(struct json_object *root, char *err, size_t len)
{
	char path[512] = "";

	if (check_schema(root, err, len))
		return -1;
	for (size_t i = 0; i < sizeof(fields) / sizeof(*fields); i++)
		if (check_at(root, fields[i].path, &fields[i], path,
			     sizeof(path), 0, err, len))
			return -1;
	if (check_figures(root, &jbd2_figures_table, err, len) ||
	    check_figures(root, &lru_figures_table, err, len))
		return -1;
	if (check_finite(root, path, sizeof(path), 0, err, len))
		return -1;
	return check_cpu_counts(root, err, len);
}
