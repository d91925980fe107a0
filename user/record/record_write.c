// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/record_write.h"

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* The directory holding path, for the temporary file and its fsync. */
static void dir_of(const char *path, char *dir, size_t len)
{
	char copy[PATH_MAX];

	snprintf(copy, sizeof(copy), "%s", path);
	snprintf(dir, len, "%s", dirname(copy));
}

int record_write_atomic(const char *path, const char *data, size_t len)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 32], base[PATH_MAX];
	int fd, dfd, err;

	dir_of(path, dir, sizeof(dir));
	snprintf(base, sizeof(base), "%s", path);
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, basename(base));
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fchmod(fd, 0644) || write_all(fd, data, len) || fsync(fd))
		goto fail;
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path))
		goto fail;
	/* Make the rename itself durable; failing that is not fatal. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
fail:
	err = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	errno = err;
	return -1;
}

int record_write_json(const char *path, struct json_object *o)
{
	const char *s = json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = strlen(s);
	char *buf = malloc(len + 2);
	int ret;

	if (!buf) {
		fprintf(stderr, "bhscope: %s: out of memory\n", path);
		return -1;
	}
	memcpy(buf, s, len);
	buf[len] = '\n';
	ret = record_write_atomic(path, buf, len + 1);
	if (ret)
		fprintf(stderr, "bhscope: %s: writing the record failed: %s; nothing was written\n",
			path, strerror(errno));
	free(buf);
	return ret;
}
