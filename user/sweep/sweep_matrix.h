/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The matrix of a sweep: tunables (lru_size, batch times) times workload
 * parameters (tasks, dir size), one cell per combination, in order: the
 * tunables vary slowest, so each setting is applied once.
 */
#ifndef BHSCOPE_SWEEP_MATRIX_H
#define BHSCOPE_SWEEP_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#define SWEEP_MAX_VALUES	32

enum sweep_dim {
	DIM_LRU_SIZE,		/* tunable: bhtune lru_size */
	DIM_BATCH_MIN,		/* tunable: min batch time, us */
	DIM_BATCH_MAX,		/* tunable: max batch time, us */
	DIM_TASKS,		/* bhbench -t */
	DIM_DIR_SIZE,		/* bhbench --dir-size */
	NR_DIMS,
};

#define NR_TUNABLE_DIMS	DIM_TASKS

struct sweep_matrix {
	int nr[NR_DIMS];			/* 0: dimension not swept */
	long values[NR_DIMS][SWEEP_MAX_VALUES];
};

/* The dimension's name as the sweep's options and records spell it. */
extern const char *const sweep_dim_names[NR_DIMS];

/* Parses "0,1000,4000" into dimension dim. Returns 0 or -1 (bad list). */
int sweep_matrix_parse(struct sweep_matrix *m, enum sweep_dim dim,
		       const char *list, long min, long max);

/* Cells in the matrix (1 when nothing is swept). */
size_t sweep_matrix_cells(const struct sweep_matrix *m);

/* The value of each dimension in cell i (-1 where not swept). */
void sweep_matrix_cell(const struct sweep_matrix *m, size_t i,
		       long value[NR_DIMS]);

/* Index of cell i's tunables setting: cells sharing it are adjacent. */
size_t sweep_matrix_config(const struct sweep_matrix *m, size_t i);

/* "lru_size=8 tasks=2" for the swept dimensions of a cell. */
void sweep_matrix_label(const struct sweep_matrix *m,
			const long value[NR_DIMS], bool tunables,
			bool params, char *buf, size_t len);

#endif /* BHSCOPE_SWEEP_MATRIX_H */
