/* SPDX-License-Identifier: GPL-2.0 */
/* A clock read as seconds, for intervals and rates; the time as text. */
#ifndef BHSCOPE_CLOCK_H
#define BHSCOPE_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Seconds on CLOCK: CLOCK_MONOTONIC for wall intervals,
 * CLOCK_PROCESS_CPUTIME_ID for this process's CPU time. */
static inline double clock_s(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* The time now in fmt (strftime), in UTC or local time. */
static inline void clock_now_text(char *buf, size_t len, const char *fmt,
				  bool utc)
{
	time_t t = time(NULL);
	struct tm tm;

	if (utc)
		gmtime_r(&t, &tm);
	else
		localtime_r(&t, &tm);
	strftime(buf, len, fmt, &tm);
}

#endif /* BHSCOPE_CLOCK_H */
