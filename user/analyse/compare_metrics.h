/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The metrics of one recorded run, as (key, name, unit, value): bhbench's
 * phases and files/s, fs_mark's files/s, wall time, the jbd2 figures of the
 * workload's device and the LRU hit ratios.
 */
#ifndef BHSCOPE_COMPARE_METRICS_H
#define BHSCOPE_COMPARE_METRICS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

struct metric {
	const char *key;
	const char *name;
	const char *unit;
	bool throughput;
	double value;
};

typedef int (*metric_fn)(void *ctx, const struct metric *m);

/*
 * Calls fn for every metric of run index i of record root. Returns 0, -1
 * with err when a value has the wrong type, or what fn returned if not 0.
 */
int compare_metrics_of_run(struct json_object *root, int i, metric_fn fn,
			   void *ctx, char *err, size_t errlen);

#endif /* BHSCOPE_COMPARE_METRICS_H */
