// SPDX-License-Identifier: GPL-2.0
/* HZ from a kernel config and from a tick's length, and jiffies to milliseconds. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <cmocka.h>

#include "lib/hz.h"

static int hz_of_text(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int hz = hz_from_config(f);

	fclose(f);
	return hz;
}

static void config_hz_line_is_found_among_others(void **state)
{
	(void)state;
	assert_int_equal(hz_of_text("CONFIG_HZ_250=y\n# CONFIG_HZ_1000 is not set\nCONFIG_HZ=250\nCONFIG_X=y\n"), 250);
	assert_int_equal(hz_of_text("CONFIG_HZ=1000\n"), 1000);
}

static void config_without_hz_is_an_error(void **state)
{
	(void)state;
	assert_int_equal(hz_of_text("CONFIG_HZ_250=y\nCONFIG_HZ_PERIODIC=y\n"), -1);
	assert_int_equal(hz_of_text(""), -1);
}

/* A pipe whose first read a signal interrupts, as a stop during setup. */
static ssize_t interrupted_once(void *c, char *buf, size_t size)
{
	static const char text[] = "CONFIG_X=y\nCONFIG_HZ=300\n";
	int *calls = c;
	size_t n = sizeof(text) - 1;

	if ((*calls)++ == 0) {
		errno = EINTR;
		return -1;
	}
	if (*calls > 2)
		return 0;
	memcpy(buf, text, n < size ? n : size);
	return n < size ? n : size;
}

static void config_read_interrupted_is_resumed(void **state)
{
	cookie_io_functions_t io = { .read = interrupted_once };
	int calls = 0;
	FILE *f = fopencookie(&calls, "r", io);

	(void)state;
	assert_non_null(f);
	assert_int_equal(hz_from_config(f), 300);
	assert_true(calls >= 2);
	fclose(f);
}

static void jiffies_convert_at_each_hz(void **state)
{
	(void)state;
	assert_float_equal(hz_jiffies_to_ms(1, 250), 4.0, 1e-9);
	assert_float_equal(hz_jiffies_to_ms(1, 1000), 1.0, 1e-9);
	assert_float_equal(hz_jiffies_to_ms(3, 300), 10.0, 1e-9);
	assert_float_equal(hz_jiffies_to_ms(25, 100), 250.0, 1e-9);
	assert_float_equal(hz_jiffies_to_ms(0, 250), 0.0, 1e-9);
}

/* the kernel's TICK_NSEC for each HZ x86 offers, and HZ 24 and 1200 */
static void tick_length_gives_hz(void **state)
{
	(void)state;
	assert_int_equal(hz_from_tick_ns(4000000), 250);
	assert_int_equal(hz_from_tick_ns(1000000), 1000);
	assert_int_equal(hz_from_tick_ns(3333333), 300);
	assert_int_equal(hz_from_tick_ns(10000000), 100);
	assert_int_equal(hz_from_tick_ns(41666667), 24);
	assert_int_equal(hz_from_tick_ns(833333), 1200);
}

/* 1 ns is a high-resolution clock's, 3333334 no kernel's rounding */
static void resolution_that_is_no_tick_is_refused(void **state)
{
	(void)state;
	assert_int_equal(hz_from_tick_ns(1), -1);
	assert_int_equal(hz_from_tick_ns(0), -1);
	assert_int_equal(hz_from_tick_ns(-4000000), -1);
	assert_int_equal(hz_from_tick_ns(3333334), -1);
	assert_int_equal(hz_from_tick_ns(1000000000), -1);
}

static void running_kernel_hz_is_a_linux_value(void **state)
{
	int hz = hz_of_running_kernel();

	(void)state;
	assert_true(hz == 100 || hz == 250 || hz == 300 || hz == 1000);
}

/* the coarse clock's tick agrees with this machine's config, where it has one */
static void coarse_clock_hz_matches_the_config(void **state)
{
	int hz = hz_from_kernel_config();

	(void)state;
	if (hz <= 0)
		skip();
	assert_int_equal(hz_from_coarse_clock(), hz);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(config_hz_line_is_found_among_others),
		cmocka_unit_test(config_without_hz_is_an_error),
		cmocka_unit_test(config_read_interrupted_is_resumed),
		cmocka_unit_test(jiffies_convert_at_each_hz),
		cmocka_unit_test(tick_length_gives_hz),
		cmocka_unit_test(resolution_that_is_no_tick_is_refused),
		cmocka_unit_test(running_kernel_hz_is_a_linux_value),
		cmocka_unit_test(coarse_clock_hz_matches_the_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
