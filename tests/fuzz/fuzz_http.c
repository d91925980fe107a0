// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the HTTP request path of bhscope serve. The daemon is
 * the one serve runs (serve_http_bind/serve_http_run: the same options,
 * limits, timeouts and polling thread) on a loopback port; each input is
 * sent on a fresh TCP connection, half-closed, and the answer read until
 * the server closes. Real sockets rather than a call into the handler:
 * what reaches the handler is what libmicrohttpd's parser makes of the
 * bytes, as it would be for a client. Oracle: every answer is HTTP.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve/prom.h"
#include "serve/serve_http.h"

static struct serve_http *http;
static struct serve_counters counters;
static struct sockaddr_in addr;

/* A small exposition, through the same writer serve uses. */
static void render(void *arg, struct prom_buf *out)
{
	struct prom_labels ls = { 0 };

	(void)arg;
	prom_buf_reset(out);
	prom_family(out, "bhscope_fuzz_requests_total", PROM_COUNTER,
		    "Requests the fuzzer made.");
	prom_labels_add(&ls, "device", "loop0\"\\\n");
	prom_sample_u64(out, "bhscope_fuzz_requests_total", &ls, counters.http_ok);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[256];
	const char *a;

	(void)argc;
	(void)argv;
	http = serve_http_bind("127.0.0.1:0", err, sizeof(err));
	if (!http || serve_http_run(http, render, NULL, &counters, err, sizeof(err))) {
		fprintf(stderr, "fuzz_http: %s\n", err);
		exit(1);
	}
	a = serve_http_address(http);
	addr.sin_family = AF_INET;
	addr.sin_port = htons(atoi(strrchr(a, ':') + 1));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return 0;
}

/*
 * libFuzzer's timers (SIGALRM) interrupt system calls: a connect that was
 * interrupted goes on by itself, so wait for it rather than fail.
 */
static int connect_server(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), e = 0;
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(e);

	if (fd < 0)
		return -1;
	if (!connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
		return fd;
	if (errno != EINTR && errno != EINPROGRESS)
		goto fail;
	while (poll(&p, 1, 5000) < 0)
		if (errno != EINTR)
			goto fail;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) || e)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An abortive close: no TIME_WAIT left per input. */
	struct linger abortive = { .l_onoff = 1, .l_linger = 0 };
	char reply[65536];
	size_t got = 0, sent = 0;
	int fd = connect_server();
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (fd < 0) {
		perror("fuzz_http: connect");
		abort();
	}
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &abortive, sizeof(abortive));
	/* The server may answer (431, 400) and close before all is sent. */
	while (sent < size) {
		ssize_t n = send(fd, data + sent, size - sent, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sent += n;
	}
	shutdown(fd, SHUT_WR);
	while (got < sizeof(reply)) {
		int ready = poll(&p, 1, 10000);
		ssize_t n;

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready != 1)
			break;
		n = recv(fd, reply + got, sizeof(reply) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	if (got && memcmp(reply, "HTTP/1.", got < 7 ? got : 7)) {
		fprintf(stderr, "fuzz_http: an answer that is not HTTP\n");
		abort();
	}
	return 0;
}
