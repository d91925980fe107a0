// SPDX-License-Identifier: GPL-2.0
/*
 * Writing the tunables: bhtune's parameters, and ext4's by a remount;
 * tunables_apply() and tunables_restore() for tune and sweep.
 */
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "lib/tunables.h"
#include "lib/tunables_lock.h"

int tunables_bhtune_set(const char *name, const char *value)
{
	char path[512];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", BHTUNE_PARAMS_DIR, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	/* The module validates: a refused value fails the write itself. */
	n = write(fd, value, strlen(value));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

int tunables_bhtune_set_long(const char *name, long value)
{
	char text[32];

	snprintf(text, sizeof(text), "%ld", value);
	return tunables_bhtune_set(name, text);
}

/* Writes a, then b; if b is refused, a gets its old value back. */
static int set_two(const char *a, long va, const char *b, long vb)
{
	long old;
	int err;

	if (tunables_bhtune_get(a, &old))
		old = -1;
	err = tunables_bhtune_set_long(a, va);
	if (err)
		return err;
	err = tunables_bhtune_set_long(b, vb);
	if (err)
		tunables_bhtune_set_long(a, old);
	return err;
}

int tunables_bhtune_batch_set(long min_us, long max_us)
{
	int err = set_two("batch_max_us", max_us, "batch_min_us", min_us);

	if (err == -EINVAL)
		err = set_two("batch_min_us", min_us, "batch_max_us", max_us);
	return err;
}

void tunables_journal_options(long min_us, long max_us, char *buf, size_t len)
{
	snprintf(buf, len, "min_batch_time=%ld,max_batch_time=%ld", min_us,
		 max_us);
}

int tunables_batch_check(long min_us, long max_us, char *why, size_t len)
{
	if (min_us < 0 || min_us > BATCH_US_MAX || max_us < 0 ||
	    max_us > BATCH_US_MAX) {
		snprintf(why, len, "batch times must be 0..%d us (min %ld, max %ld)",
			 BATCH_US_MAX, min_us, max_us);
		return -1;
	}
	if (min_us > max_us) {
		snprintf(why, len, "min batch time %ld us is above the max, %ld us: jbd2 would ignore it",
			 min_us, max_us);
		return -1;
	}
	return 0;
}

/* Whether the mount on mnt (the last one there) has option opt. */
static bool mounted_with(const char *mnt, const char *opt)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;
	bool has = false;

	if (!f)
		return false;
	while ((m = getmntent(f)))
		if (!strcmp(m->mnt_dir, mnt))
			has = hasmntopt(m, opt) != NULL;
	endmntent(f);
	return has;
}

/*
 * The flags a remount must repeat, as mount(8) does: MS_REMOUNT replaces
 * the mount's own (nosuid, noatime, ...) and the filesystem's read-only,
 * sync and lazytime flags with those it is given. statvfs reports all but
 * lazytime, as ST_ flags.
 */
static int mount_flags(const char *mnt, unsigned long *flags)
{
	static const struct {
		unsigned long st, ms;
	} kept[] = {
		{ ST_RDONLY, MS_RDONLY },	{ ST_NOSUID, MS_NOSUID },
		{ ST_NODEV, MS_NODEV },		{ ST_NOEXEC, MS_NOEXEC },
		{ ST_SYNCHRONOUS, MS_SYNCHRONOUS },
		{ ST_NOATIME, MS_NOATIME },	{ ST_NODIRATIME, MS_NODIRATIME },
		{ ST_RELATIME, MS_RELATIME },
	};
	struct statvfs st;

	if (statvfs(mnt, &st))
		return -errno;
	*flags = 0;
	for (size_t i = 0; i < sizeof(kept) / sizeof(*kept); i++)
		if (st.f_flag & kept[i].st)
			*flags |= kept[i].ms;
	if (mounted_with(mnt, "lazytime"))
		*flags |= MS_LAZYTIME;
	return 0;
}

