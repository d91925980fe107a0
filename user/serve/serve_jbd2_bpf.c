// SPDX-License-Identifier: GPL-2.0
/*
 * The jbd2 source of bhscope serve: attaches the jbd2 programs
 * (jbd2_load()) and reads their cumulative per-device, per-CPU counters
 * on every scrape; serve_jbd2_write() makes them families.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jbd2.skel.h"
#include "jbd2/jbd2_load.h"
#include "lib/probe_status.h"
#include "serve/serve_devices.h"
#include "serve/serve_jbd2.h"
#include "serve/serve_sources.h"

struct jbd2_priv {
	struct jbd2_bpf *skel;
	struct probe_status events;
	struct probe_status batch_sleep;
	struct probe_status checkpoints;
};

static struct jbd2_priv jbd2_priv;

static const char *probe_why(const char *prog, void *arg)
{
	struct jbd2_priv *p = arg;

	const char *taken = jbd2_load_flavour_prefix(
		jbd2_load_events_flavour(p->skel));

	if (!strncmp(prog, "journal_stop_", 13))
		return p->batch_sleep.why;
	/* event programs of the flavours that were not taken */
	for (int f = 0; f < JBD2_NR_FLAVOURS; f++) {
		const char *prefix = jbd2_load_flavour_prefix(f);

		if (strcmp(prefix, taken) &&
		    !strncmp(prog, prefix, strlen(prefix)))
			return NULL;
	}
	if (strstr(prog, "_checkpoint_stats"))
		return p->checkpoints.why;
	return "not loaded";
}

static const char *const jbd2_maps[] = { "dev_stats", "journal_state", NULL };

static int jbd2_start(struct serve_source *src, int nr_cpus)
{
	struct jbd2_priv *p = src->priv;
	const char *missing = jbd2_load_missing_tracepoint();
	char why[256];
	struct jbd2_bpf *opened;
	int err = -ENOENT;

	(void)nr_cpus;
	if (!missing) {
		p->skel = jbd2_load(0, JBD2_HOOK_AUTO, &p->events,
				    &p->batch_sleep, &p->checkpoints, &err);
		if (p->skel) {
			serve_sources_probes(src, p->skel->skeleton,
					     probe_why, p);
			serve_sources_maps(src, p->skel->skeleton,
					   jbd2_maps);
			return 0;
		}
		probe_status_reason(why, sizeof(why), "tracepoint", "jbd2", err);
	} else {
		snprintf(why, sizeof(why),
			 "tracepoint jbd2:%s not found: jbd2 is not loaded yet (mount an ext4 with a journal, or modprobe jbd2); retried every interval",
			 missing);
	}
	/* Opening needs no kernel support: it names the programs. */
	opened = jbd2_bpf__open();
	serve_sources_all_down(src, opened ? opened->skeleton : NULL, why);
	jbd2_bpf__destroy(opened);
	return err;
}

static void jbd2_stop(struct serve_source *src)
{
	struct jbd2_priv *p = src->priv;

	/* Destroying the skeleton detaches every program. */
	jbd2_bpf__destroy(p->skel);
	p->skel = NULL;
	src->nr_maps = 0;
}

static void jbd2_collect(struct serve_source *src, const struct serve_view *v,
			 struct prom_buf *out)
{
	struct jbd2_priv *p = src->priv;
	struct jbd2_snapshot snap = { .nr_cpus = v->nr_cpus };
	struct jbd2_table_status st = {
		.checkpoints = p->checkpoints.available,
		.batch_sleep = p->batch_sleep.available,
	};

	if (jbd2_load_read_snapshot(p->skel, &snap)) {
		out->oom = true;
	} else {
		st.lost_known = snap.lost_known;
		serve_jbd2_write(out, &st, v, &snap);
	}
	jbd2_snapshot_free(&snap);
}

/* Devices no longer present lose their map entries: memory stays bounded. */
static bool journal_present(uint32_t kdev, void *present)
{
	return serve_devices_find(present, kdev) != NULL;
}

/* Journals gone lose their counters. */
static void jbd2_prune(struct serve_source *src,
		       const struct serve_devices *present)
{
	struct jbd2_priv *p = src->priv;

	jbd2_load_forget_devices(p->skel, journal_present, (void *)present);
}

static const struct serve_source_ops jbd2_ops = {
	.start = jbd2_start,
	.stop = jbd2_stop,
	.collect = jbd2_collect,
	.prune = jbd2_prune,
};

struct serve_source serve_jbd2_source = {
	.name = "jbd2",
	.ops = &jbd2_ops,
	.priv = &jbd2_priv,
};
