// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/devname.h"
#include "lib/hist.h"
#include "lru/lru_curve.h"
#include "lru/lru_report.h"
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

static void text_header(FILE *out, const struct lru_report_ctx *ctx,
			const char *what)
{
	if (has_lookups(ctx))
		fprintf(out, "%-12s %10s %8s %10s %10s %9s %8s %9s %9s\n", what,
			"LOOKUPS/s", "HIT%", "HITS", "INSTALLED", "NOT-INST",
			"ABSENT", "EVICTED", "UNSYNCED");
	else
		fprintf(out, "%-12s %10s %10s\n", what, "HITS/s", "HITS");
}

static void text_row(FILE *out, const struct lru_report_ctx *ctx,
		     const char *label, const struct lru_dev_stats *s)
{
	char hit[16];

	if (!has_lookups(ctx)) {
		fprintf(out, "%-12s %10.1f %10llu\n", label,
			s->hits / ctx->elapsed_s, (unsigned long long)s->hits);
		return;
	}
	fmt_ratio(hit, sizeof(hit), lru_hit_ratio(s));
	fprintf(out, "%-12s %10.1f %8s %10llu %10llu %9llu %8llu %9llu %9llu\n",
		label, s->lookups / ctx->elapsed_s, hit,
		(unsigned long long)s->hits, (unsigned long long)s->installed,
		(unsigned long long)s->not_installed,
		(unsigned long long)s->absent,
		(unsigned long long)s->evictions,
		(unsigned long long)s->unsynced);
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

/* Lookups that ran and are in no figure (lru_snapshot_lost()). */
static uint64_t lost_lookups(const struct lru_report_ctx *ctx,
			     const struct lru_snapshot *delta)
{
	return lru_snapshot_lost(delta, ctx->hooks->mode == LRU_MODE_KPROBE);
}

/* Unsynced lookups, those of no known device included. */
static uint64_t unsynced_all(const struct lru_dev_stats *total,
			     const struct lru_cpu_counters *c)
{
	return total->unsynced + c->unsynced_nodev;
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
	lru_hit_ratio_range(total, &l, &h);
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
	uint64_t lost = lost_lookups(ctx, delta), uns, all;

	lru_snapshot_counters_total(delta, &c);
	uns = unsynced_all(total, &c);
	all = total->lookups + c.unsynced_nodev + lost;
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

static void text_counters(FILE *out, const struct lru_report_ctx *ctx,
			  const struct lru_snapshot *delta)
{
	const struct probe_status *fig = ctx->hooks->fig;
	struct lru_cpu_counters c;

	lru_snapshot_counters_total(delta, &c);
	if (!has_lookups(ctx))
		return;
	fprintf(out, "LRU found emptied: %llu", (unsigned long long)c.resets);
	if (c.resyncs)
		fprintf(out, "; model re-read (unseen changes): %llu",
			(unsigned long long)c.resyncs);
	if (fig[LRU_FIG_INVALIDATIONS].available &&
	    ctx->hooks->mode != LRU_MODE_BHTUNE)
		fprintf(out, "; invalidate_bh_lrus: %llu, invalidate_bh_lrus_cpu: %llu",
			(unsigned long long)c.invalidate_all,
			(unsigned long long)c.invalidate_cpu);
	if (fig[LRU_FIG_INSTALLS].available)
		fprintf(out, "; bh_lru_install calls: %llu",
			(unsigned long long)c.install_calls);
	if (fig[LRU_FIG_TRACE].available)
		fprintf(out, "; trace: %llu events, %llu lost",
			(unsigned long long)c.events,
			(unsigned long long)c.events_lost);
	if (c.devs_dropped)
		fprintf(out, "; lookups of untracked devices (over %d): %llu",
			BHSCOPE_MAX_DEVS, (unsigned long long)c.devs_dropped);
	fprintf(out, "\n");
	if (delta->emptied_misses)
		fprintf(out, "emptyings unseen: %llu runs of the invalidation probes skipped by the kernel: %s\n",
			(unsigned long long)delta->emptied_misses,
			ctx->hooks->mode == LRU_MODE_BHTUNE ?
			"hit slots and the what-if may be off" :
			"a hit on an LRU holding one entry may have been a refill");
}

void lru_curve_text(FILE *out, const struct lru_dev_stats *total,
		    const struct lru_dev_stats *cpus, int nr_cpus, int lo,
		    int hi, int lru_size)
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
			if (!lru_classified(&cpus[c]))
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

const char *lru_whatif_above(const struct lru_cpu_counters *c)
{
	if (c->ghost_not_installed || c->ghost_absent)
		return "approximate";
	if (c->resyncs)
		return "lower bound";
	return "exact";
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
			ctx->lru_size + 1, ctx->whatif, lru_whatif_above(&c),
			(unsigned long long)c.resyncs,
			(unsigned long long)c.ghost_not_installed,
			(unsigned long long)c.ghost_absent);
	fprintf(out, "\n");
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
	text_counters(out, ctx, delta);
	if (has_lookups(ctx) && ctx->whatif && lru_classified(&total)) {
		if (ctx->per_cpu)
			cpus = calloc(delta->nr_cpus, sizeof(*cpus));
		for (int c = 0; cpus && c < delta->nr_cpus; c++)
			lru_snapshot_cpu(delta, c, &cpus[c]);
		lru_curve_text(out, &total, cpus, delta->nr_cpus, 1, ctx->whatif,
			       ctx->lru_size);
		free(cpus);
		text_exactness(out, ctx, delta);
	}
	if (ctx->selfcost)
		lru_selfcost_print(out, ctx->selfcost);
	fprintf(out, "\n");
	fflush(out);
}

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

struct json_object *lru_curve_json(const struct lru_dev_stats *s, int lo,
				   int hi)
{
	struct json_object *o = json_object_new_object();
	struct json_object *sizes = json_object_new_array();
	struct json_object *ratios = json_object_new_array();
	double r[BHSCOPE_LRU_DEPTH_MAX];

	if (hi > BHSCOPE_LRU_DEPTH_MAX)
		hi = BHSCOPE_LRU_DEPTH_MAX;
	lru_curve(s, r, hi);
	for (int k = lo; k <= hi; k++) {
		json_object_array_add(sizes, json_object_new_int(k));
		json_object_array_add(ratios, json_out_double(r[k - 1]));
	}
	json_object_object_add(o, "sizes", sizes);
	json_object_object_add(o, "hit_ratio", ratios);
	return o;
}

/* [lo, hi]: the hit ratio over every lookup (lru_hit_ratio_range()). */
static struct json_object *json_ratio_range(const struct lru_dev_stats *s)
{
	struct json_object *a = json_object_new_array();
	double lo, hi;

	lru_hit_ratio_range(s, &lo, &hi);
	json_object_array_add(a, json_out_double(lo));
	json_object_array_add(a, json_out_double(hi));
	return a;
}

/* One set of figures; null for those this kernel cannot measure. */
static struct json_object *json_stats(const struct lru_report_ctx *ctx,
				      const struct lru_dev_stats *s)
{
	struct json_object *o = json_object_new_object(), *slots;
	bool lk = has_lookups(ctx);

	add_u64(o, "hits", s->hits);
	json_object_object_add(o, "hits_per_s",
			       json_out_double(s->hits / ctx->elapsed_s));
	if (!lk) {
		static const char *const unknown[] = {
			"lookups", "lookups_per_s", "hit_ratio", "installed",
			"not_installed", "absent", "unsynced", "evictions",
			"slots", "whatif", "hit_ratio_range", "unsynced_misses",
		};

		for (size_t i = 0; i < sizeof(unknown) / sizeof(*unknown); i++)
			json_object_object_add(o, unknown[i], NULL);
		return o;
	}
	add_u64(o, "lookups", s->lookups);
	json_object_object_add(o, "lookups_per_s",
			       json_out_double(s->lookups / ctx->elapsed_s));
	json_object_object_add(o, "hit_ratio", json_out_double(lru_hit_ratio(s)));
	add_u64(o, "installed", s->installed);
	add_u64(o, "not_installed", s->not_installed);
	add_u64(o, "absent", s->absent);
	add_u64(o, "unsynced", s->unsynced);
	add_u64(o, "unsynced_misses", s->unsynced_misses);
	json_object_object_add(o, "hit_ratio_range", json_ratio_range(s));
	add_u64(o, "evictions", s->evictions);
	slots = json_object_new_array();
	for (int i = 0; i < ctx->lru_size && i < BHSCOPE_LRU_DEPTH_MAX; i++)
		json_object_array_add(slots, json_object_new_uint64(s->dist[i]));
	json_object_object_add(o, "slots", slots);
	json_object_object_add(o, "whatif", ctx->whatif ?
			       lru_curve_json(s, 1, ctx->whatif) : NULL);
	return o;
}

static struct json_object *json_counters(const struct lru_report_ctx *ctx,
					 const struct lru_snapshot *delta)
{
	const struct probe_status *fig = ctx->hooks->fig;
	struct json_object *o = json_object_new_object();
	bool lk = has_lookups(ctx), inval = fig[LRU_FIG_INVALIDATIONS].available &&
					   ctx->hooks->mode != LRU_MODE_BHTUNE;
	struct lru_cpu_counters c;

	lru_snapshot_counters_total(delta, &c);
	json_object_object_add(o, "resets", lk ? json_object_new_uint64(c.resets) : NULL);
	json_object_object_add(o, "invalidate_bh_lrus", inval ?
			       json_object_new_uint64(c.invalidate_all) : NULL);
	json_object_object_add(o, "invalidate_bh_lrus_cpu", inval ?
			       json_object_new_uint64(c.invalidate_cpu) : NULL);
	json_object_object_add(o, "install_calls",
			       fig[LRU_FIG_INSTALLS].available ?
			       json_object_new_uint64(c.install_calls) : NULL);
	json_object_object_add(o, "trace_events", fig[LRU_FIG_TRACE].available ?
			       json_object_new_uint64(c.events) : NULL);
	json_object_object_add(o, "trace_lost", fig[LRU_FIG_TRACE].available ?
			       json_object_new_uint64(c.events_lost) : NULL);
	add_u64(o, "untracked_device_lookups", c.devs_dropped);
	json_object_object_add(o, "lookups_lost_busy", lk ?
			       json_object_new_uint64(c.lookups_lost) : NULL);
	json_object_object_add(o, "entry_misses", lk ?
			       json_object_new_uint64(delta->entry_misses) : NULL);
	json_object_object_add(o, "exit_misses", lk ?
			       json_object_new_uint64(delta->exit_misses) : NULL);
	json_object_object_add(o, "emptied_misses", lk ?
			       json_object_new_uint64(delta->emptied_misses) : NULL);
	json_object_object_add(o, "entries", lk ?
			       json_object_new_uint64(c.entries) : NULL);
	json_object_object_add(o, "exits", lk ?
			       json_object_new_uint64(c.exits) : NULL);
	json_object_object_add(o, "resyncs", lk ?
			       json_object_new_uint64(c.resyncs) : NULL);
	json_object_object_add(o, "ghost_not_installed", lk ?
			       json_object_new_uint64(c.ghost_not_installed) : NULL);
	json_object_object_add(o, "ghost_absent", lk ?
			       json_object_new_uint64(c.ghost_absent) : NULL);
	json_object_object_add(o, "full_checks", lk ?
			       json_object_new_uint64(c.full_checks) : NULL);
	json_object_object_add(o, "unsynced_nodev", lk ?
			       json_object_new_uint64(c.unsynced_nodev) : NULL);
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

/*
 * lost_lookups and unsynced_lookups (every device, and none), with their
 * shares of all lookups, and how exact the what-if sizes are; null where
 * lookups are not seen.
 */
static void json_missing(struct json_object *o,
			 const struct lru_report_ctx *ctx,
			 const struct lru_snapshot *delta,
			 const struct lru_dev_stats *total)
{
	struct lru_cpu_counters c;
	uint64_t lost, uns, all;
	char exact[32];

	if (!has_lookups(ctx)) {
		json_object_object_add(o, "lost_lookups", NULL);
		json_object_object_add(o, "lost_lookups_complete", NULL);
		json_object_object_add(o, "unsynced_lookups", NULL);
		json_object_object_add(o, "whatif_exact_sizes", NULL);
		json_object_object_add(o, "whatif_above", NULL);
		return;
	}
	lru_snapshot_counters_total(delta, &c);
	lost = lost_lookups(ctx, delta);
	uns = unsynced_all(total, &c);
	all = total->lookups + c.unsynced_nodev + lost;
	add_u64(o, "lost_lookups", lost);
	/* false: a lower bound, the kernel does not count skipped runs */
	json_object_object_add(o, "lost_lookups_complete",
			       json_object_new_boolean(delta->misses_known));
	add_u64(o, "unsynced_lookups", uns);
	json_object_object_add(o, "lost_share",
			       json_out_double(all ? (double)lost / all : NAN));
	json_object_object_add(o, "unsynced_share",
			       json_out_double(all ? (double)uns / all : NAN));
	snprintf(exact, sizeof(exact), "1-%d", ctx->lru_size);
	json_object_object_add(o, "whatif_exact_sizes",
			       json_object_new_string(exact));
	json_object_object_add(o, "whatif_above",
			       ctx->whatif > ctx->lru_size ?
			       json_object_new_string(lru_whatif_above(&c)) : NULL);
}

struct json_object *lru_report_json(const struct lru_report_ctx *ctx,
				    const struct lru_snapshot *delta)
{
	struct json_object *o = json_out_envelope(LRU_JSON_SCHEMA), *arr, *d;
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
	json_missing(o, ctx, delta, &s);
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
	json_object_object_add(o, "counters", json_counters(ctx, delta));
	json_object_object_add(o, "unavailable", json_unavailable(ctx->hooks));
	if (ctx->selfcost)
		json_object_object_add(o, "self_cost",
				       lru_selfcost_json(ctx->selfcost));
	return o;
}
