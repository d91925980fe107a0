// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope tune set and reset: through bhtune.ko when it is loaded (its
 * parameters claimed), else by remounting each ext4 (each journal
 * claimed); what a killed tuner left changed is put back first. Every
 * write is tunables_apply()'s, every putting back tunables_restore()'s.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "lib/errmsg.h"
#include "lib/tunables.h"
#include "lib/tunables_lock.h"
#include "tune/tune_change.h"

/* One setting through bhtune, said on stdout when it holds. */
static int bhtune_one(const struct tunables_values *v,
		      const struct tune_setting *s)
{
	char err[256];

	if (tunables_apply(v, NULL, err, sizeof(err))) {
		errmsg("%s", err);
		return 1;
	}
	printf("%s = %s (bhtune)\n", s->name, s->value);
	return 0;
}

static int set_with_bhtune(const struct tune_setting *s, int n)
{
	const struct tune_setting *min = NULL, *max = NULL;
	struct tunables_values v = { .batch = true };
	char err[256];

	/* batch_dev first, so the batch times apply to the chosen journal. */
	for (int i = 0; i < n; i++)
		if (!strcmp(s[i].name, "batch_dev") &&
		    bhtune_one(&(struct tunables_values){ .batch_dev = s[i].value },
			       &s[i]))
			return 1;
	for (int i = 0; i < n; i++) {
		if (!strcmp(s[i].name, "batch_min_us"))
			min = &s[i];
		else if (!strcmp(s[i].name, "batch_max_us"))
			max = &s[i];
		else if (!strcmp(s[i].name, "lru_size") &&
			 bhtune_one(&(struct tunables_values){
					.lru = true, .lru_size = s[i].num }, &s[i]))
			return 1;
	}
	if (!min && !max)
		return 0;
	if (!min || !max)
		return bhtune_one(&(struct tunables_values){ .batch = true,
			.min_us = min ? min->num : TUNABLES_KEEP,
			.max_us = max ? max->num : TUNABLES_KEEP }, min ? min : max);
	v.min_us = min->num;
	v.max_us = max->num;
	if (tunables_apply(&v, NULL, err, sizeof(err))) {
		errmsg("%s", err);
		return 1;
	}
	printf("%s = %s (bhtune)\n%s = %s (bhtune)\n", min->name, min->value,
	       max->name, max->value);
	return 0;
}

/* Whether remount_batch() touches journal j: an ext4 it can remount. */
static bool remountable(const struct tune_request *o,
			const struct journal_tunables *j)
{
	return (!o->dev || !strcmp(o->dev, j->dev)) &&
	       j->from == TUNABLES_EXT4_OPTIONS && j->mnt[0];
}

/* Claims journal j's batch times for this command (one tuner at a time). */
static int claim_journal(const struct tune_request *o,
			 const struct journal_tunables *j,
			 struct tunables_claim *c)
{
	char by[32], err[512];
	struct stat st;

	snprintf(by, sizeof(by), "tune %s", o->action);
	if (stat(j->mnt, &st)) {
		errmsg("%s: %s", j->mnt, strerror(errno));
		return -1;
	}
	if (!tunables_lock_journal(c, major(st.st_dev), minor(st.st_dev),
				   j->dev, by, err, sizeof(err)))
		return 0;
	errmsg("%s", err);
	return -1;
}

/*
 * Without bhtune: remount each (or the -d) ext4 with the batch times (-1:
 * that journal's own). reset: ext4's defaults, or where a killed tuner
 * left its originals saved, those. Every journal is checked and claimed
 * before any is changed: a refusal leaves all of them as they were.
 */
