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
 * Block SIGINT and SIGTERM in the calling thread (old: the mask before;
 * waiting, if not NULL: old without them, to sleep with in ppoll() so
 * that the test of ticker_stopped() and the sleep leave no gap for a stop
 * to land in unseen), and put the mask back. A thread created in between
 * inherits the block, so the stop signals reach the thread that waits for
 * them; one that does not block them could take one while that thread has
 * them blocked, and its wait would go on.
 */
void ticker_block_signals(sigset_t *old, sigset_t *waiting);
void ticker_restore_signals(const sigset_t *old);

/* True after SIGINT or SIGTERM. */
bool ticker_stopped(void);

/* Seconds elapsed on CLOCK_MONOTONIC since the previous call (first: since install). */
double ticker_elapsed(void);

/* Wall-clock "HH:MM:SS" into buf. */
void ticker_timestamp(char *buf, int len);

#endif /* BHSCOPE_TICKER_H */
