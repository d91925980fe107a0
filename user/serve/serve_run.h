/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bhscope serve's engine, under its command (cmd_serve() parses): starts
 * the sources, serves /metrics and/or the textfile, ticks every interval
 * (devices pruned, stale or missing hooks retried, the textfile
 * rewritten) and reloads on SIGHUP, until SIGINT or SIGTERM.
 */
#ifndef BHSCOPE_SERVE_RUN_H
#define BHSCOPE_SERVE_RUN_H

#include <stdbool.h>

#include "serve/serve_config.h"

/* --lru-duty without its WINDOW/PERIOD, in seconds. */
#define SERVE_LRU_DUTY_DEFAULT	"2/60"

/* What the command line asked for. */
struct serve_opts {
	const char *listen;		/* ADDR:PORT, or "none" */
	const char *config;		/* --config FILE, or NULL */
	struct serve_config cli;	/* the settings given as options */
	unsigned int cli_set;		/* which: SERVE_SET_* */
	bool want_jbd2;			/* neither: every source */
	bool want_lru;
	unsigned int lru_timing;	/* --lru-timing N: 1 lookup in N; 0 none */
	bool lru_timing_set;		/* given: else --lru-whatif's default */
	unsigned int lru_whatif;	/* --lru-whatif N: sizes up to N; 0 none */
	unsigned int lru_window_ms;	/* --lru-duty: 0, or a window of ms */
	unsigned int lru_period_ms;	/* in every period of ms */
	bool bpf_stats;
	bool probes;			/* print the probes and exit */
};

/*
 * Serves with cfg (o's configuration, loaded) until a stop signal, or
 * with o->probes prints each probe and whether tracefs is needed. Returns
 * the exit status.
 */
int serve_run(const struct serve_opts *o, const struct serve_config *cfg);

#endif /* BHSCOPE_SERVE_RUN_H */
