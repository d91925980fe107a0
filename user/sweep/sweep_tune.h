/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Setting a sweep's tunables and putting them back: the LRU size through
 * bhtune.ko; the batch times through bhtune when loaded, else by remounting
 * the target ext4 with min_batch_time/max_batch_time. The original values
 * are restored at the end, on failure and after Ctrl-C; the journal (or
 * bhtune.ko's parameters) is claimed for the sweep's whole run, and its
 * originals saved where a kill -9 cannot lose them (lib/tunables_lock).
 */
#ifndef BHSCOPE_SWEEP_TUNE_H
#define BHSCOPE_SWEEP_TUNE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/tunables_lock.h"
#include "record/record_target.h"

struct sweep_tune {
	struct record_target target;
	bool batch_by_bhtune;		/* else by remount */
	long orig_min, orig_max;	/* bhtune's, or the filesystem's */
	struct tunables_claim claim;	/* held from prepare to the end */
	bool saved;			/* its state file is ours: to put back */
};

/* A sweep_tune with nothing claimed or changed (before prepare). */
#define SWEEP_TUNE_INIT	{ .claim = TUNABLES_CLAIM_NONE }

/*
 * Checks the tunables can be set (bhtune loaded for the LRU size; bhtune
 * or an ext4 target for the batch times), claims them (refused while
 * another tuner holds them), puts back what a killed tuner left changed,
 * and saves their values, in memory and in the claim's state file. Returns
 * 0 or -1 with a one-line reason in err.
 */
int sweep_tune_prepare(struct sweep_tune *st, const char *dir, bool lru,
		       bool batch, char *err, size_t errlen);

/* Sets what is >= 0 (-1: leave as is). 0, or -1 after a one-line error. */
int sweep_tune_apply(struct sweep_tune *st, long lru_size, long min_us,
		     long max_us);

/*
 * Puts back the originals it saved (tunables_restore(), as for a sweep
 * killed first), then removes the state file (kept when something could
 * not be put back, for the next tuner); safe to call more than once.
 */
int sweep_tune_restore(struct sweep_tune *st);

#endif /* BHSCOPE_SWEEP_TUNE_H */
