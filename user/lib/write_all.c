// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <unistd.h>

#include "lib/write_all.h"

int write_all(int fd, const void *buf, size_t len, off_t at)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = at < 0 ? write(fd, p, len) : pwrite(fd, p, len, at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0) {
			errno = ENOSPC;
			return -ENOSPC;
		}
		p += n;
		len -= n;
		if (at >= 0)
			at += n;
	}
	return 0;
}
