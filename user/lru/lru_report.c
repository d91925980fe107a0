// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/devname.h"
#include "lib/hist.h"
#include "lru/lru_curve.h"
#include "lru/lru_report.h"
#include "lru/lru_table.h"
#include "lru/lru_time.h"
#include "lib/ticker.h"
#include "lib/json_out.h"

static bool has_lookups(const struct lru_report_ctx *ctx)
{
	return lru_hooks_classify(ctx->hooks);
}

static bool active(const struct lru_dev_stats *s)
{
	return s->lookups || s->hits;
}

static void fmt_ratio(char *buf, size_t len, double r)
{
	if (isnan(r))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f%%", 100.0 * r);
}

/* The device (or CPU) table's columns: its rows with a text place. */
static const struct figure *text_col(const struct lru_report_ctx *ctx,
				     int pos)
{
	for (size_t i = 0; i < lru_table_len; i++)
		if (lru_table[i].from == LRU_FROM_DEV &&
		    lru_table[i].text_pos == pos &&
		    lru_table_text_available(&lru_table[i], ctx->hooks,
					     ctx->whatif))
			return &lru_table[i];
	return NULL;
}

static void text_header(FILE *out, const struct lru_report_ctx *ctx,
			const char *what)
{
	const struct figure *f;

	fprintf(out, "%-12s", what);
	for (int pos = 1; pos <= (int)lru_table_len; pos++)
		if ((f = text_col(ctx, pos)))
			fprintf(out, " %*s", f->text_width, f->text);
	fprintf(out, "\n");
}

static void text_row(FILE *out, const struct lru_report_ctx *ctx,
		     const char *label, const struct lru_dev_stats *s)
{
	struct lru_table_in in = { .s = s, .elapsed_s = ctx->elapsed_s };
	const struct figure *f;
	char buf[16];

	fprintf(out, "%-12s", label);
	for (int pos = 1; pos <= (int)lru_table_len; pos++) {
		double v;

		f = text_col(ctx, pos);
		if (!f)
			continue;
		v = lru_table_value(f, &in);
		if (f->kind == FIGURE_COUNT) {
			fprintf(out, " %*llu", f->text_width,
				(unsigned long long)v);
			continue;
		}
		if (f->kind == FIGURE_RATIO)
			fmt_ratio(buf, sizeof(buf), v);
		else
			snprintf(buf, sizeof(buf), "%.1f", v);
		fprintf(out, " %*s", f->text_width, buf);
	}
	fprintf(out, "\n");
}

static void text_devices(FILE *out, const struct lru_report_ctx *ctx,
			 const struct lru_snapshot *delta,
			 const struct lru_dev_stats *total)
{
	int shown = 0;
	char name[64];

	text_header(out, ctx, "DEVICE");
	for (int i = 0; i < delta->nr_devs; i++) {
		if (!active(&delta->devs[i].total))
			continue;
		devname_of(delta->devs[i].kdev, name, sizeof(name));
		text_row(out, ctx, name, &delta->devs[i].total);
		shown++;
	}
	if (shown != 1)
		text_row(out, ctx, "total", total);
}

static void text_cpus(FILE *out, const struct lru_report_ctx *ctx,
		      const struct lru_snapshot *delta)
{
	struct lru_dev_stats s;
	char label[16];

	text_header(out, ctx, "CPU");
	for (int c = 0; c < delta->nr_cpus; c++) {
		lru_snapshot_cpu(delta, c, &s);
		if (!active(&s))
			continue;
		snprintf(label, sizeof(label), "%d", c);
		text_row(out, ctx, label, &s);
	}
}

