// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/input_file.h"

static const char *kind_of(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a plain file";
}

static bool is_stdin(const char *path, int flags)
{
	return (flags & INPUT_FILE_STDIN) && !strcmp(path, "-");
}

int input_file_open(const char *path, int flags, char *err, size_t errlen)
{
	struct stat st;
	int fd, saved;

	if (is_stdin(path, flags))
		return 0;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		saved = errno;
		snprintf(err, errlen, "%s", strerror(saved));
		errno = saved;
		return -1;
	}
	if (fstat(fd, &st)) {
		saved = errno;
		snprintf(err, errlen, "%s", strerror(saved));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		saved = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		snprintf(err, errlen, "%s, not a regular file", kind_of(st.st_mode));
		goto fail;
	}
	/* Back to blocking reads (regular files ignore the flag anyway). */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
fail:
	close(fd);
	errno = saved;
	return -1;
}

static int too_big(size_t max, char *err, size_t errlen)
{
	if (max >= 1 << 20)
		snprintf(err, errlen, "larger than %zu MiB", max >> 20);
	else if (max >= 1 << 10)
		snprintf(err, errlen, "larger than %zu KiB", max >> 10);
	else
		snprintf(err, errlen, "larger than %zu bytes", max);
	errno = EFBIG;
	return -1;
}

int input_file_read(const char *path, size_t max, int flags, char **data,
		    size_t *len, char *err, size_t errlen)
{
	bool own = !is_stdin(path, flags);
	size_t n = 0, cap = 0;
	struct stat st;
	char *buf = NULL;
	int fd, saved;

	fd = input_file_open(path, flags, err, errlen);
	if (fd < 0)
		return -1;
	/* A regular file says its size: refuse a big one before reading it. */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && (size_t)st.st_size > max) {
		saved = EFBIG;
		goto fail;
	}
	for (;;) {
		ssize_t got;

		if (n == cap) {
			size_t want = cap ? 2 * cap : 16384;
			char *b;

			/* One byte beyond max tells "too big" from "just fits". */
			if (want > max + 1)
				want = max + 1;
			b = realloc(buf, want + 1);
			if (!b) {
				saved = ENOMEM;
				goto fail;
			}
			buf = b;
			cap = want;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			saved = errno;
			snprintf(err, errlen, "read error: %s", strerror(saved));
			goto fail;
		}
		if (!got)
			break;
		n += got;
		if (n > max) {
			saved = EFBIG;
			goto fail;
		}
	}
	if (own)
		close(fd);
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
fail:
	if (own)
		close(fd);
	free(buf);
	if (saved == EFBIG)
		return too_big(max, err, errlen);
	if (saved == ENOMEM)
		snprintf(err, errlen, "out of memory");
	errno = saved;
	return -1;
}
