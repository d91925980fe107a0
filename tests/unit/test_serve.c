// SPDX-License-Identifier: GPL-2.0
/* bhscope serve's pure parts: configuration, listen addresses, names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/tunables.h"

#include "bhscope.h"
#include "serve/serve_config.h"
#include "serve/serve_devices.h"
#include "serve/serve_http.h"

static void config_lines_set_fields_and_report_them(void **state)
{
	struct serve_config c;
	unsigned int set = 0;
	char err[256];

	(void)state;
	serve_config_defaults(&c);
	assert_int_equal(serve_config_parse_line(&c, &set, "  # comment\n", err, sizeof(err)), 0);
	assert_int_equal(set, 0);
	assert_int_equal(serve_config_parse_line(&c, &set, "per-cpu = yes\n", err, sizeof(err)), 0);
	assert_int_equal(serve_config_parse_line(&c, &set, "interval=2.5 # s\n", err, sizeof(err)), 0);
	assert_int_equal(serve_config_parse_line(&c, &set, "device = /dev/loop3\n", err, sizeof(err)), 0);
	assert_int_equal(serve_config_parse_line(&c, &set, "device = 8:16\n", err, sizeof(err)), 0);
	assert_int_equal(serve_config_parse_line(&c, &set, "textfile = \"\"\n", err, sizeof(err)), 0);
	assert_true(c.per_cpu);
	assert_true(c.interval_s == 2.5);
	assert_int_equal(c.nr_devices, 2);
	assert_string_equal(c.devices[0], "loop3");
	assert_string_equal(c.textfile_dir, "");
	assert_int_equal(set, SERVE_SET_PER_CPU | SERVE_SET_INTERVAL |
				      SERVE_SET_DEVICES | SERVE_SET_TEXTFILE);
}

static void bad_config_lines_say_why(void **state)
{
	struct serve_config c;
	unsigned int set = 0;
	char err[256];

	(void)state;
	serve_config_defaults(&c);
	assert_int_equal(serve_config_parse_line(&c, &set, "per-cpu = maybe", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "per-cpu"));
	assert_int_equal(serve_config_parse_line(&c, &set, "interval = -1", err, sizeof(err)), -1);
	assert_int_equal(serve_config_parse_line(&c, &set, "listen = :80", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown setting 'listen'"));
	assert_int_equal(serve_config_parse_line(&c, &set, "per-cpu", err, sizeof(err)), -1);
	assert_int_equal(set, 0);
}

static void command_line_wins_over_the_file(void **state)
{
	char path[] = "/tmp/bhscope-test-serve.XXXXXX", err[256];
	struct serve_config c, cli;
	unsigned int cli_set = 0;
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "per-cpu = no\ninterval = 30\ndevice = loop0\n");
	fclose(f);
	serve_config_defaults(&cli);
	assert_int_equal(serve_config_set(&cli, &cli_set, "per-cpu", "1", err, sizeof(err)), 0);
	assert_int_equal(serve_config_load(&c, path, &cli, cli_set, err, sizeof(err)), 0);
	assert_true(c.per_cpu);			/* the command line */
	assert_true(c.interval_s == 30);	/* the file */
	assert_int_equal(c.nr_devices, 1);
	unlink(path);
}

