/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The jbd2 figures of a record, through the jbd2 tracer's load/snapshot
 * API (jbd2_load(), jbd2_load_read_snapshot()): loaded once, read before
 * and after each run, the run's interval reported as `bhscope jbd2 -C -j`
 * would, with the per-CPU histograms too.
 */
#ifndef BHSCOPE_RECORD_JBD2_H
#define BHSCOPE_RECORD_JBD2_H

#include <json-c/json.h>
#include <stdint.h>

#include "jbd2/jbd2_report.h"
#include "jbd2/jbd2_snapshot.h"
#include "lib/probe_status.h"

struct jbd2_bpf;

struct record_jbd2 {
	struct jbd2_bpf *skel;		/* NULL: not loaded */
	struct jbd2_report_ctx ctx;
	int nr_cpus;
	struct jbd2_snapshot before;
};

/*
 * Loads the jbd2 tracer for kdev (0: every journal); st says whether it
 * runs, and if not why.
 */
void record_jbd2_start(struct record_jbd2 *r, uint32_t kdev, int nr_cpus,
		       struct probe_status *st);
void record_jbd2_run_begin(struct record_jbd2 *r);
/* The run's jbd2 figures (schema bhscope.jbd2/1, per CPU), or NULL. */
struct json_object *record_jbd2_run_end(struct record_jbd2 *r, double wall_s);
void record_jbd2_stop(struct record_jbd2 *r);

#endif /* BHSCOPE_RECORD_JBD2_H */
