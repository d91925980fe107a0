/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The what-if curve: the hit ratio an LRU of each size would have had.
 * The kernel's LRU is a true LRU stack (hits and installs go to slot 0),
 * so by the inclusion property a lookup hits an LRU of size k exactly when
 * its stack distance is below k: the curve is the cumulative distance
 * histogram over the classified lookups.
 */
#ifndef BHSCOPE_LRU_CURVE_H
#define BHSCOPE_LRU_CURVE_H

#include <json-c/json.h>
#include <stdint.h>

#include "lru_stats.h"

/* Lookups classified as a hit or a miss; unsynced ones are neither. */
uint64_t lru_curve_classified(const struct lru_dev_stats *s);

/* Hits over classified lookups, as measured; NAN if there are none. */
double lru_curve_hit_ratio(const struct lru_dev_stats *s);

/*
 * The hit ratio over every lookup counted, unsynced ones included: *lo if
 * every unsynced lookup not proven a miss missed, *hi if each hit. The
 * true ratio lies in between; NAN for both without lookups.
 */
void lru_curve_hit_ratio_range(const struct lru_dev_stats *s, double *lo,
			       double *hi);

/*
 * ratio[k - 1] = the hit ratio at LRU size k, for k = 1..n
 * (n <= BHSCOPE_LRU_DEPTH_MAX); NAN everywhere without classified lookups.
 */
void lru_curve(const struct lru_dev_stats *s, double *ratio, int n);

/*
 * How exact the what-if curve is above the LRU's size over an interval
 * with these counters: "exact" (no unseen change, no not-installed miss
 * found in the ghost list), "lower bound" (the model re-read an LRU it
 * could not explain: the ghost list misses keys or holds stale ones, which only deepens distances), or "approximate"
 * (a miss not installed was in the ghost list: a larger LRU would have
 * reordered where the kernel's did not). Sizes up to the LRU's are exact
 * over the classified lookups.
 */
const char *lru_curve_above_exactness(const struct lru_cpu_counters *c);

/* {"sizes": [lo..hi], "hit_ratio": [...]} with null where unknown. */
struct json_object *lru_curve_json(const struct lru_dev_stats *s, int lo,
				   int hi);

#endif /* BHSCOPE_LRU_CURVE_H */
