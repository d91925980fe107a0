// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/json_out.h"
#include "lru/lru_curve.h"
#include "lru/lru_table.h"

#define STR(x)		#x
#define XSTR(x)		STR(x)

#define DEV(f)		.from = LRU_FROM_DEV, .off = offsetof(struct lru_dev_stats, f)
#define CNT(f)		.from = LRU_FROM_COUNTERS, \
			.off = offsetof(struct lru_cpu_counters, f)
#define SNAP(f)		.from = LRU_FROM_SNAP, .off = offsetof(struct lru_snapshot, f)
#define FIG(id)		(LRU_AVAIL_FIG + LRU_FIG_##id)
#define COUNTER		.prom_type = FIGURE_PROM_COUNTER
/* A row's function: most need only their input. */
#define ROW		const struct figure *f __attribute__((unused))
#define GAUGE		.prom_type = FIGURE_PROM_GAUGE

static const struct lru_table_in *in_of(const void *in)
{
	return in;
}


static double hits_per_s(ROW, const void *in)
{
	return in_of(in)->s->hits / in_of(in)->elapsed_s;
}

static double lookups_per_s(ROW, const void *in)
{
	return in_of(in)->s->lookups / in_of(in)->elapsed_s;
}

static double hit_ratio(ROW, const void *in)
{
	return lru_curve_hit_ratio(in_of(in)->s);
}

/* [lo, hi]: the hit ratio over every lookup (lru_curve_hit_ratio_range()). */
static struct json_object *ratio_range(ROW, const void *in)
{
	struct json_object *a = json_object_new_array();
	double lo, hi;

	lru_curve_hit_ratio_range(in_of(in)->s, &lo, &hi);
	json_object_array_add(a, json_out_double(lo));
	json_object_array_add(a, json_out_double(hi));
	return a;
}

static struct json_object *slots(ROW, const void *in)
{
	const struct lru_table_in *t = in;
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < t->lru_size && i < BHSCOPE_LRU_DEPTH_MAX; i++)
		json_object_array_add(a, json_object_new_uint64(t->s->dist[i]));
	return a;
}

static struct json_object *whatif(ROW, const void *in)
{
	return lru_curve_json(in_of(in)->s, 1, in_of(in)->whatif);
}

uint64_t lru_table_unsynced_all(const struct lru_table_in *in)
{
	return in->total->unsynced + in->c->unsynced_nodev;
}

uint64_t lru_table_lost(const struct lru_table_in *in)
{
	return lru_snapshot_lost(in->snap, in->by_entries);
}

static double lost(ROW, const void *in)
{
	return lru_table_lost(in);
}

static double lost_complete(ROW, const void *in)
{
	return in_of(in)->snap->misses_known;
}

static double unsynced_all(ROW, const void *in)
{
	return lru_table_unsynced_all(in);
}

/* Every lookup: classified, unsynced of no device, lost. */
static double all_lookups(const struct lru_table_in *in)
{
	return in->total->lookups + in->c->unsynced_nodev + lru_table_lost(in);
}

static double lost_share(ROW, const void *in)
{
	double all = all_lookups(in);

	return all ? lru_table_lost(in) / all : NAN;
}

static double unsynced_share(ROW, const void *in)
{
	double all = all_lookups(in);

	return all ? lru_table_unsynced_all(in) / all : NAN;
}

static struct json_object *exact_sizes(ROW, const void *in)
{
	char s[32];

	snprintf(s, sizeof(s), "1-%d", in_of(in)->lru_size);
	return json_object_new_string(s);
}

static struct json_object *whatif_above(ROW, const void *in)
{
	return json_object_new_string(lru_curve_above_exactness(in_of(in)->c));
}

