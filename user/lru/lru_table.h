/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LRU tracer's figures, each declared once (struct figure): the text
 * and JSON reports (lru_report_text(), lru_report_json()), serve
 * (serve_lru_write()), record's checker (record_check()) and compare
 * (compare_metrics_of_run()) iterate this table.
 */
#ifndef BHSCOPE_LRU_TABLE_H
#define BHSCOPE_LRU_TABLE_H

#include <stdbool.h>

#include "lib/figure.h"
#include "lru/lru_hooks.h"
#include "lru/lru_snapshot.h"

/* Where a row's value comes from (struct figure's from). */
enum lru_table_from {
	LRU_FROM_DEV,		/* a device's, a CPU's or every device's stats */
	LRU_FROM_COUNTERS,	/* struct lru_cpu_counters: summed, or a CPU's */
	LRU_FROM_SNAP,		/* the snapshot's own (runs the kernel skipped) */
	LRU_FROM_TOTALS,	/* computed over everything (lost, unsynced) */
};

/*
 * When a row is available (struct figure's avail): the probe_status of
 * one of the hooks' figures (LRU_AVAIL_FIG + enum lru_figure_id), or a
 * rule of its own.
 */
enum lru_table_avail {
	LRU_AVAIL_ALWAYS,
	LRU_AVAIL_INVALIDATE_CALLS,	/* invalidations, but not bhtune's:
					 * it counts them as resets */
	LRU_AVAIL_WHATIF,		/* the what-if, when asked for */
	LRU_AVAIL_WHATIF_ABOVE,		/* ... for sizes above the LRU's */
	LRU_AVAIL_HITS_ONLY,		/* hits, and no lookups seen */
	LRU_AVAIL_FIG,			/* + enum lru_figure_id */
};

/* What the rows read: one set of figures and what it belongs to. */
struct lru_table_in {
	const struct lru_dev_stats *s;		/* a device, a CPU, or all */
	const struct lru_cpu_counters *c;	/* summed over CPUs, or one's */
	const struct lru_snapshot *snap;	/* an interval, or cumulative */
	const struct lru_dev_stats *total;	/* every device, every CPU */
	double elapsed_s;			/* the interval's length */
	bool by_entries;			/* kprobe mode (lost lookups) */
	int lru_size;
	int whatif;				/* --whatif N, 0: none */
};

extern const struct figure lru_table[];
extern const size_t lru_table_len;
extern const struct figure_table lru_figures_table;

/* Whether row f holds with hooks h (whatif: --whatif N, 0: none). */
bool lru_table_available(const struct figure *f, const struct lru_hooks *h,
			 int whatif);

/* The same for f's text (its text_avail, else its avail). */
bool lru_table_text_available(const struct figure *f,
			      const struct lru_hooks *h, int whatif);

/* f's value from in: a number (not for FIGURE_SHAPED rows). */
double lru_table_value(const struct figure *f, const struct lru_table_in *in);

/* f's value as JSON (a number, or its shape). */
struct json_object *lru_table_json(const struct figure *f,
				   const struct lru_table_in *in);

/* Unsynced lookups, those of no known device included. */
uint64_t lru_table_unsynced_all(const struct lru_table_in *in);

/* Lookups that ran and are in no figure (lru_snapshot_lost()). */
uint64_t lru_table_lost(const struct lru_table_in *in);

#endif /* BHSCOPE_LRU_TABLE_H */
