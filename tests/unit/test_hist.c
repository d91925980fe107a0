// SPDX-License-Identifier: GPL-2.0
/* log2 histogram bounds, totals, text and JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bhscope.h"
#include "lib/hist.h"

static void slot_bounds_cover_powers_of_two(void **state)
{
	(void)state;
	assert_int_equal(hist_slot_low(0), 0);
	assert_int_equal(hist_slot_high(0), 0);
	assert_int_equal(hist_slot_low(1), 1);
	assert_int_equal(hist_slot_high(1), 1);
	assert_int_equal(hist_slot_low(4), 8);
	assert_int_equal(hist_slot_high(4), 15);
	/* Consecutive slots tile the integers without gaps. */
	for (int i = 1; i < BHSCOPE_LOG2_SLOTS - 1; i++)
		assert_int_equal(hist_slot_high(i) + 1, hist_slot_low(i + 1));
}

static char *print_to_string(const __u64 *slots, int nr, int linear)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (linear)
		hist_print_linear(f, slots, nr, "slot");
	else
		hist_print_log2(f, slots, nr, "usecs");
	fclose(f);
	return buf;
}

static void empty_histogram_prints_nothing(void **state)
{
	__u64 slots[BHSCOPE_LOG2_SLOTS] = {};
	char *s = print_to_string(slots, BHSCOPE_LOG2_SLOTS, 0);

	(void)state;
	assert_string_equal(s, "");
	free(s);
}

static void log2_print_spans_first_to_last_nonempty_slot(void **state)
{
	__u64 slots[BHSCOPE_LOG2_SLOTS] = {};
	char *s;

	(void)state;
	slots[3] = 10;	/* 4 -> 7 */
	slots[5] = 40;	/* 16 -> 31 */
	s = print_to_string(slots, BHSCOPE_LOG2_SLOTS, 0);
	assert_non_null(strstr(s, "4 -> 7"));
	assert_non_null(strstr(s, "8 -> 15"));	/* empty, but inside the range */
	assert_non_null(strstr(s, "16 -> 31"));
	assert_null(strstr(s, "2 -> 3"));
	assert_null(strstr(s, "32 -> 63"));
	/* The largest slot gets the full 40-character bar. */
	assert_non_null(strstr(s, "|****************************************|"));
	free(s);
}

static void linear_print_labels_each_slot(void **state)
{
	__u64 slots[16] = { 5, 0, 2 };
	char *s = print_to_string(slots, 16, 1);

	(void)state;
	assert_non_null(strstr(s, "         0 : 5"));
	assert_non_null(strstr(s, "         2 : 2"));
	assert_null(strstr(s, "         3 :"));
	free(s);
}

static void json_lists_only_nonempty_slots(void **state)
{
	__u64 slots[BHSCOPE_LOG2_SLOTS] = {};
	struct json_object *arr, *first;

	(void)state;
	slots[0] = 1;
	slots[10] = 7;
	arr = hist_log2_json(slots, BHSCOPE_LOG2_SLOTS);
	assert_int_equal(json_object_array_length(arr), 2);
	first = json_object_array_get_idx(arr, 1);
	assert_int_equal(json_object_get_uint64(json_object_object_get(first, "low")), 512);
	assert_int_equal(json_object_get_uint64(json_object_object_get(first, "high")), 1023);
	assert_int_equal(json_object_get_uint64(json_object_object_get(first, "count")), 7);
	assert_int_equal(hist_total(slots, BHSCOPE_LOG2_SLOTS), 8);
	json_object_put(arr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(slot_bounds_cover_powers_of_two),
		cmocka_unit_test(empty_histogram_prints_nothing),
		cmocka_unit_test(log2_print_spans_first_to_last_nonempty_slot),
		cmocka_unit_test(linear_print_labels_each_slot),
		cmocka_unit_test(json_lists_only_nonempty_slots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