const struct figure lru_table[] = {
	/* one set of figures: a device, a CPU, or all (total) */
	{ .json = "hits", .prom = "bhscope_lru_hits_total", COUNTER,
	  .help = "Lookups found in this CPU's buffer-head LRU (bh_lrus).",
	  .kind = FIGURE_COUNT, DEV(hits), .avail = FIG(HITS),
	  .text = "HITS", .text_pos = 3, .text_width = 10 },
	{ .json = "hits_per_s", .kind = FIGURE_RATE, .from = LRU_FROM_DEV,
	  .num = hits_per_s, .avail = FIG(HITS),
	  .text = "HITS/s", .text_pos = 1, .text_width = 10,
	  .text_avail = LRU_AVAIL_HITS_ONLY,
	  .compare_pos = 2, .compare = "LRU hits", .unit = "hits/s",
	  .per_cpu = true },
	{ .json = "lookups", .prom = "bhscope_lru_lookups_total", COUNTER,
	  .help = "Buffer-head LRU lookups that returned (hits, misses and unsynced).",
	  .kind = FIGURE_COUNT, DEV(lookups), .avail = FIG(LOOKUPS) },
	{ .json = "lookups_per_s", .kind = FIGURE_RATE, .from = LRU_FROM_DEV,
	  .num = lookups_per_s, .avail = FIG(LOOKUPS),
	  .text = "LOOKUPS/s", .text_pos = 1, .text_width = 10,
	  .compare_pos = 3, .compare = "LRU lookups", .unit = "lookups/s" },
	{ .json = "hit_ratio", .kind = FIGURE_RATIO, .from = LRU_FROM_DEV,
	  .num = hit_ratio, .avail = FIG(LOOKUPS),
	  .text = "HIT%", .text_pos = 2, .text_width = 8,
	  .compare_pos = 1, .compare = "LRU hit ratio", .unit = "%",
	  .scale = 100, .per_cpu = true },
	{ .json = "installed", .prom = "bhscope_lru_misses_total", COUNTER,
	  .prom_label = "outcome", .prom_value = "installed",
	  .help = "LRU misses by outcome: installed (found in the page cache, put in slot 0), not_installed (found, install skipped), absent (not in the page cache).",
	  .kind = FIGURE_COUNT, DEV(installed), .avail = FIG(MISSES),
	  .text = "INSTALLED", .text_pos = 4, .text_width = 10 },
	{ .json = "not_installed", .prom = "bhscope_lru_misses_total", COUNTER,
	  .prom_label = "outcome", .prom_value = "not_installed",
	  .kind = FIGURE_COUNT, DEV(not_installed), .avail = FIG(MISSES),
	  .text = "NOT-INST", .text_pos = 5, .text_width = 9 },
	{ .json = "absent", .prom = "bhscope_lru_misses_total", COUNTER,
	  .prom_label = "outcome", .prom_value = "absent",
	  .kind = FIGURE_COUNT, DEV(absent), .avail = FIG(MISSES),
	  .text = "ABSENT", .text_pos = 6, .text_width = 8 },
	{ .json = "unsynced", .prom = "bhscope_lru_unsynced_lookups_total",
	  COUNTER,
	  .help = "Lookups that raced a change of the CPU's LRU (migration, sleep, invalidation): their outcome is not provable.",
	  .kind = FIGURE_COUNT, DEV(unsynced), .avail = FIG(LOOKUPS),
	  .text = "UNSYNCED", .text_pos = 8, .text_width = 9 },
	{ .json = "unsynced_misses", .prom = "bhscope_lru_unsynced_misses_total",
	  COUNTER,
	  .help = "Of the unsynced lookups, those proven misses (the task slept inside the lookup, which a hit never does under none or voluntary preemption).",
	  .kind = FIGURE_COUNT, DEV(unsynced_misses), .avail = FIG(LOOKUPS) },
	{ .json = "hit_ratio_range", .kind = FIGURE_SHAPED,
	  .from = LRU_FROM_DEV, .shape = ratio_range, .avail = FIG(LOOKUPS) },
	{ .json = "evictions", .prom = "bhscope_lru_evictions_total", COUNTER,
	  .help = "Installs into a full LRU: the last slot's buffer head pushed out.",
	  .kind = FIGURE_COUNT, DEV(evictions), .avail = FIG(EVICTIONS),
	  .text = "EVICTED", .text_pos = 7, .text_width = 9 },
	{ .json = "slots", .prom = "bhscope_lru_hit_slot",
	  .prom_type = FIGURE_PROM_HISTOGRAM,
	  .help = "Slot of each LRU hit, which is its stack distance: bucket le=\"k-1\" / lookups is the hit ratio of an LRU of k slots.",
	  .kind = FIGURE_SHAPED, DEV(dist), .shape = slots,
	  .avail = FIG(SLOTS) },
	{ .json = "whatif", .kind = FIGURE_SHAPED, .from = LRU_FROM_DEV,
	  .shape = whatif, .avail = LRU_AVAIL_WHATIF },

	/* over everything: what the figures above miss */
	{ .json = "lost_lookups", .prom = "bhscope_lru_lost_lookups_total",
	  COUNTER,
	  .help = "Lookups the tracer lost (no probe counted them): every other LRU figure misses them.",
	  .kind = FIGURE_COUNT, .from = LRU_FROM_TOTALS, .num = lost,
	  .avail = FIG(LOOKUPS) },
	{ .json = "lost_lookups_complete",
	  .prom = "bhscope_lru_lost_lookups_complete", GAUGE,
	  .help = "1 when the kernel counts every probe run it skips; 0: bhscope_lru_lost_lookups_total is a lower bound (kprobes and classic tracepoints before 6.7).",
	  .kind = FIGURE_FLAG, .from = LRU_FROM_TOTALS, .num = lost_complete,
	  .avail = FIG(LOOKUPS) },
	{ .json = "unsynced_lookups", .kind = FIGURE_COUNT,
	  .from = LRU_FROM_TOTALS, .num = unsynced_all, .avail = FIG(LOOKUPS) },
	{ .json = "lost_share", .kind = FIGURE_RATIO, .from = LRU_FROM_TOTALS,
	  .num = lost_share, .avail = FIG(LOOKUPS), .flags = FIGURE_OMIT },
	{ .json = "unsynced_share", .kind = FIGURE_RATIO,
	  .from = LRU_FROM_TOTALS, .num = unsynced_share,
	  .avail = FIG(LOOKUPS), .flags = FIGURE_OMIT },
	{ .json = "whatif_exact_sizes", .kind = FIGURE_SHAPED,
	  .from = LRU_FROM_TOTALS, .shape = exact_sizes,
	  .avail = FIG(LOOKUPS) },
	{ .json = "whatif_above", .kind = FIGURE_SHAPED,
	  .from = LRU_FROM_TOTALS, .shape = whatif_above,
	  .avail = LRU_AVAIL_WHATIF_ABOVE },

	/* per CPU, whatever the device: the LRU's own counters */
	{ .json = "resets", .prom = "bhscope_lru_resets_total", COUNTER,
	  .help = "Times an LRU was found emptied (invalidated) at a lookup.",
	  .kind = FIGURE_COUNT, CNT(resets), .avail = FIG(LOOKUPS),
	  .text = "LRU found emptied: %llu", .text_pos = 1 },
	{ .json = "invalidate_bh_lrus",
	  .prom = "bhscope_lru_invalidate_bh_lrus_total", COUNTER,
	  .help = "invalidate_bh_lrus() calls (every CPU's LRU emptied).",
	  .kind = FIGURE_COUNT, CNT(invalidate_all),
	  .avail = LRU_AVAIL_INVALIDATE_CALLS,
	  .text = "invalidate_bh_lrus: %llu", .text_pos = 3 },
	{ .json = "invalidate_bh_lrus_cpu", .kind = FIGURE_COUNT,
	  CNT(invalidate_cpu), .avail = LRU_AVAIL_INVALIDATE_CALLS,
	  .text = "invalidate_bh_lrus_cpu: %llu", .text_pos = 4,
	  .flags = FIGURE_JOIN },
	{ .json = "install_calls", .prom = "bhscope_lru_install_calls_total",
	  COUNTER, .help = "bh_lru_install() calls, where it is a symbol.",
	  .kind = FIGURE_COUNT, CNT(install_calls), .avail = FIG(INSTALLS),
	  .text = "bh_lru_install calls: %llu", .text_pos = 5 },
	{ .json = "trace_events", .kind = FIGURE_COUNT, CNT(events),
	  .avail = FIG(TRACE), .text = "trace: %llu events", .text_pos = 6 },
	{ .json = "trace_lost", .kind = FIGURE_COUNT, CNT(events_lost),
	  .avail = FIG(TRACE), .text = "%llu lost", .text_pos = 7,
	  .flags = FIGURE_JOIN },
	{ .json = "untracked_device_lookups",
	  .prom = "bhscope_lru_untracked_device_lookups_total", COUNTER,
	  .help = "Lookups not counted because the device map was full (more than " XSTR(BHSCOPE_MAX_DEVS) " devices).",
	  .kind = FIGURE_COUNT, CNT(devs_dropped), .avail = LRU_AVAIL_ALWAYS,
	  .text = "lookups of untracked devices (over " XSTR(BHSCOPE_MAX_DEVS) "): %llu",
	  .text_pos = 8, .flags = FIGURE_NONZERO },
	{ .json = "lookups_lost_busy", .kind = FIGURE_COUNT, CNT(lookups_lost),
	  .avail = FIG(LOOKUPS) },
	{ .json = "entry_misses", .kind = FIGURE_COUNT, SNAP(entry_misses),
	  .avail = FIG(LOOKUPS) },
	{ .json = "exit_misses", .kind = FIGURE_COUNT, SNAP(exit_misses),
	  .avail = FIG(LOOKUPS) },
	{ .json = "emptied_misses",
	  .prom = "bhscope_lru_emptied_probe_misses_total", COUNTER,
	  .help = "Runs of the probes that see LRUs emptied the kernel skipped: hits of a lone LRU entry (with bhtune, every hit slot) may be off.",
	  .kind = FIGURE_COUNT, SNAP(emptied_misses), .avail = FIG(LOOKUPS) },
	{ .json = "entries", .kind = FIGURE_COUNT, CNT(entries),
	  .avail = FIG(LOOKUPS) },
	{ .json = "exits", .kind = FIGURE_COUNT, CNT(exits),
	  .avail = FIG(LOOKUPS) },
	{ .json = "resyncs", .prom = "bhscope_lru_resyncs_total", COUNTER,
	  .help = "Times the model lost keys beyond the LRU (re-read an LRU changed unseen, forgetting its ghost list; or an eviction whose key it never read): the what-if sizes above the LRU's are a lower bound since.",
	  .kind = FIGURE_COUNT, CNT(resyncs), .avail = FIG(LOOKUPS),
	  .text = "model re-read (unseen changes): %llu", .text_pos = 2,
	  .flags = FIGURE_NONZERO },
	{ .json = "ghost_not_installed", .kind = FIGURE_COUNT,
	  CNT(ghost_not_installed), .avail = FIG(LOOKUPS) },
	{ .json = "ghost_absent", .prom = "bhscope_lru_ghost_absent_total",
	  COUNTER,
	  .help = "Absent lookups found in the ghost list: a larger LRU would have kept the buffer; the what-if sizes above the LRU's are approximate since.",
	  .kind = FIGURE_COUNT, CNT(ghost_absent), .avail = FIG(LOOKUPS) },
	{ .json = "full_checks", .kind = FIGURE_COUNT, CNT(full_checks),
	  .avail = FIG(LOOKUPS) },
	{ .json = "unsynced_nodev", .prom = "bhscope_lru_unsynced_nodev_total",
	  COUNTER,
	  .help = "Unsynced lookups whose device is not known (kprobe mode: nothing returned after a context switch).",
	  .kind = FIGURE_COUNT, CNT(unsynced_nodev), .avail = FIG(LOOKUPS) },
};