/* What the rows over everything read. */
static struct lru_table_in totals_in(const struct lru_report_ctx *ctx,
				     const struct lru_snapshot *delta,
				     const struct lru_dev_stats *total,
				     struct lru_cpu_counters *c)
{
	lru_snapshot_counters_total(delta, c);
	return (struct lru_table_in){
		.s = total, .c = c, .snap = delta, .total = total,
		.elapsed_s = ctx->elapsed_s,
		.by_entries = ctx->hooks->mode == LRU_MODE_KPROBE,
		.lru_size = ctx->lru_size, .whatif = ctx->whatif,
	};
}

/*
 * HIT% is over the classified lookups; an unsynced one may be a hit or a
 * miss, and misses sleep more (the page cache's slow path): the ratio over
 * every lookup lies in a range.
 */
static void text_ratio_range(FILE *out, const struct lru_dev_stats *total)
{
	char lo[16], hi[16];
	double l, h;

	if (!total->unsynced)
		return;
	lru_curve_hit_ratio_range(total, &l, &h);
	fmt_ratio(lo, sizeof(lo), l);
	fmt_ratio(hi, sizeof(hi), h);
	fprintf(out, "hit ratio over every lookup: %s to %s (of %llu unsynced, %llu proven misses: the task slept inside)\n",
		lo, hi, (unsigned long long)total->unsynced,
		(unsigned long long)total->unsynced_misses);
}

/*
 * Says what the figures above miss: lookups lost (no probe ran for them)
 * and unsynced ones (seen, outcome not provable), as shares of all.
 */
static void text_missing(FILE *out, const struct lru_report_ctx *ctx,
			 const struct lru_snapshot *delta,
			 const struct lru_dev_stats *total)
{
	struct lru_cpu_counters c;
	struct lru_table_in in = totals_in(ctx, delta, total, &c);
	uint64_t lost = lru_table_lost(&in), uns = lru_table_unsynced_all(&in);
	uint64_t all = total->lookups + c.unsynced_nodev + lost;
	if (!all)
		return;
	fprintf(out, "unsynced: %llu lookups (%.2f%%), outcome not provable; "
		"lost: %s%llu lookups (%.2f%%), no probe counted them%s\n",
		(unsigned long long)uns, 100.0 * uns / all,
		delta->misses_known ? "" : "at least ",
		(unsigned long long)lost, 100.0 * lost / all,
		lost ? ": every figure above misses them" : "");
	if (!delta->misses_known)
		fprintf(out, "lost is a lower bound: this kernel does not count the runs of kprobe and tracepoint programs it skips (before 6.7)\n");
	text_ratio_range(out, total);
}

/* The LRU's own counters, one line: their rows with a text place. */
static void text_counters(FILE *out, const struct lru_report_ctx *ctx,
			  const struct lru_snapshot *delta,
			  const struct lru_dev_stats *total)
{
	struct lru_cpu_counters c;
	struct lru_table_in in = totals_in(ctx, delta, total, &c);
	int said = 0;

	if (!has_lookups(ctx))
		return;
	for (int pos = 1; pos <= (int)lru_table_len; pos++) {
		for (size_t i = 0; i < lru_table_len; i++) {
			const struct figure *f = &lru_table[i];
			uint64_t v;

			if (f->from == LRU_FROM_DEV || f->text_pos != pos ||
			    !lru_table_text_available(f, ctx->hooks, ctx->whatif))
				continue;
			v = (uint64_t)lru_table_value(f, &in);
			if ((f->flags & FIGURE_NONZERO) && !v)
				continue;
			fprintf(out, said++ ? (f->flags & FIGURE_JOIN) ? ", " : "; " : "");
			fprintf(out, f->text, (unsigned long long)v);
		}
	}
	fprintf(out, "\n");
	if (delta->emptied_misses)
		fprintf(out, "emptyings unseen: %llu runs of the invalidation probes skipped by the kernel: %s\n",
			(unsigned long long)delta->emptied_misses,
			ctx->hooks->mode == LRU_MODE_BHTUNE ?
			"hit slots and the what-if may be off" :
			"a hit on an LRU holding one entry may have been a refill");
}

