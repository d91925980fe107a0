// SPDX-License-Identifier: GPL-2.0
/* The --trace file: round trip, snapshot messages, and what a reader refuses. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lru/lru_trace.h"

static char path[64];

static int make_path(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_lru_trace.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int remove_path(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static struct lru_event lookup(__u64 block, int outcome, int slot)
{
	return (struct lru_event){ .block = block, .dev = 7, .size = 4096,
				   .cpu = 1, .slot = slot, .lru_size = 16,
				   .outcome = outcome };
}

static void records_come_back_in_order_with_final_counts(void **state)
{
	struct lru_trace_writer w;
	struct lru_trace_reader r;
	struct lru_event e;
	char why[256];

	(void)state;
	assert_int_equal(lru_trace_create(&w, path, 16, 4, "fentry:x"), 0);
	for (int i = 0; i < 100; i++) {
		e = lookup(i, i % 2 ? LRU_HIT : LRU_MISS_ABSENT, i % 2 ? 3 : -1);
		assert_int_equal(lru_trace_append(&w, &e), 0);
	}
	assert_int_equal(lru_trace_finish(&w, 5), 0);

	assert_int_equal(lru_trace_open(&r, path, why, sizeof(why)), 0);
	assert_int_equal(r.h.records, 100);
	assert_int_equal(r.h.lost, 5);
	assert_int_equal(r.h.lru_size, 16);
	assert_int_equal(r.h.nr_cpus, 4);
	assert_true(r.h.flags & LRU_TRACE_COMPLETE);
	assert_string_equal(r.h.hook, "fentry:x");
	for (int i = 0; i < 100; i++) {
		assert_int_equal(lru_trace_next(&r, &e, why, sizeof(why)), 1);
		assert_int_equal(e.block, i);
		assert_int_equal(e.slot, i % 2 ? 3 : -1);
	}
	assert_int_equal(lru_trace_next(&r, &e, why, sizeof(why)), 0);
	lru_trace_close(&r);
}

static void snapshot_message_becomes_one_record_per_slot(void **state)
{
	struct lru_snapshot_msg m = { .head = lookup(0, LRU_SNAPSHOT, 3) };
	struct lru_trace_writer w;
	struct lru_trace_reader r;
	struct lru_event e;
	char why[256];

	(void)state;
	m.head.flags = LRU_EV_GAP;
	for (int i = 0; i < 3; i++)
		m.keys[i] = (struct lru_key){ .block = 10 + i, .dev = 7, .size = 1024 };
	assert_int_equal(lru_trace_create(&w, path, 16, 1, "kprobe:y"), 0);
	assert_int_equal(lru_trace_append_msg(&w, &m, sizeof(m)), 3);
	m.head.slot = 0;		/* an empty LRU */
	assert_int_equal(lru_trace_append_msg(&w, &m, sizeof(m)), 1);
	e = lookup(1, LRU_HIT, 0);
	assert_int_equal(lru_trace_append_msg(&w, &e, sizeof(e)), 1);
	assert_int_equal(lru_trace_append_msg(&w, &e, 3), -EINVAL);
	assert_int_equal(lru_trace_finish(&w, 0), 0);

	assert_int_equal(lru_trace_open(&r, path, why, sizeof(why)), 0);
	assert_int_equal(r.h.records, 5);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(lru_trace_next(&r, &e, why, sizeof(why)), 1);
		assert_int_equal(e.outcome, LRU_SNAPSHOT);
		assert_int_equal(e.slot, i);
		assert_int_equal(e.block, 10 + i);
		assert_int_equal(e.size, 1024);
		/* The gap belongs to the first record of the run only. */
		assert_int_equal(e.flags, i ? 0 : LRU_EV_GAP);
	}
	assert_int_equal(lru_trace_next(&r, &e, why, sizeof(why)), 1);
	assert_int_equal(e.slot, -1);
	assert_int_equal(lru_trace_next(&r, &e, why, sizeof(why)), 1);
	assert_int_equal(e.outcome, LRU_HIT);
	lru_trace_close(&r);
}

static void reader_refuses_other_files_and_torn_records(void **state)
{
	struct lru_trace_writer w;
	struct lru_trace_reader r;
	struct lru_event e = lookup(1, LRU_HIT, 0);
	char why[256];
	FILE *f;

	(void)state;
	f = fopen(path, "w");
	fputs("this is not a trace, just some text long enough for a header..........."
	      "......................................................................"
	      "......................................................................",
	      f);
	fclose(f);
	assert_int_equal(lru_trace_open(&r, path, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a bhscope lru --trace file"));

	assert_int_equal(lru_trace_create(&w, path, 16, 1, "z"), 0);
	w.h.version = 99;
	assert_int_equal(lru_trace_finish(&w, 0), 0);
	assert_int_equal(lru_trace_open(&r, path, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "version 99"));

	/* A recording killed mid-write: incomplete header, half a record. */
	assert_int_equal(lru_trace_create(&w, path, 16, 1, "z"), 0);
	assert_int_equal(lru_trace_append(&w, &e), 0);
	fwrite(&e, 1, sizeof(e) / 2, w.f);
	fclose(w.f);
	assert_int_equal(lru_trace_open(&r, path, why, sizeof(why)), 0);
	assert_false(r.h.flags & LRU_TRACE_COMPLETE);
	assert_int_equal(lru_trace_next(&r, &e, why, sizeof(why)), 1);
	assert_int_equal(lru_trace_next(&r, &e, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "ends inside record 1"));
	lru_trace_close(&r);

	assert_int_equal(lru_trace_open(&r, "/nonexistent/x", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "cannot open"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(records_come_back_in_order_with_final_counts,
						make_path, remove_path),
		cmocka_unit_test_setup_teardown(snapshot_message_becomes_one_record_per_slot,
						make_path, remove_path),
		cmocka_unit_test_setup_teardown(reader_refuses_other_files_and_torn_records,
						make_path, remove_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
