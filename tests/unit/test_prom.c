// SPDX-License-Identifier: GPL-2.0
/* The Prometheus text exposition writer: escaping, numbers, histograms. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bhscope.h"
#include "serve/prom.h"

static void label_values_escape_backslash_quote_and_newline(void **state)
{
	struct prom_buf b = {};
	struct prom_labels ls = {};

	(void)state;
	prom_labels_add(&ls, "device", "a\\b\"c\nd");
	prom_labels_add(&ls, "cpu", "0");
	prom_sample_u64(&b, "bhscope_x_total", &ls, 7);
	assert_string_equal(b.data,
			    "bhscope_x_total{device=\"a\\\\b\\\"c\\nd\",cpu=\"0\"} 7\n");
	prom_buf_free(&b);
}

static void plain_label_values_are_copied_verbatim(void **state)
{
	struct prom_buf b = {};

	(void)state;
	prom_escape_label_value(&b, "loop0 / ünïcode");
	assert_string_equal(b.data, "loop0 / ünïcode");
	prom_buf_free(&b);
}

static void help_escapes_backslash_and_newline_but_not_quotes(void **state)
{
	struct prom_buf b = {};

	(void)state;
	prom_family(&b, "bhscope_y", PROM_GAUGE, "a \"q\" \\ b\nc");
	assert_string_equal(b.data,
			    "# HELP bhscope_y a \"q\" \\\\ b\\nc\n"
			    "# TYPE bhscope_y gauge\n");
	prom_buf_free(&b);
}

static void sample_without_labels_has_no_braces(void **state)
{
	struct prom_buf b = {};
	struct prom_labels none = {};

	(void)state;
	prom_sample(&b, "bhscope_up", NULL, 1);
	prom_sample(&b, "bhscope_up", &none, 0.5);
	assert_string_equal(b.data, "bhscope_up 1\nbhscope_up 0.5\n");
	prom_buf_free(&b);
}

static void u64_counters_print_exactly(void **state)
{
	struct prom_buf b = {};

	(void)state;
	prom_sample_u64(&b, "c_total", NULL, UINT64_MAX);
	assert_string_equal(b.data, "c_total 18446744073709551615\n");
	prom_buf_free(&b);
}

static void doubles_print_shortest_and_special_values(void **state)
{
	char s[32];

	(void)state;
	prom_format_double(s, sizeof(s), 0.1);
	assert_string_equal(s, "0.1");
	prom_format_double(s, sizeof(s), 3);
	assert_string_equal(s, "3");
	prom_format_double(s, sizeof(s), 1e-6);
	assert_string_equal(s, "1e-06");
	prom_format_double(s, sizeof(s), INFINITY);
	assert_string_equal(s, "+Inf");
	prom_format_double(s, sizeof(s), -INFINITY);
	assert_string_equal(s, "-Inf");
	prom_format_double(s, sizeof(s), NAN);
	assert_string_equal(s, "NaN");
	/* Whatever is printed reads back as the same double. */
	prom_format_double(s, sizeof(s), 1.0 / 3);
	assert_true(strtod(s, NULL) == 1.0 / 3);
}

static void jiffies_and_nanoseconds_convert_to_seconds(void **state)
{
	char s[32];

	(void)state;
	/* 1234 jiffies at HZ=250 are 4.936 s; at HZ=1000, 1.234 s. */
	prom_format_double(s, sizeof(s), prom_seconds_from_jiffies(1234, 250));
	assert_string_equal(s, "4.936");
	prom_format_double(s, sizeof(s), prom_seconds_from_jiffies(1234, 1000));
	assert_string_equal(s, "1.234");
	prom_format_double(s, sizeof(s), prom_seconds_from_ns(1500000));
	assert_string_equal(s, "0.0015");
}

static void microsecond_bounds_print_as_short_seconds(void **state)
{
	double le[BHSCOPE_LOG2_SLOTS];
	char s[32];

	(void)state;
	prom_log2_le_truncated(le, BHSCOPE_LOG2_SLOTS, 1e6);
	prom_format_double(s, sizeof(s), le[0]);
	assert_string_equal(s, "1e-06");	/* slot 0: under 1 µs */
	prom_format_double(s, sizeof(s), le[7]);
	assert_string_equal(s, "0.000128");
	prom_format_double(s, sizeof(s), le[20]);
	assert_string_equal(s, "1.048576");
}

