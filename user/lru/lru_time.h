/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The what-if in time: what each lookup outcome costs, from --timing's
 * sampled times, and the lookup time every LRU size would have taken for
 * the lookups of one run. Pure code over plain structs, unit tested
 * without a kernel.
 *
 * The model follows fs/buffer.c: a hit at slot i scans i + 1 slots and
 * moves i entries down, so its time grows linearly with i (fitted: a +
 * b·i); a miss scans every slot, and an installed one then shifts every
 * slot, so at another size it costs its measured time plus b per slot
 * more (installed) or b/2 (not installed, absent: a scan only). Sizes
 * above the LRU's take their hits from the ghost list's distances.
 */
#ifndef BHSCOPE_LRU_TIME_H
#define BHSCOPE_LRU_TIME_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lru_stats.h"

/* Each lru_time_group's name: JSON keys, Prometheus outcome labels. */
extern const char *const lru_time_group_names[LRU_NR_TIME_GROUPS];

/* A class with fewer samples takes the fitted line instead of its mean. */
#define LRU_COSTS_MIN_SAMPLES 8

/* What each outcome costs at the LRU's size, in ns (NAN: not sampled). */
struct lru_costs {
	int lru_size;
	uint64_t samples;		/* lookups timed */
	double hit_mean[BHSCOPE_LRU_SLOTS_MAX];	/* measured, per slot */
	uint64_t hit_n[BHSCOPE_LRU_SLOTS_MAX];
	double hit_a, hit_b;		/* hit(i) = a + b·i; b 0 if not fitted */
	bool slope_fitted;		/* hits timed at two slots or more */
	double installed, not_installed, absent;
	uint64_t installed_n, not_installed_n, absent_n;
	/*
	 * A miss not installed or absent never timed costs as an installed
	 * one (both go to the page cache): their number is the same at
	 * every size, so the changes between sizes do not depend on it.
	 */
	bool not_installed_guessed, absent_guessed;
};

void lru_costs_from(struct lru_costs *c, const struct lru_time_stats *t,
		    int lru_size);

/* A hit at slot i (any i: beyond the LRU's size, from the line). */
double lru_costs_hit(const struct lru_costs *c, int slot);

/* One size's prediction for the classified lookups of an interval. */
struct lru_time_point {
	int size;
	double hit_ratio;
	double ns_per_lookup;	/* NAN: a needed cost was never sampled */
};

/*
 * out[k - 1] for sizes k = 1..n, from the lookups' distances and outcomes
 * (s) and the costs.
 */
void lru_time_curve(const struct lru_dev_stats *s, const struct lru_costs *c,
		    struct lru_time_point *out, int n);

/*
 * The what-if in time of an interval, as text: the costs, and for sizes
 * 1..n the predicted ns a lookup, lookup CPU time per second, and the
 * change against the LRU's size in CPU time and as a share of busy_ns
 * (0: unknown) over elapsed_s; the last line says what the best size
 * would save. lookups: every lookup (unsynced ones cost as the others).
 */
struct lru_time_input {
	const struct lru_dev_stats *s;
	const struct lru_time_stats *t;
	int lru_size;
	int n;
	uint32_t every;		/* --timing N */
	uint32_t sample;	/* one lookup in sample timed (in a window) */
	uint32_t window_ms, period_ms;	/* timed in such windows; 0: always */
	uint64_t seen;		/* lookups the timing saw (in its windows) */
	uint64_t dropped;	/* timings dropped (switched, unsynced) */
	double elapsed_s;
	uint64_t busy_ns;
};

void lru_time_text(FILE *out, const struct lru_time_input *in);
struct json_object *lru_time_json(const struct lru_time_input *in);

#endif /* BHSCOPE_LRU_TIME_H */
