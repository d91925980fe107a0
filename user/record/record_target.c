// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "bhscope.h"
#include "lib/devname.h"
#include "record/record_target.h"

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

/* Whether mount point mp is dir or one of its ancestors. */
static size_t covers(const char *mp, const char *dir)
{
	size_t n = strlen(mp);

	if (!strcmp(mp, "/"))
		return 1;
	if (strncmp(mp, dir, n) || (dir[n] && dir[n] != '/'))
		return 0;
	return n;
}

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/*
 * One line: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] -
 * FSTYPE SOURCE SUPEROPTIONS
 */
static int parse_line(char *line, const char *dir, unsigned int major,
		      unsigned int minor, struct record_target *t,
		      size_t *best)
{
	char *f[6], *save, *sep, *fstype, *source, *super;
	unsigned int ma, mi;
	size_t depth;

	line[strcspn(line, "\n")] = '\0';
	f[0] = strtok_r(line, " ", &save);
	for (int i = 1; i < 6; i++)
		f[i] = strtok_r(NULL, " ", &save);
	if (!f[5] || sscanf(f[2], "%u:%u", &ma, &mi) != 2)
		return 0;
	if (ma != major || mi != minor)
		return 0;
	while ((sep = strtok_r(NULL, " ", &save)) && strcmp(sep, "-"))
		;
	fstype = strtok_r(NULL, " ", &save);
	source = strtok_r(NULL, " ", &save);
	super = strtok_r(NULL, " ", &save);
	if (!sep || !fstype)
		return 0;
	unescape(f[4]);
	depth = covers(f[4], dir);
	if (!depth || depth < *best)
		return 0;
	*best = depth;
	copy(t->mount_point, sizeof(t->mount_point), f[4]);
	copy(t->mount_options, sizeof(t->mount_options), f[5]);
	copy(t->fstype, sizeof(t->fstype), fstype);
	if (source)
		unescape(source);
	copy(t->source, sizeof(t->source), source);
	copy(t->super_options, sizeof(t->super_options), super);
	return 1;
}

int record_target_parse(FILE *mi, const char *dir, unsigned int major,
			unsigned int minor, struct record_target *t)
{
	char *line = NULL;
	size_t cap = 0, best = 0;
	int found = 0;

	copy(t->dir, sizeof(t->dir), dir);
	t->major = major;
	t->minor = minor;
	while (getline(&line, &cap, mi) > 0)
		found |= parse_line(line, dir, major, minor, t, &best);
	free(line);
	return found ? 0 : -1;
}

uint32_t record_target_kdev(const struct record_target *t)
{
	return BHSCOPE_KDEV(t->major, t->minor);
}

int record_target_find(const char *dir, struct record_target *t, char *err,
		       size_t errlen)
{
	char real[PATH_MAX];
	struct stat st;
	FILE *mi;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!realpath(dir, real) || stat(real, &st)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory", dir);
		return -1;
	}
	mi = fopen("/proc/self/mountinfo", "r");
	if (!mi) {
		snprintf(err, errlen, "/proc/self/mountinfo: %s", strerror(errno));
		return -1;
	}
	ret = record_target_parse(mi, real, major(st.st_dev), minor(st.st_dev), t);
	fclose(mi);
	if (ret) {
		snprintf(err, errlen, "%s: no mount of device %u:%u above it in /proc/self/mountinfo",
			 dir, major(st.st_dev), minor(st.st_dev));
		return -1;
	}
	devname_of(record_target_kdev(t), t->device, sizeof(t->device));
	if (strchr(t->device, ':'))
		t->device[0] = '\0';	/* no block device: tmpfs, overlay... */
	return 0;
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v && *v ? json_object_new_string(v) : NULL);
}

struct json_object *record_target_json(const struct record_target *t)
{
	struct json_object *o = json_object_new_object();
	char dev[32];

	snprintf(dev, sizeof(dev), "%u:%u", t->major, t->minor);
	add_str(o, "dir", t->dir);
	add_str(o, "mount_point", t->mount_point);
	add_str(o, "fstype", t->fstype);
	add_str(o, "source", t->source);
	add_str(o, "device", t->device);
	add_str(o, "dev", dev);
	add_str(o, "mount_options", t->mount_options);
	add_str(o, "super_options", t->super_options);
	return o;
}
