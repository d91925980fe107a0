// SPDX-License-Identifier: GPL-2.0
/*
 * The buffer-head LRU source of bhscope serve: the LRU tracer's cumulative
 * per-device, per-CPU counters (user/lru_load.h) as Prometheus families.
 * Which families exist depends on the hooks this kernel allows: with only
 * the block:block_touch_buffer tracepoint, hits per CPU; with fentry,
 * kprobes or bhtune.ko, lookups, misses by outcome, evictions and the hit
 * slot histogram too.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/devname.h"
#include "lru.skel.h"
#include "lru/lru_load.h"
#include "serve/serve_sources.h"

struct lru_priv {
	struct lru_session sess;
	bool loaded;
	double le_slot[BHSCOPE_LRU_DEPTH_MAX];
};

static struct lru_priv lru_priv;

/* One exported series set: a device, or a device on one CPU. */
struct lru_row {
	const struct lru_dev_stats *s;
	struct prom_labels ls;
};

/*
 * An LRU device still exists while /sys/dev/block has it with a size: a
 * removed disk leaves, a detached loop device stays with size 0.
 */
static bool dev_exists(uint32_t kdev, void *arg)
{
	unsigned long long sectors = 0;
	char path[64];
	FILE *f;

	(void)arg;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/size",
		 BHSCOPE_KDEV_MAJOR(kdev), BHSCOPE_KDEV_MINOR(kdev));
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%llu", &sectors) != 1)
		sectors = 0;
	fclose(f);
	return sectors > 0;
}

static void probe_add(struct serve_source *src, const char *name, bool up,
		      int fd, const char *why)
{
	struct serve_probe *p;
	char *c;

	if (src->nr_probes == SERVE_MAX_PROBES)
		return;
	p = &src->probes[src->nr_probes++];
	snprintf(p->name, sizeof(p->name), "%s", name);
	/* "fentry find_get_block_common" -> "fentry/find_get_block_common" */
	for (c = p->name; *c; c++)
		if (*c == ' ' || *c == ':')
			*c = '/';
	p->up = up;
	p->prog_fd = fd;
	snprintf(p->why, sizeof(p->why), "%s", why ? why : "");
}

/* The programs attached, and each hook mode tried in vain and why. */
static void describe(struct serve_source *src, const struct lru_session *s)
{
	src->nr_probes = 0;
	for (int i = 0; i < s->nr_att; i++)
		probe_add(src, s->att[i].what, true,
			  bpf_program__fd(s->att[i].prog), NULL);
	for (int m = LRU_MODE_BHTUNE; m < LRU_NR_MODES; m++) {
		char name[32];

		if (!s->hooks.tried[m][0])
			continue;
		snprintf(name, sizeof(name), "mode %s", lru_mode_names[m]);
		probe_add(src, name, false, -1, s->hooks.tried[m]);
	}
}

static int lru_start(struct serve_source *src, int nr_cpus)
{
	struct lru_priv *p = src->priv;
	struct lru_load_opts o = { .mode = LRU_MODE_AUTO };
	int err;

	(void)nr_cpus;
	for (int i = 0; i < BHSCOPE_LRU_DEPTH_MAX; i++)
		p->le_slot[i] = i;	/* slot i: stack distance i */
	err = lru_load(&p->sess, &o);
	describe(src, &p->sess);
	src->nr_maps = 0;
	/*
	 * Every hook was tried: only SIGHUP retries (not every interval);
	 * but an owner of the lookup it cannot trace (a livepatch, or its
	 * transition) may go: retried every interval, a sysfs read each.
	 */
	if (err)
		return err == -EAGAIN || err == -EBUSY ? -ENOENT :
		       err == -ENOENT ? -EOPNOTSUPP : err;
	p->loaded = true;
	src->maps[src->nr_maps++] = (struct serve_map){
		.name = "dev_stats",
		.fd = bpf_map__fd(p->sess.skel->maps.dev_stats),
		.max_entries = bpf_map__max_entries(p->sess.skel->maps.dev_stats),
	};
	return 0;
}

static void lru_stop(struct serve_source *src)
{
	struct lru_priv *p = src->priv;

	if (p->loaded)
		lru_unload(&p->sess);
	p->loaded = false;
	src->nr_maps = 0;
}

static bool stats_zero(const struct lru_dev_stats *s)
{
	static const struct lru_dev_stats zero;

	return !memcmp(s, &zero, sizeof(zero));
}

#define F(field) offsetof(struct lru_dev_stats, field)

