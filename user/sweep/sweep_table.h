/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The combined table of a sweep, in the shape of the seed threads' tables:
 * for the metadata workload, creation/stat/removal ops/s per tasks x dir
 * size with the % change against the baseline setting; for synchronous
 * writers, files/s per thread count, baseline vs each setting, with the
 * speedup. Built from the cells' records, so it can be printed again later.
 */
#ifndef BHSCOPE_SWEEP_TABLE_H
#define BHSCOPE_SWEEP_TABLE_H

#include <stdio.h>

/*
 * Prints the table of the records in paths (each with its "sweep" cell).
 * Returns 0, or -1 after one errmsg() line, "FILE: problem".
 */
int sweep_table_print(FILE *out, char **paths, int n);

/*
 * The records in dir (*.json), in the order the sweep ran them, at most a
 * sweep's (RECORD_MAX_CELLS): *paths to free, n of them. Returns 0, or -1
 * after a one-line error.
 */
int sweep_table_list(const char *dir, char ***paths, int *n);

#endif /* BHSCOPE_SWEEP_TABLE_H */
