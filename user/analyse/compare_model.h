/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The comparison of records: per metric and per record, the median and
 * spread over its successful runs, the % change against the first record,
 * and whether that change is within the noise. Plus warnings when records
 * differ in what should be the same (kernel, filesystem, workload).
 */
#ifndef BHSCOPE_COMPARE_MODEL_H
#define BHSCOPE_COMPARE_MODEL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "analyse/stats.h"

struct cmp_record {
	const char *path;
	char label[64];
	struct json_object *root;	/* owned */
	int nr_runs, nr_ok;
	int lru_cpus;			/* CPUs with LRU hit ratios, 0 = none */
};

struct cmp_cell {
	struct stats_summary s;		/* s.n = 0: not measured */
	double pct;			/* vs the first record; NAN if none */
	bool noise;
};

struct cmp_row {
	char key[96];			/* stable id: "sync.files_per_sec" */
	char name[96];			/* for people: "sync files/s" */
	char unit[24];
	bool throughput;		/* charted as throughput */
	struct cmp_cell *cells;		/* one per record */
};

struct cmp_table {
	int nr_recs;
	struct cmp_record *recs;
	int nr_rows;
	struct cmp_row *rows;
	int *index;			/* rows by key: open addressing, -1 = free */
	size_t index_size;		/* a power of two, > 2 * nr_rows */
	int nr_warnings;
	char **warnings;
};

/*
 * Reads every file (stopping at the first bad one with a one-line
 * "FILE: problem" in err) and builds the table.
 */
int compare_model_load(struct cmp_table *t, char **paths, int n, char *err,
		       size_t errlen);

/* Builds the table from records already read (root set in each). */
int compare_model_build(struct cmp_table *t, char *err, size_t errlen);

/*
 * The values of one metric over a record's successful runs, by key (NULL
 * when absent); used by the chart for per-CPU figures as well.
 */
const struct cmp_row *compare_model_row(const struct cmp_table *t,
					const char *key);

void compare_model_free(struct cmp_table *t);

#endif /* BHSCOPE_COMPARE_MODEL_H */