int tunables_journal_remount(const char *mnt, long min_us, long max_us,
			     char *err, size_t errlen)
{
	unsigned long flags = 0;
	char data[128], why[256];
	int ret;

	tunables_journal_options(min_us, max_us, data, sizeof(data));
	if (tunables_batch_check(min_us, max_us, why, sizeof(why))) {
		snprintf(err, errlen, "refused for %s: %s", mnt, why);
		return -1;
	}
	ret = mount_flags(mnt, &flags);
	/* ext4 re-reads the options named and keeps the others. */
	if (!ret && mount(NULL, mnt, NULL, MS_REMOUNT | MS_SILENT | flags, data))
		ret = -errno;
	if (ret) {
		snprintf(err, errlen, "remount of %s with %s failed: %s", mnt,
			 data, strerror(-ret));
		return -1;
	}
	return 0;
}

/* Why bhtune refused a write of name, for the one-line error. */
static const char *refusal(const char *name, int err)
{
	if (err == -ENODEV)
		return "no ext4 journal on that device";
	if (err != -EINVAL)
		return strerror(-err);
	if (strcmp(name, "batch_min_us") && strcmp(name, "batch_max_us"))
		return "out of range";
	return "out of range, or a min above a journal's max batch time (the kernel log names it)";
}

static int bhtune_write(const char *name, long value, char *err,
			size_t errlen)
{
	int e = tunables_bhtune_set_long(name, value);

	if (e)
		snprintf(err, errlen, "bhtune refused %s=%ld: %s", name, value,
			 refusal(name, e));
	return e ? -1 : 0;
}

static int bhtune_batch(long min_us, long max_us, char *err, size_t errlen)
{
	int e;

	if (min_us == TUNABLES_KEEP || max_us == TUNABLES_KEEP)
		return min_us != TUNABLES_KEEP ?
		       bhtune_write("batch_min_us", min_us, err, errlen) :
		       bhtune_write("batch_max_us", max_us, err, errlen);
	e = tunables_bhtune_batch_set(min_us, max_us);
	if (e)
		snprintf(err, errlen,
			 "bhtune refused batch_min_us=%ld batch_max_us=%ld: %s",
			 min_us, max_us, refusal("batch_min_us", e));
	return e ? -1 : 0;
}

int tunables_apply(const struct tunables_values *v, const char *mnt,
		   char *err, size_t errlen)
{
	int e;

	if (v->batch_dev && (e = tunables_bhtune_set("batch_dev", v->batch_dev))) {
		snprintf(err, errlen, "bhtune refused batch_dev=%s: %s",
			 v->batch_dev, refusal("batch_dev", e));
		return -1;
	}
	if (v->lru && bhtune_write("lru_size", v->lru_size, err, errlen))
		return -1;
	if (!v->batch)
		return 0;
	if (!mnt)
		return bhtune_batch(v->min_us, v->max_us, err, errlen);
	if (v->min_us == TUNABLES_KEEP || v->max_us == TUNABLES_KEEP) {
		snprintf(err, errlen, "internal: a remount of %s needs both batch times",
			 mnt);
		return -1;
	}
	return tunables_journal_remount(mnt, v->min_us, v->max_us, err, errlen);
}

int tunables_restore(const struct tunables_claim *c, const char *mnt,
		     struct tunables_saved *done, char *err, size_t errlen)
{
	struct tunables_saved s;
	int found = tunables_lock_saved(c, &s, err, errlen);

	if (found <= 0)
		return found;
	if ((c->bhtune && !tunables_bhtune_loaded()) ||
	    (!c->bhtune && (!mnt || !mnt[0]))) {
		tunables_lock_drop(c);
		return 0;
	}
	if (c->bhtune ? tunables_apply(&s.v, NULL, err, errlen) :
	    s.v.batch && tunables_apply(&s.v, mnt, err, errlen))
		return -1;
	tunables_lock_drop(c);
	if (done)
		*done = s;
	return 1;
}
