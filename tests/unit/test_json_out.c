// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output (lib/json_out): doubles with 6 significant digits, every
 * integer digit from a million up, null for what is not finite, integers
 * as they are; an array member streamed element by element.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/json_out.h"

static void assert_double_text(double v, const char *want)
{
	struct json_object *o = json_out_double(v);

	assert_non_null(o);
	assert_string_equal(json_object_to_json_string(o), want);
	assert_true(json_object_get_double(o) == v);	/* the value is kept */
	json_object_put(o);
}

static void doubles_have_six_significant_digits(void **state)
{
	(void)state;
	assert_double_text(1.0014940000000001, "1.00149");
	assert_double_text(0.1 + 0.2, "0.3");
	assert_double_text(0.936412345, "0.936412");
	assert_double_text(981.6, "981.6");
	assert_double_text(0.0000123456, "1.23456e-05");
	assert_double_text(2.0, "2");
	assert_double_text(0.0, "0");
	assert_double_text(-3.25, "-3.25");
}

static void large_doubles_keep_every_integer_digit(void **state)
{
	(void)state;
	assert_double_text(12345678.9, "12345679");
	assert_double_text(1e15, "1e+15");
	assert_double_text(-2.5e6, "-2500000");
}

static void what_is_not_finite_is_null(void **state)
{
	(void)state;
	assert_null(json_out_double(NAN));
	assert_null(json_out_double(INFINITY));
	assert_null(json_out_double(-INFINITY));
}

static void integers_stay_integers(void **state)
{
	struct json_object *o = json_out_new("x/1");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	json_object_object_add(o, "n", json_object_new_int64(12345678901LL));
	json_object_object_add(o, "r", json_out_double(0.5));
	assert_int_equal(json_out_print(f, o, JSON_OUT_LINE), 0);
	fclose(f);
	assert_string_equal(buf, "{\"schema\":\"x/1\",\"n\":12345678901,\"r\":0.5}\n");
	free(buf);
}

static int left = 3;

static struct json_object *next_number(void *arg)
{
	(void)arg;
	return left > 0 ? json_object_new_int(left--) : NULL;
}

static void array_member_is_streamed(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_object *o = json_out_new("x/1");

	(void)state;
	assert_int_equal(json_out_print_array_member(f, o, "cpus", next_number, NULL), 0);
	fclose(f);
	assert_string_equal(buf, "{\"schema\":\"x/1\",\"cpus\":[3,2,1]}\n");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(json_out_print_array_member(f, json_object_new_object(),
						     "cpus", next_number, NULL), 0);
	fclose(f);
	assert_string_equal(buf, "{\"cpus\":[]}\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(doubles_have_six_significant_digits),
		cmocka_unit_test(large_doubles_keep_every_integer_digit),
		cmocka_unit_test(what_is_not_finite_is_null),
		cmocka_unit_test(integers_stay_integers),
		cmocka_unit_test(array_member_is_streamed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
