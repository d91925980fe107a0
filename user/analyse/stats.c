// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyse/stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of values already sorted. */
static double sorted_median(const double *v, size_t n)
{
	if (!n)
		return NAN;
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double stats_median(const double *v, size_t n)
{
	double *s, m;

	if (!n)
		return NAN;
	s = malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = sorted_median(s, n);
	free(s);
	return m;
}

void stats_summarize(const double *v, size_t n, struct stats_summary *s)
{
	double *dev;

	*s = (struct stats_summary){ .n = n, .median = NAN, .min = NAN,
				     .max = NAN, .mad = NAN };
	if (!n)
		return;
	s->median = stats_median(v, n);
	s->min = s->max = v[0];
	for (size_t i = 1; i < n; i++) {
		s->min = fmin(s->min, v[i]);
		s->max = fmax(s->max, v[i]);
	}
	dev = malloc(n * sizeof(*dev));
	if (!dev)
		return;
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(v[i] - s->median);
	s->mad = stats_median(dev, n);
	free(dev);
}

double stats_rel_spread(const struct stats_summary *s)
{
	if (!s->n || s->median == 0 || isnan(s->median))
		return NAN;
	return 100.0 * s->mad / fabs(s->median);
}

double stats_pct_change(double base, double value)
{
	double pct;

	if (isnan(base) || isnan(value) || base == 0)
		return NAN;
	pct = 100.0 * (value - base) / fabs(base);
	/* 1e15 against 1e-300 overflows: no figure, rather than infinity. */
	return isfinite(pct) ? pct : NAN;
}

bool stats_within_noise(const struct stats_summary *a,
			const struct stats_summary *b)
{
	double pct = stats_pct_change(a->median, b->median);
	double ra, rb;

	if (!a->n || !b->n)
		return true;
	if (a->median == b->median)
		return true;
	if (isnan(pct))
		return true;
	if (a->n < 2 || b->n < 2)
		return false;
	if (a->min <= b->max && b->min <= a->max)
		return true;
	ra = stats_rel_spread(a);
	rb = stats_rel_spread(b);
	return fabs(pct) < fmax(isnan(ra) ? 0 : ra, isnan(rb) ? 0 : rb);
}
