// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "serve/serve_conns.h"

const char *const serve_conn_close_names[SERVE_CLOSE_NR] = {
	[SERVE_CLOSE_HEAD_DEADLINE] = "head_deadline",
	[SERVE_CLOSE_ADDRESS_FULL] = "address_full",
	[SERVE_CLOSE_SERVER_FULL] = "server_full",
};

void serve_conns_init(struct serve_conns *cs, int max, int per_addr,
		      double head_s)
{
	memset(cs, 0, sizeof(*cs));
	cs->max = max;
	cs->per_addr = per_addr;
	cs->head_s = head_s;
}

void serve_conns_add(struct serve_conns *cs, struct serve_conn *c)
{
	c->next = NULL;
	c->prev = cs->tail;
	if (cs->tail)
		cs->tail->next = c;
	else
		cs->head = c;
	cs->tail = c;
	c->closing = false;
	cs->nr++;
}

void serve_conns_remove(struct serve_conns *cs, struct serve_conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		cs->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		cs->tail = c->prev;
	if (!c->closing)
		cs->nr--;
	c->prev = c->next = NULL;
}

static bool same_addr(const struct serve_conn *a, const struct serve_conn *b)
{
	return a->addr_len == b->addr_len &&
	       !memcmp(a->addr, b->addr, a->addr_len);
}

static int count_addr(const struct serve_conns *cs, const struct serve_conn *a)
{
	int n = 0;

	for (const struct serve_conn *c = cs->head; c; c = c->next)
		n += !c->closing && same_addr(c, a);
	return n;
}

/* The oldest connection of a's address but spare, waiting ones first. */
static struct serve_conn *oldest_of(const struct serve_conns *cs,
				    const struct serve_conn *a,
				    const struct serve_conn *spare)
{
	struct serve_conn *answering = NULL;

	for (struct serve_conn *c = cs->head; c; c = c->next) {
		if (c->closing || c == spare || !same_addr(c, a))
			continue;
		if (!c->answering)
			return c;
		if (!answering)
			answering = c;
	}
	return answering;
}

static struct serve_conn *close_one(struct serve_conns *cs,
				    struct serve_conn *c)
{
	if (c) {
		c->closing = true;
		cs->nr--;
	}
	return c;
}

struct serve_conn *serve_conns_make_way(struct serve_conns *cs,
					 const struct serve_conn *c,
					 enum serve_conn_close *why)
{
	const struct serve_conn *most = NULL;
	int most_n = 0;

	if (count_addr(cs, c) > cs->per_addr) {
		*why = SERVE_CLOSE_ADDRESS_FULL;
		return close_one(cs, oldest_of(cs, c, c));
	}
	if (cs->nr <= cs->max)
		return NULL;
	/*
	 * The address holding the most; of those holding as many, the one
	 * with the oldest connection (the list is in accept order).
	 */
	for (const struct serve_conn *a = cs->head; a; a = a->next) {
		int n;

		if (a->closing || a == c)
			continue;
		n = count_addr(cs, a);
		if (n > most_n) {
			most = a;
			most_n = n;
		}
	}
	*why = SERVE_CLOSE_SERVER_FULL;
	return close_one(cs, most ? oldest_of(cs, most, c) : NULL);
}

void serve_conns_answering(struct serve_conns *cs, struct serve_conn *c,
			   double now)
{
	(void)cs;
	c->answering = true;
	c->since = now;
}

void serve_conns_waiting(struct serve_conns *cs, struct serve_conn *c,
			 double now)
{
	(void)cs;
	c->answering = false;
	c->since = now;
}

struct serve_conn *serve_conns_overdue(struct serve_conns *cs, double now,
				       double *next_deadline)
{
	double next = 0;

	for (struct serve_conn *c = cs->head; c; c = c->next) {
		double due = c->since + cs->head_s;

		if (c->closing || c->answering)
			continue;
		if (due <= now)
			return close_one(cs, c);
		if (!next || due < next)
			next = due;
	}
	if (next_deadline)
		*next_deadline = next;
	return NULL;
}
