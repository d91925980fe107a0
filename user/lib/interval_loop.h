/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one loop of every live report (bhscope jbd2, bhscope lru): wait for
 * the interval, read the tracer's cumulative counters into a snapshot,
 * report the difference from the previous one, until COUNT reports or
 * SIGINT/SIGTERM (the interval then ends early and its report is the
 * final one). Counters are never reset under a running probe.
 */
#ifndef BHSCOPE_INTERVAL_LOOP_H
#define BHSCOPE_INTERVAL_LOOP_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/cli.h"

/* What the loop returns when standard output cannot be written. */
#define INTERVAL_LOOP_OUTPUT_FAILED	1

struct interval_source {
	void *ctx;
	size_t snap_size;	/* bytes of one snapshot */
	/* Reads the counters now into snap (zeroed). 0 or a negative errno. */
	int (*read)(void *ctx, void *snap);
	/*
	 * Reports the interval from prev (NULL for the first one: since
	 * attach) to cur, elapsed_s long, on stdout. 0, a negative errno, or
	 * INTERVAL_LOOP_OUTPUT_FAILED.
	 */
	int (*report)(void *ctx, const void *cur, const void *prev,
		      double elapsed_s, bool final);
	/* Frees what read() put in snap (the loop frees snap itself). */
	void (*free)(void *snap);
};

/*
 * Runs the loop with opt's interval and count (ticker_start()
 * first). Returns 0, the first negative errno of read or report, or
 * INTERVAL_LOOP_OUTPUT_FAILED as soon as a report cannot be written (a
 * full disk, a closed pipe): main's stdout check then says why.
 */
int interval_loop(const struct cli_common *opt,
		  const struct interval_source *src);

#endif /* BHSCOPE_INTERVAL_LOOP_H */
