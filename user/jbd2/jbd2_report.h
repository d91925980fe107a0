/* SPDX-License-Identifier: GPL-2.0 */
/* Printing one jbd2 interval as text or as one JSON line. */
#ifndef BHSCOPE_JBD2_REPORT_H
#define BHSCOPE_JBD2_REPORT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "jbd2/jbd2_snapshot.h"
#include "lib/probe_status.h"

#define JBD2_JSON_SCHEMA "bhscope.jbd2/1"

struct jbd2_report_ctx {
	double elapsed_s;
	int hz;
	bool per_cpu;
	bool cpu_hists;		/* JSON: per CPU, the histograms too */
	bool timestamps;
	bool final;		/* the last report (count reached or signal) */
	struct probe_status events;	/* the tracepoint programs' flavour */
	struct probe_status batch_sleep;
	struct probe_status checkpoints;
};

/* Names of the run_stats phases, as the kernel's tracepoint names them. */
extern const char *const jbd2_phase_names[JBD2_NR_PHASES];

void jbd2_report_text(FILE *out, const struct jbd2_report_ctx *ctx,
		      const struct jbd2_snapshot *delta);

/* The interval as a JSON object (caller puts it). */
struct json_object *jbd2_report_json(const struct jbd2_report_ctx *ctx,
				     const struct jbd2_snapshot *delta);

#endif /* BHSCOPE_JBD2_REPORT_H */
