// SPDX-License-Identifier: GPL-2.0
/* The what-if in time per workload operation, from a recorded run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include <cmocka.h>

#include "record/record_per_op.h"

/*
 * 1000 lookups at 300 ns now (size 16); 250 ns at 32, 500 at 8 (null:
 * no prediction at 4); 40 + 60 operations in two phases.
 */
static const char run_text[] =
	"{\"lru\": {\"lru_size\": 16, \"total\": {\"lookups\": 1000},"
	" \"lookup_time\": {\"sizes\": [4, 8, 16, 32],"
	"  \"ns_per_lookup\": [null, 500, 300, 250.0]}},"
	" \"result\": {\"phases\": {\"create\": {\"ops\": 40},"
	"  \"remove\": {\"ops\": 60}}}}";

static struct json_object *lookup_time(struct json_object *run)
{
	struct json_object *lru, *t;

	assert_true(json_object_object_get_ex(run, "lru", &lru));
	assert_true(json_object_object_get_ex(lru, "lookup_time", &t));
	return t;
}

static double at(struct json_object *t, const char *key, size_t i)
{
	struct json_object *a, *v;

	assert_true(json_object_object_get_ex(t, key, &a));
	v = json_object_array_get_idx(a, i);
	return v ? json_object_get_double(v) : -1;
}

static void each_size_costs_every_operation(void **state)
{
	struct json_object *run = json_tokener_parse(run_text);
	struct json_object *t, *ops;

	(void)state;
	record_per_op_add(run);
	t = lookup_time(run);
	assert_true(json_object_object_get_ex(t, "ops", &ops));
	assert_float_equal(json_object_get_double(ops), 100, 0);
	/* 1000 lookups over 100 operations: 10 lookups an operation */
	assert_float_equal(at(t, "ns_per_op", 1), 5000, 1e-9);
	assert_float_equal(at(t, "ns_per_op", 2), 3000, 1e-9);
	assert_float_equal(at(t, "ns_per_op", 3), 2500, 1e-9);
	assert_float_equal(at(t, "change_ns_per_op", 1), 2000, 1e-9);
	assert_float_equal(at(t, "change_ns_per_op", 2), 0, 1e-9);
	assert_float_equal(at(t, "change_ns_per_op", 3), -500, 1e-9);
	/* no prediction at 4: null in both */
	assert_float_equal(at(t, "ns_per_op", 0), -1, 0);
	assert_float_equal(at(t, "change_ns_per_op", 0), -1, 0);
	json_object_put(run);
}

/* A run without operations (a command, not bhbench) gains nothing. */
static void no_operations_no_figure(void **state)
{
	struct json_object *run = json_tokener_parse(run_text);
	struct json_object *t, *v;

	(void)state;
	json_object_object_del(run, "result");
	record_per_op_add(run);
	t = lookup_time(run);
	assert_false(json_object_object_get_ex(t, "ns_per_op", &v));
	json_object_put(run);
	/* nor one without the LRU's times */
	run = json_tokener_parse("{\"lru\": null, \"result\": {\"phases\": {}}}");
	record_per_op_add(run);
	json_object_put(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_size_costs_every_operation),
		cmocka_unit_test(no_operations_no_figure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
