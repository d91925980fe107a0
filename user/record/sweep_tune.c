// SPDX-License-Identifier: GPL-2.0
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "record/record_tunables.h"
#include "record/sweep_tune.h"

static int bhtune_write(const char *name, long v)
{
	int err = bhtune_param_set_long(name, v);

	if (err)
		fprintf(stderr, "bhscope: setting bhtune %s to %ld failed: %s\n",
			name, v, strerror(-err));
	return err ? -1 : 0;
}

static int remount(const struct sweep_tune *st, long min_us, long max_us)
{
	char err[PATH_MAX + 256];

	if (!journal_remount_batch(st->target.mount_point, min_us, max_us,
				   err, sizeof(err)))
		return 0;
	fprintf(stderr, "bhscope: %s\n", err);
	return -1;
}

int sweep_tune_prepare(struct sweep_tune *st, const char *dir, bool lru,
		       bool batch, char *err, size_t errlen)
{
	struct journal_tunables j;
	struct bhtune_params b;

	memset(st, 0, sizeof(*st));
	if (record_target_find(dir, &st->target, err, errlen))
		return -1;
	record_tunables_read(&st->target, &j, &b);
	if (lru && b.lru_size == BHTUNE_ABSENT) {
		snprintf(err, errlen,
			 "--lru-size needs bhtune.ko, which is not loaded (no %s/lru_size); build kmod/ and insmod bhtune.ko",
			 BHTUNE_PARAMS_DIR);
		return -1;
	}
	st->orig_lru = b.lru_size;
	if (!batch)
		return 0;
	st->batch_by_bhtune = b.batch_min_us != BHTUNE_ABSENT &&
			      b.batch_max_us != BHTUNE_ABSENT;
	if (st->batch_by_bhtune) {
		st->orig_min = b.batch_min_us;
		st->orig_max = b.batch_max_us;
		return 0;
	}
	if (strcmp(st->target.fstype, "ext4")) {
		snprintf(err, errlen,
			 "batch times need bhtune.ko or an ext4 target to remount, and %s is %s",
			 st->target.mount_point, st->target.fstype);
		return -1;
	}
	st->orig_min = j.min_batch_us;
	st->orig_max = j.max_batch_us;
	return 0;
}

/*
 * bhtune refuses min > max whenever both are set: clear min first (-1 is
 * always accepted), then set max, then min.
 */
static int bhtune_batch(long min_us, long max_us)
{
	return bhtune_write("batch_min_us", -1) ?:
	       bhtune_write("batch_max_us", max_us) ?:
	       bhtune_write("batch_min_us", min_us);
}

static int apply_batch(struct sweep_tune *st, long min_us, long max_us)
{
	long min = min_us >= 0 ? min_us : st->orig_min;
	long max = max_us >= 0 ? max_us : st->orig_max;
	char why[128];

	if (!st->batch_by_bhtune) {
		if (batch_times_check(min, max, why, sizeof(why))) {
			fprintf(stderr, "bhscope: refused for %s: %s\n",
				st->target.mount_point, why);
			return -1;
		}
		/* A refused remount changed nothing: there is nothing to restore. */
		if (remount(st, min, max))
			return -1;
		st->batch_set = true;
		return 0;
	}
	st->batch_set = true;	/* one of its writes may pass before one fails */
	return bhtune_batch(min, max);	/* bhtune.ko refuses min > max itself */
}

int sweep_tune_apply(struct sweep_tune *st, long lru_size, long min_us,
		     long max_us)
{
	if (lru_size >= 0) {
		if (bhtune_write("lru_size", lru_size))
			return -1;	/* refused: still the original */
		st->lru_set = true;
	}
	if (min_us >= 0 || max_us >= 0)
		return apply_batch(st, min_us, max_us);
	return 0;
}

int sweep_tune_restore(struct sweep_tune *st)
{
	int ret = 0;

	if (st->lru_set && !bhtune_write("lru_size", st->orig_lru))
		st->lru_set = false;
	if (st->batch_set) {
		ret = st->batch_by_bhtune ?
			bhtune_batch(st->orig_min, st->orig_max) :
			remount(st, st->orig_min, st->orig_max);
		if (!ret)
			st->batch_set = false;
	}
	return ret || st->lru_set ? -1 : 0;
}
