// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the lru --trace reader and the replay that simulate
 * runs on it (lru_trace_open_file/next, lrusim_feed), from memory. Seeds:
 * a version 2 trace and a version 1 one (both are read).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lrutrace/lru_trace.h"
#include "lrusim/lrusim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lru_trace_reader r;
	struct lrusim_figures total;
	struct lru_event e;
	struct lrusim sim;
	char why[512];
	FILE *f;

	if (!size)
		return 0;	/* fmemopen() wants a buffer */
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (lru_trace_open_file(&r, f, true, "fuzz", why, sizeof(why)))
		return 0;
	if (!lrusim_init(&sim, BHSCOPE_LRU_SLOTS_MAX, r.h.nr_cpus, 0,
			 r.h.flags & LRU_TRACE_RAW_BITS)) {
		while (lru_trace_next(&r, &e, why, sizeof(why)) > 0)
			if (lrusim_feed(&sim, &e))
				break;
		lrusim_total(&sim, &total);
		lrusim_free(&sim);
	}
	lru_trace_close(&r);
	return 0;
}
