// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "serve/serve_notify.h"
#include "lib/errmsg.h"

/*
 * As sd_notify(3) documents the protocol: one datagram on an AF_UNIX
 * socket, whose path is $NOTIFY_SOCKET, '@' standing for the abstract
 * namespace (a leading NUL byte). The variable stays set: reloads notify too.
 */
int serve_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	ssize_t sent;
	int fd, err;

	if (!path || !*path)
		return 0;
	/* The other forms (vsock:) are for virtual machines, not services. */
	if (path[0] != '/' && path[0] != '@') {
		errmsg("NOTIFY_SOCKET=%s: only AF_UNIX sockets are supported",
		       path);
		return -EAFNOSUPPORT;
	}
	len = strlen(path);
	if (len >= sizeof(sa.sun_path)) {
		errmsg("NOTIFY_SOCKET is too long");
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL,
		      (struct sockaddr *)&sa,
		      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
	err = sent < 0 ? -errno : 0;
	close(fd);
	if (err)
		errmsg("cannot notify the service manager at %s: %s",
		       path, strerror(-err));
	return err;
}

int serve_notify_reloading(void)
{
	struct timespec ts;
	char msg[64];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)ts.tv_sec * 1000000ULL +
			 (unsigned long long)ts.tv_nsec / 1000);
	return serve_notify(msg);
}
