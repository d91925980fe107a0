// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record_json.h"
#include "analyse/compare_metrics.h"
#include "analyse/compare_model.h"
#include "lib/term_safe.h"
#include "record/record_read.h"

/* Values gathered before summarising: per row, per record. */
struct gather {
	struct cmp_table *t;
	int rec;
	double ***vals;		/* [row][rec][run] */
	int **nvals;		/* [row][rec] */
	int cap;		/* rows, vals and nvals have room for */
};

/* FNV-1a: rows are found by key in constant time, so compare is linear. */
static size_t key_hash(const char *key)
{
	size_t h = 14695981039346656037ULL;

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 1099511628211ULL;
	return h;
}

/* The index slot of key: where its row is, or the free slot it would take. */
static size_t index_slot(const struct cmp_table *t, const char *key)
{
	size_t mask = t->index_size - 1, i = key_hash(key) & mask;

	while (t->index[i] >= 0 && strcmp(t->rows[t->index[i]].key, key))
		i = (i + 1) & mask;
	return i;
}

static int find_row(const struct cmp_table *t, const char *key)
{
	return t->index_size ? t->index[index_slot(t, key)] : -1;
}

/* Keeps the index under half full, so probes stay short. */
static int index_grow(struct cmp_table *t)
{
	size_t size = t->index_size ? 2 * t->index_size : 64;
	int *old = t->index;

	if ((size_t)(t->nr_rows + 1) * 2 < t->index_size)
		return 0;
	t->index = malloc(size * sizeof(*t->index));
	if (!t->index) {
		t->index = old;
		return -ENOMEM;
	}
	t->index_size = size;
	for (size_t i = 0; i < size; i++)
		t->index[i] = -1;
	for (int r = 0; r < t->nr_rows; r++)
		t->index[index_slot(t, t->rows[r].key)] = r;
	free(old);
	return 0;
}

const struct cmp_row *compare_model_row(const struct cmp_table *t,
					const char *key)
{
	int i = find_row(t, key);

	return i < 0 ? NULL : &t->rows[i];
}

static int add_row(struct gather *g, const struct metric *m)
{
	struct cmp_table *t = g->t;
	struct cmp_row *rows, *r;
	double ***vals;
	int **nvals, n = t->nr_rows;

	if (index_grow(t))
		return -ENOMEM;
	/* Doubling: growing by one row copied every row each time. */
	if (n == g->cap) {
		int cap = g->cap ? 2 * g->cap : 64;

		rows = realloc(t->rows, cap * sizeof(*rows));
		if (!rows)
			return -ENOMEM;
		t->rows = rows;
		vals = realloc(g->vals, cap * sizeof(*vals));
		if (!vals)
			return -ENOMEM;
		g->vals = vals;
		nvals = realloc(g->nvals, cap * sizeof(*nvals));
		if (!nvals)
			return -ENOMEM;
		g->nvals = nvals;
		g->cap = cap;
	}
	rows = t->rows;
	vals = g->vals;
	nvals = g->nvals;
	r = &rows[n];
	memset(r, 0, sizeof(*r));
	snprintf(r->key, sizeof(r->key), "%s", m->key);
	snprintf(r->name, sizeof(r->name), "%s", m->name);
	snprintf(r->unit, sizeof(r->unit), "%s", m->unit);
	r->throughput = m->throughput;
	r->cells = calloc(t->nr_recs, sizeof(*r->cells));
	vals[n] = calloc(t->nr_recs, sizeof(**vals));
	nvals[n] = calloc(t->nr_recs, sizeof(**nvals));
	t->nr_rows++;
	t->index[index_slot(t, r->key)] = n;
	if (!r->cells || !vals[n] || !nvals[n])
		return -ENOMEM;
	return n;
}

