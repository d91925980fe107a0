// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/tunables.h"

bool tunables_bhtune_loaded(void)
{
	return access(BHTUNE_PARAMS_DIR, F_OK) == 0;
}

const char *tunables_bhtune_unavailable(void)
{
	if (access("/proc/modules", F_OK))
		return "this kernel cannot load modules (CONFIG_MODULES is off)";
	if (access("/sys/kernel/livepatch", F_OK))
		return "this kernel has no livepatch support (CONFIG_LIVEPATCH is off)";
	return NULL;
}

/* The first line of a small file, without its newline. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int tunables_module_param_get(const char *module, const char *name, long *value)
{
	char path[512], buf[64], *end;
	int err;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", module, name);
	err = read_line(path, buf, sizeof(buf));
	if (err)
		return err;
	errno = 0;
	*value = strtol(buf, &end, 10);
	if (errno || end == buf || *end)
		return -EINVAL;
	return 0;
}

int tunables_bhtune_get(const char *name, long *value)
{
	return tunables_module_param_get("bhtune", name, value);
}

static long param_or_absent(const char *name)
{
	long v;

	return tunables_bhtune_get(name, &v) ? BHTUNE_ABSENT : v;
}

void tunables_bhtune_read(struct bhtune_params *b)
{
	memset(b, 0, sizeof(*b));
	b->loaded = tunables_bhtune_loaded();
	b->lru_size = param_or_absent("lru_size");
	b->batch_min_us = param_or_absent("batch_min_us");
	b->batch_max_us = param_or_absent("batch_max_us");
	if (read_line(BHTUNE_PARAMS_DIR "/batch_dev", b->batch_dev,
		      sizeof(b->batch_dev)))
		b->batch_dev[0] = '\0';
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int tunables_bhtune_list(struct bhtune_param **out)
{
	struct bhtune_param *list;
	struct dirent **names;
	int n, nr = 0;

	*out = NULL;
	n = scandir(BHTUNE_PARAMS_DIR, &names, NULL, by_name);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	list = calloc(n + 1, sizeof(*list));
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (list && name[0] != '.' && strlen(name) < sizeof(list->name) &&
		    !tunables_bhtune_get(name, &list[nr].value))
			strcpy(list[nr++].name, name);
		free(names[i]);
	}
	free(names);
	if (!list)
		return -ENOMEM;
	*out = list;
	return nr;
}

long tunables_option_value(const char *options, const char *key)
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

void tunables_journal_parse(const char *options, struct journal_tunables *j)
{
	long v;

	j->min_batch_us = JBD2_DEFAULT_MIN_BATCH_US;
	j->max_batch_us = JBD2_DEFAULT_MAX_BATCH_US;
	j->commit_s = JBD2_DEFAULT_COMMIT_S;
	j->from = TUNABLES_DEFAULT;
	if (!options)
		return;
	if ((v = tunables_option_value(options, "min_batch_time")) >= 0)
		j->min_batch_us = v;
	if ((v = tunables_option_value(options, "max_batch_time")) >= 0)
		j->max_batch_us = v;
	if ((v = tunables_option_value(options, "commit")) >= 0)
		j->commit_s = v;
}

bool tunables_journal_read(const char *dev, struct journal_tunables *j)
{
	char path[256], text[8192];
	size_t n;
	FILE *f;

	tunables_journal_parse(NULL, j);
	snprintf(path, sizeof(path), "/proc/fs/ext4/%s/options", dev);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	tunables_journal_parse(text, j);
	j->from = TUNABLES_EXT4_OPTIONS;
	return true;
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

static int by_dev(const void *a, const void *b)
{
	return strcmp(((const struct journal_tunables *)a)->dev,
		      ((const struct journal_tunables *)b)->dev);
}

int tunables_journals_list(struct journal_tunables **out)
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
		tunables_journal_read(list[n].dev, &list[n]);
		n++;
	}
	closedir(d);
	if (n)	/* list is NULL then: qsort's is nonnull */
		qsort(list, n, sizeof(*list), by_dev);
	*out = list;
	return n;
}

void tunables_dev_numbers(const char *dev, char *buf, size_t len)
{
	char path[128], line[32];

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", dev);
	if (!read_line(path, line, sizeof(line)))
		snprintf(buf, len, "%s", line);
}

bool tunables_journal_apply_bhtune(struct journal_tunables *j,
				   const struct bhtune_params *b,
				   const char *numbers)
{
	if (b->batch_min_us < 0 && b->batch_max_us < 0)
		return false;
	if (b->batch_dev[0] && strcmp(b->batch_dev, numbers))
		return false;
	if (b->batch_min_us >= 0)
		j->min_batch_us = b->batch_min_us;
	if (b->batch_max_us >= 0)
		j->max_batch_us = b->batch_max_us;
	j->from = TUNABLES_BHTUNE;
	return true;
}
