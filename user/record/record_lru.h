/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The buffer-head LRU figures of a record, through the LRU tracer's
 * session (lru_session_open(), lru_session_read()): loaded once, read
 * before and after each run, the run's interval reported as
 * `bhscope lru -C -j` would.
 */
#ifndef BHSCOPE_RECORD_LRU_H
#define BHSCOPE_RECORD_LRU_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/probe_status.h"
#include "lru/lru_session.h"
#include "lru/lru_snapshot.h"

struct record_lru {
	struct lru_session session;
	bool loaded;
	int whatif;			/* the curve's largest size, 0: none */
	struct lru_snapshot before;
};

/*
 * Loads the LRU tracer for kdev (0: every device) with a what-if curve up
 * to whatif (0: none); st says whether it runs, and if not why.
 */
void record_lru_start(struct record_lru *r, uint32_t kdev, int whatif,
		      struct probe_status *st);
void record_lru_run_begin(struct record_lru *r);
/* The run's LRU figures (schema bhscope.lru/1, per CPU), or NULL. */
struct json_object *record_lru_run_end(struct record_lru *r, double wall_s);
void record_lru_stop(struct record_lru *r);

#endif /* BHSCOPE_RECORD_LRU_H */
