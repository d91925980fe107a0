// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve/serve_config.h"
#include "serve/serve_textfile.h"

int serve_textfile_open(struct serve_textfile *t, const char *dir, char *err,
			size_t errlen)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open textfile directory %s: %s",
			 dir, strerror(errno));
		return -1;
	}
	if (faccessat(fd, ".", W_OK, AT_EACCESS)) {
		snprintf(err, errlen, "cannot write in textfile directory %s: %s",
			 dir, strerror(errno));
		close(fd);
		return -1;
	}
	if (t->dirfd >= 0)
		close(t->dirfd);
	t->dirfd = fd;
	snprintf(t->dir, sizeof(t->dir), "%s", dir);
	return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		data += n;
		len -= n;
	}
	return 0;
}

int serve_textfile_write(struct serve_textfile *t, const char *data,
			 size_t len, char *err, size_t errlen)
{
	char tmp[64];
	int fd, e = 0;

	/* Not *.prom, so node_exporter never reads it half written. */
	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", SERVE_TEXTFILE_NAME,
		 (int)getpid());
	fd = openat(t->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0644);
	if (fd < 0) {
		e = errno;
		goto fail;
	}
	/* The umask must not hide the metrics from node_exporter. */
	if (fchmod(fd, 0644) || write_all(fd, data, len))
		e = errno;
	if (close(fd) && !e)
		e = errno;
	if (!e && renameat(t->dirfd, tmp, t->dirfd, SERVE_TEXTFILE_NAME))
		e = errno;
	if (!e)
		return 0;
	unlinkat(t->dirfd, tmp, 0);
fail:
	snprintf(err, errlen, "writing %s/%s failed: %s", t->dir,
		 SERVE_TEXTFILE_NAME, strerror(e));
	return -1;
}

void serve_textfile_close(struct serve_textfile *t, bool remove)
{
	if (t->dirfd < 0)
		return;
	if (remove)
		unlinkat(t->dirfd, SERVE_TEXTFILE_NAME, 0);
	close(t->dirfd);
	t->dirfd = -1;
}
