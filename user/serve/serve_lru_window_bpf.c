// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/errmsg.h"
#include "lib/worker.h"
#include "lru/lru_session.h"
#include "serve/serve_lru_window.h"

struct serve_lru_window {
	struct worker worker;
	struct lru_load_opts opts;
	unsigned int window_ms, period_ms;
	pthread_mutex_t lock;		/* last */
	struct serve_lru_window_last last;
};

/* A window failed for why: counted, and said on stderr when it is new. */
static void window_failed(struct serve_lru_window *w, const char *why)
{
	bool news;

	pthread_mutex_lock(&w->lock);
	w->last.failed++;
	news = strcmp(w->last.why, why);
	snprintf(w->last.why, sizeof(w->last.why), "%s", why);
	pthread_mutex_unlock(&w->lock);
	if (news)
		errmsg("--lru-duty: a window failed: %s", why);
}

/* The window read whole: it replaces the last one. */
static void window_held(struct serve_lru_window *w, struct lru_snapshot *snap,
			double seconds)
{
	struct lru_snapshot old;

	pthread_mutex_lock(&w->lock);
	old = w->last.snap;
	w->last.snap = *snap;
	w->last.complete++;
	w->last.seconds = seconds;
	w->last.end_time = clock_s(CLOCK_REALTIME);
	w->last.why[0] = 0;
	pthread_mutex_unlock(&w->lock);
	lru_snapshot_free(&old);
}

/* One window: a session attached for window_ms. True if told to stop. */
static bool one_window(struct serve_lru_window *w)
{
	struct lru_snapshot snap = {};
	struct lru_session s;
	char why[sizeof(w->last.why)];
	double t0;
	bool stop;
	int err;

	err = lru_session_open(&s, &w->opts);
	if (err) {
		lru_hooks_why_none(&s.hooks, why, sizeof(why));
		window_failed(w, why);
		return false;
	}
	t0 = clock_s(CLOCK_MONOTONIC);
	stop = worker_sleep(&w->worker, w->window_ms);
	snap.nr_cpus = s.nr_cpus;
	if (!stop)
		err = lru_session_interval(&s, &snap);
	t0 = clock_s(CLOCK_MONOTONIC) - t0;
	lru_session_close(&s);
	if (stop) {
		lru_snapshot_free(&snap);
		return true;
	}
	if (err || snap.hooks.unavailable[0]) {
		snprintf(why, sizeof(why), "%s", err ?
			 "its maps could not be read" : snap.hooks.unavailable);
		window_failed(w, why);
		lru_snapshot_free(&snap);
		return false;
	}
	window_held(w, &snap, t0);
	return false;
}

static void *cycle(void *arg)
{
	struct serve_lru_window *w = arg;
	double start;

	do {
		start = clock_s(CLOCK_MONOTONIC);
		if (one_window(w))
			break;
	} while (!worker_sleep(&w->worker, w->period_ms -
			       (clock_s(CLOCK_MONOTONIC) - start) * 1e3));
	return NULL;
}

struct serve_lru_window *serve_lru_window_start(const struct lru_load_opts *o,
						unsigned int window_ms,
						unsigned int period_ms)
{
	struct serve_lru_window *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return NULL;
	w->opts = *o;
	w->opts.mode = LRU_MODE_AUTO;
	w->opts.lookups_only = true;
	w->opts.quiet = true;
	w->window_ms = window_ms;
	w->period_ms = period_ms;
	pthread_mutex_init(&w->lock, NULL);
	err = worker_start(&w->worker, cycle, w);
	if (!err)
		return w;
	pthread_mutex_destroy(&w->lock);
	free(w);
	errno = -err;
	return NULL;
}

void serve_lru_window_stop(struct serve_lru_window *w)
{
	if (!w)
		return;
	worker_stop(&w->worker);
	lru_snapshot_free(&w->last.snap);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

const struct serve_lru_window_last *
serve_lru_window_lock(struct serve_lru_window *w)
{
	pthread_mutex_lock(&w->lock);
	return &w->last;
}

void serve_lru_window_unlock(struct serve_lru_window *w)
{
	pthread_mutex_unlock(&w->lock);
}