void lru_report_curve_text(FILE *out, const struct lru_dev_stats *total,
			   const struct lru_dev_stats *cpus, int nr_cpus,
			   int lo, int hi, int lru_size)
{
	double r[BHSCOPE_LRU_DEPTH_MAX], (*cr)[BHSCOPE_LRU_DEPTH_MAX] = NULL;
	int *col = NULL, ncol = 0;
	char buf[16];

	if (hi > BHSCOPE_LRU_DEPTH_MAX)
		hi = BHSCOPE_LRU_DEPTH_MAX;
	lru_curve(total, r, hi);
	if (cpus && nr_cpus > 0) {
		col = calloc(nr_cpus, sizeof(*col));
		cr = calloc(nr_cpus, sizeof(*cr));
		for (int c = 0; col && cr && c < nr_cpus; c++) {
			if (!lru_curve_classified(&cpus[c]))
				continue;
			lru_curve(&cpus[c], cr[ncol], hi);
			col[ncol++] = c;
		}
	}
	fprintf(out, "what-if: hit ratio at each LRU size (* = this kernel's size)\n");
	fprintf(out, "%6s %9s", "SIZE", "TOTAL");
	for (int i = 0; i < ncol; i++) {
		snprintf(buf, sizeof(buf), "CPU%d", col[i]);
		fprintf(out, " %9s", buf);
	}
	fprintf(out, "\n");
	for (int k = lo; k <= hi; k++) {
		fmt_ratio(buf, sizeof(buf), r[k - 1]);
		fprintf(out, "%5d%c %9s", k, k == lru_size ? '*' : ' ', buf);
		for (int i = 0; i < ncol; i++) {
			fmt_ratio(buf, sizeof(buf), cr[i][k - 1]);
			fprintf(out, " %9s", buf);
		}
		fprintf(out, "\n");
	}
	free(col);
	free(cr);
}

/* Which sizes of the curve are exact, and which a bound (see --help). */
static void text_exactness(FILE *out, const struct lru_report_ctx *ctx,
			   const struct lru_snapshot *delta)
{
	struct lru_cpu_counters c;

	lru_snapshot_counters_total(delta, &c);
	fprintf(out, "sizes 1-%d: exact over the classified lookups",
		ctx->lru_size);
	if (ctx->whatif > ctx->lru_size)
		fprintf(out, "; sizes %d-%d: %s (re-read %llu, not-installed hits %llu, absent hits %llu)",
			ctx->lru_size + 1, ctx->whatif,
			lru_curve_above_exactness(&c),
			(unsigned long long)c.resyncs,
			(unsigned long long)c.ghost_not_installed,
			(unsigned long long)c.ghost_absent);
	fprintf(out, "\n");
}

/* --timing's input for an interval: every device's lookups and times. */
static struct lru_time_input times_in(const struct lru_report_ctx *ctx,
				      const struct lru_snapshot *delta,
				      const struct lru_dev_stats *total,
				      struct lru_time_stats *t)
{
	struct lru_cpu_counters c;

	lru_snapshot_times(delta, -1, t);
	lru_snapshot_counters_total(delta, &c);
	return (struct lru_time_input){
		.s = total, .t = t, .lru_size = ctx->lru_size,
		.n = ctx->whatif, .every = ctx->hooks->time_every,
		.sample = ctx->hooks->time_sample,
		.window_ms = ctx->hooks->time_window_ms,
		.period_ms = ctx->hooks->time_period_ms,
		.seen = c.time_seen, .dropped = c.time_dropped, .elapsed_s = ctx->elapsed_s,
		.busy_ns = delta->busy_ns,
	};
}

static void text_times(FILE *out, const struct lru_report_ctx *ctx,
		       const struct lru_snapshot *delta,
		       const struct lru_dev_stats *total)
{
	struct lru_time_stats t;
	struct lru_time_input in = times_in(ctx, delta, total, &t);

	lru_time_text(out, &in);
}