static const struct lru_counter {
	const char *name;
	const char *help;
	size_t off;
	enum lru_figure_id fig;
	const char *outcome;	/* misses: the outcome label */
} counters[] = {
	{ "bhscope_lru_hits_total",
	  "Lookups found in this CPU's buffer-head LRU (bh_lrus).",
	  F(hits), LRU_FIG_HITS, NULL },
	{ "bhscope_lru_lookups_total",
	  "Buffer-head LRU lookups that returned (hits, misses and unclassified).",
	  F(lookups), LRU_FIG_LOOKUPS, NULL },
	{ "bhscope_lru_unclassified_lookups_total",
	  "Lookups that raced a change of the CPU's LRU (migration, sleep, invalidation) and were not classified.",
	  F(unsynced), LRU_FIG_LOOKUPS, NULL },
	{ "bhscope_lru_unclassified_misses_total",
	  "Of the unclassified lookups, those proven misses (the task slept inside the lookup, which a hit never does under none or voluntary preemption).",
	  F(unsynced_misses), LRU_FIG_LOOKUPS, NULL },
	{ "bhscope_lru_evictions_total",
	  "Installs into a full LRU: the last slot's buffer head pushed out.",
	  F(evictions), LRU_FIG_EVICTIONS, NULL },
};

static const struct {
	const char *outcome;
	size_t off;
} misses[] = {
	{ "installed", F(installed) },
	{ "not_installed", F(not_installed) },
	{ "absent", F(absent) },
};

static __u64 field(const struct lru_dev_stats *s, size_t off)
{
	return *(const __u64 *)((const char *)s + off);
}

/* Map devices that still exist and pass the filter, with their names. */
static int build_rows(const struct serve_view *v, const struct lru_snapshot *snap,
		      struct lru_row *rows, char (*names)[SERVE_DEVNAME_LEN])
{
	int nr = 0;

	for (int i = 0; i < snap->nr_devs; i++) {
		const struct lru_dev_snapshot *d = &snap->devs[i];

		if (!dev_exists(d->kdev, NULL))
			continue;
		devname_of(d->kdev, names[i], SERVE_DEVNAME_LEN);
		if (!serve_config_selects(v->cfg, names[i], d->kdev))
			continue;
		for (int c = 0; c < (v->per_cpu ? v->nr_cpus : 1); c++) {
			const struct lru_dev_stats *s =
				v->per_cpu ? &d->cpu[c] : &d->total;
			struct lru_row *r;

			if (v->per_cpu && stats_zero(s))
				continue;
			r = &rows[nr++];
			r->s = s;
			r->ls = (struct prom_labels){};
			prom_labels_add(&r->ls, "device", names[i]);
			if (v->per_cpu)
				prom_labels_add(&r->ls, "cpu", v->cpu_names[c]);
		}
	}
	return nr;
}

static void write_counters(const struct lru_session *s,
			   const struct lru_row *rows, int nr,
			   struct prom_buf *out)
{
	static const char miss[] = "bhscope_lru_misses_total";

	for (size_t i = 0; i < sizeof(counters) / sizeof(*counters); i++) {
		if (!s->hooks.fig[counters[i].fig].available)
			continue;
		prom_family(out, counters[i].name, PROM_COUNTER, counters[i].help);
		for (int r = 0; r < nr; r++)
			prom_sample_u64(out, counters[i].name, &rows[r].ls,
					field(rows[r].s, counters[i].off));
	}
	if (!s->hooks.fig[LRU_FIG_MISSES].available)
		return;
	prom_family(out, miss, PROM_COUNTER,
		    "LRU misses by outcome: installed (found in the page cache, put in slot 0), not_installed (found, install skipped), absent (not in the page cache).");
	for (int r = 0; r < nr; r++) {
		for (size_t m = 0; m < sizeof(misses) / sizeof(*misses); m++) {
			struct prom_labels ls = rows[r].ls;

			prom_labels_add(&ls, "outcome", misses[m].outcome);
			prom_sample_u64(out, miss, &ls,
					field(rows[r].s, misses[m].off));
		}
	}
}

/*
 * Hit slot = LRU stack distance: the bucket le="k-1" over lookups is the
 * hit ratio an LRU of k slots would give (LRU inclusion), for k up to the
 * running size. Only hits are observed, so _count = hits.
 */
