// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "analyse/compare_metrics.h"
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
	got = record_get_number(w->root, path, &m.value, w->err, w->errlen);
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
	phases = record_get(w->root, path);
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
	const char *dev = record_get_string(w->root, "target.dev");
	char path[64];
	struct json_object *devs;
	int best = -1;
	double most = -1;

	snprintf(path, sizeof(path), "runs.%d.jbd2.devices", w->run);
	devs = record_get(w->root, path);
	if (!json_object_is_type(devs, json_type_array))
		return -1;
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		struct json_object *d = json_object_array_get_idx(devs, i);
		const char *name;
		double n = 0;

		/* record_check() vouches for the types; absent is possible. */
		snprintf(path, sizeof(path), "runs.%d.jbd2.devices.%zu.dev",
			 w->run, i);
		name = record_get_string(w->root, path);
		if (dev && name && !strcmp(name, dev))
			return (int)i;
		snprintf(path, sizeof(path),
			 "runs.%d.jbd2.devices.%zu.transactions", w->run, i);
		if (!json_object_is_type(d, json_type_object) ||
		    record_get_number(w->root, path, &n, w->err, w->errlen) < 0)
			continue;
		if (n > most) {
			most = n;
			best = (int)i;
		}
	}
	return best;
}

static int jbd2_metrics(struct walk *w)
{
	static const struct {
		const char *field, *key, *name, *unit;
		double scale;
	} m[] = {
		{ "transactions", "jbd2.transactions", "jbd2 transactions", "", 1 },
		{ "handles_per_transaction", "jbd2.handles_per_transaction",
		  "handles/transaction", "", 1 },
		{ "blocks_per_transaction", "jbd2.blocks_per_transaction",
		  "blocks/transaction", "", 1 },
		{ "commit_avg_us", "jbd2.commit_avg_us", "commit latency avg", "us", 1 },
		{ "commits_per_s", "jbd2.commits_per_s", "commit rate", "commits/s", 1 },
		{ "sync_handles", "jbd2.sync_handles", "sync handles", "", 1 },
	};
	int dev = jbd2_device(w), err;
	char rel[160];
	double ns, stops;

	if (dev < 0)
		return 0;
	for (size_t i = 0; i < sizeof(m) / sizeof(*m); i++) {
		snprintf(rel, sizeof(rel), "jbd2.devices.%d.%s", dev, m[i].field);
		err = emit(w, rel, m[i].key, m[i].name, m[i].unit, false,
			   m[i].scale);
		if (err)
			return err;
	}
	/* The batching sleep of sync writers, where fentry ran. */
	snprintf(rel, sizeof(rel), "runs.%d.jbd2.devices.%d.batch_sleep.ns",
		 w->run, dev);
	if (record_get_number(w->root, rel, &ns, w->err, w->errlen) <= 0)
		return 0;
	snprintf(rel, sizeof(rel), "runs.%d.jbd2.devices.%d.batch_sleep.sync_stops",
		 w->run, dev);
	if (record_get_number(w->root, rel, &stops, w->err, w->errlen) <= 0 ||
	    !stops)
		return 0;
	return w->fn(w->ctx, &(struct metric){ "jbd2.batch_sleep_avg_us",
		"batch sleep avg", "us", false, ns / stops / 1000 });
}

static int lru_metrics(struct walk *w)
{
	char path[64], rel[96], key[64], name[64];
	struct json_object *cpus;
	int err;

	err = emit(w, "lru.total.hit_ratio", "lru.hit_ratio", "LRU hit ratio",
		   "%", false, 100) ?:
	      emit(w, "lru.total.hits_per_s", "lru.hits_per_s", "LRU hits",
		   "hits/s", false, 1) ?:
	      emit(w, "lru.total.lookups_per_s", "lru.lookups_per_s",
		   "LRU lookups", "lookups/s", false, 1);
	if (err)
		return err;
	snprintf(path, sizeof(path), "runs.%d.lru.cpus", w->run);
	cpus = record_get(w->root, path);
	if (!json_object_is_type(cpus, json_type_array))
		return 0;
	for (size_t c = 0; c < json_object_array_length(cpus); c++) {
		snprintf(rel, sizeof(rel), "lru.cpus.%zu.hit_ratio", c);
		snprintf(key, sizeof(key), "lru.cpu%zu.hit_ratio", c);
		snprintf(name, sizeof(name), "LRU hit ratio CPU %zu", c);
		err = emit(w, rel, key, name, "%", false, 100);
		if (err)
			return err;
		snprintf(rel, sizeof(rel), "lru.cpus.%zu.hits_per_s", c);
		snprintf(key, sizeof(key), "lru.cpu%zu.hits_per_s", c);
		snprintf(name, sizeof(name), "LRU hits CPU %zu", c);
		err = emit(w, rel, key, name, "hits/s", false, 1);
		if (err)
			return err;
	}
	return 0;
}

int compare_run_metrics(struct json_object *root, int i, metric_fn fn,
			void *ctx, char *err, size_t errlen)
{
	struct walk w = { root, i, fn, ctx, err, errlen };

	return bench_metrics(&w) ?:
	       emit(&w, "wall_s", "wall_s", "wall time", "s", false, 1) ?:
	       jbd2_metrics(&w) ?:
	       lru_metrics(&w);
}
