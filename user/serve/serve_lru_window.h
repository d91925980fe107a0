/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bhscope serve --lru-duty: the LRU's lookup probes for a window in every
 * period, so that a fleet can leave serve on for good at a fraction of
 * their cost, beside the hits-only tracepoint that runs throughout.
 *
 * A thread opens a tracer session of its own at each window's start
 * (lru_session_open(), the lookup hooks only), reads it at the window's
 * end and closes it. So each window's figures are those of a whole
 * session, exact as any (unsynced and lost say what it could not prove),
 * and nothing of it runs between windows. The last complete window is
 * kept for the scrapes; a window that could not start, or whose lookup
 * changed owner, is counted as failed with its reason.
 */
#ifndef BHSCOPE_SERVE_LRU_WINDOW_H
#define BHSCOPE_SERVE_LRU_WINDOW_H

#include <stdint.h>

#include "lru/lru_hooks.h"
#include "lru/lru_snapshot.h"

struct serve_lru_window;

struct serve_lru_window_last {
	uint64_t complete;	/* windows read whole */
	uint64_t failed;	/* windows that could not start or hold */
	double seconds;		/* the last complete one: attached to read */
	double end_time;	/* its read, Unix time */
	struct lru_snapshot snap; /* its figures; no hooks before the first */
	char why[400];		/* why the last window failed; "" if it held */
};

/*
 * Starts the thread: a window of window_ms every period_ms, the first at
 * once, each a session opened with o (its mode auto, lookups only). NULL,
 * with errno, if it cannot.
 */
struct serve_lru_window *serve_lru_window_start(const struct lru_load_opts *o,
						unsigned int window_ms,
						unsigned int period_ms);

/* Stops it (a window in progress is closed, unread); NULL is fine. */
void serve_lru_window_stop(struct serve_lru_window *w);

/* The last window, held until serve_lru_window_unlock(). */
const struct serve_lru_window_last *
serve_lru_window_lock(struct serve_lru_window *w);
void serve_lru_window_unlock(struct serve_lru_window *w);

#endif /* BHSCOPE_SERVE_LRU_WINDOW_H */
