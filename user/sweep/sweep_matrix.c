// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep_matrix.h"

const char *const sweep_dim_names[NR_DIMS] = {
	[DIM_LRU_SIZE] = "lru_size",
	[DIM_BATCH_MIN] = "batch_min_us",
	[DIM_BATCH_MAX] = "batch_max_us",
	[DIM_TASKS] = "tasks",
	[DIM_DIR_SIZE] = "dir_size",
};

int sweep_matrix_parse(struct sweep_matrix *m, enum sweep_dim dim,
		       const char *list, long min, long max)
{
	const char *p = list;
	int n = 0;

	if (!*p)
		return -1;
	while (*p) {
		char *end;
		long v;

		if (*p < '0' || *p > '9' || n == SWEEP_MAX_VALUES)
			return -1;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || v < min || v > max || (*end && *end != ','))
			return -1;
		for (int i = 0; i < n; i++)
			if (m->values[dim][i] == v)
				return -1;	/* a repeated value */
		m->values[dim][n++] = v;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return -1;	/* trailing comma */
	}
	m->nr[dim] = n;
	return 0;
}

static size_t span(const struct sweep_matrix *m, int from, int to)
{
	size_t n = 1;

	for (int d = from; d < to; d++)
		n *= m->nr[d] ? m->nr[d] : 1;
	return n;
}

size_t sweep_matrix_cells(const struct sweep_matrix *m)
{
	return span(m, 0, NR_DIMS);
}

void sweep_matrix_cell(const struct sweep_matrix *m, size_t i,
		       long value[NR_DIMS])
{
	/* The last dimension varies fastest. */
	for (int d = NR_DIMS - 1; d >= 0; d--) {
		size_t n = m->nr[d] ? m->nr[d] : 1;

		value[d] = m->nr[d] ? m->values[d][i % n] : -1;
		i /= n;
	}
}

size_t sweep_matrix_config(const struct sweep_matrix *m, size_t i)
{
	return i / span(m, NR_TUNABLE_DIMS, NR_DIMS);
}

void sweep_matrix_label(const struct sweep_matrix *m,
			const long value[NR_DIMS], bool tunables,
			bool params, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int d = 0; d < NR_DIMS; d++) {
		bool tunable = d < NR_TUNABLE_DIMS;

		if (!m->nr[d] || (tunable && !tunables) || (!tunable && !params))
			continue;
		n += snprintf(buf + n, n < len ? len - n : 0, "%s%s=%ld",
			      n ? " " : "", sweep_dim_names[d], value[d]);
	}
	if (!n)
		snprintf(buf, len, "default");
}
