// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/errmsg.h"
#include "serve/serve_conns.h"
#include "serve/serve_http.h"

struct serve_http {
	struct MHD_Daemon *daemon;
	int fd;
	serve_http_render_fn render;
	void *arg;
	struct serve_counters *counters;
	struct prom_buf buf;	/* handler calls are serialized: one thread */
	char address[128];
	/* the connections, for the head deadline and the limits */
	pthread_mutex_t lock;
	pthread_cond_t wake;	/* CLOCK_MONOTONIC */
	struct serve_conns conns;
	pthread_t watchdog;
	bool watchdog_started;
	bool stopping;
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

	if (serve_config_listen_parse(spec, host, sizeof(host), port,
				      sizeof(port),
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
		/* a burst of a full server's worth waits, not retries its SYN */
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) &&
		    !listen(fd, SERVE_HTTP_MAX_CONNS))
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

/*
 * libmicrohttpd has an idle timeout, a connection limit and a limit per
 * address, but no deadline for a request head (a client that sends one
 * header line every few seconds is never idle), and at its limits it
 * refuses the newcomer, which locks out a scraper sharing an address
 * with slow clients (all of 127/8 is "localhost"). So struct serve_conns keeps
 * the connections it reports (MHD_OPTION_NOTIFY_CONNECTION, the access
 * handler, MHD_OPTION_NOTIFY_COMPLETED), and a connection it chooses to
 * close is shut down: libmicrohttpd then reads its end and closes it.
 * libmicrohttpd's own limits stay above ours, as a backstop.
 *
 * The fd is safe to shut down under h->lock: libmicrohttpd reports a
 * connection closed (NOTIFY_CLOSED, which takes the lock) before it
 * closes its socket, so the number cannot have been reused.
 */
static void conn_shut(struct serve_http *h, struct serve_conn *c,
		      enum serve_conn_close why)
{
	shutdown(c->fd, SHUT_RDWR);
	__atomic_fetch_add(&h->counters->http_closed[why], 1, __ATOMIC_RELAXED);
}

static struct serve_conn *conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

static void conn_answering(struct serve_http *h, struct MHD_Connection *conn)
{
	struct serve_conn *c = conn_of(conn);

	if (!c)
		return;
	pthread_mutex_lock(&h->lock);
	serve_conns_answering(&h->conns, c, clock_s(CLOCK_MONOTONIC));
	pthread_mutex_unlock(&h->lock);
}

/* The peer's address without its port; an IPv4-mapped one as IPv4. */
static void conn_addr(struct serve_conn *c, const struct sockaddr *sa)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	c->addr_len = 0;
	if (sa && sa->sa_family == AF_INET) {
		memcpy(c->addr, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
		c->addr_len = 4;
	} else if (sa && sa->sa_family == AF_INET6) {
		const uint8_t *a = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
		bool v4 = !memcmp(a, mapped, sizeof(mapped));

		c->addr_len = v4 ? 4 : 16;
		memcpy(c->addr, v4 ? a + 12 : a, c->addr_len);
	}
}

static void conn_started(struct serve_http *h, struct MHD_Connection *conn,
			 void **socket_context)
{
	const union MHD_ConnectionInfo *fd, *addr;
	struct serve_conn *c = calloc(1, sizeof(*c)), *victim;
	enum serve_conn_close why;

	fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	addr = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!c || !fd) {
		/* Untracked, it would escape every limit: refuse it. */
		if (fd)
			shutdown(fd->connect_fd, SHUT_RDWR);
		free(c);
		return;
	}
	c->fd = fd->connect_fd;
	conn_addr(c, addr ? addr->client_addr : NULL);
	pthread_mutex_lock(&h->lock);
	c->since = clock_s(CLOCK_MONOTONIC);
	serve_conns_add(&h->conns, c);
	while ((victim = serve_conns_make_way(&h->conns, c, &why)))
		conn_shut(h, victim, why);
	pthread_cond_signal(&h->wake);
	pthread_mutex_unlock(&h->lock);
	*socket_context = c;
}

static void notify_connection(void *cls, struct MHD_Connection *conn,
			      void **socket_context,
			      enum MHD_ConnectionNotificationCode toe)
{
	struct serve_http *h = cls;
	struct serve_conn *c = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		conn_started(h, conn, socket_context);
		return;
	}
	if (!c)
		return;
	pthread_mutex_lock(&h->lock);
	serve_conns_remove(&h->conns, c);
	pthread_mutex_unlock(&h->lock);
	free(c);
	*socket_context = NULL;
}

/* An answer was sent (or the request ended): waiting for the next head. */
static void notify_completed(void *cls, struct MHD_Connection *conn,
			     void **con_cls,
			     enum MHD_RequestTerminationCode toe)
{
	struct serve_http *h = cls;
	struct serve_conn *c = conn_of(conn);

