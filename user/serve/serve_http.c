// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve/serve_http.h"

struct serve_http {
	struct MHD_Daemon *daemon;
	int fd;
	serve_http_render_fn render;
	void *arg;
	struct serve_counters *counters;
	struct prom_buf buf;	/* handler calls are serialized: one thread */
	char address[128];
};

static const char landing[] =
	"<html><head><title>bhscope</title></head><body>\n"
	"<h1>bhscope</h1>\n"
	"<p>Buffer-head LRU and jbd2 commit batching, traced with eBPF.</p>\n"
	"<p><a href=\"/metrics\">Metrics</a></p>\n"
	"</body></html>\n";

static void format_address(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		port = ntohs(s6->sin6_port);
		snprintf(buf, len, "[%s]:%u", host, port);
		return;
	}
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		port = ntohs(s4->sin_port);
	}
	snprintf(buf, len, "%s:%u", host, port);
}

static int bind_listen(const char *spec, struct serve_http *h, char *err,
		       size_t errlen)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
	};
	struct addrinfo *res, *ai;
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof(ss);
	char host[256], port[8];
	int rc, fd = -1, saved = 0, one = 1;

	if (serve_listen_parse(spec, host, sizeof(host), port, sizeof(port),
			       err, errlen))
		return -1;
	rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "cannot resolve listen address '%s': %s",
			 spec, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 64))
			break;
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(err, errlen, "cannot listen on %s: %s%s", spec,
			 strerror(saved),
			 saved == EADDRINUSE ? " (another bhscope serve? pick one with --listen)" : "");
		return -1;
	}
	if (!getsockname(fd, (struct sockaddr *)&ss, &sslen))
		format_address((struct sockaddr *)&ss, h->address,
			       sizeof(h->address));
	h->fd = fd;
	return 0;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int code,
			     const char *type, const void *body, size_t len,
			     const char *extra_header, const char *extra_value)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, (void *)body,
					    MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (extra_header)
		MHD_add_response_header(r, extra_header, extra_value);
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

static void count(uint64_t *n)
{
	__atomic_fetch_add(n, 1, __ATOMIC_RELAXED);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	static const char not_found[] = "bhscope: not found; metrics are at /metrics\n";
	static const char bad_method[] = "bhscope: only GET and HEAD are served\n";
	static const char oom[] = "bhscope: out of memory rendering the metrics\n";
	struct serve_http *h = cls;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		count(&h->counters->http_bad_method);
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			     bad_method, sizeof(bad_method) - 1,
			     MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	}
	if (!strcmp(url, "/metrics")) {
		h->render(h->arg, &h->buf);
		if (h->buf.oom)
			return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				     "text/plain", oom, sizeof(oom) - 1, NULL,
				     NULL);
		count(&h->counters->http_ok);
		return reply(conn, MHD_HTTP_OK, PROM_CONTENT_TYPE, h->buf.data,
			     h->buf.len, NULL, NULL);
	}
	if (!strcmp(url, "/")) {
		count(&h->counters->http_ok);
		return reply(conn, MHD_HTTP_OK, "text/html; charset=utf-8",
			     landing, sizeof(landing) - 1, NULL, NULL);
	}
	count(&h->counters->http_not_found);
	return reply(conn, MHD_HTTP_NOT_FOUND, "text/plain", not_found,
		     sizeof(not_found) - 1, NULL, NULL);
}

/* libmicrohttpd's own messages (a client's bad request...): debug only. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	if (!getenv("BHSCOPE_DEBUG"))
		return;
	fprintf(stderr, "bhscope: http: ");
	vfprintf(stderr, fmt, ap);
}

struct serve_http *serve_http_bind(const char *spec, char *err, size_t errlen)
{
	struct serve_http *h = calloc(1, sizeof(*h));

	if (!h) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	h->fd = -1;
	if (bind_listen(spec, h, err, errlen)) {
		free(h);
		return NULL;
	}
	return h;
}

int serve_http_run(struct serve_http *h, serve_http_render_fn render, void *arg,
		   struct serve_counters *counters, char *err, size_t errlen)
{
	h->render = render;
	h->arg = arg;
	h->counters = counters;
	/*
	 * poll(), not epoll: libmicrohttpd's edge-triggered epoll missed a
	 * client's FIN that came with its last data, and the socket stayed
	 * in CLOSE-WAIT until the timeout; 256 descriptors poll cheaply.
	 */
	h->daemon = MHD_start_daemon(
		MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG, 0,
		NULL, NULL, handle, h,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
		MHD_OPTION_LISTEN_SOCKET, h->fd,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_HTTP_CONN_MEMORY,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)SERVE_HTTP_MAX_CONNS,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned int)SERVE_HTTP_MAX_CONNS_PER_IP,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)SERVE_HTTP_TIMEOUT_S,
		MHD_OPTION_END);
	if (!h->daemon) {
		snprintf(err, errlen, "starting the HTTP server on %s failed",
			 h->address);
		return -1;
	}
	return 0;
}

const char *serve_http_address(const struct serve_http *h)
{
	return h->address;
}

void serve_http_stop(struct serve_http *h)
{
	MHD_socket fd;

	if (!h)
		return;
	/*
	 * Quiescing hands the listen socket back, so it is closed once, by
	 * us, after the thread is gone; otherwise MHD_stop_daemon closes it.
	 */
	fd = h->fd;
	if (h->daemon) {
		fd = MHD_quiesce_daemon(h->daemon);
		MHD_stop_daemon(h->daemon);
	}
	if (fd != MHD_INVALID_SOCKET)
		close(fd);
	prom_buf_free(&h->buf);
	free(h);
}
