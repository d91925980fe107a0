// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/atomic_file.h"
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

int serve_textfile_write(struct serve_textfile *t, const char *data,
			 size_t len, char *err, size_t errlen)
{
	char why[512];

	/* node_exporter reads *.prom only: it never sees the temporary file. */
	if (!atomic_file_write(t->dirfd, SERVE_TEXTFILE_NAME, data, len, 0, why,
			       sizeof(why)))
		return 0;
	if (errno == EEXIST)	/* not a regular file: refused */
		snprintf(err, errlen, "%s/%s", t->dir, why);
	else
		snprintf(err, errlen, "writing %s/%s failed: %s", t->dir,
			 SERVE_TEXTFILE_NAME, strerror(errno));
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
