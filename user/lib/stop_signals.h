/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SIGINT, SIGTERM and SIGHUP as a request to stop: a flag the commands
 * test, and waits that a stop always ends. A stop must never be lost in
 * the gap between a test of the flag and a blocking call: code that waits
 * blocks the signals (stop_signals_block()), tests the flag, and sleeps in
 * ppoll() with the mask it was given back (waiting), which unblocks them
 * atomically.
 */
#ifndef BHSCOPE_STOP_SIGNALS_H
#define BHSCOPE_STOP_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

/*
 * Installs the handlers (without SA_RESTART: a blocking call they land in
 * returns). SIGHUP only if it is not ignored, so that nohup keeps working.
 */
void stop_signals_install(void);

/* True once a stop signal arrived. */
bool stop_signals_requested(void);

/*
 * Blocks the stop signals in the calling thread (old: the mask before;
 * waiting, if not NULL: old without them, to sleep with), and puts the
 * mask back. A thread created in between inherits the block, so the
 * signals reach the thread that waits for them; one that does not block
 * them could take one while that thread has them blocked.
 */
void stop_signals_block(sigset_t *old, sigset_t *waiting);
void stop_signals_restore(const sigset_t *old);

/*
 * In a child forked with the stop signals blocked, before exec: their
 * handlers back to the default, then the mask back to old. A stop sent
 * to the child before this is pending, and then ends it, instead of
 * setting a flag of the parent's copy that exec throws away.
 */
void stop_signals_child_reset(const sigset_t *old);

#endif /* BHSCOPE_STOP_SIGNALS_H */
