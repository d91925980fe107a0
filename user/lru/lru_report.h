/* SPDX-License-Identifier: GPL-2.0 */
/* Printing one LRU interval as text or as one JSON line, and the curve. */
#ifndef BHSCOPE_LRU_REPORT_H
#define BHSCOPE_LRU_REPORT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "lru/lru_hooks.h"
#include "lru/lru_selfcost.h"
#include "lru/lru_snapshot.h"

#define LRU_JSON_SCHEMA "bhscope.lru/1"

struct lru_report_ctx {
	double elapsed_s;
	bool per_cpu;
	bool timestamps;
	bool final;		/* the last report (count reached or signal) */
	int whatif;		/* curve for sizes 1..whatif; 0: none */
	int lru_size;		/* the running LRU size */
	const struct lru_hooks *hooks;		/* what the figures come from */
	const struct lru_selfcost *selfcost;	/* NULL without --self-cost */
};

void lru_report_text(FILE *out, const struct lru_report_ctx *ctx,
		     const struct lru_snapshot *delta);

/* The interval as a JSON object (caller puts it). */
struct json_object *lru_report_json(const struct lru_report_ctx *ctx,
				    const struct lru_snapshot *delta);

/*
 * The what-if table for sizes lo..hi: the total column, and with cpus
 * (nr_cpus entries, NULL for none) one column per CPU that had classified
 * lookups. The running LRU size is marked with '*'.
 */
void lru_report_curve_text(FILE *out, const struct lru_dev_stats *total,
			   const struct lru_dev_stats *cpus, int nr_cpus,
			   int lo, int hi, int lru_size);

#endif /* BHSCOPE_LRU_REPORT_H */
