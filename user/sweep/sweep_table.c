// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record_json.h"
#include "analyse/compare_model.h"
#include "analyse/compare_print.h"
#include "record/record_read.h"
#include "record/record_schema.h"
#include "analyse/stats.h"
#include "sweep/sweep_table.h"
#include "lib/term_safe.h"

#define MAX_CONFIGS	64
#define MAX_ROWS	256

enum { M_CREATE, M_STAT, M_REMOVE, M_SYNC, M_FSMARK, M_LRU, NR_METRICS };

static const struct {
	const char *key, *title;
} metrics[NR_METRICS] = {
	[M_CREATE] = { "meta.create.ops_per_sec", "creation, ops/s" },
	[M_STAT] = { "meta.stat.ops_per_sec", "stat, ops/s" },
	[M_REMOVE] = { "meta.remove.ops_per_sec", "removal, ops/s" },
	[M_SYNC] = { "sync.files_per_sec", "sync writers, files/s" },
	[M_FSMARK] = { "fs_mark.files_per_sec", "fs_mark, files/s" },
	[M_LRU] = { "lru.hit_ratio", "buffer-head LRU hit ratio, %" },
};

struct sweep_tab {
	int nr_configs, nr_rows;
	char configs[MAX_CONFIGS][128];	/* safe for a terminal */
	char raw_configs[MAX_CONFIGS][257];	/* as recorded (<= 256 bytes) */
	long config_index[MAX_CONFIGS];
	long tasks[MAX_ROWS], dir_size[MAX_ROWS];
	bool has_tasks, has_dir_size;
	struct stats_summary s[MAX_CONFIGS][MAX_ROWS][NR_METRICS];
	bool sync;			/* threads, not tasks */
};

static long get_long(struct json_object *root, const char *path)
{
	struct json_object *o = record_json_get(root, path);

	return json_object_is_type(o, json_type_int) ? json_object_get_int64(o) : -1;
}

static int config_of(struct sweep_tab *t, struct json_object *root)
{
	const char *label = record_json_string(root, "sweep.config");
	long index = get_long(root, "sweep.config_index");
	int i;

	if (!label)
		return -1;
	for (i = 0; i < t->nr_configs; i++)
		if (!strcmp(t->raw_configs[i], label))
			return i;
	if (i == MAX_CONFIGS)
		return -1;
	term_safe(t->configs[i], sizeof(t->configs[i]), label);
	snprintf(t->raw_configs[i], sizeof(t->raw_configs[i]), "%s", label);
	t->config_index[i] = index;
	t->nr_configs++;
	return i;
}

static int row_of(struct sweep_tab *t, struct json_object *root)
{
	long tasks = get_long(root, "sweep.params.tasks");
	long dir = get_long(root, "sweep.params.dir_size");
	int i;

	t->has_tasks |= tasks >= 0;
	t->has_dir_size |= dir >= 0;
	for (i = 0; i < t->nr_rows; i++)
		if (t->tasks[i] == tasks && t->dir_size[i] == dir)
			return i;
	if (i == MAX_ROWS)
		return -1;
	t->tasks[i] = tasks;
	t->dir_size[i] = dir;
	t->nr_rows++;
	return i;
}

static int add_record(struct sweep_tab *t, const char *path)
{
	struct cmp_table one;
	char *paths[] = { (char *)path };
	char err[1024];
	int c, r;

	if (compare_model_load(&one, paths, 1, err, sizeof(err))) {
		term_safe_error("%s", err);
		compare_model_free(&one);
		return -1;
	}
	c = config_of(t, one.recs[0].root);
	r = row_of(t, one.recs[0].root);
	if (c < 0 || r < 0) {
		term_safe_error("%s: not a sweep cell (no \"sweep\" field), or too many cells",
				path);
		compare_model_free(&one);
		return -1;
	}
	t->sync |= !strcmp(record_json_string(one.recs[0].root, "workload.name") ?: "",
			   "sync");
	for (int m = 0; m < NR_METRICS; m++) {
		const struct cmp_row *row = compare_model_row(&one,
							      metrics[m].key);

		if (row)
			t->s[c][r][m] = row->cells[0].s;
	}
	compare_model_free(&one);
	return 0;
}

