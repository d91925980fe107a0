// SPDX-License-Identifier: GPL-2.0
/* Who may hold serve's HTTP connections (serve_conns.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "serve/serve_conns.h"

#define N 16

static struct serve_conn pool[N];
static struct serve_conns cs;

/* Connection i from 10.0.0.ADDR, accepted at time i. */
static struct serve_conn *add(int i, int addr)
{
	struct serve_conn *c = &pool[i];

	memset(c, 0, sizeof(*c));
	c->fd = 100 + i;
	c->addr_len = 4;
	c->addr[0] = 10;
	c->addr[3] = (uint8_t)addr;
	c->since = i;
	serve_conns_add(&cs, c);
	return c;
}

static void address_full_makes_way_for_the_newest(void **state)
{
	enum serve_conn_close why = SERVE_CLOSE_NR;
	struct serve_conn *c;

	(void)state;
	serve_conns_init(&cs, 8, 3, 5);
	add(0, 1);
	add(1, 1);
	add(2, 2);
	add(3, 1);
	assert_null(serve_conns_make_way(&cs, &pool[3], &why));
	/* the 4th from 10.0.0.1 closes its oldest waiting one, not itself */
	serve_conns_answering(&cs, &pool[0], 3.5);
	c = add(4, 1);
	assert_ptr_equal(serve_conns_make_way(&cs, c, &why), &pool[1]);
	assert_int_equal(why, SERVE_CLOSE_ADDRESS_FULL);
	assert_true(pool[1].closing);
	assert_null(serve_conns_make_way(&cs, c, &why));
	assert_int_equal(cs.nr, 4);
}

static void address_full_of_answering_ones_closes_the_oldest(void **state)
{
	enum serve_conn_close why;
	struct serve_conn *c;

	(void)state;
	serve_conns_init(&cs, 8, 2, 5);
	add(0, 1);
	add(1, 1);
	serve_conns_answering(&cs, &pool[0], 2);
	serve_conns_answering(&cs, &pool[1], 2);
	c = add(2, 1);
	assert_ptr_equal(serve_conns_make_way(&cs, c, &why), &pool[0]);
}

static void server_full_takes_from_the_address_holding_most(void **state)
{
	enum serve_conn_close why = SERVE_CLOSE_NR;
	struct serve_conn *c;

	(void)state;
	serve_conns_init(&cs, 6, 4, 5);
	add(0, 1);		/* the oldest, but its address holds one */
	add(1, 2);
	add(2, 3);
	add(3, 3);
	add(4, 2);
	add(5, 2);		/* 10.0.0.2 holds three */
	c = add(6, 4);
	assert_ptr_equal(serve_conns_make_way(&cs, c, &why), &pool[1]);
	assert_int_equal(why, SERVE_CLOSE_SERVER_FULL);
	/* one more: 10.0.0.2 and .3 hold two each, .3's is older */
	assert_null(serve_conns_make_way(&cs, c, &why));
	c = add(7, 4);
	assert_ptr_equal(serve_conns_make_way(&cs, c, &why), &pool[2]);
	assert_int_equal(cs.nr, 6);
}

static void a_closed_connection_frees_its_slot(void **state)
{
	enum serve_conn_close why;
	struct serve_conn *c;

	(void)state;
	serve_conns_init(&cs, 2, 2, 5);
	add(0, 1);
	add(1, 1);
	serve_conns_remove(&cs, &pool[0]);
	c = add(2, 1);
	assert_null(serve_conns_make_way(&cs, c, &why));
	/* one chosen to close, then reported closed, counts once */
	c = add(3, 1);
	assert_ptr_equal(serve_conns_make_way(&cs, c, &why), &pool[1]);
	serve_conns_remove(&cs, &pool[1]);
	assert_int_equal(cs.nr, 2);
	assert_ptr_equal(cs.head, &pool[2]);
}

static void a_head_is_due_from_when_it_is_awaited(void **state)
{
	double next = -1;

	(void)state;
	serve_conns_init(&cs, 8, 8, 5);
	add(0, 1);
	add(1, 2);
	add(2, 3);
	serve_conns_answering(&cs, &pool[0], 0.5);	/* its head came */
	assert_null(serve_conns_overdue(&cs, 5.9, &next));
	assert_true(next == 6);
	/* a busy client is still cut at 5 s */
	assert_ptr_equal(serve_conns_overdue(&cs, 6, &next), &pool[1]);
	assert_null(serve_conns_overdue(&cs, 6, &next));
	assert_true(next == 7);
	/* answered, then waiting again: due 5 s after its answer */
	serve_conns_waiting(&cs, &pool[0], 6.5);
	assert_ptr_equal(serve_conns_overdue(&cs, 7, &next), &pool[2]);
	assert_null(serve_conns_overdue(&cs, 7, &next));
	assert_true(next == 11.5);
	serve_conns_answering(&cs, &pool[0], 8);
	assert_null(serve_conns_overdue(&cs, 100, &next));
	assert_true(next == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(address_full_makes_way_for_the_newest),
		cmocka_unit_test(address_full_of_answering_ones_closes_the_oldest),
		cmocka_unit_test(server_full_takes_from_the_address_holding_most),
		cmocka_unit_test(a_closed_connection_frees_its_slot),
		cmocka_unit_test(a_head_is_due_from_when_it_is_awaited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
