// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "record/record_exec.h"
#include "record/record_tunables.h"
#include "record/sweep_tune.h"
#include "lib/tunables.h"

static int bhtune_write(const char *name, long v)
{
	char value[32];
	int err;

	snprintf(value, sizeof(value), "%ld", v);
	err = bhtune_param_set(name, value);
	if (err)
		fprintf(stderr, "bhscope: setting bhtune %s to %ld failed: %s\n",
			name, v, strerror(-err));
	return err ? -1 : 0;
}

static int remount(const struct sweep_tune *st, long min_us, long max_us)
{
	char opts[128];
	char *argv[] = { "mount", "-o", opts, (char *)st->target.mount_point,
			 NULL };
	struct exec_result r;
	int ret;

	snprintf(opts, sizeof(opts), "remount,min_batch_time=%ld,max_batch_time=%ld",
		 min_us, max_us);
	ret = exec_run(argv, false, &r) || r.exit_status ? -1 : 0;
	if (ret)
		fprintf(stderr, "bhscope: mount -o %s %s failed%s%s\n", opts,
			st->target.mount_point, r.error[0] ? ": " : "", r.error);
	exec_result_free(&r);
	return ret;
}

int sweep_tune_prepare(struct sweep_tune *st, const char *dir, bool lru,
		       bool batch, char *err, size_t errlen)
{
	struct record_tunables t;

	memset(st, 0, sizeof(*st));
	if (record_target_find(dir, &st->target, err, errlen))
		return -1;
	record_tunables_read(&st->target, &t);
	if (lru && !t.bhtune) {
		snprintf(err, errlen,
			 "--lru-size needs bhtune.ko, which is not loaded (no %s/lru_size); build kmod/ and insmod bhtune.ko",
			 BHTUNE_PARAMS_DIR);
		return -1;
	}
	st->orig_lru = t.lru_size;
	if (!batch)
		return 0;
	st->batch_by_bhtune = t.bhtune_min_us != BHTUNE_ABSENT &&
			      t.bhtune_max_us != BHTUNE_ABSENT;
	if (st->batch_by_bhtune) {
		st->orig_min = t.bhtune_min_us;
		st->orig_max = t.bhtune_max_us;
		return 0;
	}
	if (strcmp(st->target.fstype, "ext4")) {
		snprintf(err, errlen,
			 "batch times need bhtune.ko or an ext4 target to remount, and %s is %s",
			 st->target.mount_point, st->target.fstype);
		return -1;
	}
	st->orig_min = t.min_batch_us;
	st->orig_max = t.max_batch_us;
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
