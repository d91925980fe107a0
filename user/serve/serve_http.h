/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /metrics endpoint: libmicrohttpd with its own polling thread.
 * GET or HEAD /metrics renders the exposition, / is a landing page, any
 * other path is 404 and any other method 405. libmicrohttpd itself answers
 * requests whose headers do not fit the connection's memory (431).
 *
 * Hostile clients (struct serve_conns has the policy): one thread polls every
 * connection and never blocks on one, so a slow client delays nobody; a
 * request head must arrive whole within SERVE_HTTP_HEAD_S of when the
 * connection began waiting for it, however busy the client keeps it; an
 * idle connection is closed after SERVE_HTTP_TIMEOUT_S; an address holds
 * at most SERVE_HTTP_MAX_CONNS_PER_IP of the SERVE_HTTP_MAX_CONNS
 * connections, and a connection over either limit takes the place of the
 * oldest (of its address, or of the address holding the most), so a
 * scraper whose head comes in one piece is answered at its first try
 * however many slow clients there are, on its own address too. Below the
 * limits every connection is accepted at once, so one a client closed
 * never waits in the listen queue (in CLOSE-WAIT).
 */
#ifndef BHSCOPE_SERVE_HTTP_H
#define BHSCOPE_SERVE_HTTP_H

#include <stddef.h>

#include "serve/prom.h"
#include "serve/serve.h"
#include "serve/serve_conns.h"

/* Memory per connection: request headers beyond it get 431. */
#define SERVE_HTTP_CONN_MEMORY	(16 * 1024)
#define SERVE_HTTP_MAX_CONNS	256
#define SERVE_HTTP_MAX_CONNS_PER_IP	32
#define SERVE_HTTP_TIMEOUT_S	5
#define SERVE_HTTP_HEAD_S	SERVE_CONNS_HEAD_S

struct serve_http;

/* Renders the exposition into out; called from the HTTP thread. */
typedef void (*serve_http_render_fn)(void *arg, struct prom_buf *out);


/*
 * Binds spec and listens, before anything slow is loaded, so a taken port
 * fails at once. Returns NULL with a one-line reason in err when the
 * address is invalid or cannot be bound.
 */
struct serve_http *serve_http_bind(const char *spec, char *err, size_t errlen);

/* Starts answering on the bound socket. 0, or -1 with a reason in err. */
int serve_http_run(struct serve_http *h, serve_http_render_fn render, void *arg,
		   struct serve_counters *counters, char *err, size_t errlen);

/* The address really bound, "127.0.0.1:9747" or "[::1]:9747". */
const char *serve_http_address(const struct serve_http *h);

/* Stops the thread, closes every connection and the socket (NULL is fine). */
void serve_http_stop(struct serve_http *h);

#endif /* BHSCOPE_SERVE_HTTP_H */
