// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lru/lru_table.h"
#include "lru/lru_time.h"
#include "serve/serve_lru.h"
#include "serve/serve_lru_window.h"

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

/* A sample of figure f, named name (f's family, or its window's). */
static void sample_as(struct prom_buf *out, const char *name,
		      const struct figure *f, const struct prom_labels *ls,
		      double v)
{
	struct prom_labels l = ls ? *ls : (struct prom_labels){};

	if (f->prom_label)
		prom_labels_add(&l, f->prom_label, f->prom_value);
	if (f->kind == FIGURE_COUNT || f->kind == FIGURE_FLAG)
		prom_sample_u64(out, name, &l, (uint64_t)v);
	else
		prom_sample(out, name, &l, v);
}

static void sample(struct prom_buf *out, const struct figure *f,
		   const struct prom_labels *ls, double v)
{
	sample_as(out, f->prom, f, ls, v);
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

/*
 * log2 buckets of ns: slot i holds times below 2^i ns. Every series has
 * the same buckets, so they add up across devices and hosts; slots
 * 7..20 (128 ns to 1 ms) bound them, the rest count in the first and in
 * +Inf.
 */
#define TIME_FIRST_SLOT	7
#define TIME_LAST_SLOT	20

static double group_sum_s(const struct lru_time_stats *t, int g)
{
	double ns = 0;

	for (int cls = 0; cls < LRU_TIME_CLASSES; cls++)
		if (lru_time_group_of(cls) == g)
			ns += (double)t->ns[cls];
	return ns / 1e9;
}

/* window_seconds and period_seconds labels, from ms (text in w, p). */
static void cycle_labels(struct prom_labels *ls, char (*w)[16], char (*p)[16],
			 unsigned int window_ms, unsigned int period_ms)
{
	snprintf(*w, sizeof(*w), "%g", window_ms / 1e3);
	snprintf(*p, sizeof(*p), "%g", period_ms / 1e3);
	prom_labels_add(ls, "window_seconds", *w);
	prom_labels_add(ls, "period_seconds", *p);
}

void serve_lru_write_times(struct prom_buf *out, const struct lru_hooks *h,
			   const struct serve_lru_time_row *rows, int nr)
{
	double le[BHSCOPE_LOG2_SLOTS];
	char every[16], window[16], period[16];
	struct prom_labels info = {};

	if (!lru_hooks_timed(h))
		return;
	prom_log2_le_truncated(le, BHSCOPE_LOG2_SLOTS, 1e9);
	prom_family(out, "bhscope_lru_lookup_seconds", PROM_HISTOGRAM,
		    "Buffer-head LRU lookups timed (one in every of bhscope_lru_lookup_timing_info per CPU), from the lookup's entry probe to its exit probe, by outcome; the probes' trampoline work between the two is in every time alike.");
	for (int r = 0; r < nr; r++) {
		for (int g = 0; g < LRU_NR_TIME_GROUPS; g++) {
			struct prom_labels ls = rows[r].ls;
			struct prom_hist hist = {
				.slots = rows[r].t->hist[g], .le = le,
				.nr_slots = BHSCOPE_LOG2_SLOTS,
				.first = TIME_FIRST_SLOT,
				.last = TIME_LAST_SLOT,
				.sum = group_sum_s(rows[r].t, g),
			};

			prom_labels_add(&ls, "outcome", lru_time_group_names[g]);
			prom_histogram(out, "bhscope_lru_lookup_seconds", &ls,
				       &hist);
		}
	}
	snprintf(every, sizeof(every), "%u", h->time_sample);
	prom_family(out, "bhscope_lru_lookup_timing_info", PROM_GAUGE,
		    "The lookups' timing: one in every per CPU, in windows of window_seconds every period_seconds where those are not 0 (the first window at the start).");
	prom_labels_add(&info, "every", every);
	cycle_labels(&info, &window, &period, h->time_window_ms,
		     h->time_period_ms);
	prom_sample(out, "bhscope_lru_lookup_timing_info", &info, 1);
}

/*
 * The what-if's sizes: every power of two up to max, the LRU's own size
 * and max itself, ascending; a fleet's series stay few and alike.
 */
static int whatif_sizes(int lru_size, int max, int *out)
{
	int n = 0;

	for (int k = 1; k <= max; k++)
		if (!(k & (k - 1)) || k == lru_size || k == max)
			out[n++] = k;
	return n;
}

static void size_labels(struct prom_labels *ls, const struct prom_labels *row,
			char *buf, size_t len, int size)
{
	*ls = *row;
	snprintf(buf, len, "%d", size);
	prom_labels_add(ls, "size", buf);
}

/* The what-if's families: continuous, or the last --lru-duty window's. */
struct whatif_names {
	const char *info, *hits, *seconds, *saved;
	enum prom_type hits_type;
	const char *scope;	/* how far back their figures go */
};

static const struct whatif_names whatif_names[2] = {
	{ "bhscope_lru_whatif_info", "bhscope_lru_whatif_hits_total",
	  "bhscope_lru_whatif_lookup_seconds",
	  "bhscope_lru_whatif_lookup_saved_seconds", PROM_COUNTER,
	  "since the start" },
	{ "bhscope_lru_window_whatif_info", "bhscope_lru_window_whatif_hits",
	  "bhscope_lru_window_whatif_lookup_seconds",
	  "bhscope_lru_window_whatif_lookup_saved_seconds", PROM_GAUGE,
	  "in the last complete --lru-duty window" },
};

static void write_whatif_hits(struct prom_buf *out,
			      const struct whatif_names *nm,
			      const int *sizes, int n,
			      const struct serve_lru_row *rows, int nr)
{
	char help[320];

	snprintf(help, sizeof(help),
		 "Lookups an LRU of size slots would have hit %s: stack distance below size, from the hit slots up to the LRU's size and from the ghost list above it (exactness there: %s).",
		 nm->scope, nm->info);
	prom_family(out, nm->hits, nm->hits_type, help);
	for (int r = 0; r < nr; r++) {
		uint64_t hits = 0;
		int d = 0;

		for (int i = 0; i < n; i++) {
			struct prom_labels ls;
			char size[16];

			for (; d < sizes[i]; d++)
				hits += rows[r].s->dist[d];
			size_labels(&ls, &rows[r].ls, size, sizeof(size),
				    sizes[i]);
			prom_sample_u64(out, nm->hits, &ls, hits);
		}
	}
}

/* Each row's predicted seconds a lookup at every size, and the saving. */
static void write_whatif_times(struct prom_buf *out,
			       const struct whatif_names *nm,
			       const struct serve_lru_whatif *w,
			       const int *sizes, int n,
			       const struct serve_lru_row *rows, int nr)
{
	int top = sizes[n - 1] > w->lru_size ? sizes[n - 1] : w->lru_size;
	struct lru_time_point p[BHSCOPE_LRU_DEPTH_MAX];
	const char *name[2] = { nm->seconds, nm->saved };
	char help[320];

	snprintf(help, sizeof(help),
		 "Predicted mean time of a lookup %s had the LRU size slots: each outcome at that size costed from the lookups timed.",
		 nm->scope);
	prom_family(out, name[0], PROM_GAUGE, help);
	snprintf(help, sizeof(help),
		 "Predicted time a lookup saves %s at size slots against the LRU's size (negative: it costs more); above the LRU's size at most, as bhscope lru --whatif says.",
		 nm->scope);
	prom_family(out, name[1], PROM_GAUGE, help);
	for (int r = 0; r < nr; r++) {
		double base;

		lru_time_curve(rows[r].s, w->costs, p, top);
		base = p[w->lru_size - 1].ns_per_lookup;
		for (int i = 0; i < n; i++) {
			double ns = p[sizes[i] - 1].ns_per_lookup;
			double v[2] = { ns / 1e9, (base - ns) / 1e9 };
			struct prom_labels ls;
			char size[16];

			size_labels(&ls, &rows[r].ls, size, sizeof(size),
				    sizes[i]);
			for (int k = 0; k < 2; k++)
				if (!isnan(v[k]))
					prom_sample(out, name[k], &ls, v[k]);
		}
	}
}

void serve_lru_write_whatif(struct prom_buf *out,
			    const struct serve_lru_whatif *w,
			    const struct serve_lru_row *rows, int nr)
{
	const struct whatif_names *nm = &whatif_names[w->window];
	int sizes[BHSCOPE_LRU_DEPTH_MAX], n;
	struct prom_labels info = {};
	char max[16];

	if (w->max_size < 1 || w->max_size > BHSCOPE_LRU_DEPTH_MAX ||
	    w->lru_size < 1 || w->lru_size > BHSCOPE_LRU_DEPTH_MAX)
		return;
	n = whatif_sizes(w->lru_size, w->max_size, sizes);
	snprintf(max, sizeof(max), "%d", w->max_size);
	prom_family(out, nm->info, PROM_GAUGE,
		    "The LRU what-if's reach: sizes up to max_size; above the LRU's size its hits are exact, a lower bound, or approximate (bhscope lru --whatif says why).");
	prom_labels_add(&info, "max_size", max);
	prom_labels_add(&info, "above", w->above);
	prom_sample(out, nm->info, &info, 1);
	write_whatif_hits(out, nm, sizes, n, rows, nr);
	if (w->costs && w->costs->samples)
		write_whatif_times(out, nm, w, sizes, n, rows, nr);
}

/* A window's family: bhscope_lru_X_total -> bhscope_lru_window_X. */
static void window_name(char *buf, size_t len, const char *prom)
{
	const char *rest = prom + strlen("bhscope_lru_");
	size_t n = strlen(rest);

	if (n > 6 && !strcmp(rest + n - 6, "_total"))
		n -= 6;
	snprintf(buf, len, "bhscope_lru_window_%.*s", (int)n, rest);
}

static void write_window_info(struct prom_buf *out,
			      const struct serve_lru_window_view *w)
{
	const struct serve_lru_window_last *l = w->last;
	const struct lru_hooks *h = &l->snap.hooks;
	char window[16], period[16];
	struct prom_labels ls = {};

	prom_family(out, "bhscope_lru_window_info", PROM_GAUGE,
		    "--lru-duty: the lookup probes attach for window_seconds every period_seconds (the first at the start); the bhscope_lru_window_* families are the last complete window's, by its mode and hook (empty before the first); why says why the last window failed, empty if it held.");
	cycle_labels(&ls, &window, &period, w->window_ms, w->period_ms);
	prom_labels_add(&ls, "mode", l->complete ? lru_mode_names[h->mode] : "");
	prom_labels_add(&ls, "hook", l->complete ? h->hook : "");
	prom_labels_add(&ls, "why", l->why);
	prom_sample(out, "bhscope_lru_window_info", &ls, 1);
	prom_family(out, "bhscope_lru_windows_total", PROM_COUNTER,
		    "--lru-duty windows since the start: complete (read whole) or failed (the hooks could not attach, or the lookup changed owner during it).");
	ls = (struct prom_labels){};
	prom_labels_add(&ls, "result", "complete");
	prom_sample_u64(out, "bhscope_lru_windows_total", &ls, l->complete);
	ls = (struct prom_labels){};
	prom_labels_add(&ls, "result", "failed");
	prom_sample_u64(out, "bhscope_lru_windows_total", &ls, l->failed);
	if (!l->complete)
		return;
	prom_family(out, "bhscope_lru_window_seconds", PROM_GAUGE,
		    "The last complete window's length, from its probes' attach to its read.");
	prom_sample(out, "bhscope_lru_window_seconds", NULL, l->seconds);
	prom_family(out, "bhscope_lru_window_end_timestamp_seconds", PROM_GAUGE,
		    "When the last complete window was read, in seconds since the epoch.");
	prom_sample(out, "bhscope_lru_window_end_timestamp_seconds", NULL,
		    l->end_time);
}

void serve_lru_write_window(struct prom_buf *out,
			    const struct serve_lru_window_view *w,
			    const struct serve_lru_row *rows, int nr)
{
	const struct lru_snapshot *snap = &w->last->snap;
	const struct lru_hooks *h = &snap->hooks;
	struct lru_cpu_counters c = {};
	struct lru_dev_stats total;
	struct lru_table_in in = {
		.c = &c, .snap = snap, .total = &total,
		.by_entries = h->mode == LRU_MODE_KPROBE,
		.lru_size = snap->lru_size,
	};
	char name[96], last[96] = "", help[512];

	write_window_info(out, w);
	if (!w->last->complete || !snap->counters)
		return;
	lru_snapshot_total(snap, &total);
	lru_snapshot_counters_total(snap, &c);
	for (size_t i = 0; i < lru_table_len; i++) {
		const struct figure *f = &lru_table[i];

		/* hit slots: the window's what-if has their curve */
		if (!f->prom || f->prom_type == FIGURE_PROM_HISTOGRAM ||
		    !lru_table_available(f, h, 0))
			continue;
		window_name(name, sizeof(name), f->prom);
		if (strcmp(name, last)) {
			snprintf(help, sizeof(help),
				 "In the last complete --lru-duty window: %s",
				 f->help);
			prom_family(out, name, PROM_GAUGE, help);
			snprintf(last, sizeof(last), "%s", name);
		}
		if (f->from != LRU_FROM_DEV) {
			sample_as(out, name, f, NULL, lru_table_value(f, &in));
			continue;
		}
		for (int r = 0; r < nr; r++) {
			in.s = rows[r].s;
			sample_as(out, name, f, &rows[r].ls,
				  lru_table_value(f, &in));
		}
	}
}
