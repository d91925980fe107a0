// SPDX-License-Identifier: GPL-2.0
/*
 * The jbd2 source of bhscope serve: the cumulative per-device, per-CPU
 * counters of bpf/jbd2.bpf.c as Prometheus families, in base units.
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
#include "jbd2/jbd2_report.h"
#include "lib/probe_status.h"
#include "lib/tunables.h"
#include "serve/serve_devices.h"
#include "serve/serve_sources.h"

/* Histogram buckets written: slots outside fold into their neighbours. */
#define COMMIT_FIRST_SLOT	4	/* le 16 µs */
#define COMMIT_LAST_SLOT	24	/* le 16.8 s */
#define HANDLES_FIRST_SLOT	0	/* le 0 handles */
#define HANDLES_LAST_SLOT	20	/* le 1048575 handles */

struct jbd2_priv {
	struct jbd2_bpf *skel;
	struct probe_status events;
	struct probe_status batch_sleep;
	struct probe_status checkpoints;
	double le_us[BHSCOPE_LOG2_SLOTS];
	double le_count[BHSCOPE_LOG2_SLOTS];
};

static struct jbd2_priv jbd2_priv;

/* One exported series set: a device, or a device on one CPU. */
struct row {
	const struct jbd2_dev_stats *s;
	struct prom_labels ls;
};

enum unit { RAW, JIFFIES };
enum needs { ALWAYS, CHECKPOINTS };

#define F(field) offsetof(struct jbd2_dev_stats, field)

static const struct jbd2_counter {
	const char *name;
	const char *help;
	size_t off;
	enum unit unit;
	enum needs needs;
} counters[] = {
	{ "bhscope_jbd2_transactions_total",
	  "Transactions committed (jbd2_run_stats), counted on the commit thread's CPU.",
	  F(transactions), RAW, ALWAYS },
	{ "bhscope_jbd2_transaction_blocks_total",
	  "Blocks in committed transactions (jbd2_run_stats blocks).",
	  F(blocks), RAW, ALWAYS },
	{ "bhscope_jbd2_transaction_blocks_logged_total",
	  "Blocks the commits wrote to the journal, descriptors included (jbd2_run_stats blocks_logged).",
	  F(blocks_logged), RAW, ALWAYS },
	{ "bhscope_jbd2_sync_commits_total",
	  "Commits of transactions marked synchronous (jbd2_end_commit sync_commit).",
	  F(sync_commits), RAW, ALWAYS },
	{ "bhscope_jbd2_handles_stopped_total",
	  "Handles stopped (jbd2_handle_stats), counted on the writer's CPU.",
	  F(handles_stopped), RAW, ALWAYS },
	{ "bhscope_jbd2_sync_handles_total",
	  "Stopped handles that were synchronous: only these may sleep in jbd2_journal_stop to batch.",
	  F(sync_handles), RAW, ALWAYS },
	{ "bhscope_jbd2_handle_blocks_dirtied_total",
	  "Blocks dirtied by the stopped handles (jbd2_handle_stats dirtied_blocks).",
	  F(handle_blocks_dirtied), RAW, ALWAYS },
	{ "bhscope_jbd2_checkpoints_total",
	  "Transactions checkpointed (jbd2_checkpoint_stats).",
	  F(checkpoints), RAW, CHECKPOINTS },
	{ "bhscope_jbd2_checkpoint_seconds_total",
	  "Time the checkpointed transactions spent in checkpointing (chp_time).",
	  F(chp_jiffies), JIFFIES, CHECKPOINTS },
	{ "bhscope_jbd2_checkpoint_forced_to_close_total",
	  "Checkpointed transactions that were forced to close (jbd2_checkpoint_stats forced_to_close).",
	  F(chp_forced_to_close), RAW, CHECKPOINTS },
	{ "bhscope_jbd2_checkpoint_written_total",
	  "Buffers written back by checkpointing (jbd2_checkpoint_stats written).",
	  F(chp_written), RAW, CHECKPOINTS },
	{ "bhscope_jbd2_checkpoint_dropped_total",
	  "Buffers dropped from the checkpoint lists (jbd2_checkpoint_stats dropped).",
	  F(chp_dropped), RAW, CHECKPOINTS },
};

