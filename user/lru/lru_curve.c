// SPDX-License-Identifier: GPL-2.0
#include <math.h>

#include "lib/json_out.h"
#include "lru/lru_curve.h"

uint64_t lru_curve_classified(const struct lru_dev_stats *s)
{
	return s->hits + s->installed + s->not_installed + s->absent;
}

double lru_curve_hit_ratio(const struct lru_dev_stats *s)
{
	uint64_t n = lru_curve_classified(s);

	return n ? (double)s->hits / (double)n : NAN;
}

void lru_curve_hit_ratio_range(const struct lru_dev_stats *s, double *lo,
			       double *hi)
{
	uint64_t all = lru_curve_classified(s) + s->unsynced;
	uint64_t either = s->unsynced - (s->unsynced_misses < s->unsynced ?
					 s->unsynced_misses : s->unsynced);

	*lo = all ? (double)s->hits / (double)all : NAN;
	*hi = all ? (double)(s->hits + either) / (double)all : NAN;
}

void lru_curve(const struct lru_dev_stats *s, double *ratio, int n)
{
	uint64_t total = lru_curve_classified(s), below = 0;

	for (int k = 1; k <= n && k <= BHSCOPE_LRU_DEPTH_MAX; k++) {
		below += s->dist[k - 1];
		ratio[k - 1] = total ? (double)below / (double)total : NAN;
	}
}

const char *lru_curve_above_exactness(const struct lru_cpu_counters *c)
{
	if (c->ghost_not_installed || c->ghost_absent)
		return "approximate";
	if (c->resyncs)
		return "lower bound";
	return "exact";
}

struct json_object *lru_curve_json(const struct lru_dev_stats *s, int lo,
				   int hi)
{
	struct json_object *o = json_object_new_object();
	struct json_object *sizes = json_object_new_array();
	struct json_object *ratios = json_object_new_array();
	double r[BHSCOPE_LRU_DEPTH_MAX];
	struct json_object *v = NULL;

	if (hi > BHSCOPE_LRU_DEPTH_MAX)
		hi = BHSCOPE_LRU_DEPTH_MAX;
	lru_curve(s, r, hi);
	for (int k = lo; k <= hi; k++) {
		json_object_array_add(sizes, json_object_new_int(k));
		/*
		 * a size no lookup's distance reaches repeats the last ratio:
		 * one object for the run (the curves are most of a --whatif
		 * report's work)
		 */
		if (k > lo && r[k - 1] == r[k - 2])
			v = json_object_get(v);
		else
			v = json_out_double(r[k - 1]);
		json_object_array_add(ratios, v);
	}
	json_object_object_add(o, "sizes", sizes);
	json_object_object_add(o, "hit_ratio", ratios);
	return o;
}