static int remount_batch(const struct tune_request *o, long min_us, long max_us,
			 bool reset)
{
	struct tunables_claim *claims;
	struct journal_tunables *js;
	int n = tunables_journals_list(&js), done = 0, rc = 0;

	if (n < 0) {
		errmsg("cannot list /proc/fs/jbd2: %s", strerror(-n));
		return 1;
	}
	claims = calloc(n ? n : 1, sizeof(*claims));
	if (!claims) {
		free(js);
		errmsg("out of memory");
		return 1;
	}
	for (int i = 0; i < n; i++)
		claims[i] = (struct tunables_claim)TUNABLES_CLAIM_NONE;
	for (int i = 0; i < n && !rc; i++) {
		long min = min_us >= 0 ? min_us : js[i].min_batch_us;
		long max = max_us >= 0 ? max_us : js[i].max_batch_us;
		char why[128];

		if (!remountable(o, &js[i]))
			continue;
		if (tunables_batch_check(min, max, why, sizeof(why))) {
			errmsg("refused for %s (%s): %s",
			       js[i].mnt, js[i].dev, why);
			rc = 1;
		}
	}
	for (int i = 0; i < n && !rc; i++)
		if (remountable(o, &js[i]) && claim_journal(o, &js[i], &claims[i]))
			rc = 1;
	for (int i = 0; i < n && !rc; i++) {
		struct tunables_values v = { .batch = true };
		struct tunables_saved saved;
		char data[128], err[1024];
		int r;

		if (!remountable(o, &js[i]))
			continue;
		r = tunables_restore(&claims[i], js[i].mnt, &saved, err,
				     sizeof(err));
		if (r < 0) {
			errmsg("%s", err);
			rc = 1;
			continue;
		}
		if (r > 0 && reset) {
			tunables_journal_options(saved.v.min_us, saved.v.max_us,
						 data,
						 sizeof(data));
			printf("%s (%s): %s (remount: as before the bhscope %s, pid %ld, that ended before it could put them back)\n",
			       js[i].mnt, js[i].dev, data, saved.by, saved.pid);
			done++;
			continue;
		}
		if (r > 0) {
			tunables_lock_note(&claims[i], &saved);
			tunables_journal_read(js[i].dev, &js[i]);
		}
		v.min_us = min_us >= 0 ? min_us : js[i].min_batch_us;
		v.max_us = max_us >= 0 ? max_us : js[i].max_batch_us;
		if (tunables_apply(&v, js[i].mnt, err, sizeof(err))) {
			errmsg("%s", err);
			rc = 1;
			continue;
		}
		tunables_journal_options(v.min_us, v.max_us, data,
					 sizeof(data));
		printf("%s (%s): %s (remount)\n", js[i].mnt, js[i].dev, data);
		done++;
	}
	if (!done && !rc) {
		errmsg("no mounted ext4 journal%s%s to set",
		       o->dev ? " on " : "", o->dev ? o->dev : "");
		rc = 1;
	}
	for (int i = 0; i < n; i++)
		tunables_lock_release(&claims[i]);
	free(claims);
	free(js);
	return rc;
}

static int set_by_remount(const struct tune_request *o, const struct tune_setting *s, int n)
{
	long min_us = -1, max_us = -1;
	const char *why = tunables_bhtune_unavailable();

	for (int i = 0; i < n; i++) {
		if (!strcmp(s[i].name, "lru_size") || !strcmp(s[i].name, "batch_dev")) {
			errmsg("%s needs bhtune.ko, which is not loaded: %s",
			       s[i].name, why ? why : "insmod kmod/bhtune.ko first");
			return 1;
		}
		if (!strcmp(s[i].name, "batch_min_us"))
			min_us = s[i].num;
		else
			max_us = s[i].num;
	}
	return remount_batch(o, min_us, max_us, false);
}

/*
 * With bhtune: its parameters claimed (one tuner at a time), what a killed
 * tuner left changed put back, then reset (unless that put back was it:
 * the values before that tuner) or set.
 */
static int change_bhtune(const struct tune_request *o, const struct tune_setting *s, int n)
{
	bool reset = !strcmp(o->action, "reset");
	struct tunables_claim c;
	struct tunables_saved saved;
	char by[32], err[512], what[128];
	int r, ret = 1;

	snprintf(by, sizeof(by), "tune %s", o->action);
	if (tunables_lock_bhtune(&c, by, err, sizeof(err))) {
		errmsg("%s", err);
		return 1;
	}
	r = tunables_restore(&c, NULL, &saved, err, sizeof(err));
	if (r < 0) {
		errmsg("%s", err);
	} else if (r > 0 && reset) {
		tunables_lock_describe(&saved, what, sizeof(what));
		printf("bhtune: %s put back, as before the bhscope %s (pid %ld) that ended before it could\n",
		       what, saved.by, saved.pid);
		ret = 0;
	} else if (reset) {
		int e = tunables_bhtune_set("reset", "1");

		if (e)
			errmsg("bhtune reset failed: %s", strerror(-e));
		else
			printf("bhtune: every journal back to its filesystem's batch times\n");
		ret = e ? 1 : 0;
	} else {
		if (r > 0)
			tunables_lock_note(&c, &saved);
		ret = set_with_bhtune(s, n);
	}
	tunables_lock_release(&c);
	return ret;
}

int tune_change(const struct tune_request *o, const struct tune_setting *s,
		int n)
{
	if (tunables_bhtune_loaded())
		return change_bhtune(o, s, n);
	if (!strcmp(o->action, "reset"))
		return remount_batch(o, JBD2_DEFAULT_MIN_BATCH_US,
				     JBD2_DEFAULT_MAX_BATCH_US, true);
	return set_by_remount(o, s, n);
}
