/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who may hold the HTTP server's connections: the policy, as plain data
 * (serve_http_run() applies it to libmicrohttpd's connections).
 *
 * A connection is either waiting for a request head (since it was
 * accepted, or since its previous answer was sent) or answering one. The
 * policy has three rules:
 *
 *  - a head must arrive whole within SERVE_CONNS_HEAD_S of the moment the
 *    connection began waiting for it, which is no later than its first
 *    byte: a client that drips one header line at a time, never idle long
 *    enough for the idle timeout, still loses its slot then;
 *  - an address holds at most per_addr connections: one more from it
 *    takes the place of its oldest connection (the oldest waiting one,
 *    else the oldest answered), so a scraper sharing an address with slow
 *    clients still gets in, at its first try;
 *  - the server holds at most max connections: one more takes the place
 *    of the oldest connection of the address holding the most.
 *
 * A scraper whose head arrives in one piece (as Prometheus sends it) is
 * thus never waiting for long, never the oldest, and never the victim.
 */
#ifndef BHSCOPE_SERVE_CONNS_H
#define BHSCOPE_SERVE_CONNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SERVE_CONNS_HEAD_S	5.0

/* Why the policy closes a connection (bhscope_http_connections_closed_total). */
enum serve_conn_close {
	SERVE_CLOSE_HEAD_DEADLINE,	/* its head took too long */
	SERVE_CLOSE_ADDRESS_FULL,	/* made way for its own address */
	SERVE_CLOSE_SERVER_FULL,	/* made way when every slot was taken */
	SERVE_CLOSE_NR,
};

extern const char *const serve_conn_close_names[SERVE_CLOSE_NR];

struct serve_conn {
	struct serve_conn *prev, *next;	/* in the order they were accepted */
	int fd;
	uint8_t addr[16];		/* the peer's address, without the port */
	uint8_t addr_len;
	double since;			/* began waiting for a head, or answering */
	bool answering;			/* its head arrived */
	bool closing;			/* chosen to close: not counted any more */
};

struct serve_conns {
	struct serve_conn *head, *tail;
	int nr;				/* not closing */
	int max;
	int per_addr;
	double head_s;
};

void serve_conns_init(struct serve_conns *cs, int max, int per_addr,
		      double head_s);

/* Appends c (filled by the caller) as the newest connection. */
void serve_conns_add(struct serve_conns *cs, struct serve_conn *c);
void serve_conns_remove(struct serve_conns *cs, struct serve_conn *c);

/*
 * After c was added: the connection that must make way for it, marked
 * closing, or NULL when it fits; never c itself, but for a server of one
 * slot. *why says which limit. One call frees one slot.
 */
struct serve_conn *serve_conns_make_way(struct serve_conns *cs,
					 const struct serve_conn *c,
					 enum serve_conn_close *why);

/* The state changes of a connection (now: a monotonic clock, seconds). */
void serve_conns_answering(struct serve_conns *cs, struct serve_conn *c,
			   double now);
void serve_conns_waiting(struct serve_conns *cs, struct serve_conn *c,
			 double now);

/*
 * The first connection whose head is overdue at now, marked closing, or
 * NULL. *next_deadline (if not NULL) gets the earliest deadline of those
 * still waiting, or 0 when none waits.
 */
struct serve_conn *serve_conns_overdue(struct serve_conns *cs, double now,
				       double *next_deadline);

#endif /* BHSCOPE_SERVE_CONNS_H */
