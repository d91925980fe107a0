/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bhscope tune set and reset: the tunables written through bhtune.ko, or
 * the batch times by remounting ext4, one tuner at a time.
 */
#ifndef BHSCOPE_TUNE_CHANGE_H
#define BHSCOPE_TUNE_CHANGE_H

/* What tune was asked to do. */
struct tune_request {
	const char *action;	/* "set" or "reset" */
	const char *dev;	/* only this journal ("loop0"), or NULL */
};

/* NAME=VALUE, parsed and checked by the command. */
struct tune_setting {
	const char *name;	/* lru_size, batch_min_us, batch_max_us, batch_dev */
	const char *value;	/* as given */
	long num;		/* its number (not batch_dev's) */
};

/*
 * Sets the n settings s, or resets (n is 0): bhtune's batch times back to
 * each journal's own, or without bhtune every journal (o->dev's) back to
 * jbd2's defaults, or to what a killed tuner saved. Says each change on
 * stdout and a failure in one line on stderr. Returns the exit status.
 */
int tune_change(const struct tune_request *o, const struct tune_setting *s,
		int n);

#endif /* BHSCOPE_TUNE_CHANGE_H */