void lru_report_text(FILE *out, const struct lru_report_ctx *ctx,
		     const struct lru_snapshot *delta)
{
	struct lru_dev_stats total, *cpus = NULL;
	char ts[16];

	if (ctx->timestamps) {
		ticker_timestamp(ts, sizeof(ts));
		fprintf(out, "%s\n", ts);
	}
	if (ctx->hooks->unavailable[0]) {
		fprintf(out, "LRU figures unavailable: %s\n\n",
			ctx->hooks->unavailable);
		fflush(out);
		return;
	}
	lru_snapshot_total(delta, &total);
	if (!active(&total)) {
		fprintf(out, "no buffer-head LRU %s in the last %.1f s\n",
			has_lookups(ctx) ? "lookups" : "hits", ctx->elapsed_s);
	} else {
		text_devices(out, ctx, delta, &total);
		if (ctx->per_cpu)
			text_cpus(out, ctx, delta);
		if (has_lookups(ctx) && total.hits) {
			fprintf(out, "hit slot = LRU stack distance, all CPUs:\n");
			hist_print_linear(out, total.dist, ctx->lru_size, "slot");
		}
	}
	if (has_lookups(ctx))
		text_missing(out, ctx, delta, &total);
	text_counters(out, ctx, delta, &total);
	if (has_lookups(ctx) && ctx->whatif && lru_curve_classified(&total)) {
		if (ctx->per_cpu)
			cpus = calloc(delta->nr_cpus, sizeof(*cpus));
		for (int c = 0; cpus && c < delta->nr_cpus; c++)
			lru_snapshot_cpu(delta, c, &cpus[c]);
		lru_report_curve_text(out, &total, cpus, delta->nr_cpus, 1,
				      ctx->whatif,
				      ctx->lru_size);
		free(cpus);
		text_exactness(out, ctx, delta);
	}
	if (has_lookups(ctx) && lru_hooks_timed(ctx->hooks))
		text_times(out, ctx, delta, &total);
	else if (has_lookups(ctx) && ctx->hooks->time_every)
		/* asked for and not there: said, as JSON's figures_unavailable */
		fprintf(out, "lookup times: unavailable: %s\n",
			ctx->hooks->fig[LRU_FIG_TIMES].why);
	if (ctx->selfcost)
		lru_selfcost_print(out, ctx->selfcost);
	fprintf(out, "\n");
	fflush(out);
}

/* The rows from one source into o: null, or absent, where unavailable. */
static void json_rows(struct json_object *o, const struct lru_report_ctx *ctx,
		      enum lru_table_from from, const struct lru_table_in *in)
{
	for (size_t i = 0; i < lru_table_len; i++) {
		const struct figure *f = &lru_table[i];
		bool avail;

		if (from == LRU_FROM_COUNTERS ?
		    f->from != LRU_FROM_COUNTERS && f->from != LRU_FROM_SNAP :
		    f->from != (int)from)
			continue;
		avail = lru_table_available(f, ctx->hooks, ctx->whatif);
		if (!avail && (f->flags & FIGURE_OMIT))
			continue;
		figure_json_put(o, f->json, avail ? lru_table_json(f, in) : NULL);
	}
}

/* One set of figures; null for those this kernel cannot measure. */
static struct json_object *json_stats(const struct lru_report_ctx *ctx,
				      const struct lru_dev_stats *s)
{
	struct json_object *o = json_object_new_object();
	struct lru_table_in in = {
		.s = s, .elapsed_s = ctx->elapsed_s,
		.lru_size = ctx->lru_size, .whatif = ctx->whatif,
	};

	json_rows(o, ctx, LRU_FROM_DEV, &in);
	return o;
}

static struct json_object *json_unavailable(const struct lru_hooks *h)
{
	struct json_object *o = json_object_new_object();