static void broken_file_leaves_the_config_untouched(void **state)
{
	char path[] = "/tmp/bhscope-test-serve.XXXXXX", err[256];
	struct serve_config c, cli;
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fprintf(f, "interval = 3\nbogus\n");
	fclose(f);
	serve_config_defaults(&cli);
	serve_config_defaults(&c);
	c.interval_s = 7;
	assert_int_equal(serve_config_load(&c, path, &cli, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":2: "));
	assert_true(c.interval_s == 7);
	unlink(path);
	assert_int_equal(serve_config_load(&c, path, &cli, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot read"));
}

static void device_filter_matches_names_and_numbers(void **state)
{
	struct serve_config c;
	unsigned int set = 0;
	char err[256];

	(void)state;
	serve_config_defaults(&c);
	assert_true(serve_config_selects(&c, "sda1", BHSCOPE_KDEV(8, 1)));
	serve_config_set(&c, &set, "device", "loop0", err, sizeof(err));
	serve_config_set(&c, &set, "device", "8:1", err, sizeof(err));
	assert_true(serve_config_selects(&c, "loop0", BHSCOPE_KDEV(7, 0)));
	assert_true(serve_config_selects(&c, "sda1", BHSCOPE_KDEV(8, 1)));
	assert_false(serve_config_selects(&c, "loop1", BHSCOPE_KDEV(7, 1)));
}

static void listen_addresses_split_into_host_and_port(void **state)
{
	char host[64], port[8], err[256];

	(void)state;
	assert_int_equal(serve_config_listen_parse("127.0.0.1:9747", host, sizeof(host), port, sizeof(port), err, sizeof(err)), 0);
	assert_string_equal(host, "127.0.0.1");
	assert_string_equal(port, "9747");
	assert_int_equal(serve_config_listen_parse("[::1]:0", host, sizeof(host), port, sizeof(port), err, sizeof(err)), 0);
	assert_string_equal(host, "::1");
	assert_string_equal(port, "0");
	assert_int_equal(serve_config_listen_parse(":9747", host, sizeof(host), port, sizeof(port), err, sizeof(err)), 0);
	assert_string_equal(host, "");
	assert_int_equal(serve_config_listen_parse("localhost:80", host, sizeof(host), port, sizeof(port), err, sizeof(err)), 0);
	assert_string_equal(host, "localhost");
}

static void bad_listen_addresses_are_refused(void **state)
{
	static const char *const bad[] = {
		"9747", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536",
		"127.0.0.1:-1", "::1:9747", "[::1]9747", "host:80x",
	};
	char host[64], port[8], err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(serve_config_listen_parse(bad[i], host, sizeof(host), port, sizeof(port), err, sizeof(err)), -1);
		assert_non_null(strstr(err, "ADDR:PORT"));
	}
}

static void jbd2_entries_name_their_devices(void **state)
{
	char names[2][SERVE_DEVNAME_LEN];

	(void)state;
	assert_int_equal(serve_devices_jbd2_names("loop0-8", names), 2);
	assert_string_equal(names[0], "loop0-8");
	assert_string_equal(names[1], "loop0");
	assert_int_equal(serve_devices_jbd2_names("dm-0-8", names), 2);
	assert_string_equal(names[1], "dm-0");
	/* An external journal is named after its device alone. */
	assert_int_equal(serve_devices_jbd2_names("sdb1", names), 1);
	assert_int_equal(serve_devices_jbd2_names("nvme0n1p2-x", names), 1);
}

static void ext4_options_give_batch_times(void **state)
{
	static const char lines[] =
		"rw\nbsddf\ncommit=5\nmin_batch_time=1000\nmax_batch_time=15000\n";

	(void)state;
	assert_int_equal(tunables_option_value(lines, "min_batch_time"), 1000);
	assert_int_equal(tunables_option_value(lines, "max_batch_time"), 15000);
	assert_int_equal(tunables_option_value(lines, "commit"), 5);
	assert_int_equal(tunables_option_value("rw,commit=30,data=ordered", "commit"), 30);
	assert_int_equal(tunables_option_value(lines, "stripe"), -1);
	/* A key is matched whole: "commit" is not "commit_interval". */
	assert_int_equal(tunables_option_value("commit_interval=9", "commit"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(config_lines_set_fields_and_report_them),
		cmocka_unit_test(bad_config_lines_say_why),
		cmocka_unit_test(command_line_wins_over_the_file),
		cmocka_unit_test(broken_file_leaves_the_config_untouched),
		cmocka_unit_test(device_filter_matches_names_and_numbers),
		cmocka_unit_test(listen_addresses_split_into_host_and_port),
		cmocka_unit_test(bad_listen_addresses_are_refused),
		cmocka_unit_test(jbd2_entries_name_their_devices),
		cmocka_unit_test(ext4_options_give_batch_times),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
