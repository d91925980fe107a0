// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "jbd2.skel.h"
#include "jbd2/jbd2_load.h"
#include "lib/errmsg.h"
#include "lib/hz.h"
#include "record/record_jbd2.h"

void record_jbd2_start(struct record_jbd2 *r, uint32_t kdev, int nr_cpus,
		       struct probe_status *st)
{
	const char *missing = jbd2_load_missing_tracepoint();

	memset(r, 0, sizeof(*r));
	r->nr_cpus = nr_cpus;
	if (missing) {
		probe_status_missing(st, "tracepoint jbd2:%s not found (is jbd2 loaded?)",
				     missing);
		return;
	}
	r->ctx.hz = hz_of_running_kernel();
	if (r->ctx.hz <= 0) {
		probe_status_missing(st, "the kernel's HZ is unknown");
		return;
	}
	r->skel = jbd2_load(kdev, JBD2_HOOK_AUTO, &r->ctx.events,
			    &r->ctx.batch_sleep, &r->ctx.checkpoints,
			    NULL);
	if (!r->skel) {
		probe_status_missing(st, "loading the jbd2 BPF programs failed (see above)");
		return;
	}
	st->available = true;
	r->ctx.per_cpu = true;
	r->ctx.cpu_hists = true;
}

static void read_snapshot(struct record_jbd2 *r, struct jbd2_snapshot *s)
{
	*s = (struct jbd2_snapshot){ .nr_cpus = r->nr_cpus };
	if (jbd2_load_read_snapshot(r->skel, s))
		errmsg("reading the jbd2 maps failed; this run's jbd2 figures may be short");
}

void record_jbd2_run_begin(struct record_jbd2 *r)
{
	if (!r->skel)
		return;
	jbd2_snapshot_free(&r->before);
	read_snapshot(r, &r->before);
}

struct json_object *record_jbd2_run_end(struct record_jbd2 *r, double wall_s)
{
	struct jbd2_snapshot after, delta;
	struct json_object *o = NULL;

	if (!r->skel)
		return NULL;
	read_snapshot(r, &after);
	if (!jbd2_snapshot_delta(&delta, &after, &r->before)) {
		r->ctx.elapsed_s = wall_s > 0 ? wall_s : 1e-9;
		r->ctx.final = true;
		o = jbd2_report_json(&r->ctx, &delta);
		jbd2_snapshot_free(&delta);
	}
	jbd2_snapshot_free(&after);
	return o;
}

void record_jbd2_stop(struct record_jbd2 *r)
{
	jbd2_snapshot_free(&r->before);
	if (r->skel)
		jbd2_bpf__destroy(r->skel);
	r->skel = NULL;
}
