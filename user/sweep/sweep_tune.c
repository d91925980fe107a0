// SPDX-License-Identifier: GPL-2.0
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "record/record_tunables.h"
#include "sweep/sweep_tune.h"

static int bhtune_write(const char *name, long v)
{
	int err = bhtune_param_set_long(name, v);

	if (err)
		fprintf(stderr, "bhscope: setting bhtune %s to %ld failed: %s\n",
			name, v, strerror(-err));
	return err ? -1 : 0;
}

static int bhtune_batch(long min_us, long max_us)
{
	int err = bhtune_batch_set(min_us, max_us);

	if (err)
		fprintf(stderr, "bhscope: setting bhtune batch_min_us, batch_max_us to %ld, %ld failed: %s\n",
			min_us, max_us, strerror(-err));
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

/*
 * Claims what the sweep changes (bhtune's parameters, or the target's
 * journal), and puts back what a killed tuner left changed there.
 */
static int claim(struct sweep_tune *st, bool by_bhtune, char *err,
		 size_t errlen)
{
	struct record_target *t = &st->target;
	struct tunables_saved done;
	int r;

	if (by_bhtune ? tunables_claim_bhtune(&st->claim, "sweep", err, errlen) :
	    tunables_claim_journal(&st->claim, t->major, t->minor, t->device,
				   "sweep", err, errlen))
		return -1;
	r = tunables_saved_restore(&st->claim, t->mount_point, &done, err,
				   errlen);
	if (r > 0)
		tunables_saved_note(&st->claim, &done);
	return r < 0 ? -1 : 0;
}

int sweep_tune_prepare(struct sweep_tune *st, const char *dir, bool lru,
		       bool batch, char *err, size_t errlen)
{
	struct tunables_saved saved = {};
	struct journal_tunables j;
	struct bhtune_params b;

	memset(st, 0, sizeof(*st));
	st->claim.fd = st->claim.dirfd = -1;
	if (record_target_find(dir, &st->target, err, errlen))
		return -1;
	record_tunables_read(&st->target, &j, &b);
	if (lru && b.lru_size == BHTUNE_ABSENT) {
		snprintf(err, errlen,
			 "--lru-size needs bhtune.ko, which is not loaded (no %s/lru_size); build kmod/ and insmod bhtune.ko",
			 BHTUNE_PARAMS_DIR);
		return -1;
	}
	st->batch_by_bhtune = b.batch_min_us != BHTUNE_ABSENT &&
			      b.batch_max_us != BHTUNE_ABSENT;
	if (batch && !st->batch_by_bhtune && strcmp(st->target.fstype, "ext4")) {
		snprintf(err, errlen,
			 "batch times need bhtune.ko or an ext4 target to remount, and %s is %s",
			 st->target.mount_point, st->target.fstype);
		return -1;
	}
	if (!lru && !batch)
		return 0;
	/* one claim: bhtune's batch parameters come with its lru_size */
	if (lru && batch && !st->batch_by_bhtune) {
		snprintf(err, errlen,
			 "this bhtune.ko has lru_size but no batch_min_us, batch_max_us: load the bhtune.ko built with this bhscope");
		return -1;
	}
	if (claim(st, lru || st->batch_by_bhtune, err, errlen))
		return -1;
	/* the originals: read again, after anything put back */
	record_tunables_read(&st->target, &j, &b);
	st->orig_lru = b.lru_size;
	saved.lru = lru;
	saved.lru_size = b.lru_size;
	if (batch) {
		saved.batch = true;
		st->orig_min = st->batch_by_bhtune ? b.batch_min_us : j.min_batch_us;
		st->orig_max = st->batch_by_bhtune ? b.batch_max_us : j.max_batch_us;
		saved.min_us = st->orig_min;
		saved.max_us = st->orig_max;
	}
	if (tunables_saved_write(&st->claim, &saved, "sweep", err, errlen))
		return -1;
	st->saved = true;
	return 0;
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
	/* a refusal puts the old pair back; restored at the end all the same */
	st->batch_set = true;
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
	if (ret || st->lru_set)
		return -1;
	/* all as found: nothing for a later tuner to put back */
	if (st->saved)
		tunables_saved_drop(&st->claim);
	st->saved = false;
	return 0;
}