static int gather_one(void *ctx, const struct metric *m)
{
	struct gather *g = ctx;
	int row = find_row(g->t, m->key), n;
	double *v;

	if (row < 0)
		row = add_row(g, m);
	if (row < 0)
		return row;
	n = g->nvals[row][g->rec];
	v = g->vals[row][g->rec];
	if (!(n & (n - 1))) {	/* 0, 1, 2, 4...: full, double it */
		v = realloc(v, (n ? 2 * n : 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		g->vals[row][g->rec] = v;
	}
	v[n] = m->value;
	g->nvals[row][g->rec] = n + 1;
	return 0;
}

static bool run_ok(struct json_object *root, int i)
{
	char path[48];

	snprintf(path, sizeof(path), "runs.%d.ok", i);
	return json_object_get_boolean(record_json_get(root, path));
}

static int gather_record(struct gather *g, char *err, size_t errlen)
{
	struct cmp_record *r = &g->t->recs[g->rec];
	char why[256];
	int ret;

	r->nr_runs = json_object_array_length(record_json_get(r->root, "runs"));
	for (int i = 0; i < r->nr_runs; i++) {
		if (!run_ok(r->root, i))
			continue;
		r->nr_ok++;
		why[0] = '\0';
		ret = compare_metrics_of_run(r->root, i, gather_one, g, why,
					     sizeof(why));
		if (ret == -ENOMEM) {
			snprintf(err, errlen, "%s: out of memory", r->path);
			return -1;
		}
		if (ret) {
			snprintf(err, errlen, "%s: %s", r->path, why);
			return -1;
		}
	}
	return 0;
}

static void summarise(struct cmp_table *t, struct gather *g)
{
	for (int i = 0; i < t->nr_rows; i++) {
		struct cmp_row *row = &t->rows[i];

		for (int r = 0; r < t->nr_recs; r++) {
			struct cmp_cell *c = &row->cells[r];

			stats_summarize(g->vals[i][r], g->nvals[i][r], &c->s);
			c->pct = stats_pct_change(row->cells[0].s.median,
						  c->s.median);
			c->noise = stats_within_noise(&row->cells[0].s, &c->s);
		}
	}
}

static void free_gather(struct cmp_table *t, struct gather *g)
{
	for (int i = 0; i < t->nr_rows; i++) {
		for (int r = 0; g->vals && g->vals[i] && r < t->nr_recs; r++)
			free(g->vals[i][r]);
		if (g->vals)
			free(g->vals[i]);
		if (g->nvals)
			free(g->nvals[i]);
	}
	free(g->vals);
	free(g->nvals);
}

static void warn(struct cmp_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct cmp_table *t, const char *fmt, ...)
{
	char **w, *s;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	w = realloc(t->warnings, (t->nr_warnings + 1) * sizeof(*w));
	if (!w) {
		free(s);
		return;
	}
	t->warnings = w;
	w[t->nr_warnings++] = s;
}

static const char *str_or(struct json_object *root, const char *path)
{
	struct json_object *o = record_json_get(root, path);

	return o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) :
		   "none";
}

static void differs(struct cmp_table *t, int r, const char *path,
		    const char *what)
{
	char a[256], b[256];

	snprintf(a, sizeof(a), "%s", str_or(t->recs[0].root, path));
	snprintf(b, sizeof(b), "%s", str_or(t->recs[r].root, path));
	if (strcmp(a, b))
		warn(t, "%s differs: %s in %s, %s in %s", what, a,
		     t->recs[0].path, b, t->recs[r].path);
}

/* Mount options without the batch times, which a tuning run changes. */
static void plain_options(const char *in, char *out, size_t len)
{
	char *copy = strdup(in ? in : ""), *save, *tok;
	size_t n = 0;

	out[0] = '\0';
	if (!copy)
		return;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strncmp(tok, "min_batch_time=", 15) ||
		    !strncmp(tok, "max_batch_time=", 15))
			continue;
		n += snprintf(out + n, n < len ? len - n : 0, "%s%s",
			      n ? "," : "", tok);
	}
	free(copy);
}

