// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lru/lru_report.h"
#include "record/record_lru.h"
#include "lib/errmsg.h"

/* The reason of the last mode tried: the most basic hook that failed. */
static void why_not(const struct lru_hooks *h, struct probe_status *st)
{
	const char *why = NULL;

	for (int m = LRU_NR_MODES - 1; m > LRU_MODE_AUTO && !why; m--)
		if (h->tried[m][0])
			why = h->tried[m];
	probe_status_missing(st, "the LRU tracer did not load: %s",
			     why ? why : "see bhscope lru --probes");
}

void record_lru_start(struct record_lru *r, uint32_t kdev, int whatif,
		      struct probe_status *st)
{
	/* as bhscope lru --whatif: its time too, and per operation */
	struct lru_load_opts lo = {
		.kdev = kdev, .whatif = whatif, .mode = LRU_MODE_AUTO,
		.time_every = whatif ? LRU_TIMING_EVERY_WHATIF : 0,
	};

	memset(r, 0, sizeof(*r));
	if (lru_session_open(&r->session, &lo)) {
		why_not(&r->session.hooks, st);
		return;
	}
	r->loaded = true;
	r->whatif = lru_hooks_classify(&r->session.hooks) ? whatif : 0;
	st->available = true;
}

static void read_snapshot(struct record_lru *r, struct lru_snapshot *s)
{
	*s = (struct lru_snapshot){ .nr_cpus = r->session.nr_cpus };
	if (lru_session_interval(&r->session, s))
		errmsg("reading the LRU maps failed; this run's LRU figures may be short");
}

void record_lru_run_begin(struct record_lru *r)
{
	if (!r->loaded)
		return;
	lru_snapshot_free(&r->before);
	read_snapshot(r, &r->before);
}

struct json_object *record_lru_run_end(struct record_lru *r, double wall_s)
{
	struct lru_report_ctx ctx = {
		.elapsed_s = wall_s > 0 ? wall_s : 1e-9,
		.per_cpu = true,
		.final = true,
		.whatif = r->whatif,
	};
	struct lru_snapshot after, delta;
	struct json_object *o = NULL;

	if (!r->loaded)
		return NULL;
	read_snapshot(r, &after);
	if (!lru_snapshot_delta(&delta, &after, &r->before)) {
		ctx.lru_size = delta.lru_size;
		ctx.hooks = &delta.hooks;
		o = lru_report_json(&ctx, &delta);
		lru_snapshot_free(&delta);
	}
	lru_snapshot_free(&after);
	return o;
}

void record_lru_stop(struct record_lru *r)
{
	lru_snapshot_free(&r->before);
	if (r->loaded)
		lru_session_close(&r->session);
	r->loaded = false;
}
