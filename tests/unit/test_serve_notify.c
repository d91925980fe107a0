// SPDX-License-Identifier: GPL-2.0
/*
 * serve_notify speaks sd_notify(3)'s protocol: the oracle is a datagram
 * socket bound here, at a path and in the abstract namespace, read back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "serve/serve_notify.h"

/* Binds a datagram socket at NAME ('@' = abstract); returns its fd. */
static int listener(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	memcpy(sa.sun_path, name, len);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	assert_int_equal(bind(fd, (struct sockaddr *)&sa,
			      offsetof(struct sockaddr_un, sun_path) + len), 0);
	return fd;
}

static void received(int fd, const char *want_prefix)
{
	char buf[256];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	assert_true(n > 0);
	buf[n] = '\0';
	assert_memory_equal(buf, want_prefix, strlen(want_prefix));
}

static void ready_reaches_a_socket_path(void **state)
{
	char path[64] = "/tmp/bhscope-notify-test.XXXXXX";
	int fd;

	(void)state;
	assert_non_null(mkdtemp(path));
	strcat(path, "/s");	/* room for it: path[64] */
	fd = listener(path);
	setenv("NOTIFY_SOCKET", path, 1);
	assert_int_equal(serve_notify("READY=1"), 0);
	received(fd, "READY=1");
	/* The variable stays: a reload notifies again. */
	assert_int_equal(serve_notify_reloading(), 0);
	received(fd, "RELOADING=1\nMONOTONIC_USEC=");
	close(fd);
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

static void at_sign_means_the_abstract_namespace(void **state)
{
	char name[64];
	int fd;

	(void)state;
	snprintf(name, sizeof(name), "@bhscope-notify-test-%d", (int)getpid());
	fd = listener(name);
	setenv("NOTIFY_SOCKET", name, 1);
	assert_int_equal(serve_notify("STOPPING=1"), 0);
	received(fd, "STOPPING=1");
	close(fd);
}

static void without_a_manager_nothing_is_sent(void **state)
{
	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(serve_notify("READY=1"), 0);
	setenv("NOTIFY_SOCKET", "vsock:2:1234", 1);
	assert_int_equal(serve_notify("READY=1"), -EAFNOSUPPORT);
	setenv("NOTIFY_SOCKET", "/nonexistent/bhscope/notify", 1);
	assert_int_equal(serve_notify("READY=1"), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ready_reaches_a_socket_path),
		cmocka_unit_test(at_sign_means_the_abstract_namespace),
		cmocka_unit_test(without_a_manager_nothing_is_sent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