static __u64 field(const struct jbd2_dev_stats *s, size_t off)
{
	return *(const __u64 *)((const char *)s + off);
}

static const char *probe_why(const char *prog, void *arg)
{
	struct jbd2_priv *p = arg;

	const char *taken = jbd2_flavour_prefix(jbd2_events_flavour(p->skel));

	if (!strncmp(prog, "journal_stop_", 13))
		return p->batch_sleep.why;
	/* event programs of the flavours that were not taken */
	for (int f = 0; f < JBD2_NR_FLAVOURS; f++) {
		const char *prefix = jbd2_flavour_prefix(f);

		if (strcmp(prefix, taken) && !strncmp(prog, prefix, strlen(prefix)))
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
	const char *missing = jbd2_missing_tracepoint();
	char why[256];
	struct jbd2_bpf *opened;
	int err = -ENOENT;

	(void)nr_cpus;
	prom_log2_le_truncated(p->le_us, BHSCOPE_LOG2_SLOTS, 1e6);
	prom_log2_le_counts(p->le_count, BHSCOPE_LOG2_SLOTS, 1);
	if (!missing) {
		p->skel = jbd2_load(0, JBD2_HOOK_AUTO, &p->events,
				    &p->batch_sleep, &p->checkpoints, &err);
		if (p->skel) {
			serve_probes_from_skeleton(src, p->skel->skeleton,
						   probe_why, p);
			serve_maps_from_skeleton(src, p->skel->skeleton,
						 jbd2_maps);
			return 0;
		}
		probe_reason(why, sizeof(why), "tracepoint", "jbd2", err);
	} else {
		snprintf(why, sizeof(why),
			 "tracepoint jbd2:%s not found: jbd2 is not loaded yet (mount an ext4 with a journal, or modprobe jbd2); retried every interval",
			 missing);
	}
	/* Opening needs no kernel support: it names the programs. */
	opened = jbd2_bpf__open();
	serve_probes_all_down(src, opened ? opened->skeleton : NULL, why);
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

static bool stats_zero(const struct jbd2_dev_stats *s)
{
	static const struct jbd2_dev_stats zero;

	return !memcmp(s, &zero, sizeof(zero));
}

static void add_row(struct row *rows, int *nr, const struct jbd2_dev_stats *s,
		    const char *dev, const char *cpu)
{
	struct row *r = &rows[(*nr)++];

	r->s = s;
	r->ls = (struct prom_labels){};
	prom_labels_add(&r->ls, "device", dev);
	if (cpu)
		prom_labels_add(&r->ls, "cpu", cpu);
}

/*
 * The series to write: each selected present device (zeros when its map
 * entry is still empty), or with --per-cpu each of its CPUs that has seen
 * an event (so idle CPUs add no series).
 */
static int build_rows(const struct serve_view *v,
		      const struct jbd2_snapshot *snap,
		      const struct serve_dev **devs, int nr_devs,
		      struct row **rowsp)
{
	static const struct jbd2_dev_stats zero;
	struct row *rows;
	int nr = 0;

	rows = calloc((size_t)nr_devs * (v->per_cpu ? v->nr_cpus : 1) + 1,
		      sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (int i = 0; i < nr_devs; i++) {
		const struct jbd2_dev_snapshot *d =
			jbd2_snapshot_find(snap, devs[i]->kdev);

		if (!v->per_cpu) {
			add_row(rows, &nr, d ? &d->total : &zero,
				devs[i]->name, NULL);
			continue;
		}
		for (int c = 0; d && c < v->nr_cpus; c++)
			if (!stats_zero(&d->cpu[c]))
				add_row(rows, &nr, &d->cpu[c], devs[i]->name,
					v->cpu_names[c]);
	}
	*rowsp = rows;
	return nr;
}

static void write_counters(const struct jbd2_priv *p, const struct serve_view *v,
			   const struct row *rows, int nr, struct prom_buf *out)
{
	for (size_t i = 0; i < sizeof(counters) / sizeof(*counters); i++) {
		const struct jbd2_counter *c = &counters[i];

		if (c->needs == CHECKPOINTS && !p->checkpoints.available)
			continue;
		prom_family(out, c->name, PROM_COUNTER, c->help);
		for (int r = 0; r < nr; r++) {
			__u64 val = field(rows[r].s, c->off);

			if (c->unit == JIFFIES)
				prom_sample(out, c->name, &rows[r].ls,
					    prom_seconds_from_jiffies(val, v->hz));
			else
				prom_sample_u64(out, c->name, &rows[r].ls, val);
		}
	}
}

static void write_phases(const struct serve_view *v, const struct row *rows,
			 int nr, struct prom_buf *out)
{
	static const char name[] = "bhscope_jbd2_phase_seconds_total";

	prom_family(out, name, PROM_COUNTER,
		    "Time committed transactions spent in each phase (jbd2_run_stats, jiffies converted with the kernel's HZ): wait, request_delay, running, locked, flushing, logging.");
	for (int r = 0; r < nr; r++) {
		for (int ph = 0; ph < JBD2_NR_PHASES; ph++) {
			struct prom_labels ls = rows[r].ls;

			prom_labels_add(&ls, "phase", jbd2_phase_names[ph]);
			prom_sample(out, name, &ls,
				    prom_seconds_from_jiffies(
					    rows[r].s->phase_jiffies[ph], v->hz));
		}
	}
}

static void write_histograms(const struct jbd2_priv *p, const struct row *rows,
			     int nr, struct prom_buf *out)
{
	static const char commit[] = "bhscope_jbd2_commit_duration_seconds";
	static const char handles[] = "bhscope_jbd2_transaction_handles";
	static const char stop[] = "bhscope_jbd2_sync_handle_stop_seconds";

	prom_family(out, commit, PROM_HISTOGRAM,
		    "Commit latency, jbd2_start_commit to jbd2_end_commit, counted on the commit thread's CPU.");
	for (int r = 0; r < nr; r++) {
		struct prom_hist h = {
			.slots = rows[r].s->commit_us_hist, .le = p->le_us,
			.nr_slots = BHSCOPE_LOG2_SLOTS,
			.first = COMMIT_FIRST_SLOT, .last = COMMIT_LAST_SLOT,
			.sum = prom_seconds_from_ns(rows[r].s->commit_ns),
		};
		prom_histogram(out, commit, &rows[r].ls, &h);
	}
	prom_family(out, handles, PROM_HISTOGRAM,
		    "Handles per committed transaction (jbd2_run_stats handle_count): how many updates share one commit.");
	for (int r = 0; r < nr; r++) {
		struct prom_hist h = {
			.slots = rows[r].s->handles_hist, .le = p->le_count,
			.nr_slots = BHSCOPE_LOG2_SLOTS,
			.first = HANDLES_FIRST_SLOT, .last = HANDLES_LAST_SLOT,
			.sum = (double)rows[r].s->handles,
		};
		prom_histogram(out, handles, &rows[r].ls, &h);
	}
	if (!p->batch_sleep.available)
		return;
	prom_family(out, stop, PROM_HISTOGRAM,
		    "Time sync writers spent in jbd2_journal_stop (the batching sleep and the commit wait), fentry/fexit, on the writer's CPU.");
	for (int r = 0; r < nr; r++) {
		struct prom_hist h = {
			.slots = rows[r].s->batch_us_hist, .le = p->le_us,
			.nr_slots = BHSCOPE_LOG2_SLOTS,
			.first = COMMIT_FIRST_SLOT, .last = COMMIT_LAST_SLOT,
			.sum = prom_seconds_from_ns(rows[r].s->batch_ns),
		};
		prom_histogram(out, stop, &rows[r].ls, &h);
	}
}

/* Per-journal gauges: no cpu label, whatever --per-cpu says. */
static void write_journal_gauges(const struct jbd2_snapshot *snap,
				 const struct serve_dev **devs, int nr_devs,
				 struct prom_buf *out)
{
	static const struct {
		const char *name, *help;
	} g[] = {
		{ "bhscope_jbd2_min_batch_time_seconds",
		  "The journal's min_batch_time: the least a sync writer sleeps to batch (ext4 options, else jbd2's default)." },
		{ "bhscope_jbd2_max_batch_time_seconds",
		  "The journal's max_batch_time: the most a sync writer sleeps to batch (ext4 options, else jbd2's default)." },
		{ "bhscope_jbd2_commit_interval_seconds",
		  "The journal's commit interval (ext4 commit=, else jbd2's default)." },
		{ "bhscope_jbd2_average_commit_seconds",
		  "The kernel's running average commit time for the journal (j_average_commit_time, mirrored), once a commit was seen." },
	};
	struct journal_tunables *t;

	t = calloc(nr_devs + 1, sizeof(*t));
	if (!t) {
		out->oom = true;
		return;
	}
	for (int i = 0; i < nr_devs; i++)
		journal_tunables_read(devs[i]->name, &t[i]);
	for (size_t k = 0; k < sizeof(g) / sizeof(*g); k++) {
		prom_family(out, g[k].name, PROM_GAUGE, g[k].help);
		for (int i = 0; i < nr_devs; i++) {
			const struct jbd2_dev_snapshot *d =
				jbd2_snapshot_find(snap, devs[i]->kdev);
			struct prom_labels ls = {};
			double val;

			prom_labels_add(&ls, "device", devs[i]->name);
			if (k == 0) {
				val = t[i].min_batch_us / 1e6;
			} else if (k == 1) {
				val = t[i].max_batch_us / 1e6;
			} else if (k == 2) {
				val = (double)t[i].commit_s;
			} else {
				if (!d || !d->avg_commit_ns)
					continue;
				val = prom_seconds_from_ns(d->avg_commit_ns);
			}
			prom_sample(out, g[k].name, &ls, val);
		}
	}
	free(t);
}

static void jbd2_collect(struct serve_source *src, const struct serve_view *v,
			 struct prom_buf *out)
{
	struct jbd2_priv *p = src->priv;
	struct jbd2_snapshot snap = { .nr_cpus = v->nr_cpus };
	const struct serve_dev **devs;
	struct row *rows = NULL;
	int nr_devs = 0, nr;

	devs = calloc(v->devs->nr + 1, sizeof(*devs));
	if (!devs || jbd2_read_snapshot(p->skel, &snap)) {
		out->oom = true;
		goto out;
	}
	/* Journals present and selected, plus ext4 ones with events. */
	for (int i = 0; i < v->devs->nr; i++) {
		const struct serve_dev *d = &v->devs->dev[i];

		if (d->selected &&
		    (d->journal || jbd2_snapshot_find(&snap, d->kdev)))
			devs[nr_devs++] = d;
	}
	nr = build_rows(v, &snap, devs, nr_devs, &rows);
	if (nr < 0) {
		out->oom = true;
		goto out;
	}
	write_counters(p, v, rows, nr, out);
	write_phases(v, rows, nr, out);
	write_histograms(p, rows, nr, out);
	write_journal_gauges(&snap, devs, nr_devs, out);
	prom_family(out, "bhscope_jbd2_dropped_events_total", PROM_COUNTER,
		    "jbd2 events lost because the per-device maps were full.");
	prom_sample_u64(out, "bhscope_jbd2_dropped_events_total", NULL,
			snap.dropped_events);
	/* no sample where the kernel does not count them: unknown, not 0 */
	prom_family(out, "bhscope_jbd2_lost_events_total", PROM_COUNTER,
		    "jbd2 events in no figure: runs of their programs the kernel skipped (recursion_misses). Absent where the kernel does not count them (classic tracepoints before 6.7).");
	if (snap.lost_known)
		prom_sample_u64(out, "bhscope_jbd2_lost_events_total", NULL,
				snap.lost_events);
out:
	free(rows);
	free(devs);
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

	jbd2_forget_devices(p->skel, journal_present, (void *)present);
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
