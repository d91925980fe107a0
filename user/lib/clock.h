/* SPDX-License-Identifier: GPL-2.0 */
/* A clock read as seconds, for intervals and rates. */
#ifndef BHSCOPE_CLOCK_H
#define BHSCOPE_CLOCK_H

#include <time.h>

/* Seconds on CLOCK: CLOCK_MONOTONIC for wall intervals,
 * CLOCK_PROCESS_CPUTIME_ID for this process's CPU time. */
static inline double clock_s(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

#endif /* BHSCOPE_CLOCK_H */
