/* SPDX-License-Identifier: GPL-2.0 */
/* The reporting loop's clock: intervals, and a stop signal as "last one". */
#ifndef BHSCOPE_TICKER_H
#define BHSCOPE_TICKER_H

#include <stdbool.h>

/* Starts the clock, and takes the stop signals (stop_signals_install()). */
void ticker_start(void);

/*
 * Sleeps until the next interval boundary (absolute, so reports do not drift)
 * or a stop signal, including one pending while the caller blocks it.
 * Returns false once a stop was requested.
 */
bool ticker_wait(double interval_s);

/* Seconds elapsed on CLOCK_MONOTONIC since the previous call (first: since start). */
double ticker_elapsed(void);

/* Wall-clock "HH:MM:SS" into buf. */
void ticker_timestamp(char *buf, int len);

#endif /* BHSCOPE_TICKER_H */
