// SPDX-License-Identifier: GPL-2.0
/* Statistics over repeats: median, spread, % change, noise marking. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analyse/stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void median_of_odd_count_is_the_middle_value(void **state)
{
	double v[] = { 9, 1, 5 };

	(void)state;
	assert_float_equal(stats_median(v, N(v)), 5, 0);
	assert_float_equal(v[0], 9, 0);	/* input left unsorted */
}

static void median_of_even_count_is_the_mean_of_the_middle_two(void **state)
{
	double v[] = { 4, 1, 10, 2 };

	(void)state;
	assert_float_equal(stats_median(v, N(v)), 3, 0);
}

static void median_of_one_value_is_that_value(void **state)
{
	double v[] = { 42.5 };

	(void)state;
	assert_float_equal(stats_median(v, 1), 42.5, 0);
}

static void median_of_nothing_is_nan(void **state)
{
	(void)state;
	assert_true(isnan(stats_median(NULL, 0)));
}

static void summary_gives_range_and_mad(void **state)
{
	/* deviations from 5: 4 3 0 1 5 -> sorted 0 1 3 4 5, MAD 3 */
	double v[] = { 1, 2, 5, 6, 10 };
	struct stats_summary s;

	(void)state;
	stats_summarize(v, N(v), &s);
	assert_int_equal(s.n, 5);
	assert_float_equal(s.median, 5, 0);
	assert_float_equal(s.min, 1, 0);
	assert_float_equal(s.max, 10, 0);
	assert_float_equal(s.mad, 3, 0);
	assert_float_equal(stats_rel_spread(&s), 60, 1e-9);
}

static void single_value_has_no_spread(void **state)
{
	double v[] = { 7 };
	struct stats_summary s;

	(void)state;
	stats_summarize(v, 1, &s);
	assert_float_equal(s.mad, 0, 0);
	assert_float_equal(stats_rel_spread(&s), 0, 0);
}

static void pct_change_is_relative_to_the_base(void **state)
{
	(void)state;
	assert_float_equal(stats_pct_change(8366, 1138), -86.397322, 1e-5);
	assert_float_equal(stats_pct_change(100, 150), 50, 1e-12);
	/* a negative base: the sign still says up or down */
	assert_float_equal(stats_pct_change(-10, -5), 50, 1e-12);
}

static void pct_change_from_zero_is_undefined(void **state)
{
	(void)state;
	assert_true(isnan(stats_pct_change(0, 5)));
	assert_true(isnan(stats_pct_change(NAN, 5)));
}

static struct stats_summary summary(const double *v, size_t n)
{
	struct stats_summary s;

	stats_summarize(v, n, &s);
	return s;
}

static void overlapping_ranges_are_noise(void **state)
{
	double a[] = { 100, 104, 98 }, b[] = { 103, 107, 105 };
	struct stats_summary sa = summary(a, N(a)), sb = summary(b, N(b));

	(void)state;
	assert_true(stats_within_noise(&sa, &sb));
}

static void separated_ranges_beyond_the_spread_are_a_change(void **state)
{
	double a[] = { 100, 101, 99 }, b[] = { 150, 151, 149 };
	struct stats_summary sa = summary(a, N(a)), sb = summary(b, N(b));

	(void)state;
	assert_false(stats_within_noise(&sa, &sb));
}

static void change_smaller_than_the_mad_is_noise(void **state)
{
	/* Ranges apart, but +5% is below a's relative MAD of 10%. */
	struct stats_summary a = { .n = 5, .median = 100, .min = 60,
				   .max = 104, .mad = 10 };
	struct stats_summary b = { .n = 3, .median = 105, .min = 104.5,
				   .max = 106, .mad = 1 };

	(void)state;
	assert_true(stats_within_noise(&a, &b));
}

static void single_runs_change_unless_equal(void **state)
{
	double a[] = { 100 }, b[] = { 101 }, c[] = { 100 };
	struct stats_summary sa = summary(a, 1), sb = summary(b, 1),
			     sc = summary(c, 1);

	(void)state;
	assert_false(stats_within_noise(&sa, &sb));
	assert_true(stats_within_noise(&sa, &sc));
}

static void missing_data_is_noise(void **state)
{
	double a[] = { 100 };
	struct stats_summary sa = summary(a, 1), none = summary(NULL, 0);

	(void)state;
	assert_true(stats_within_noise(&sa, &none));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(median_of_odd_count_is_the_middle_value),
		cmocka_unit_test(median_of_even_count_is_the_mean_of_the_middle_two),
		cmocka_unit_test(median_of_one_value_is_that_value),
		cmocka_unit_test(median_of_nothing_is_nan),
		cmocka_unit_test(summary_gives_range_and_mad),
		cmocka_unit_test(single_value_has_no_spread),
		cmocka_unit_test(pct_change_is_relative_to_the_base),
		cmocka_unit_test(pct_change_from_zero_is_undefined),
		cmocka_unit_test(overlapping_ranges_are_noise),
		cmocka_unit_test(separated_ranges_beyond_the_spread_are_a_change),
		cmocka_unit_test(change_smaller_than_the_mad_is_noise),
		cmocka_unit_test(single_runs_change_unless_equal),
		cmocka_unit_test(missing_data_is_noise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
