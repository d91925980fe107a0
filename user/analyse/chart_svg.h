/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A comparison as an SVG chart, written by hand: throughput per metric as
 * % of the first record (bars labelled with the medians, whiskers min..max)
 * and the per-CPU LRU hit ratio, before vs after.
 */
#ifndef BHSCOPE_CHART_SVG_H
#define BHSCOPE_CHART_SVG_H

#include <stdio.h>

#include "analyse/compare_model.h"

void chart_svg_write(FILE *out, const struct cmp_table *t);

/* Writes the chart to path atomically; one-line error and -1 on failure. */
int chart_svg_save(const char *path, const struct cmp_table *t);

#endif /* BHSCOPE_CHART_SVG_H */