static void warn_params(struct cmp_table *t, int r)
{
	struct json_object *a = record_json_get(t->recs[0].root, "workload.params");
	struct json_object *b = record_json_get(t->recs[r].root, "workload.params");
	char path[160], what[160];

	if (!json_object_is_type(a, json_type_object) ||
	    !json_object_is_type(b, json_type_object)) {
		differs(t, r, "workload.command", "the workload command");
		return;
	}
	json_object_object_foreach(a, key, val) {
		(void)val;
		if (!strcmp(key, "dir"))
			continue;
		snprintf(path, sizeof(path), "workload.params.%s", key);
		snprintf(what, sizeof(what), "workload parameter %s", key);
		differs(t, r, path, what);
	}
}

static void find_warnings(struct cmp_table *t)
{
	char a[2048], b[2048];

	for (int r = 1; r < t->nr_recs; r++) {
		differs(t, r, "host.kernel", "kernel");
		differs(t, r, "host.nr_cpus", "CPU count");
		differs(t, r, "target.fstype", "filesystem");
		differs(t, r, "target.source", "device");
		plain_options(record_json_string(t->recs[0].root, "target.super_options"),
			      a, sizeof(a));
		plain_options(record_json_string(t->recs[r].root, "target.super_options"),
			      b, sizeof(b));
		if (strcmp(a, b))
			warn(t, "mount options differ beyond the batch times: %s in %s, %s in %s",
			     a, t->recs[0].path, b, t->recs[r].path);
		differs(t, r, "workload.name", "workload");
		warn_params(t, r);
	}
	for (int r = 0; r < t->nr_recs; r++)
		if (!t->recs[r].nr_ok)
			warn(t, "%s has no successful run; its figures are empty",
			     t->recs[r].path);
}

/* The record's label, or its file name; safe for a terminal either way. */
static void set_label(struct cmp_record *r)
{
	const char *l = record_json_string(r->root, "label");
	char copy[4096], *base, *dot;

	if (l && *l) {
		term_safe(r->label, sizeof(r->label), l);
		return;
	}
	snprintf(copy, sizeof(copy), "%s", r->path);
	base = basename(copy);
	dot = strrchr(base, '.');
	if (dot && dot != base && !strcmp(dot, ".json"))
		*dot = '\0';
	term_safe(r->label, sizeof(r->label), base);
}

int compare_model_build(struct cmp_table *t, char *err, size_t errlen)
{
	struct gather g = { .t = t };
	int ret = 0;

	for (g.rec = 0; g.rec < t->nr_recs && !ret; g.rec++) {
		set_label(&t->recs[g.rec]);
		ret = gather_record(&g, err, errlen);
	}
	if (!ret) {
		summarise(t, &g);
		find_warnings(t);
	}
	free_gather(t, &g);
	return ret;
}

int compare_model_load(struct cmp_table *t, char **paths, int n, char *err,
		       size_t errlen)
{
	char why[512];

	memset(t, 0, sizeof(*t));
	t->recs = calloc(n, sizeof(*t->recs));
	if (!t->recs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->nr_recs = n;
	for (int i = 0; i < n; i++) {
		t->recs[i].path = paths[i];
		if (record_read(paths[i], &t->recs[i].root, why, sizeof(why))) {
			snprintf(err, errlen, "%s: %s", paths[i], why);
			return -1;
		}
	}
	return compare_model_build(t, err, errlen);
}

void compare_model_free(struct cmp_table *t)
{
	for (int i = 0; i < t->nr_rows; i++)
		free(t->rows[i].cells);
	free(t->rows);
	free(t->index);
	for (int r = 0; r < t->nr_recs; r++)
		json_object_put(t->recs[r].root);
	free(t->recs);
	for (int i = 0; i < t->nr_warnings; i++)
		free(t->warnings[i]);
	free(t->warnings);
	memset(t, 0, sizeof(*t));
}
