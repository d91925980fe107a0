// SPDX-License-Identifier: GPL-2.0
/* The shared options: [interval] [count], -C -d -T -j. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bhscope.h"
#include "lib/cli.h"
#include "lib/devname.h"

static const struct argp_child children[] = {
	{ &cli_common_argp, 0, NULL, 0 },
	{ 0 },
};

static const struct argp test_argp = { .children = children };

static int parse(int argc, char **argv, struct cli_common *c)
{
	cli_common_init(c);
	/* ARGP_NO_EXIT | ARGP_NO_ERRS: report errors as return values. */
	return argp_parse(&test_argp, argc, argv, ARGP_NO_EXIT | ARGP_NO_ERRS,
			  NULL, c);
}

static void defaults_are_one_second_forever(void **state)
{
	char *argv[] = { "t", NULL };
	struct cli_common c;

	(void)state;
	assert_int_equal(parse(1, argv, &c), 0);
	assert_float_equal(c.interval_s, 1.0, 0);
	assert_int_equal(c.count, 0);
	assert_false(c.per_cpu);
	assert_false(c.json);
	assert_int_equal(c.kdev, 0);
}

static void flags_and_positionals_are_read(void **state)
{
	char *argv[] = { "t", "-C", "-T", "-j", "-d", "7:3", "0.5", "4", NULL };
	struct cli_common c;

	(void)state;
	assert_int_equal(parse(8, argv, &c), 0);
	assert_true(c.per_cpu);
	assert_true(c.timestamps);
	assert_true(c.json);
	assert_int_equal(c.kdev, BHSCOPE_KDEV(7, 3));
	assert_float_equal(c.interval_s, 0.5, 1e-12);
	assert_int_equal(c.count, 4);
}

static void bad_intervals_are_refused(void **state)
{
	double v;

	(void)state;
	assert_int_not_equal(cli_parse_interval("0", &v), 0);
	assert_int_not_equal(cli_parse_interval("-1", &v), 0);
	assert_int_not_equal(cli_parse_interval("abc", &v), 0);
	assert_int_not_equal(cli_parse_interval("1s", &v), 0);
	assert_int_not_equal(cli_parse_interval("", &v), 0);
	assert_int_not_equal(cli_parse_interval("nan", &v), 0);
	assert_int_not_equal(cli_parse_interval("1e9", &v), 0);
	assert_int_equal(cli_parse_interval("2", &v), 0);
	assert_float_equal(v, 2.0, 0);
}

static void duty_cycles_parse_to_ms(void **state)
{
	unsigned int w = 7, p = 7;

	(void)state;
	assert_int_equal(cli_parse_duty("2/60", &w, &p), 0);
	assert_int_equal(w, 2000);
	assert_int_equal(p, 60000);
	assert_int_equal(cli_parse_duty("0.25/7.5", &w, &p), 0);
	assert_int_equal(w, 250);
	assert_int_equal(p, 7500);
	w = p = 7;
	assert_int_not_equal(cli_parse_duty("60/60", &w, &p), 0);
	assert_int_not_equal(cli_parse_duty("61/60", &w, &p), 0);
	assert_int_not_equal(cli_parse_duty("2", &w, &p), 0);
	assert_int_not_equal(cli_parse_duty("2/", &w, &p), 0);
	assert_int_not_equal(cli_parse_duty("/60", &w, &p), 0);
	assert_int_not_equal(cli_parse_duty("0/60", &w, &p), 0);
	assert_int_not_equal(cli_parse_duty("2/60/3", &w, &p), 0);
	assert_int_not_equal(cli_parse_duty("2/1e9", &w, &p), 0);
	assert_int_not_equal(cli_parse_duty("x/60", &w, &p), 0);
	/* a refused cycle leaves the values alone */
	assert_int_equal(w, 7);
	assert_int_equal(p, 7);
}

