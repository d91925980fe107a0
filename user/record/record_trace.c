// SPDX-License-Identifier: GPL-2.0
#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>

#include "lib/env.h"
#include "lib/hist.h"
#include "lib/hz.h"
#include "jbd2.skel.h"
#include "jbd2/jbd2_load.h"
#include "record/record_lru.h"
#include "record/record_trace.h"

static void unavailable(struct probe_status *st, const char *why)
{
	st->available = false;
	snprintf(st->why, sizeof(st->why), "%s", why);
}

static void start_jbd2(struct record_trace *t)
{
	const char *missing = jbd2_missing_tracepoint();
	char why[256];

	if (missing) {
		snprintf(why, sizeof(why),
			 "tracepoint jbd2:%s not found (is jbd2 loaded?)",
			 missing);
		unavailable(&t->jbd2, why);
		return;
	}
	t->jctx.hz = hz_of_running_kernel();
	if (t->jctx.hz <= 0) {
		unavailable(&t->jbd2, "the kernel's HZ is unknown");
		return;
	}
	t->jbd2_skel = jbd2_load(t->kdev, &t->jctx.batch_sleep,
				 &t->jctx.checkpoints, NULL);
	if (!t->jbd2_skel) {
		unavailable(&t->jbd2, "loading the jbd2 BPF programs failed (see above)");
		return;
	}
	t->jbd2.available = true;
	t->jctx.per_cpu = true;
}

void record_trace_start(struct record_trace *t)
{
	t->nr_cpus = libbpf_num_possible_cpus();
	if (!t->want_jbd2)
		unavailable(&t->jbd2, "not asked for (--jbd2)");
	if (!t->want_lru)
		unavailable(&t->lru, "not asked for (--lru)");
	if (!t->want_jbd2 && !t->want_lru)
		return;
	if (t->nr_cpus <= 0 || env_prepare_tracing()) {
		if (t->want_jbd2)
			unavailable(&t->jbd2, "tracing is not possible here (see above)");
		if (t->want_lru)
			unavailable(&t->lru, "tracing is not possible here (see above)");
		return;
	}
	env_setup_libbpf_logging();
	if (t->want_jbd2)
		start_jbd2(t);
	if (t->want_lru)
		record_lru_start(t->kdev, t->whatif, &t->lru);
}

static void read_jbd2(struct record_trace *t, struct jbd2_snapshot *s)
{
	*s = (struct jbd2_snapshot){ .nr_cpus = t->nr_cpus };
	if (jbd2_read_snapshot(t->jbd2_skel, s))
		fprintf(stderr, "bhscope: reading the jbd2 maps failed; this run's jbd2 figures may be short\n");
}

void record_trace_run_begin(struct record_trace *t)
{
	if (t->jbd2.available) {
		jbd2_snapshot_free(&t->before);
		read_jbd2(t, &t->before);
	}
	if (t->lru.available)
		record_lru_run_begin();
}

/* Adds the per-CPU histograms the interval report leaves out. */
static void add_cpu_hists(struct json_object *dev_json,
			  const struct jbd2_dev_snapshot *d, int nr_cpus,
			  bool batch_sleep)
{
	struct json_object *cpus;

	if (!json_object_object_get_ex(dev_json, "cpus", &cpus))
		return;
	for (int c = 0; c < nr_cpus && c < (int)json_object_array_length(cpus); c++) {
		struct json_object *o = json_object_array_get_idx(cpus, c);
		const struct jbd2_dev_stats *s = &d->cpu[c];

		json_object_object_add(o, "handles_per_transaction_hist",
				       hist_log2_json(s->handles_hist, BHSCOPE_LOG2_SLOTS));
		json_object_object_add(o, "commit_us_hist",
				       hist_log2_json(s->commit_us_hist, BHSCOPE_LOG2_SLOTS));
		if (batch_sleep)
			json_object_object_add(o, "batch_us_hist",
					       hist_log2_json(s->batch_us_hist,
							      BHSCOPE_LOG2_SLOTS));
	}
}

static struct json_object *jbd2_run_json(struct record_trace *t, double wall_s)
{
	struct jbd2_snapshot after, delta;
	struct json_object *o, *devs;

	read_jbd2(t, &after);
	if (jbd2_snapshot_delta(&delta, &after, &t->before)) {
		jbd2_snapshot_free(&after);
		return NULL;
	}
	t->jctx.elapsed_s = wall_s > 0 ? wall_s : 1e-9;
	t->jctx.final = true;
	o = jbd2_report_json(&t->jctx, &delta);
	if (json_object_object_get_ex(o, "devices", &devs))
		for (int i = 0; i < delta.nr_devs; i++)
			add_cpu_hists(json_object_array_get_idx(devs, i),
				      &delta.devs[i], delta.nr_cpus,
				      t->jctx.batch_sleep.available);
	jbd2_snapshot_free(&delta);
	jbd2_snapshot_free(&after);
	return o;
}

void record_trace_run_end(struct record_trace *t, struct json_object *run,
			  double wall_s)
{
	json_object_object_add(run, "jbd2", t->jbd2.available ?
				jbd2_run_json(t, wall_s) : NULL);
	json_object_object_add(run, "lru", t->lru.available ?
				record_lru_run_end(wall_s) : NULL);
}

static struct json_object *status_json(bool wanted,
				       const struct probe_status *st)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "enabled", json_object_new_boolean(wanted));
	json_object_object_add(o, "available",
			       json_object_new_boolean(st->available));
	json_object_object_add(o, "reason", st->available ? NULL :
				json_object_new_string(st->why));
	return o;
}

struct json_object *record_trace_json(const struct record_trace *t)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "jbd2", status_json(t->want_jbd2, &t->jbd2));
	json_object_object_add(o, "lru", status_json(t->want_lru, &t->lru));
	if (t->want_lru && t->whatif)
		json_object_object_add(o, "whatif", json_object_new_int(t->whatif));
	return o;
}

void record_trace_stop(struct record_trace *t)
{
	jbd2_snapshot_free(&t->before);
	if (t->jbd2_skel)
		jbd2_bpf__destroy(t->jbd2_skel);
	t->jbd2_skel = NULL;
	if (t->lru.available)
		record_lru_stop();
}
