// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/tunables.h"

bool bhtune_loaded(void)
{
	return access(BHTUNE_PARAMS_DIR, F_OK) == 0;
}

const char *bhtune_unavailable_reason(void)
{
	if (access("/proc/modules", F_OK))
		return "this kernel cannot load modules (CONFIG_MODULES is off)";
	if (access("/sys/kernel/livepatch", F_OK))
		return "this kernel has no livepatch support (CONFIG_LIVEPATCH is off)";
	return NULL;
}

int bhtune_param_get(const char *name, long *value)
{
	char path[256], buf[64], *end;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", BHTUNE_PARAMS_DIR, name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	errno = 0;
	*value = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

int bhtune_param_set(const char *name, const char *value)
{
	char path[256];
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

long options_value(const char *options, const char *key)
{
	size_t klen = strlen(key);
	const char *p = options;

	while ((p = strstr(p, key))) {
		bool at_start = p == options || strchr(", \t\n", p[-1]);

		if (at_start && p[klen] == '=') {
			const char *num = p + klen + 1;
			char *end;
			long v;

			errno = 0;
			v = strtol(num, &end, 10);
			return !errno && end != num && v >= 0 ? v : -1;
		}
		p += klen;
	}
	return -1;
}

/* jbd2 names inode journals "<dev>-<inode>"; external ones "<dev>". */
static void journal_fs_dev(const char *entry, char *dev, size_t len)
{
	const char *dash = strrchr(entry, '-');
	size_t n = strlen(entry);

	if (dash && dash[1] && strspn(dash + 1, "0123456789") == strlen(dash + 1))
		n = dash - entry;
	snprintf(dev, len, "%.*s", (int)n, entry);
}

static void find_mount(struct journal_tunables *j)
{
	char want[96];
	struct mntent *m;
	FILE *f = setmntent("/proc/self/mounts", "r");

	if (!f)
		return;
	snprintf(want, sizeof(want), "/dev/%s", j->dev);
	/* jbd2 writes '/' in device names as '!'. */
	for (char *c = want; *c; c++)
		if (*c == '!')
			*c = '/';
	while ((m = getmntent(f))) {
		if (!strcmp(m->mnt_fsname, want)) {
			snprintf(j->mnt, sizeof(j->mnt), "%s", m->mnt_dir);
			break;
		}
	}
	endmntent(f);
}

static void read_batch_times(struct journal_tunables *j)
{
	char path[256], text[4096];
	size_t n;
	FILE *f;

	j->min_batch_us = JBD2_DEFAULT_MIN_BATCH_US;
	j->max_batch_us = JBD2_DEFAULT_MAX_BATCH_US;
	snprintf(path, sizeof(path), "/proc/fs/ext4/%s/options", j->dev);
	f = fopen(path, "r");
	if (!f)
		return;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	/* ext4 lists both, defaults included. */
	if (options_value(text, "min_batch_time") >= 0) {
		j->min_batch_us = options_value(text, "min_batch_time");
		j->max_batch_us = options_value(text, "max_batch_time");
		j->from_ext4 = true;
	}
}

static int by_dev(const void *a, const void *b)
{
	return strcmp(((const struct journal_tunables *)a)->dev,
		      ((const struct journal_tunables *)b)->dev);
}

int journals_list(struct journal_tunables **out)
{
	struct journal_tunables *list = NULL, *grown;
	DIR *d = opendir("/proc/fs/jbd2");
	struct dirent *e;
	int n = 0;

	*out = NULL;
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		grown = realloc(list, (n + 1) * sizeof(*list));
		if (!grown) {
			free(list);
			closedir(d);
			return -ENOMEM;
		}
		list = grown;
		memset(&list[n], 0, sizeof(list[n]));
		journal_fs_dev(e->d_name, list[n].dev, sizeof(list[n].dev));
		find_mount(&list[n]);
		read_batch_times(&list[n]);
		n++;
	}
	closedir(d);
	if (n)	/* list is NULL then: qsort's is nonnull */
		qsort(list, n, sizeof(*list), by_dev);
	*out = list;
	return n;
}
