// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tunables.h"
#include "serve/serve_devices.h"
#include "serve/serve_jbd2.h"

/* One exported series set: a device, or a device on one CPU. */
struct row {
	const struct jbd2_dev_snapshot *d;
	const struct jbd2_dev_stats *s;
	struct prom_labels ls;
};

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

static enum prom_type prom_type_of(const struct figure *f)
{
	return f->prom_type == FIGURE_PROM_GAUGE ? PROM_GAUGE :
	       f->prom_type == FIGURE_PROM_HISTOGRAM ? PROM_HISTOGRAM :
	       PROM_COUNTER;
}

static void sample(struct prom_buf *out, const struct figure *f,
		   const struct prom_labels *ls, double v, int hz)
{
	struct prom_labels l = ls ? *ls : (struct prom_labels){};

	if ((f->flags & FIGURE_NONZERO) && !v)
		return;
	if (f->prom_label)
		prom_labels_add(&l, f->prom_label, f->prom_value);
	if (f->time)
		prom_sample(out, f->prom, &l, figure_seconds(v, f->time, hz));
	else
		prom_sample_u64(out, f->prom, &l, (uint64_t)v);
}

static void write_histogram(struct prom_buf *out, const struct figure *f,
			    const struct row *rows, int nr)
{
	double le[BHSCOPE_LOG2_SLOTS];

	if (f->time)
		prom_log2_le_truncated(le, BHSCOPE_LOG2_SLOTS, 1e6);
	else
		prom_log2_le_counts(le, BHSCOPE_LOG2_SLOTS, 1);
	for (int r = 0; r < nr; r++) {
		const char *base = (const char *)rows[r].s;
		uint64_t sum = *(const uint64_t *)(base + f->hist_sum);
		struct prom_hist h = {
			.slots = (const __u64 *)(base + f->off), .le = le,
			.nr_slots = BHSCOPE_LOG2_SLOTS,
			.first = f->hist_first, .last = f->hist_last,
			.sum = figure_seconds(sum, f->hist_sum_time, 0),
		};

		prom_histogram(out, f->prom, &rows[r].ls, &h);
	}
}

/* The table's rows that have a family, in its order. */
static void write_rows(struct prom_buf *out, const struct jbd2_table_status *st,
		       const struct serve_view *v,
		       const struct jbd2_snapshot *snap, const struct row *rows,
		       int nr, const struct serve_dev **devs, int nr_devs)
{
	const char *last = NULL;

	for (size_t i = 0; i < jbd2_table_len; i++) {
		const struct figure *f = &jbd2_table[i];
		struct jbd2_table_in in = { .snap = snap, .hz = v->hz };

		if (!f->prom || !jbd2_table_available(f, st))
			continue;
		if (!last || strcmp(last, f->prom))
			prom_family(out, f->prom, prom_type_of(f), f->help);
		last = f->prom;
		if (f->prom_type == FIGURE_PROM_HISTOGRAM) {
			write_histogram(out, f, rows, nr);
		} else if (f->from == JBD2_FROM_SNAP) {
			sample(out, f, NULL, jbd2_table_value(f, &in), v->hz);
		} else if (f->from == JBD2_FROM_JOURNAL) {
			/* a journal's own: no cpu label */
			for (int j = 0; j < nr_devs; j++) {
				struct prom_labels ls = {};

				in.d = jbd2_snapshot_find(snap, devs[j]->kdev);
				if (!in.d)
					continue;
				prom_labels_add(&ls, "device", devs[j]->name);
				sample(out, f, &ls, jbd2_table_value(f, &in),
				       v->hz);
			}
		} else {
			for (int r = 0; r < nr; r++) {
				in.s = rows[r].s;
				sample(out, f, &rows[r].ls,
				       jbd2_table_value(f, &in), v->hz);
			}
		}
	}
}

/* The journals' batch times: no cpu label, whatever --per-cpu says. */
static void write_tunables(const struct serve_dev **devs, int nr_devs,
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
	};
	struct journal_tunables *t;

	t = calloc(nr_devs + 1, sizeof(*t));
	if (!t) {
		out->oom = true;
		return;
	}
	for (int i = 0; i < nr_devs; i++)
		tunables_journal_read(devs[i]->name, &t[i]);
	for (size_t k = 0; k < sizeof(g) / sizeof(*g); k++) {
		prom_family(out, g[k].name, PROM_GAUGE, g[k].help);
		for (int i = 0; i < nr_devs; i++) {
			struct prom_labels ls = {};
			double val;

			prom_labels_add(&ls, "device", devs[i]->name);
			if (k == 0) {
				val = t[i].min_batch_us / 1e6;
			} else if (k == 1) {
				val = t[i].max_batch_us / 1e6;
			} else {
				val = (double)t[i].commit_s;
			}
			prom_sample(out, g[k].name, &ls, val);
		}
	}
	free(t);
}

void serve_jbd2_write(struct prom_buf *out, const struct jbd2_table_status *st,
		      const struct serve_view *v,
		      const struct jbd2_snapshot *snap)
{
	const struct serve_dev **devs;
	struct row *rows = NULL;
	int nr_devs = 0, nr;

	devs = calloc(v->devs->nr + 1, sizeof(*devs));
	if (!devs) {
		out->oom = true;
		return;
	}
	/* Journals present and selected, plus ext4 ones with events. */
	for (int i = 0; i < v->devs->nr; i++) {
		const struct serve_dev *d = &v->devs->dev[i];

		if (d->selected &&
		    (d->journal || jbd2_snapshot_find(snap, d->kdev)))
			devs[nr_devs++] = d;
	}
	nr = build_rows(v, snap, devs, nr_devs, &rows);
	if (nr < 0) {
		out->oom = true;
		goto out;
	}
	write_rows(out, st, v, snap, rows, nr, devs, nr_devs);
	write_tunables(devs, nr_devs, out);
out:
	free(rows);
	free(devs);
}
