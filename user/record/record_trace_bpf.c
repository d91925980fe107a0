// SPDX-License-Identifier: GPL-2.0
#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>

#include "lib/env.h"
#include "record/record_trace.h"
#include "lib/errmsg.h"

static void unavailable(struct probe_status *st, const char *why)
{
	probe_status_missing(st, "%s", why);
}

int record_trace_start(struct record_trace *t)
{
	t->nr_cpus = libbpf_num_possible_cpus();
	if (!t->want_jbd2)
		unavailable(&t->jbd2, "not asked for (--jbd2)");
	if (!t->want_lru)
		unavailable(&t->lru, "not asked for (--lru)");
	if (!t->want_jbd2 && !t->want_lru)
		return 0;
	if (t->nr_cpus <= 0) {
		errmsg("cannot count the possible CPUs: %s",
		       strerror(-t->nr_cpus));
		return -1;
	}
	if (env_prepare_tracing())
		return -1;
	env_setup_libbpf_logging();
	if (t->want_jbd2)
		record_jbd2_start(&t->jbd2_tracer, t->kdev, t->nr_cpus, &t->jbd2);
	if (t->want_lru)
		record_lru_start(&t->lru_tracer, t->kdev, t->whatif, &t->lru);
	return 0;
}

void record_trace_run_begin(struct record_trace *t)
{
	record_jbd2_run_begin(&t->jbd2_tracer);
	record_lru_run_begin(&t->lru_tracer);
}

void record_trace_run_end(struct record_trace *t, struct json_object *run,
			  double wall_s)
{
	json_object_object_add(run, "jbd2",
			       record_jbd2_run_end(&t->jbd2_tracer, wall_s));
	json_object_object_add(run, "lru",
			       record_lru_run_end(&t->lru_tracer, wall_s));
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
	record_jbd2_stop(&t->jbd2_tracer);
	record_lru_stop(&t->lru_tracer);
}
