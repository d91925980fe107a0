// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/interval_loop.h"
#include "lib/stdout_check.h"
#include "lib/ticker.h"

static void snap_free(const struct interval_source *src, void *snap)
{
	if (!snap)
		return;
	src->free(snap);
	free(snap);
}

int interval_loop(const struct cli_common *opt,
		  const struct interval_source *src)
{
	void *prev = NULL, *cur;
	bool final = false;
	int err = 0;

	for (long n = 1; !err && !final; n++) {
		bool more = ticker_wait(opt->interval_s);

		cur = calloc(1, src->snap_size);
		err = cur ? src->read(src->ctx, cur) : -ENOMEM;
		final = !more || (opt->count && n >= opt->count);
		if (!err)
			err = src->report(src->ctx, cur, prev,
					  ticker_elapsed(), final);
		if (!err && (fflush(stdout) || ferror(stdout))) {
			stdout_check_note(errno);
			err = INTERVAL_LOOP_OUTPUT_FAILED;
		}
		snap_free(src, prev);
		prev = cur;
	}
	snap_free(src, prev);
	return err;
}
