// SPDX-License-Identifier: GPL-2.0
/*
 * Until the LRU tracer's load/snapshot API (lru_load.h) is in the tree,
 * --lru says that it is unavailable and why.
 */
#include <stdio.h>

#include "record_lru.h"

void record_lru_start(uint32_t kdev, int whatif, struct probe_status *st)
{
	(void)kdev;
	(void)whatif;
	st->available = false;
	snprintf(st->why, sizeof(st->why),
		 "this build of bhscope has no LRU tracer API (user/lru_load.h) to record with");
}

void record_lru_run_begin(void)
{
}

struct json_object *record_lru_run_end(double wall_s)
{
	(void)wall_s;
	return NULL;
}

void record_lru_stop(void)
{
}
