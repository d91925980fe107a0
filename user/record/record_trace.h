/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracers a record runs its workload under: attached once before the
 * first run, read before and after each run (the difference is that run's
 * figures), detached after the last. A tracer that cannot load is reported
 * in the record with its reason; the workload still runs.
 */
#ifndef BHSCOPE_RECORD_TRACE_H
#define BHSCOPE_RECORD_TRACE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/probe_status.h"
#include "record/record_jbd2.h"
#include "record/record_lru.h"

struct record_trace {
	/* asked for */
	bool want_jbd2;
	bool want_lru;
	int whatif;			/* LRU sizes to predict up to, 0 = off */
	uint32_t kdev;			/* only this device, 0 = every one */

	/* what loaded, and why not */
	struct probe_status jbd2;
	struct probe_status lru;
	int nr_cpus;

	struct record_jbd2 jbd2_tracer;
	struct record_lru lru_tracer;
};

/*
 * Loads and attaches what was asked for. A tracer that cannot load here
 * (no hook, no jbd2) is recorded as unavailable, with why; -1 (after one
 * line) only when this host or user cannot trace at all, which must not
 * pass for a record with tracing.
 */
int record_trace_start(struct record_trace *t);

/* Reads the counters at the start of a run. */
void record_trace_run_begin(struct record_trace *t);

/*
 * Reads them again and adds the run's figures to run as "jbd2" and "lru"
 * (null when not traced).
 */
void record_trace_run_end(struct record_trace *t, struct json_object *run,
			  double wall_s);

/* {"jbd2":{"enabled":..,"available":..,"reason":..}, "lru":{...}} */
struct json_object *record_trace_json(const struct record_trace *t);

void record_trace_stop(struct record_trace *t);

#endif /* BHSCOPE_RECORD_TRACE_H */
