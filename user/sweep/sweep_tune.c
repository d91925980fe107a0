// SPDX-License-Identifier: GPL-2.0
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "lib/errmsg.h"
#include "lib/tunables.h"
#include "record/record_tunables.h"
#include "sweep/sweep_tune.h"

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

	if (by_bhtune ? tunables_lock_bhtune(&st->claim, "sweep", err, errlen) :
	    tunables_lock_journal(&st->claim, t->major, t->minor, t->device,
				  "sweep", err, errlen))
		return -1;
	r = tunables_restore(&st->claim, t->mount_point, &done, err, errlen);
	if (r > 0)
		tunables_lock_note(&st->claim, &done);
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
	saved.v.lru = lru;
	saved.v.lru_size = b.lru_size;
	if (batch) {
		saved.v.batch = true;
		st->orig_min = st->batch_by_bhtune ? b.batch_min_us : j.min_batch_us;
		st->orig_max = st->batch_by_bhtune ? b.batch_max_us : j.max_batch_us;
		saved.v.min_us = st->orig_min;
		saved.v.max_us = st->orig_max;
	}
	if (tunables_lock_save(&st->claim, &saved, "sweep", err, errlen))
		return -1;
	st->saved = true;
	return 0;
}

int sweep_tune_apply(struct sweep_tune *st, long lru_size, long min_us,
		     long max_us)
{
	struct tunables_values v = {
		.lru = lru_size >= 0, .lru_size = lru_size,
		.batch = min_us >= 0 || max_us >= 0,
		.min_us = min_us >= 0 ? min_us : st->orig_min,
		.max_us = max_us >= 0 ? max_us : st->orig_max,
	};
	char err[PATH_MAX + 256];

	if (!tunables_apply(&v, st->batch_by_bhtune ? NULL :
			    st->target.mount_point, err, sizeof(err)))
		return 0;
	errmsg("%s", err);
	return -1;
}

int sweep_tune_restore(struct sweep_tune *st)
{
	char err[PATH_MAX + 256];

	/* what it saved before its first change: all of it put back */
	if (!st->saved)
		return 0;
	if (tunables_restore(&st->claim, st->target.mount_point, NULL, err,
			     sizeof(err)) < 0) {
		errmsg("%s", err);
		return -1;
	}
	st->saved = false;
	return 0;
}