	for (int f = 0; f < LRU_NR_FIGURES; f++)
		if (!h->fig[f].available || h->unavailable[0])
			json_object_object_add(o, lru_figure_keys[f],
					       json_object_new_string(h->unavailable[0] ?
						       h->unavailable : h->fig[f].why));
	return o;
}

/* No figure holds (the lookup's owner changed): every one null. */
static struct json_object *json_no_figures(const struct lru_report_ctx *ctx,
					   struct json_object *o)
{
	json_object_object_add(o, "figures_unavailable",
			       json_object_new_string(ctx->hooks->unavailable));
	json_object_object_add(o, "total", NULL);
	json_object_object_add(o, "devices", json_object_new_array());
	if (ctx->per_cpu)
		json_object_object_add(o, "cpus", json_object_new_array());
	json_object_object_add(o, "counters", NULL);
	json_object_object_add(o, "unavailable", json_unavailable(ctx->hooks));
	return o;
}

struct json_object *lru_report_json(const struct lru_report_ctx *ctx,
				    const struct lru_snapshot *delta)
{
	struct json_object *o = json_out_envelope(LRU_JSON_SCHEMA), *arr, *d;
	struct json_object *counters;
	struct lru_cpu_counters c;
	struct lru_table_in in;
	struct lru_dev_stats s;
	char name[64], nums[32];

	json_object_object_add(o, "interval_s",
			       json_out_double(ctx->elapsed_s));
	json_object_object_add(o, "final", json_object_new_boolean(ctx->final));
	json_object_object_add(o, "mode", json_object_new_string(
				       lru_mode_names[ctx->hooks->mode]));
	json_object_object_add(o, "hook",
			       json_object_new_string(ctx->hooks->hook));
	json_object_object_add(o, "lru_size", json_object_new_int(ctx->lru_size));
	if (ctx->hooks->unavailable[0])
		return json_no_figures(ctx, o);
	json_object_object_add(o, "figures_unavailable", NULL);

	lru_snapshot_total(delta, &s);
	json_object_object_add(o, "total", json_stats(ctx, &s));
	in = totals_in(ctx, delta, &s, &c);
	json_rows(o, ctx, LRU_FROM_TOTALS, &in);
	arr = json_object_new_array();
	for (int i = 0; i < delta->nr_devs; i++) {
		if (!active(&delta->devs[i].total))
			continue;
		d = json_stats(ctx, &delta->devs[i].total);
		devname_of(delta->devs[i].kdev, name, sizeof(name));
		devname_numbers(delta->devs[i].kdev, nums, sizeof(nums));
		json_object_object_add(d, "dev", json_object_new_string(nums));
		json_object_object_add(d, "name", json_object_new_string(name));
		json_object_array_add(arr, d);
	}
	json_object_object_add(o, "devices", arr);
	if (ctx->per_cpu) {
		arr = json_object_new_array();
		for (int c = 0; c < delta->nr_cpus; c++) {
			lru_snapshot_cpu(delta, c, &s);
			d = json_stats(ctx, &s);
			json_object_object_add(d, "cpu", json_object_new_int(c));
			json_object_array_add(arr, d);
		}
		json_object_object_add(o, "cpus", arr);
	}
	counters = json_object_new_object();
	json_rows(counters, ctx, LRU_FROM_COUNTERS, &in);
	json_object_object_add(o, "counters", counters);
	json_object_object_add(o, "unavailable", json_unavailable(ctx->hooks));
	if (lru_hooks_timed(ctx->hooks)) {
		struct lru_time_stats t;
		struct lru_time_input ti;

		lru_snapshot_total(delta, &s);
		ti = times_in(ctx, delta, &s, &t);
		json_object_object_add(o, "lookup_time", lru_time_json(&ti));
	}
	if (ctx->selfcost)
		json_object_object_add(o, "self_cost",
				       lru_selfcost_json(ctx->selfcost));
	return o;
}
