/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics over the repeats of one measurement: median, spread, % change
 * between configurations, and whether a change is within the noise.
 * Pure functions over arrays of doubles, unit tested in tests/unit.
 */
#ifndef BHSCOPE_STATS_H
#define BHSCOPE_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct stats_summary {
	size_t n;		/* values summarised; 0 = no data */
	double median;
	double min;
	double max;
	double mad;		/* median absolute deviation from the median */
};

/* Median of n values (the mean of the middle two when n is even); NAN if n = 0. */
double stats_median(const double *v, size_t n);

/* Fills s from n values; n = 0 gives n = 0 and NAN everywhere. */
void stats_summarize(const double *v, size_t n, struct stats_summary *s);

/* MAD as a percentage of |median|; 0 for a single value, NAN if median = 0. */
double stats_rel_spread(const struct stats_summary *s);

/*
 * (value - base) / |base| in percent; NAN when base is 0, either is NAN or
 * the result is not finite.
 */
double stats_pct_change(double base, double value);

/*
 * Whether the change from a to b is within the noise: with repeats on both
 * sides, when the min..max ranges overlap or |% change| is below the larger
 * relative MAD. A side with a single value has no measured noise, so only
 * an exact tie is noise then. A change that cannot be computed is noise.
 */
bool stats_within_noise(const struct stats_summary *a,
			const struct stats_summary *b);

#endif /* BHSCOPE_STATS_H */