	(void)con_cls;
	(void)toe;
	if (!c)
		return;
	pthread_mutex_lock(&h->lock);
	serve_conns_waiting(&h->conns, c, clock_s(CLOCK_MONOTONIC));
	pthread_cond_signal(&h->wake);
	pthread_mutex_unlock(&h->lock);
}

/* Closes every connection whose head is overdue, when it is. */
static void *watchdog(void *arg)
{
	struct serve_http *h = arg;

	pthread_mutex_lock(&h->lock);
	while (!h->stopping) {
		struct serve_conn *c;
		struct timespec ts;
		double next;

		while ((c = serve_conns_overdue(&h->conns, clock_s(CLOCK_MONOTONIC),
						&next)))
			conn_shut(h, c, SERVE_CLOSE_HEAD_DEADLINE);
		if (!next) {
			pthread_cond_wait(&h->wake, &h->lock);
			continue;
		}
		ts.tv_sec = (time_t)next;
		ts.tv_nsec = (long)((next - ts.tv_sec) * 1e9);
		pthread_cond_timedwait(&h->wake, &h->lock, &ts);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	/* the client's answers, worded as bhscope's lines on stderr */
	static const char not_found[] = ERRMSG_PREFIX "not found; metrics are at /metrics\n";
	static const char bad_method[] = ERRMSG_PREFIX "only GET and HEAD are served\n";
	static const char oom[] = ERRMSG_PREFIX "out of memory rendering the metrics\n";
	struct serve_http *h = cls;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	conn_answering(h, conn);
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
	char *msg = NULL;

	(void)cls;
	if (!getenv("BHSCOPE_DEBUG") || vasprintf(&msg, fmt, ap) < 0)
		return;
	/* its messages end with a newline of their own */
	if (msg[0] && msg[strlen(msg) - 1] == '\n')
		msg[strlen(msg) - 1] = '\0';
	errmsg("http: %s", msg);
	free(msg);
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

static int watchdog_start(struct serve_http *h)
{
	pthread_condattr_t ca;
	int err;

	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->wake, &ca);
	pthread_condattr_destroy(&ca);
	serve_conns_init(&h->conns, SERVE_HTTP_MAX_CONNS,
			 SERVE_HTTP_MAX_CONNS_PER_IP, SERVE_HTTP_HEAD_S);
	err = pthread_create(&h->watchdog, NULL, watchdog, h);
	h->watchdog_started = !err;
	return err;
}

static void watchdog_stop(struct serve_http *h)
{
	if (!h->watchdog_started)
		return;
	pthread_mutex_lock(&h->lock);
	h->stopping = true;
	pthread_cond_signal(&h->wake);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->watchdog, NULL);
	h->watchdog_started = false;
}

int serve_http_run(struct serve_http *h, serve_http_render_fn render, void *arg,
		   struct serve_counters *counters, char *err, size_t errlen)
{
	h->render = render;
	h->arg = arg;
	h->counters = counters;
	if (watchdog_start(h)) {
		snprintf(err, errlen, "starting the HTTP server on %s failed: no thread",
			 h->address);
		return -1;
	}
	/*
	 * poll(), not epoll: libmicrohttpd's edge-triggered epoll missed a
	 * client's FIN that came with its last data, and the socket stayed
	 * in CLOSE-WAIT until the timeout; 256 descriptors poll cheaply.
	 * Its limits are backstops above serve_conns' (which closes the
	 * oldest to make way): a connection shut down counts until
	 * libmicrohttpd has closed it, at its next poll.
	 */
	h->daemon = MHD_start_daemon(
		MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG, 0,
		NULL, NULL, handle, h,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
		MHD_OPTION_LISTEN_SOCKET, h->fd,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_HTTP_CONN_MEMORY,
		MHD_OPTION_CONNECTION_LIMIT,
		(unsigned int)(SERVE_HTTP_MAX_CONNS + SERVE_HTTP_MAX_CONNS_PER_IP),
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned int)(2 * SERVE_HTTP_MAX_CONNS_PER_IP),
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)SERVE_HTTP_TIMEOUT_S,
		MHD_OPTION_NOTIFY_CONNECTION, notify_connection, h,
		MHD_OPTION_NOTIFY_COMPLETED, notify_completed, h,
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
	/* no shutdown() from the watchdog while libmicrohttpd closes */
	watchdog_stop(h);
	if (h->daemon) {
		fd = MHD_quiesce_daemon(h->daemon);
		MHD_stop_daemon(h->daemon);
	}
	if (fd != MHD_INVALID_SOCKET)
		close(fd);
	if (h->render) {	/* serve_http_run() made them */
		pthread_cond_destroy(&h->wake);
		pthread_mutex_destroy(&h->lock);
	}
	prom_buf_free(&h->buf);
	free(h);
}
