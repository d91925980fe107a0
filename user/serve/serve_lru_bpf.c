// SPDX-License-Identifier: GPL-2.0
/*
 * The buffer-head LRU source of bhscope serve: attaches the LRU tracer
 * (lru_session_open()) and reads its cumulative per-device, per-CPU
 * counters on every scrape; serve_lru_write() makes them families. Which
 * families exist depends on the hooks this kernel allows: with only the
 * block:block_touch_buffer tracepoint, hits per CPU; with fentry, kprobes
 * or bhtune.ko, lookups, misses by outcome, evictions and the hit slot
 * histogram too.
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
#include "lru/lru_curve.h"
#include "lru/lru_session.h"
#include "serve/serve_lru.h"
#include "serve/serve_lru_window.h"
#include "serve/serve_sources.h"

struct lru_priv {
	struct lru_session sess;
	bool loaded;
	unsigned int time_every;	/* --lru-timing */
	unsigned int whatif;		/* --lru-whatif */
	unsigned int window_ms, period_ms;	/* --lru-duty; 0: none */
	struct serve_lru_window *window;
};

static struct lru_priv lru_priv;

void serve_lru_configure(int every, unsigned int whatif,
			 unsigned int window_ms, unsigned int period_ms)
{
	lru_priv.time_every = every >= 0 ? (unsigned int)every :
			      whatif ? LRU_TIMING_EVERY_WHATIF : 0;
	lru_priv.whatif = whatif;
	lru_priv.window_ms = window_ms;
	lru_priv.period_ms = period_ms;
}

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
	struct lru_load_opts o = {
		.mode = LRU_MODE_AUTO, .time_every = p->time_every,
		.whatif = (int)p->whatif,
	};
	struct lru_load_opts hits = { .mode = LRU_MODE_TRACEPOINT };
	int err;

	(void)nr_cpus;
	/* --lru-duty: the hits throughout, the rest in its windows */
	err = lru_session_open(&p->sess, p->window_ms ? &hits : &o);
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
	if (p->window_ms) {
		p->window = serve_lru_window_start(&o, p->window_ms,
						   p->period_ms);
		if (!p->window) {
			err = -errno;
			lru_session_close(&p->sess);
			return err;
		}
	}
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

	serve_lru_window_stop(p->window);
	p->window = NULL;
	if (p->loaded)
		lru_session_close(&p->sess);
	p->loaded = false;
	src->nr_maps = 0;
}

static bool stats_zero(const struct lru_dev_stats *s)
{
	static const struct lru_dev_stats zero;

	return !memcmp(s, &zero, sizeof(zero));
}

/* A device that still exists and passes the filter: its name in name. */
static bool selected(const struct serve_view *v, uint32_t kdev, char *name)
{
	if (!dev_exists(kdev, NULL))
		return false;
	devname_of(kdev, name, SERVE_DEVNAME_LEN);
	return serve_config_selects(v->cfg, name, kdev);
}

