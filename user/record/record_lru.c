// SPDX-License-Identifier: GPL-2.0
/* The LRU figures of a record, through the LRU tracer's load/snapshot API. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lru/lru_load.h"
#include "lru/lru_report.h"
#include "lru/lru_snapshot.h"
#include "record/record_lru.h"

/* One LRU session per process: record runs one workload at a time. */
static struct lru_session session;
static struct lru_snapshot before;
static bool loaded;
static int whatif_max;

/* The reason of the last mode tried: the most basic hook that failed. */
static void why_not(struct probe_status *st)
{
	const char *why = NULL;

	for (int m = LRU_NR_MODES - 1; m > LRU_MODE_AUTO && !why; m--)
		if (session.hooks.tried[m][0])
			why = session.hooks.tried[m];
	snprintf(st->why, sizeof(st->why), "the LRU tracer did not load: %s",
		 why ? why : "see bhscope lru --probes");
}

void record_lru_start(uint32_t kdev, int whatif, struct probe_status *st)
{
	struct lru_load_opts lo = { .kdev = kdev, .whatif = whatif,
				    .mode = LRU_MODE_AUTO };

	memset(&session, 0, sizeof(session));
	if (lru_load(&session, &lo)) {
		st->available = false;
		why_not(st);
		return;
	}
	loaded = true;
	whatif_max = lru_hooks_classify(&session.hooks) ? whatif : 0;
	st->available = true;
}

static void read_snapshot(struct lru_snapshot *s)
{
	*s = (struct lru_snapshot){ .nr_cpus = session.nr_cpus };
	if (lru_read_snapshot(&session, s))
		fprintf(stderr, "bhscope: reading the LRU maps failed; this run's LRU figures may be short\n");
}

void record_lru_run_begin(void)
{
	if (!loaded)
		return;
	lru_snapshot_free(&before);
	read_snapshot(&before);
}

struct json_object *record_lru_run_end(double wall_s)
{
	struct lru_report_ctx ctx = {
		.elapsed_s = wall_s > 0 ? wall_s : 1e-9,
		.per_cpu = true,
		.final = true,
		.whatif = whatif_max,
		.hooks = &session.hooks,
	};
	struct lru_snapshot after, delta;
	struct json_object *o = NULL;

	if (!loaded)
		return NULL;
	ctx.lru_size = lru_session_lru_size(&session);
	read_snapshot(&after);
	if (!lru_snapshot_delta(&delta, &after, &before)) {
		o = lru_report_json(&ctx, &delta);
		lru_snapshot_free(&delta);
	}
	lru_snapshot_free(&after);
	return o;
}

void record_lru_stop(void)
{
	lru_snapshot_free(&before);
	if (loaded)
		lru_unload(&session);
	loaded = false;
}
