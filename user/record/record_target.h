/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filesystem a workload runs on: found from its directory in
 * /proc/self/mountinfo, so that a record says which device, filesystem type
 * and mount options its numbers belong to.
 */
#ifndef BHSCOPE_RECORD_TARGET_H
#define BHSCOPE_RECORD_TARGET_H

#include <json-c/json.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct record_target {
	char dir[PATH_MAX];		/* as resolved by realpath */
	char mount_point[PATH_MAX];
	char fstype[64];
	char source[PATH_MAX];		/* "/dev/loop0", "tmpfs", ... */
	char device[64];		/* kernel name ("loop0"), or "" */
	unsigned int major, minor;
	char mount_options[1024];	/* per mount point: rw,relatime */
	char super_options[2048];	/* per filesystem: rw,dirsync,... */
};

/*
 * Finds the mount holding dir (the deepest mount point above it with the
 * same device). Returns 0, or -1 with a one-line reason in err.
 */
int record_target_find(const char *dir, struct record_target *t, char *err,
		       size_t errlen);

/*
 * The same from a mountinfo stream, for tests: dir must already be a real
 * path and dev its device numbers.
 */
int record_target_parse(FILE *mountinfo, const char *dir, unsigned int major,
			unsigned int minor, struct record_target *t);

/* The kernel's dev_t, as jbd2 tracepoints report it. */
uint32_t record_target_kdev(const struct record_target *t);

struct json_object *record_target_json(const struct record_target *t);

#endif /* BHSCOPE_RECORD_TARGET_H */