static void row_head(FILE *out, const struct sweep_tab *t, int r)
{
	if (t->has_tasks)
		fprintf(out, "%8ld", t->tasks[r]);
	if (t->has_dir_size)
		fprintf(out, " %9ld", t->dir_size[r]);
	if (!t->has_tasks && !t->has_dir_size)
		fprintf(out, "%8s", "all");
}

static void head_names(FILE *out, const struct sweep_tab *t)
{
	if (t->has_tasks)
		fprintf(out, "%8s", t->sync ? "threads" : "tasks");
	if (t->has_dir_size)
		fprintf(out, " %9s", "dir_size");
	if (!t->has_tasks && !t->has_dir_size)
		fprintf(out, "%8s", "");
}

static bool metric_present(const struct sweep_tab *t, int m)
{
	for (int c = 0; c < t->nr_configs; c++)
		for (int r = 0; r < t->nr_rows; r++)
			if (t->s[c][r][m].n)
				return true;
	return false;
}

/* Setting c's cell (s) beside the baseline's (base), w wide. */
typedef void (*cell_fn)(FILE *out, const struct sweep_tab *t, int c,
			const struct stats_summary *base,
			const struct stats_summary *s, int w);

/* Each row of metric m: its head, then a cell per setting. */
static void print_rows(FILE *out, const struct sweep_tab *t, int m, int w,
		       cell_fn cell)
{
	for (int r = 0; r < t->nr_rows; r++) {
		row_head(out, t, r);
		for (int c = 0; c < t->nr_configs; c++)
			cell(out, t, c, &t->s[0][r][m], &t->s[c][r][m], w);
		fprintf(out, "\n");
	}
	fprintf(out, "\n");
}

/* The value, and after the baseline's its % change. */
static void change_cell(FILE *out, const struct sweep_tab *t, int c,
			const struct stats_summary *base,
			const struct stats_summary *s, int w)
{
	double pct = stats_pct_change(base->median, s->median);
	char v[40], cell[96];

	(void)t;
	compare_print_value(v, sizeof(v), s->n ? s->median : NAN);
	if (!c || !s->n || isnan(pct))
		snprintf(cell, sizeof(cell), "%s", v);
	else
		snprintf(cell, sizeof(cell), "%s (%+.1f%%%s)", v, pct,
			 stats_within_noise(base, s) ? " ~" : "");
	fprintf(out, " %*s", c ? w : 12, cell);
}

/* A column per setting: the baseline's value, then value and % change. */
static void print_change_table(FILE *out, const struct sweep_tab *t, int m)
{
	int w = 12;

	for (int c = 0; c < t->nr_configs; c++)
		if ((int)strlen(t->configs[c]) + 2 > w)
			w = (int)strlen(t->configs[c]) + 2;
	if (w < 20)
		w = 20;
	fprintf(out, "%s (%% change vs %s)\n", metrics[m].title, t->configs[0]);
	head_names(out, t);
	for (int c = 0; c < t->nr_configs; c++)
		fprintf(out, " %*s", c ? w : 12, t->configs[c]);
	fprintf(out, "\n");
	print_rows(out, t, m, w, change_cell);
}

/* A setting's column: as wide as its name, at least 14. */
static int speedup_width(const struct sweep_tab *t, int c)
{
	int w = (int)strlen(t->configs[c]);

	return w > 14 ? w : 14;
}

/* The value, and after the baseline's its speedup. */
static void speedup_cell(FILE *out, const struct sweep_tab *t, int c,
			 const struct stats_summary *base,
			 const struct stats_summary *s, int w)
{
	char v[40], cell[64];
	double speedup;

	(void)w;
	compare_print_value(v, sizeof(v), s->n ? s->median : NAN);
	fprintf(out, " %*s", speedup_width(t, c), v);
	if (!c)
		return;
	speedup = s->n && base->n && base->median > 0 ?
		  s->median / base->median : NAN;
	/* 1e15 over 1e-300 overflows: no figure, not "infx". */
	if (isfinite(speedup))
		snprintf(cell, sizeof(cell), "%.2fx%s", speedup,
			 stats_within_noise(base, s) ? "~" : "");
	else
		snprintf(cell, sizeof(cell), "-");
	fprintf(out, " %8s", cell);
}

