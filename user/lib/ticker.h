/* SPDX-License-Identifier: GPL-2.0 */
/* The reporting loop's clock: intervals, and SIGINT/SIGTERM as "last one". */
#ifndef BHSCOPE_TICKER_H
#define BHSCOPE_TICKER_H

#include <stdbool.h>

/* Installs SIGINT/SIGTERM handlers that end the current interval early. */
void ticker_install_signals(void);

/*
 * Sleeps until the next interval boundary (absolute, so reports do not drift)
 * or a signal. Returns false once a stop was requested.
 */
bool ticker_wait(double interval_s);

/* True after SIGINT or SIGTERM. */
bool ticker_stopped(void);

/* Seconds elapsed on CLOCK_MONOTONIC since the previous call (first: since install). */
double ticker_elapsed(void);

/* Wall-clock "HH:MM:SS" into buf. */
void ticker_timestamp(char *buf, int len);

#endif /* BHSCOPE_TICKER_H */