const size_t lru_table_len = sizeof(lru_table) / sizeof(*lru_table);

const struct figure_table lru_figures_table = {
	.tracer = "lru",
	.rows = lru_table,
	.nr = sizeof(lru_table) / sizeof(*lru_table),
	.run_path = "lru.total",
	.cpu_path = "lru.cpus.*",
};

static bool rule_holds(int rule, const struct lru_hooks *h, int whatif)
{
	switch (rule) {
	case LRU_AVAIL_ALWAYS:
		return true;
	case LRU_AVAIL_INVALIDATE_CALLS:
		return h->fig[LRU_FIG_INVALIDATIONS].available &&
		       h->mode != LRU_MODE_BHTUNE;
	case LRU_AVAIL_WHATIF:
		return h->fig[LRU_FIG_LOOKUPS].available && whatif > 0;
	case LRU_AVAIL_WHATIF_ABOVE:
		return h->fig[LRU_FIG_LOOKUPS].available &&
		       whatif > h->lru_size;
	case LRU_AVAIL_HITS_ONLY:
		return !h->fig[LRU_FIG_LOOKUPS].available;
	default:
		return rule >= LRU_AVAIL_FIG &&
		       rule < LRU_AVAIL_FIG + LRU_NR_FIGURES &&
		       h->fig[rule - LRU_AVAIL_FIG].available;
	}
}

bool lru_table_available(const struct figure *f, const struct lru_hooks *h,
			 int whatif)
{
	return rule_holds(f->avail, h, whatif);
}

bool lru_table_text_available(const struct figure *f,
			      const struct lru_hooks *h, int whatif)
{
	return rule_holds(f->text_avail ? f->text_avail : f->avail, h, whatif);
}

double lru_table_value(const struct figure *f, const struct lru_table_in *in)
{
	if (f->num)
		return f->num(f, in);
	switch (f->from) {
	case LRU_FROM_DEV:
		return figure_u64(f, in->s);
	case LRU_FROM_COUNTERS:
		return figure_u64(f, in->c);
	case LRU_FROM_SNAP:
		return figure_u64(f, in->snap);
	}
	return NAN;
}

struct json_object *lru_table_json(const struct figure *f,
				   const struct lru_table_in *in)
{
	if (f->kind == FIGURE_SHAPED)
		return f->shape(f, in);
	return figure_json_number(f, lru_table_value(f, in));
}