static void write_slots(const struct lru_priv *p, const struct lru_row *rows,
			int nr, struct prom_buf *out)
{
	static const char name[] = "bhscope_lru_hit_slot";
	int size = lru_session_lru_size(&p->sess);
	__u64 slots[BHSCOPE_LRU_DEPTH_MAX];

	if (size <= 0 || size > BHSCOPE_LRU_DEPTH_MAX)
		size = 16;
	prom_family(out, name, PROM_HISTOGRAM,
		    "Slot of each LRU hit, which is its stack distance: bucket le=\"k-1\" / lookups is the hit ratio of an LRU of k slots.");
	for (int r = 0; r < nr; r++) {
		double sum = 0;
		struct prom_hist h = {
			.slots = slots, .le = p->le_slot, .nr_slots = size,
			.first = 0, .last = size - 1,
		};

		for (int i = 0; i < size; i++) {
			slots[i] = rows[r].s->dist[i];
			sum += (double)i * slots[i];
		}
		h.sum = sum;
		prom_histogram(out, name, &rows[r].ls, &h);
	}
}

/* Per-CPU counters of the LRU itself, whatever the device. */
static void write_cpu_counters(const struct lru_session *s,
			       const struct serve_view *v,
			       const struct lru_snapshot *snap,
			       struct prom_buf *out)
{
	static const struct {
		const char *name, *help;
		size_t off;
		int fig;	/* -1: always */
	} c[] = {
		{ "bhscope_lru_resets_total",
		  "Times an LRU was found emptied (invalidated) at a lookup.",
		  offsetof(struct lru_cpu_counters, resets), LRU_FIG_LOOKUPS },
		{ "bhscope_lru_invalidate_all_total",
		  "invalidate_bh_lrus() calls (every CPU's LRU emptied).",
		  offsetof(struct lru_cpu_counters, invalidate_all),
		  LRU_FIG_INVALIDATIONS },
		{ "bhscope_lru_resyncs_total",
		  "Times the model lost keys beyond the LRU (re-read an LRU changed unseen, forgetting its ghost list; or an eviction whose key it never read): the what-if sizes above the LRU's are a lower bound since.",
		  offsetof(struct lru_cpu_counters, resyncs), LRU_FIG_LOOKUPS },
		{ "bhscope_lru_ghost_absent_total",
		  "Absent lookups found in the ghost list: a larger LRU would have kept the buffer; the what-if sizes above the LRU's are approximate since.",
		  offsetof(struct lru_cpu_counters, ghost_absent), LRU_FIG_LOOKUPS },
		{ "bhscope_lru_install_calls_total",
		  "bh_lru_install() calls, where it is a symbol.",
		  offsetof(struct lru_cpu_counters, install_calls),
		  LRU_FIG_INSTALLS },
		{ "bhscope_lru_dropped_lookups_total",
		  "Events lost: lookups not counted because the device map was full.",
		  offsetof(struct lru_cpu_counters, devs_dropped), -1 },
	};

	if (!snap->counters)
		return;
	for (size_t i = 0; i < sizeof(c) / sizeof(*c); i++) {
		if (c[i].fig >= 0 && !s->hooks.fig[c[i].fig].available)
			continue;
		prom_family(out, c[i].name, PROM_COUNTER, c[i].help);
		if (!v->per_cpu) {
			struct lru_cpu_counters t = {};

			lru_snapshot_counters_total(snap, &t);
			prom_sample_u64(out, c[i].name, NULL,
					*(__u64 *)((char *)&t + c[i].off));
			continue;
		}
		for (int cpu = 0; cpu < v->nr_cpus; cpu++) {
			struct prom_labels ls = {};

			prom_labels_add(&ls, "cpu", v->cpu_names[cpu]);
			prom_sample_u64(out, c[i].name, &ls,
					*(__u64 *)((char *)&snap->counters[cpu] +
						   c[i].off));
		}
	}
}

/*
 * Lookups no figure has: their exit probe did not run (the kernel's
 * recursion guard, a kretprobe without an instance) or found another
 * probe in flight on its CPU. On no device, as no probe read theirs.
 */
