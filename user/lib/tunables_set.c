// SPDX-License-Identifier: GPL-2.0
/* Writing the tunables: bhtune's parameters, and ext4's by a remount. */
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "lib/tunables.h"

int bhtune_param_set(const char *name, const char *value)
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

int bhtune_param_set_long(const char *name, long value)
{
	char text[32];

	snprintf(text, sizeof(text), "%ld", value);
	return bhtune_param_set(name, text);
}

/* Writes a, then b; if b is refused, a gets its old value back. */
static int set_two(const char *a, long va, const char *b, long vb)
{
	long old;
	int err;

	if (bhtune_param_get(a, &old))
		old = -1;
	err = bhtune_param_set_long(a, va);
	if (err)
		return err;
	err = bhtune_param_set_long(b, vb);
	if (err)
		bhtune_param_set_long(a, old);
	return err;
}

int bhtune_batch_set(long min_us, long max_us)
{
	int err = set_two("batch_max_us", max_us, "batch_min_us", min_us);

	if (err == -EINVAL)
		err = set_two("batch_min_us", min_us, "batch_max_us", max_us);
	return err;
}

void journal_batch_options(long min_us, long max_us, char *buf, size_t len)
{
	snprintf(buf, len, "min_batch_time=%ld,max_batch_time=%ld", min_us,
		 max_us);
}

int batch_times_check(long min_us, long max_us, char *why, size_t len)
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

int journal_remount_batch(const char *mnt, long min_us, long max_us,
			  char *err, size_t errlen)
{
	unsigned long flags = 0;
	char data[128], why[256];
	int ret;

	journal_batch_options(min_us, max_us, data, sizeof(data));
	if (batch_times_check(min_us, max_us, why, sizeof(why))) {
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
