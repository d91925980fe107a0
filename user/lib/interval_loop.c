// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/interval_loop.h"
#include "lib/stdout_check.h"
#include "lib/ticker.h"

int interval_loop(const struct cli_common *opt,
		  const struct interval_source *src)
{
	void *prev = NULL, *cur;
	bool final = false;
	int err = 0;

	for (long n = 1; !err && !final; n++) {
		bool more = ticker_wait(opt->interval_s);

		cur = NULL;
		err = src->read(src->ctx, &cur);
		final = !more || (opt->count && n >= opt->count);
		if (!err)
			err = src->report(src->ctx, cur, prev,
					  ticker_elapsed(), final);
		if (!err && (fflush(stdout) || ferror(stdout))) {
			stdout_check_note(errno);
			err = INTERVAL_LOOP_OUTPUT_FAILED;
		}
		if (prev)
			src->free(prev);
		prev = cur;
	}
	if (prev)
		src->free(prev);
	return err;
}
