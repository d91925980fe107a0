/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The buffer-head LRU figures of a record, through the LRU tracer's
 * reusable load/snapshot API when this build has one.
 */
#ifndef BHSCOPE_RECORD_LRU_H
#define BHSCOPE_RECORD_LRU_H

#include <json-c/json.h>

#include "jbd2_report.h"	/* struct probe_status */

/* Loads the LRU tracer; st says whether it runs, and if not why. */
void record_lru_start(int whatif, struct probe_status *st);
void record_lru_run_begin(void);
/* The run's LRU figures (hits, lookups where known, per CPU, what-if). */
struct json_object *record_lru_run_end(double wall_s);
void record_lru_stop(void);

#endif /* BHSCOPE_RECORD_LRU_H */
