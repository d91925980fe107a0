/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `bhscope simulate` prints: the replay's figures, the lookups where
 * the live classification and the model disagree, and the what-if curve
 * with, where the model cannot decide, the range the truth lies in.
 */
#ifndef BHSCOPE_LRUSIM_REPORT_H
#define BHSCOPE_LRUSIM_REPORT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "lrutrace/lru_trace.h"
#include "lrusim/lrusim.h"

#define LRUSIM_JSON_SCHEMA "bhscope.simulate/2"

struct lrusim_report {
	const char *file;
	const struct lru_trace_header *h;
	bool truncated;
	const struct lrusim *sim;
	int lo, hi;		/* sizes shown */
	bool per_cpu;
};

void lrusim_report_text(FILE *out, const struct lrusim_report *r);

/*
 * The JSON report, one line; per CPU (-C), each CPU's object made and
 * printed in turn. Returns 0, or -1 with errno set when the output failed.
 */
int lrusim_report_json_print(FILE *out, const struct lrusim_report *r);

#endif /* BHSCOPE_LRUSIM_REPORT_H */