static void count_bounds_are_slot_maxima(void **state)
{
	double le[6];

	(void)state;
	prom_log2_le_counts(le, 6, 1);
	assert_true(le[0] == 0 && le[1] == 1 && le[2] == 3);
	assert_true(le[3] == 7 && le[4] == 15 && le[5] == 31);
}

static void histogram_buckets_are_cumulative_with_inf_sum_count(void **state)
{
	__u64 slots[5] = { 1, 0, 2, 3, 4 };
	double le[5];
	struct prom_buf b = {};
	struct prom_labels ls = {};
	struct prom_hist h = {
		.slots = slots, .le = le, .nr_slots = 5,
		.first = 0, .last = 4, .sum = 2.5,
	};

	(void)state;
	prom_log2_le_counts(le, 5, 1);
	prom_labels_add(&ls, "device", "loop0");
	prom_histogram(&b, "h", &ls, &h);
	assert_string_equal(b.data,
			    "h_bucket{device=\"loop0\",le=\"0\"} 1\n"
			    "h_bucket{device=\"loop0\",le=\"1\"} 1\n"
			    "h_bucket{device=\"loop0\",le=\"3\"} 3\n"
			    "h_bucket{device=\"loop0\",le=\"7\"} 6\n"
			    "h_bucket{device=\"loop0\",le=\"15\"} 10\n"
			    "h_bucket{device=\"loop0\",le=\"+Inf\"} 10\n"
			    "h_sum{device=\"loop0\"} 2.5\n"
			    "h_count{device=\"loop0\"} 10\n");
	prom_buf_free(&b);
}

static void histogram_range_folds_low_slots_in_and_high_slots_into_inf(void **state)
{
	__u64 slots[6] = { 5, 1, 1, 1, 1, 9 };
	double le[6];
	struct prom_buf b = {};
	struct prom_hist h = {
		.slots = slots, .le = le, .nr_slots = 6,
		.first = 2, .last = 3, .sum = 100,
	};

	(void)state;
	prom_log2_le_counts(le, 6, 1);
	prom_histogram(&b, "h", NULL, &h);
	assert_string_equal(b.data,
			    "h_bucket{le=\"3\"} 7\n"
			    "h_bucket{le=\"7\"} 8\n"
			    "h_bucket{le=\"+Inf\"} 18\n"
			    "h_sum 100\n"
			    "h_count 18\n");
	prom_buf_free(&b);
}

static void names_are_validated_and_sanitized(void **state)
{
	char name[] = "9lru-size.max";

	(void)state;
	assert_true(prom_name_valid("bhscope_jbd2_transactions_total"));
	assert_true(prom_name_valid("a:b"));
	assert_false(prom_name_valid("1abc"));
	assert_false(prom_name_valid("a-b"));
	assert_false(prom_name_valid(""));
	assert_true(prom_label_name_valid("device"));
	assert_false(prom_label_name_valid("__name__"));
	assert_false(prom_label_name_valid("a:b"));
	prom_sanitize_name(name);
	assert_string_equal(name, "_lru_size_max");
}

static void reset_keeps_memory_for_the_next_scrape(void **state)
{
	struct prom_buf b = {};
	char *before;

	(void)state;
	for (int i = 0; i < 1000; i++)
		prom_sample_u64(&b, "bhscope_filler_total", NULL, i);
	before = b.data;
	prom_buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data, "");
	prom_sample_u64(&b, "x", NULL, 1);
	assert_ptr_equal(b.data, before);
	assert_false(b.oom);
	prom_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(label_values_escape_backslash_quote_and_newline),
		cmocka_unit_test(plain_label_values_are_copied_verbatim),
		cmocka_unit_test(help_escapes_backslash_and_newline_but_not_quotes),
		cmocka_unit_test(sample_without_labels_has_no_braces),
		cmocka_unit_test(u64_counters_print_exactly),
		cmocka_unit_test(doubles_print_shortest_and_special_values),
		cmocka_unit_test(jiffies_and_nanoseconds_convert_to_seconds),
		cmocka_unit_test(microsecond_bounds_print_as_short_seconds),
		cmocka_unit_test(count_bounds_are_slot_maxima),
		cmocka_unit_test(histogram_buckets_are_cumulative_with_inf_sum_count),
		cmocka_unit_test(histogram_range_folds_low_slots_in_and_high_slots_into_inf),
		cmocka_unit_test(names_are_validated_and_sanitized),
		cmocka_unit_test(reset_keeps_memory_for_the_next_scrape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
