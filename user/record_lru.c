// SPDX-License-Identifier: GPL-2.0
/*
 * Placeholder until `bhscope lru` exposes a load/snapshot API that other
 * subcommands can call (as jbd2_load.h does for jbd2): --lru then says so.
 */
#include <stdio.h>

#include "record_lru.h"

void record_lru_start(int whatif, struct probe_status *st)
{
	(void)whatif;
	st->available = false;
	snprintf(st->why, sizeof(st->why),
		 "this build of bhscope has no reusable LRU tracer API (bhscope lru is not built in)");
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
