// SPDX-License-Identifier: GPL-2.0
/* HZ from a kernel config, and jiffies to milliseconds. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
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
	assert_float_equal(jiffies_to_ms(1, 250), 4.0, 1e-9);
	assert_float_equal(jiffies_to_ms(1, 1000), 1.0, 1e-9);
	assert_float_equal(jiffies_to_ms(3, 300), 10.0, 1e-9);
	assert_float_equal(jiffies_to_ms(25, 100), 250.0, 1e-9);
	assert_float_equal(jiffies_to_ms(0, 250), 0.0, 1e-9);
}

/* 50 jiffies in 200 ms is 250 Hz; a sample read late widens the bounds */
static void tick_rate_from_time_bounds(void **state)
{
	(void)state;
	assert_int_equal(hz_from_bounds(50, 0.199, 0.201), 250);
	assert_int_equal(hz_from_bounds(200, 0.199, 0.201), 1000);
	assert_int_equal(hz_from_bounds(60, 0.199, 0.201), 300);
	assert_int_equal(hz_from_bounds(20, 0.199, 0.201), 100);
	/* a reader preempted for 30 ms: still only 250 fits */
	assert_int_equal(hz_from_bounds(52, 0.190, 0.220), 250);
}

static void tick_rate_undecided_until_the_window_separates(void **state)
{
	(void)state;
	/* 55 jiffies in 0.17..0.23 s: 250 and 300 both fit */
	assert_int_equal(hz_from_bounds(55, 0.17, 0.23), 0);
	/* the doubled window: 230 jiffies in 0.77..0.83 s */
	assert_int_equal(hz_from_bounds(230, 0.77, 0.83), 300);
	assert_int_equal(hz_from_bounds(10, 0.0, 0.2), 0);
}

static void tick_rate_no_linux_value_is_an_error(void **state)
{
	(void)state;
	/* 512 Hz: between 300 and 1000, far from both */
	assert_int_equal(hz_from_bounds(512, 0.999, 1.001), -1);
	assert_int_equal(hz_from_bounds(0, 0.5, 0.6), -1);
}

static void running_kernel_hz_is_a_linux_value(void **state)
{
	int hz = hz_of_running_kernel();

	(void)state;
	assert_true(hz == 100 || hz == 250 || hz == 300 || hz == 1000);
}

/* the measurement agrees with this machine's config, where it has one */
static void measured_hz_matches_the_config(void **state)
{
	int hz = hz_from_kernel_config();

	(void)state;
	if (hz <= 0 || access("/proc/timer_list", R_OK))
		skip();
	assert_int_equal(hz_measured(), hz);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(config_hz_line_is_found_among_others),
		cmocka_unit_test(config_without_hz_is_an_error),
		cmocka_unit_test(config_read_interrupted_is_resumed),
		cmocka_unit_test(jiffies_convert_at_each_hz),
		cmocka_unit_test(tick_rate_from_time_bounds),
		cmocka_unit_test(tick_rate_undecided_until_the_window_separates),
		cmocka_unit_test(tick_rate_no_linux_value_is_an_error),
		cmocka_unit_test(running_kernel_hz_is_a_linux_value),
		cmocka_unit_test(measured_hz_matches_the_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
