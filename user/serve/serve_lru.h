/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The buffer-head LRU's Prometheus families, from plain data: the rows of
 * lru_table that have a family, each where the hooks make it available
 * (so a figure JSON reports as null has no family), and the hooks' mode
 * and the LRU's size. The source that reads the tracer is serve_lru_source.
 */
#ifndef BHSCOPE_SERVE_LRU_H
#define BHSCOPE_SERVE_LRU_H

#include "lru/lru_hooks.h"
#include "lru/lru_time.h"
#include "lru/lru_snapshot.h"
#include "serve/serve.h"
#include "serve/serve_lru_window.h"

/* One exported series set: a device, or a device on one CPU. */
struct serve_lru_row {
	const struct lru_dev_stats *s;
	struct prom_labels ls;
};

/*
 * Writes the families of cumulative snapshot snap for the nr rows of the
 * selected devices, by its hooks and LRU size (<= 0 unknown). With
 * snap->hooks.unavailable, the mode and size alone.
 */
void serve_lru_write(struct prom_buf *out, const struct serve_view *v,
		     const struct lru_snapshot *snap,
		     const struct serve_lru_row *rows, int nr);

/* One device's lookup times (--lru-timing). */
struct serve_lru_time_row {
	const struct lru_time_stats *t;
	struct prom_labels ls;
};

/*
 * bhscope_lru_lookup_seconds, a histogram per row and outcome (hit,
 * installed, not_installed, absent), and bhscope_lru_lookup_timing_info
 * (the sampling), where the hooks h time lookups.
 */
void serve_lru_write_times(struct prom_buf *out, const struct lru_hooks *h,
			   const struct serve_lru_time_row *rows, int nr);

/* --lru-whatif's inputs beside each device's row. */
struct serve_lru_whatif {
	int lru_size;			/* the LRU's, now */
	int max_size;			/* --lru-whatif N */
	const char *above;		/* lru_curve_above_exactness() */
	const struct lru_costs *costs;	/* NULL or none timed: no times */
	bool window;			/* the last --lru-duty window's */
};

/*
 * bhscope_lru_whatif_info, and per row (a device) and size (the powers of
 * two up to max_size, the LRU's size and max_size) the hits that size
 * would have given (bhscope_lru_whatif_hits_total) and, from the costs,
 * the predicted seconds a lookup and the saving against the LRU's size.
 * With window, the same as gauges named bhscope_lru_window_whatif_*.
 */
void serve_lru_write_whatif(struct prom_buf *out,
			    const struct serve_lru_whatif *w,
			    const struct serve_lru_row *rows, int nr);

/* --lru-duty: its windows' length and period, and the last window. */
struct serve_lru_window_view {
	unsigned int window_ms, period_ms;
	const struct serve_lru_window_last *last;
};

/*
 * bhscope_lru_window_info and bhscope_lru_windows_total; once a window
 * held, its length and end, and per row (a device of the last window's
 * snapshot) each figure of lru_table its hooks have, as a gauge named
 * bhscope_lru_window_X for the continuous bhscope_lru_X_total: a window's
 * figures never mix with the continuous counters.
 */
void serve_lru_write_window(struct prom_buf *out,
			    const struct serve_lru_window_view *w,
			    const struct serve_lru_row *rows, int nr);

#endif /* BHSCOPE_SERVE_LRU_H */
