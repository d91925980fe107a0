// SPDX-License-Identifier: GPL-2.0
/*
 * lib/g6_text: "%.6g" without printf for [1e-4, 1) must be printf's text,
 * byte for byte. The oracle is glibc's snprintf, on random values, ratios
 * of random integers, exact ties (dyadic values with a 5 in the 7th
 * significant digit, rounded half to even) and each boundary where the
 * form or the exponent changes.
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

#include "lib/g6_text.h"

static void assert_as_printf(double v)
{
	char want[64], got[64];

	snprintf(want, sizeof(want), "%.6g", v);
	g6_text(v, got, sizeof(got));
	if (strcmp(want, got))
		fail_msg("%.17g: printf \"%s\", g6_text \"%s\"", v, want, got);
}

static void random_values_as_printf(void **state)
{
	(void)state;
	srand48(31);
	for (int i = 0; i < 300000; i++) {
		double v = drand48();

		assert_as_printf(v);
		assert_as_printf(ldexp(v, -(i % 15)));	/* down to 1e-4 and below */
	}
}

static void ratios_as_printf(void **state)
{
	(void)state;
	srand48(32);
	for (int i = 0; i < 300000; i++) {
		long n = lrand48() % 1000000000 + 1;

		assert_as_printf((double)(lrand48() % (n + 1)) / (double)n);
	}
}

/* k / 2^j: every tie a 6-digit rounding can meet at these scales */
static void exact_ties_round_half_even(void **state)
{
	(void)state;
	assert_as_printf(0.5078125);		/* 0.507812, not 0.507813 */
	assert_as_printf(0.0078125);
	for (int j = 17; j <= 26; j += 3)
		for (long k = 0; k < (1L << 17); k++)
			assert_as_printf(ldexp((double)k, -j));
}

static void boundaries_as_printf(void **state)
{
	const double at[] = {
		0, 1, 1e-4, 0.1, 0.01, 0.001, 0.0999995, 0.00999995,
		0.000999995, 0.0000999995, 0.9999995, 0.5, -0.5, 2.5,
		1e-300, 5e-324, NAN, INFINITY, -INFINITY,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		assert_as_printf(at[i]);
		assert_as_printf(nextafter(at[i], 0));
		assert_as_printf(nextafter(at[i], 2));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_values_as_printf),
		cmocka_unit_test(ratios_as_printf),
		cmocka_unit_test(exact_ties_round_half_even),
		cmocka_unit_test(boundaries_as_printf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
