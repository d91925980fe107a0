// SPDX-License-Identifier: GPL-2.0
#include <math.h>

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
