// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "lru/lru_table.h"
#include "serve/serve_lru.h"

static enum prom_type prom_type_of(const struct figure *f)
{
	return f->prom_type == FIGURE_PROM_GAUGE ? PROM_GAUGE :
	       f->prom_type == FIGURE_PROM_HISTOGRAM ? PROM_HISTOGRAM :
	       PROM_COUNTER;
}

/* A family's header, once: before its first row of this scrape. */
static void family(struct prom_buf *out, const struct figure *f,
		   const char **last)
{
	if (*last && !strcmp(*last, f->prom))
		return;
	prom_family(out, f->prom, prom_type_of(f), f->help);
	*last = f->prom;
}

static void sample(struct prom_buf *out, const struct figure *f,
		   const struct prom_labels *ls, double v)
{
	struct prom_labels l = ls ? *ls : (struct prom_labels){};

	if (f->prom_label)
		prom_labels_add(&l, f->prom_label, f->prom_value);
	if (f->kind == FIGURE_COUNT || f->kind == FIGURE_FLAG)
		prom_sample_u64(out, f->prom, &l, (uint64_t)v);
	else
		prom_sample(out, f->prom, &l, v);
}

/*
 * Hit slot = LRU stack distance: the bucket le="k-1" over lookups is the
 * hit ratio an LRU of k slots would give (LRU inclusion), for k up to the
 * running size. Only hits are observed, so _count = hits.
 */
static void write_slots(struct prom_buf *out, const char *name, int lru_size,
			const struct serve_lru_row *rows, int nr)
{
	double le[BHSCOPE_LRU_DEPTH_MAX];
	int size = lru_size;

	if (size <= 0 || size > BHSCOPE_LRU_DEPTH_MAX)
		size = 16;
	for (int i = 0; i < size; i++)
		le[i] = i;	/* slot i: stack distance i */
	for (int r = 0; r < nr; r++) {
		const __u64 *slots = rows[r].s->dist;
		struct prom_hist h = {
			.slots = slots, .le = le, .nr_slots = size,
			.first = 0, .last = size - 1,
		};

		for (int i = 0; i < size; i++)
			h.sum += (double)i * slots[i];
		prom_histogram(out, name, &rows[r].ls, &h);
	}
}

/* A row of the per-CPU counters: each CPU with --per-cpu, else summed. */
static void write_cpus(struct prom_buf *out, const struct figure *f,
		       const struct serve_view *v, struct lru_table_in *in)
{
	const struct lru_cpu_counters *sum = in->c;

	if (f->from != LRU_FROM_COUNTERS || !v->per_cpu) {
		sample(out, f, NULL, lru_table_value(f, in));
		return;
	}
	for (int cpu = 0; cpu < v->nr_cpus; cpu++) {
		struct prom_labels ls = {};

		prom_labels_add(&ls, "cpu", v->cpu_names[cpu]);
		in->c = &in->snap->counters[cpu];
		sample(out, f, &ls, lru_table_value(f, in));
	}
	in->c = sum;
}

static void write_gauges(struct prom_buf *out, const struct lru_hooks *h,
			 int lru_size)
{
	struct prom_labels ls = {};

	if (lru_size > 0) {
		prom_family(out, "bhscope_lru_size", PROM_GAUGE,
			    "Slots in each CPU's buffer-head LRU (BH_LRU_SIZE from BTF, or bhtune's lru_size).");
		prom_sample(out, "bhscope_lru_size", NULL, lru_size);
	}
	prom_family(out, "bhscope_lru_mode_info", PROM_GAUGE,
		    "How the LRU is traced on this kernel: bhtune, fentry, kprobe, or tracepoint (hits only); hook names the lookup's hook.");
	prom_labels_add(&ls, "mode", lru_mode_names[h->mode]);
	prom_labels_add(&ls, "hook", h->hook);
	prom_sample(out, "bhscope_lru_mode_info", &ls, 1);
}

void serve_lru_write(struct prom_buf *out, const struct serve_view *v,
		     const struct lru_snapshot *snap,
		     const struct serve_lru_row *rows, int nr)
{
	const struct lru_hooks *h = &snap->hooks;
	int lru_size = snap->lru_size;
	struct lru_cpu_counters c = {};
	struct lru_dev_stats total;
	struct lru_table_in in = {
		.c = &c, .snap = snap, .total = &total,
		.by_entries = h->mode == LRU_MODE_KPROBE, .lru_size = lru_size,
	};
	const char *last = NULL;

	write_gauges(out, h, lru_size);
	/* the owner changed since the hooks were chosen: until the restart */
	if (h->unavailable[0])
		return;
	lru_snapshot_total(snap, &total);
	lru_snapshot_counters_total(snap, &c);
	for (size_t i = 0; i < lru_table_len; i++) {
		const struct figure *f = &lru_table[i];

		if (!f->prom || !lru_table_available(f, h, 0))
			continue;
		/* the LRU's own counters and totals: once read */
		if (f->from != LRU_FROM_DEV && !snap->counters)
			continue;
		family(out, f, &last);
		if (f->prom_type == FIGURE_PROM_HISTOGRAM) {
			write_slots(out, f->prom, lru_size, rows, nr);
			continue;
		}
		if (f->from != LRU_FROM_DEV) {
			write_cpus(out, f, v, &in);
			continue;
		}
		for (int r = 0; r < nr; r++) {
			in.s = rows[r].s;
			sample(out, f, &rows[r].ls, lru_table_value(f, &in));
		}
	}
}
