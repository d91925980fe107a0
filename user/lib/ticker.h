/* SPDX-License-Identifier: GPL-2.0 */
/* The reporting loop's clock: intervals, and SIGINT/SIGTERM as "last one". */
#ifndef BHSCOPE_TICKER_H
#define BHSCOPE_TICKER_H

#include <signal.h>
#include <stdbool.h>

/* Installs SIGINT/SIGTERM handlers that end the current interval early. */
void ticker_install_signals(void);

/*
 * Sleeps until the next interval boundary (absolute, so reports do not drift)
 * or a stop signal, including one pending while the caller blocks it.
 * Returns false once a stop was requested.
 */
bool ticker_wait(double interval_s);

/*
 * Block SIGINT and SIGTERM in the calling thread (old: the mask before),
 * and put the mask back. A thread created in between inherits the block,
 * so the stop signals reach the thread that waits in ticker_wait(); a
 * thread that does not block them could take one while that thread has
 * them blocked, and its wait would last the whole interval.
 */
void ticker_block_signals(sigset_t *old);
void ticker_restore_signals(const sigset_t *old);

/* True after SIGINT or SIGTERM. */
bool ticker_stopped(void);

/* Seconds elapsed on CLOCK_MONOTONIC since the previous call (first: since install). */
double ticker_elapsed(void);

/* Wall-clock "HH:MM:SS" into buf. */
void ticker_timestamp(char *buf, int len);

#endif /* BHSCOPE_TICKER_H */