static void write_lost(const struct lru_session *s,
		       const struct lru_snapshot *snap, struct prom_buf *out)
{
	static const char name[] = "bhscope_lru_lost_lookups_total";
	struct lru_cpu_counters t = {};

	if (!s->hooks.fig[LRU_FIG_LOOKUPS].available || !snap->counters)
		return;
	prom_family(out, name, PROM_COUNTER,
		    "Lookups the tracer lost (no probe counted them): every other LRU figure misses them.");
	prom_sample_u64(out, name, NULL,
			lru_snapshot_lost(snap, s->hooks.mode == LRU_MODE_KPROBE));
	prom_family(out, "bhscope_lru_lost_lookups_complete", PROM_GAUGE,
		    "1 when the kernel counts every probe run it skips; 0: bhscope_lru_lost_lookups_total is a lower bound (kprobes and classic tracepoints before 6.7).");
	prom_sample_u64(out, "bhscope_lru_lost_lookups_complete", NULL,
			snap->misses_known);
	lru_snapshot_counters_total(snap, &t);
	prom_family(out, "bhscope_lru_unsynced_unknown_device_total", PROM_COUNTER,
		    "Unclassified lookups whose device is not known (kprobe mode: nothing returned after a context switch).");
	prom_sample_u64(out, "bhscope_lru_unsynced_unknown_device_total", NULL,
			t.unsynced_nodev);
	prom_family(out, "bhscope_lru_emptied_probe_misses_total", PROM_COUNTER,
		    "Runs of the probes that see LRUs emptied the kernel skipped: hits of a lone LRU entry (with bhtune, every hit slot) may be off.");
	prom_sample_u64(out, "bhscope_lru_emptied_probe_misses_total", NULL,
			snap->emptied_misses);
}

static void write_gauges(const struct lru_session *s, struct prom_buf *out)
{
	struct prom_labels ls = {};
	int size = lru_session_lru_size(s);

	if (size > 0) {
		prom_family(out, "bhscope_lru_size", PROM_GAUGE,
			    "Slots in each CPU's buffer-head LRU (BH_LRU_SIZE from BTF, or bhtune's lru_size).");
		prom_sample(out, "bhscope_lru_size", NULL, size);
	}
	prom_family(out, "bhscope_lru_mode_info", PROM_GAUGE,
		    "How the LRU is traced on this kernel: bhtune, fentry, kprobe, or tracepoint (hits only); hook names the lookup's hook.");
	prom_labels_add(&ls, "mode", lru_mode_names[s->hooks.mode]);
	prom_labels_add(&ls, "hook", s->hooks.hook);
	prom_sample(out, "bhscope_lru_mode_info", &ls, 1);
}

static void lru_collect(struct serve_source *src, const struct serve_view *v,
			struct prom_buf *out)
{
	struct lru_priv *p = src->priv;
	struct lru_snapshot snap = { .nr_cpus = p->sess.nr_cpus };
	char (*names)[SERVE_DEVNAME_LEN] = NULL;
	struct lru_row *rows = NULL;
	struct serve_view lv = *v;
	int nr;

	/* The tracer counts every possible CPU; so do its rows. */
	lv.nr_cpus = v->nr_cpus < p->sess.nr_cpus ? v->nr_cpus : p->sess.nr_cpus;
	if (lru_read_snapshot(&p->sess, &snap))
		goto oom;
	names = calloc(snap.nr_devs + 1, sizeof(*names));
	rows = calloc((size_t)(snap.nr_devs + 1) * (v->per_cpu ? lv.nr_cpus : 1),
		      sizeof(*rows));
	if (!names || !rows)
		goto oom;
	nr = build_rows(&lv, &snap, rows, names);
	write_gauges(&p->sess, out);
	/* the owner changed since the hooks were chosen: until the restart */
	if (p->sess.hooks.unavailable[0])
		goto out;
	write_counters(&p->sess, rows, nr, out);
	if (p->sess.hooks.fig[LRU_FIG_SLOTS].available)
		write_slots(p, rows, nr, out);
	write_cpu_counters(&p->sess, &lv, &snap, out);
	write_lost(&p->sess, &snap, out);
	goto out;
oom:
	out->oom = true;
out:
	free(rows);
	free(names);
	lru_snapshot_free(&snap);
}

/* Devices gone lose their counters. */
static void lru_prune(struct serve_source *src,
		      const struct serve_devices *present)
{
	struct lru_priv *p = src->priv;

	/* any block device, not only journals: gone when it is */
	(void)present;
	lru_forget_devices(&p->sess, dev_exists, NULL);
}

/* bhtune.ko (or another livepatch) came or went: trace the new owner. */
static bool lru_stale(struct serve_source *src)
{
	struct lru_priv *p = src->priv;

	return p->loaded && !lru_check_owner(&p->sess);
}

static const struct serve_source_ops lru_ops = {
	.start = lru_start,
	.stop = lru_stop,
	.collect = lru_collect,
	.prune = lru_prune,
	.stale = lru_stale,
};

struct serve_source serve_lru_source = {
	.name = "lru",
	.ops = &lru_ops,
	.priv = &lru_priv,
};

