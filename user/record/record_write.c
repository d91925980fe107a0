// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/atomic_file.h"
#include "record/record_write.h"
#include "lib/errmsg.h"

int record_write_json(const char *path, struct json_object *o)
{
	const char *s = json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = strlen(s);
	char *buf = malloc(len + 2), err[PATH_MAX + 128];
	int ret;

	if (!buf) {
		errmsg("%s: out of memory", path);
		return -1;
	}
	memcpy(buf, s, len);
	buf[len] = '\n';
	ret = atomic_file_write(AT_FDCWD, path, buf, len + 1, ATOMIC_FILE_SYNC,
				err, sizeof(err));
	if (ret && errno == EEXIST)
		errmsg("%s", err);
	else if (ret)
		errmsg("%s: writing the record failed: %s; nothing was written",
		       path, strerror(errno));
	free(buf);
	return ret;
}