/* Map devices that still exist and pass the filter, with their names. */
static int build_rows(const struct serve_view *v, const struct lru_snapshot *snap,
		      struct serve_lru_row *rows,
		      char (*names)[SERVE_DEVNAME_LEN])
{
	int nr = 0;

	for (int i = 0; i < snap->nr_devs; i++) {
		const struct lru_dev_snapshot *d = &snap->devs[i];

		if (!selected(v, d->kdev, names[i]))
			continue;
		for (int c = 0; c < (v->per_cpu ? v->nr_cpus : 1); c++) {
			const struct lru_dev_stats *s =
				v->per_cpu ? &d->cpu[c] : &d->total;
			struct serve_lru_row *r;

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

/* --lru-timing's histograms: per selected device that was timed. */
static void write_times(struct prom_buf *out, const struct serve_view *v,
			const struct lru_snapshot *snap)
{
	struct serve_lru_time_row *rows;
	char (*names)[SERVE_DEVNAME_LEN];
	int nr = 0;

	if (!lru_hooks_timed(&snap->hooks) || snap->hooks.unavailable[0])
		return;
	rows = calloc(snap->nr_time_devs + 1, sizeof(*rows));
	names = calloc(snap->nr_time_devs + 1, sizeof(*names));
	if (!rows || !names) {
		out->oom = true;
		goto out;
	}
	for (int i = 0; i < snap->nr_time_devs; i++) {
		const struct lru_dev_times *d = &snap->times[i];

		if (!selected(v, d->kdev, names[i]))
			continue;
		rows[nr].t = &d->total;
		prom_labels_add(&rows[nr].ls, "device", names[i]);
		nr++;
	}
	serve_lru_write_times(out, &snap->hooks, rows, nr);
out:
	free(rows);
	free(names);
}

/*
 * The selected devices' rows of snap, summed over CPUs, in *rows (names
 * in *names; both to free). The count, or -1 when out of memory.
 */
static int device_rows(const struct serve_view *v,
		       const struct lru_snapshot *snap,
		       struct serve_lru_row **rows,
		       char (**names)[SERVE_DEVNAME_LEN])
{
	struct serve_view dv = *v;

	*rows = calloc(snap->nr_devs + 1, sizeof(**rows));
	*names = calloc(snap->nr_devs + 1, sizeof(**names));
	if (!*rows || !*names)
		return -1;
	dv.per_cpu = false;
	return build_rows(&dv, snap, *rows, *names);
}

/* Whether snap can say what other LRU sizes would do. */
static bool whatif_known(const struct lru_snapshot *snap, int max_size)
{
	return max_size && lru_hooks_classify(&snap->hooks) &&
	       !snap->hooks.unavailable[0] && snap->counters;
}

/*
 * --lru-whatif for the nr device rows of snap (never per CPU: a fleet
 * ranks hosts): its hits at each exported size and, once lookups were
 * timed, each size's predicted lookup time; the costs come from every
 * device's timings (a lookup costs the same whatever its disk). window:
 * snap is the last --lru-duty window's.
 */
static void write_whatif(struct prom_buf *out, const struct lru_snapshot *snap,
			 int max_size, bool window,
			 const struct serve_lru_row *rows, int nr)
{
	struct lru_cpu_counters c;
	struct lru_time_stats t;
	struct lru_costs costs;
	struct serve_lru_whatif w = {
		.lru_size = snap->lru_size, .max_size = max_size,
		.window = window,
	};

	lru_snapshot_counters_total(snap, &c);
	w.above = lru_curve_above_exactness(&c);
	if (lru_hooks_timed(&snap->hooks)) {
		lru_snapshot_times(snap, -1, &t);
		lru_costs_from(&costs, &t, snap->lru_size);
		w.costs = &costs;
	}
	serve_lru_write_whatif(out, &w, rows, nr);
}

/* The continuous --lru-whatif, per selected device. */
static void write_whatif_now(struct prom_buf *out, const struct serve_view *v,
			     const struct lru_snapshot *snap, int max_size)
{
	char (*names)[SERVE_DEVNAME_LEN] = NULL;
	struct serve_lru_row *rows = NULL;
	int nr;

	if (!whatif_known(snap, max_size))
		return;
	nr = device_rows(v, snap, &rows, &names);
	if (nr < 0)
		out->oom = true;
	else
		write_whatif(out, snap, max_size, false, rows, nr);
	free(rows);
	free(names);
}

/* --lru-duty: the last window's families, per selected device. */
static void write_window(struct prom_buf *out, const struct serve_view *v,
			 struct lru_priv *p)
{
	const struct serve_lru_window_last *last =
		serve_lru_window_lock(p->window);
	struct serve_lru_window_view w = {
		.window_ms = p->window_ms, .period_ms = p->period_ms,
		.last = last,
	};
	char (*names)[SERVE_DEVNAME_LEN] = NULL;
	struct serve_lru_row *rows = NULL;
	int nr = device_rows(v, &last->snap, &rows, &names);

	if (nr < 0) {
		out->oom = true;
	} else {
		serve_lru_write_window(out, &w, rows, nr);
		if (last->complete && whatif_known(&last->snap, (int)p->whatif))
			write_whatif(out, &last->snap, (int)p->whatif, true,
				     rows, nr);
	}
	serve_lru_window_unlock(p->window);
	free(rows);
	free(names);
}

static void lru_collect(struct serve_source *src, const struct serve_view *v,
			struct prom_buf *out)
{
	struct lru_priv *p = src->priv;
	struct lru_snapshot snap = { .nr_cpus = p->sess.nr_cpus };
	char (*names)[SERVE_DEVNAME_LEN] = NULL;
	struct serve_lru_row *rows = NULL;
	struct serve_view lv = *v;
	int nr, err;

	/* The tracer counts every possible CPU; so do its rows. */
	lv.nr_cpus = v->nr_cpus < p->sess.nr_cpus ? v->nr_cpus : p->sess.nr_cpus;
	err = lru_session_interval(&p->sess, &snap);
	if (err)
		goto oom;
	names = calloc(snap.nr_devs + 1, sizeof(*names));
	rows = calloc((size_t)(snap.nr_devs + 1) * (v->per_cpu ? lv.nr_cpus : 1),
		      sizeof(*rows));
	if (!names || !rows)
		goto oom;
	nr = build_rows(&lv, &snap, rows, names);
	serve_lru_write(out, &lv, &snap, rows, nr);
	write_times(out, &lv, &snap);
	write_whatif_now(out, &lv, &snap, (int)p->whatif);
	if (p->window)
		write_window(out, &lv, p);
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
	lru_session_forget_devices(&p->sess, dev_exists, NULL);
}

/* bhtune.ko (or another livepatch) came or went: trace the new owner. */
static bool lru_stale(struct serve_source *src)
{
	struct lru_priv *p = src->priv;

	return p->loaded && !lru_session_recheck_owner(&p->sess, NULL);
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