static void bad_counts_are_refused(void **state)
{
	long v;

	(void)state;
	assert_int_not_equal(cli_parse_count("0", &v), 0);
	assert_int_not_equal(cli_parse_count("-3", &v), 0);
	assert_int_not_equal(cli_parse_count("1.5", &v), 0);
	assert_int_not_equal(cli_parse_count("x", &v), 0);
	assert_int_not_equal(cli_parse_count("99999999999999999999", &v), 0);
	assert_int_equal(cli_parse_count("10", &v), 0);
	assert_int_equal(v, 10);
}

static void a_third_positional_is_an_error(void **state)
{
	char *argv[] = { "t", "1", "2", "3", NULL };
	struct cli_common c;

	(void)state;
	assert_int_not_equal(parse(4, argv, &c), 0);
}

static void device_numbers_and_names_resolve(void **state)
{
	char err[256], name[64];
	uint32_t kdev;

	(void)state;
	/* numbers of a device of another host: for offline data (traces) */
	assert_int_equal(devname_parse("259:1", &kdev, DEVNAME_ANY_NUMBERS, err,
				       sizeof(err)), 0);
	assert_int_equal(BHSCOPE_KDEV_MAJOR(kdev), 259);
	assert_int_equal(BHSCOPE_KDEV_MINOR(kdev), 1);
	/* to trace, numbers name a block device here: /dev/ram-less 1:4095 not */
	assert_int_not_equal(devname_parse("1:4095", &kdev, 0, err, sizeof(err)), 0);
	assert_string_equal(err, "unknown device '1:4095': no block device 1:4095 here (/sys/dev/block/1:4095)");
	assert_int_not_equal(devname_parse("7:x", &kdev, 0, err, sizeof(err)), 0);
	assert_int_not_equal(devname_parse("no-such-disk", &kdev, 0, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "no-such-disk"));
	/* /dev/null exists but is a character device. */
	assert_int_not_equal(devname_parse("/dev/null", &kdev, 0, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "not a block device"));
	devname_numbers(BHSCOPE_KDEV(8, 17), name, sizeof(name));
	assert_string_equal(name, "8:17");
}

/* --bench "ARGS" of record and sweep: at most CLI_BENCH_ARGS_MAX words. */
static void bench_words_stop_at_the_limit(void **state)
{
	char *words[CLI_BENCH_ARGS_MAX + 2], *copy = NULL, line[1024] = "";
	size_t n = 0;

	(void)state;
	assert_int_equal(cli_split_words(" sync\t-D  /mnt ", words,
					 CLI_BENCH_ARGS_MAX, &copy), 3);
	assert_string_equal(words[0], "sync");
	assert_string_equal(words[2], "/mnt");
	assert_null(words[3]);
	for (int i = 0; i < CLI_BENCH_ARGS_MAX; i++)
		n += snprintf(line + n, sizeof(line) - n, "%d ", i % 10);
	assert_int_equal(cli_split_words(line, words, CLI_BENCH_ARGS_MAX,
					 &copy), CLI_BENCH_ARGS_MAX);
	assert_null(words[CLI_BENCH_ARGS_MAX]);
	snprintf(line + n, sizeof(line) - n, "x");
	assert_int_equal(cli_split_words(line, words, CLI_BENCH_ARGS_MAX,
					 &copy), -E2BIG);
	assert_int_equal(cli_split_words(" \t", words, CLI_BENCH_ARGS_MAX,
					 &copy), 0);
	free(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_are_one_second_forever),
		cmocka_unit_test(flags_and_positionals_are_read),
		cmocka_unit_test(bad_intervals_are_refused),
		cmocka_unit_test(duty_cycles_parse_to_ms),
		cmocka_unit_test(bad_counts_are_refused),
		cmocka_unit_test(a_third_positional_is_an_error),
		cmocka_unit_test(device_numbers_and_names_resolve),
		cmocka_unit_test(bench_words_stop_at_the_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
