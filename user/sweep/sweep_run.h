/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bhscope sweep's engine: every cell of the matrix run through record, one
 * record per cell, with the cell's tunables set before it and the original
 * ones put back at the end, on failure and on a stop signal.
 */
#ifndef BHSCOPE_SWEEP_RUN_H
#define BHSCOPE_SWEEP_RUN_H

#include <stdbool.h>

#include "sweep/sweep_matrix.h"

struct sweep_opts {
	struct sweep_matrix m;
	const char *dir;	/* -o: one record per cell there (made) */
	int repeats;		/* runs per cell */
	bool lru;		/* trace the LRU too */
	bool quiet;		/* only the table */
	bool warmup;		/* the first cell's workload once, unrecorded */
	char **argv;		/* bhbench's arguments */
	int argc;
};

/*
 * Runs the sweep; *paths gets the records written (npaths of them, the
 * caller frees them). Returns the exit status: 0 when every cell ran, 1
 * when one failed, 64 for a matrix or workload that cannot run, 130 when
 * a stop signal ended it.
 */
int sweep_run(const struct sweep_opts *o, char ***paths, int *npaths);

#endif /* BHSCOPE_SWEEP_RUN_H */