/* Base vs each setting with a speedup column, as the fs_mark tables. */
static void print_speedup_table(FILE *out, const struct sweep_tab *t, int m)
{
	fprintf(out, "%s, %s vs each setting\n", metrics[m].title, t->configs[0]);
	head_names(out, t);
	for (int c = 0; c < t->nr_configs; c++) {
		fprintf(out, " %*s", speedup_width(t, c), t->configs[c]);
		if (c)
			fprintf(out, " %8s", "speedup");
	}
	fprintf(out, "\n");
	print_rows(out, t, m, 0, speedup_cell);
}

static int by_index(const void *a, const void *b, void *arg)
{
	const struct sweep_tab *t = arg;
	int x = *(const int *)a, y = *(const int *)b;

	return (t->config_index[x] > t->config_index[y]) -
	       (t->config_index[x] < t->config_index[y]);
}

/* Orders the settings as the sweep listed them (baseline first). */
static void sort_configs(struct sweep_tab *t)
{
	static struct sweep_tab copy;
	int order[MAX_CONFIGS];

	for (int c = 0; c < t->nr_configs; c++)
		order[c] = c;
	qsort_r(order, t->nr_configs, sizeof(*order), by_index, t);
	copy = *t;
	for (int c = 0; c < t->nr_configs; c++) {
		memcpy(t->configs[c], copy.configs[order[c]], sizeof(t->configs[c]));
		memcpy(t->raw_configs[c], copy.raw_configs[order[c]],
		       sizeof(t->raw_configs[c]));
		t->config_index[c] = copy.config_index[order[c]];
		memcpy(t->s[c], copy.s[order[c]], sizeof(t->s[c]));
	}
}

int sweep_table_print(FILE *out, char **paths, int n)
{
	struct sweep_tab *t = calloc(1, sizeof(*t));
	bool any = false;

	if (!t)
		return -1;
	for (int i = 0; i < n; i++) {
		if (add_record(t, paths[i])) {
			free(t);
			return -1;
		}
	}
	sort_configs(t);
	for (int m = 0; m < NR_METRICS; m++) {
		if (!metric_present(t, m))
			continue;
		any = true;
		if (m == M_SYNC || m == M_FSMARK)
			print_speedup_table(out, t, m);
		else
			print_change_table(out, t, m);
	}
	if (!any)
		fprintf(out, "no throughput figures in these records (did every cell fail?)\n");
	else
		fprintf(out, "medians over each cell's successful runs; ~ = within the noise\n");
	free(t);
	return 0;
}

static long cell_index(const char *path)
{
	struct json_object *root;
	char err[256];
	long v = -1;

	if (!record_read(path, &root, err, sizeof(err))) {
		struct json_object *c = record_json_get(root, "sweep.cell");

		if (c)
			v = json_object_get_int64(c);
		json_object_put(root);
	}
	return v;
}

struct indexed {
	long cell;
	char *path;
};

static int by_cell(const void *x, const void *y)
{
	const struct indexed *a = x, *b = y;

	return (a->cell > b->cell) - (a->cell < b->cell);
}

static void free_indexed(struct indexed *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

int sweep_table_list(const char *dir, char ***paths, int *n)
{
	struct indexed *v = calloc(RECORD_MAX_CELLS, sizeof(*v));
	struct dirent *e;
	DIR *d = opendir(dir);
	int nr = 0;

	if (!d || !v) {
		term_safe_error("%s: %s", dir, strerror(errno));
		if (d)
			closedir(d);
		free(v);
		return -1;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char *p;

		if (len < 6 || strcmp(e->d_name + len - 5, ".json") ||
		    e->d_name[0] == '.')
			continue;
		if (nr == RECORD_MAX_CELLS) {
			term_safe_error("%s: more than %d records, more than a sweep writes",
					dir, RECORD_MAX_CELLS);
			closedir(d);
			free_indexed(v, nr);
			return -1;
		}
		if (asprintf(&p, "%s/%s", dir, e->d_name) < 0)
			break;
		v[nr].path = p;
		v[nr].cell = cell_index(p);
		nr++;
	}
	closedir(d);
	if (!nr) {
		term_safe_error("%s: no records (*.json) there", dir);
		free(v);
		return -1;
	}
	qsort(v, nr, sizeof(*v), by_cell);
	*paths = calloc(nr, sizeof(**paths));
	if (!*paths) {
		free_indexed(v, nr);
		return -1;
	}
	for (int i = 0; i < nr; i++)
		(*paths)[i] = v[i].path;
	*n = nr;
	free(v);
	return 0;
}
