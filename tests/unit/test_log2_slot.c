// SPDX-License-Identifier: GPL-2.0
/* The BPF programs' log2 histogram slot, against its definition. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/types.h>

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#include "../../bpf/log2.bpf.h"

/* 0 for 0, else 1 + floor(log2(v)), at most the last slot. */
static __u32 slot_by_definition(__u64 v)
{
	__u32 s = v ? 64 - __builtin_clzll(v) : 0;

	return s < BHSCOPE_LOG2_SLOTS ? s : BHSCOPE_LOG2_SLOTS - 1;
}

static void every_power_of_two_and_its_neighbours(void **state)
{
	(void)state;
	for (int b = 0; b < 64; b++) {
		for (int d = -2; d <= 2; d++) {
			__u64 v = ((__u64)1 << b) + (__u64)(int64_t)d;

			assert_int_equal(log2_slot(v), slot_by_definition(v));
		}
	}
	assert_int_equal(log2_slot(UINT64_MAX), BHSCOPE_LOG2_SLOTS - 1);
}

static void small_values_one_by_one(void **state)
{
	(void)state;
	for (__u64 v = 0; v < 70000; v++)
		assert_int_equal(log2_slot(v), slot_by_definition(v));
	assert_int_equal(log2_slot(0), 0);
	assert_int_equal(log2_slot(1), 1);
	assert_int_equal(log2_slot(1023), 10);
	assert_int_equal(log2_slot(1024), 11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_power_of_two_and_its_neighbours),
		cmocka_unit_test(small_values_one_by_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
