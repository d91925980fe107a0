// SPDX-License-Identifier: GPL-2.0
/*
 * serve --config FILE as hostile input: only a bounded regular file is
 * read, whole lines or nothing, and nothing it holds is waited on.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "scratch_dir.h"

#include "serve/serve_config.h"

static char err[512];
static struct serve_config cfg, cli;

/* Loads p over a config whose interval is 7 s: -1 must leave it so. */
static int load(const char *p)
{
	int ret;

	serve_config_defaults(&cli);
	serve_config_defaults(&cfg);
	cfg.interval_s = 7;
	err[0] = '\0';
	alarm(10);	/* a hang fails the test rather than make check */
	ret = serve_config_load(&cfg, p, &cli, 0, err, sizeof(err));
	alarm(0);
	if (ret)
		assert_true(cfg.interval_s == 7);
	return ret;
}

static void settings_of_a_file_apply(void **state)
{
	static const char text[] = "interval = 3\n# c\n\ndevice = loop0\nper-cpu=yes";

	(void)state;
	assert_int_equal(load(scratch_file("ok.conf", text, sizeof(text) - 1)), 0);
	assert_true(cfg.interval_s == 3);
	assert_true(cfg.per_cpu);
	assert_int_equal(cfg.nr_devices, 1);
}

/*
 * fgets() once split a long line and applied its tail as a setting: here
 * a comment whose tail reads "interval = 2". The line is refused whole.
 */
static void long_line_is_refused_not_split(void **state)
{
	size_t n = SERVE_CONFIG_MAX_LINE + 100;
	char *text = malloc(n + 32);

	(void)state;
	memset(text, '#', n);
	strcpy(text + SERVE_CONFIG_MAX_LINE - 1, "interval = 2\n");
	assert_int_equal(load(scratch_file("long.conf", text, strlen(text))), -1);
	assert_non_null(strstr(err, "long.conf:1: line too long"));
	free(text);
}

static void longest_line_allowed_is_read(void **state)
{
	char *text = malloc(SERVE_CONFIG_MAX_LINE + 1);
	size_t n = SERVE_CONFIG_MAX_LINE - 1;

	(void)state;
	memset(text, '#', n);
	text[n] = '\n';
	assert_int_equal(load(scratch_file("edge.conf", text, n + 1)), 0);
	free(text);
}

static void directory_is_an_error_not_an_empty_config(void **state)
{
	(void)state;
	assert_int_equal(load(scratch_dir), -1);
	assert_non_null(strstr(err, "a directory, not a regular file"));
}

/* /dev/zero used to spin forever; a FIFO to block until a writer came. */
static void endless_or_waiting_inputs_are_refused_at_once(void **state)
{
	char fifo[160];

	(void)state;
	assert_int_equal(load("/dev/zero"), -1);
	assert_non_null(strstr(err, "cannot read /dev/zero: a character device"));
	snprintf(fifo, sizeof(fifo), "%s/fifo.conf", scratch_dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(load(fifo), -1);
	assert_non_null(strstr(err, "a FIFO, not a regular file"));
}

static void big_file_is_refused(void **state)
{
	size_t n = SERVE_CONFIG_MAX_BYTES + 1;
	char *text = malloc(n);

	(void)state;
	memset(text, '\n', n);
	assert_int_equal(load(scratch_file("big.conf", text, n)), -1);
	assert_non_null(strstr(err, "larger than 64 KiB"));
	free(text);
}

static void nul_byte_is_refused(void **state)
{
	static const char text[] = "interval = 3\n\0interval = 1\n";

	(void)state;
	assert_int_equal(load(scratch_file("nul.conf", text, sizeof(text) - 1)), -1);
	assert_non_null(strstr(err, "NUL byte"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(settings_of_a_file_apply),
		cmocka_unit_test(long_line_is_refused_not_split),
		cmocka_unit_test(longest_line_allowed_is_read),
		cmocka_unit_test(directory_is_an_error_not_an_empty_config),
		cmocka_unit_test(endless_or_waiting_inputs_are_refused_at_once),
		cmocka_unit_test(big_file_is_refused),
		cmocka_unit_test(nul_byte_is_refused),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
