// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "record/record_json.h"
#include "analyse/compare_metrics.h"
#include "jbd2/jbd2_table.h"
#include "lru/lru_table.h"
#include "record/record_read.h"

struct walk {
	struct json_object *root;
	int run;
	metric_fn fn;
	void *ctx;
	char *err;
	size_t errlen;
};

/* Emits the number at runs.<i>.<rel> when present. */
static int emit(struct walk *w, const char *rel, const char *key,
		const char *name, const char *unit, bool throughput,
		double scale)
{
	char path[256];
	struct metric m = { key, name, unit, throughput, 0 };
	int got;

	snprintf(path, sizeof(path), "runs.%d.%s", w->run, rel);
	got = record_json_number(w->root, path, &m.value, w->err, w->errlen);
	if (got <= 0)
		return got;
	m.value *= scale;
	return w->fn(w->ctx, &m);
}

static int bench_metrics(struct walk *w)
{
	char path[64], rel[160], key[96], name[96];
	struct json_object *phases;
	int err;

	snprintf(path, sizeof(path), "runs.%d.result.phases", w->run);
	phases = record_json_get(w->root, path);
	if (json_object_is_type(phases, json_type_object)) {
		json_object_object_foreach(phases, phase, val) {
			(void)val;
			snprintf(rel, sizeof(rel), "result.phases.%s.ops_per_sec", phase);
			snprintf(key, sizeof(key), "meta.%s.ops_per_sec", phase);
			snprintf(name, sizeof(name), "%s", phase);
			err = emit(w, rel, key, name, "ops/s", true, 1);
			if (err)
				return err;
		}
	}
	return emit(w, "result.results.files_per_sec", "sync.files_per_sec",
		    "sync writers", "files/s", true, 1) ?:
	       emit(w, "result.results.avg_latency_us", "sync.avg_latency_us",
		    "sync latency avg", "us", false, 1) ?:
	       emit(w, "fs_mark.files_per_sec", "fs_mark.files_per_sec",
		    "fs_mark", "files/s", true, 1);
}

/* The jbd2 device of the workload's filesystem, or the busiest one. */
static int jbd2_device(struct walk *w)
{
	const char *dev = record_json_string(w->root, "target.dev");
	char path[64];
	struct json_object *devs;
	int best = -1;
	double most = -1;

	snprintf(path, sizeof(path), "runs.%d.jbd2.devices", w->run);
	devs = record_json_get(w->root, path);
	if (!json_object_is_type(devs, json_type_array))
		return -1;
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		struct json_object *d = json_object_array_get_idx(devs, i);
		const char *name;
		double n = 0;

		/* record_check() vouches for the types; absent is possible. */
		snprintf(path, sizeof(path), "runs.%d.jbd2.devices.%zu.dev",
			 w->run, i);
		name = record_json_string(w->root, path);
		if (dev && name && !strcmp(name, dev))
			return (int)i;
		snprintf(path, sizeof(path),
			 "runs.%d.jbd2.devices.%zu.transactions", w->run, i);
		if (!json_object_is_type(d, json_type_object) ||
		    record_json_number(w->root, path, &n, w->err,
				       w->errlen) < 0)
			continue;
		if (n > most) {
			most = n;
			best = (int)i;
		}
	}
	return best;
}

/* The row of t with compare place pos, or NULL. */
static const struct figure *compared(const struct figure_table *t, int pos)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->rows[i].compare_pos == pos)
			return &t->rows[i];
	return NULL;
}

/*
 * The compared rows of t, in their order, at base (a run's set of figures:
 * "jbd2.devices.0", "lru.cpus.1"); cpu >= 0: a CPU's, for rows per CPU.
 */
static int table_metrics(struct walk *w, const struct figure_table *t,
			 const char *base, int cpu)
{
	const struct figure *f;
	char rel[160], key[96], name[96], path[192];
	double scale, num, den;
	int err;

	for (int pos = 1; (f = compared(t, pos)); pos++) {
		if (cpu >= 0 && !f->per_cpu)
			continue;
		scale = f->scale ? f->scale : 1;
		if (cpu >= 0) {
			snprintf(key, sizeof(key), "%s.cpu%d.%s", t->tracer, cpu,
				 f->json);
			snprintf(name, sizeof(name), "%s CPU %d", f->compare, cpu);
		} else {
			snprintf(key, sizeof(key), "%s.%s", t->tracer, f->json);
			snprintf(name, sizeof(name), "%s", f->compare);
		}
		snprintf(rel, sizeof(rel), "%s.%s", base, f->json);
		if (!f->per) {
			err = emit(w, rel, f->compare_key ? f->compare_key : key,
				   name, f->unit, false, scale);
			if (err)
				return err;
			continue;
		}
		/* a ratio of two figures, where both are and the divisor is not 0 */
		snprintf(path, sizeof(path), "runs.%d.%s", w->run, rel);
		if (record_json_number(w->root, path, &num, w->err,
				       w->errlen) <= 0)
			continue;
		snprintf(path, sizeof(path), "runs.%d.%s.%s", w->run, base, f->per);
		if (record_json_number(w->root, path, &den, w->err,
				       w->errlen) <= 0 ||
		    !den)
			continue;
		err = w->fn(w->ctx, &(struct metric){
			f->compare_key ? f->compare_key : key, name, f->unit,
			false, num / den * scale });
		if (err)
			return err;
	}
	return 0;
}

/* The jbd2 figures of the workload's journal (jbd2_table). */
static int jbd2_metrics(struct walk *w)
{
	int dev = jbd2_device(w);
	char base[64];

	if (dev < 0)
		return 0;
	figure_path(jbd2_figures_table.run_path, dev, base, sizeof(base));
	return table_metrics(w, &jbd2_figures_table, base, -1);
}

/* The LRU figures of every device, then of each CPU (lru_table). */
static int lru_metrics(struct walk *w)
{
	char path[64], base[64];
	struct json_object *cpus;
	int err;

	err = table_metrics(w, &lru_figures_table, lru_figures_table.run_path,
			    -1);
	if (err)
		return err;
	snprintf(path, sizeof(path), "runs.%d.lru.cpus", w->run);
	cpus = record_json_get(w->root, path);
	if (!json_object_is_type(cpus, json_type_array))
		return 0;
	for (size_t c = 0; c < json_object_array_length(cpus); c++) {
		figure_path(lru_figures_table.cpu_path, (long)c, base,
			    sizeof(base));
		err = table_metrics(w, &lru_figures_table, base, (int)c);
		if (err)
			return err;
	}
	return 0;
}

int compare_metrics_of_run(struct json_object *root, int i, metric_fn fn,
			   void *ctx, char *err, size_t errlen)
{
	struct walk w = { root, i, fn, ctx, err, errlen };

	return bench_metrics(&w) ?:
	       emit(&w, "wall_s", "wall_s", "wall time", "s", false, 1) ?:
	       jbd2_metrics(&w) ?:
	       lru_metrics(&w);
}
