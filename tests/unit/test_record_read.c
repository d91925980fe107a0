// SPDX-License-Identifier: GPL-2.0
/* Reading records back: every malformed file gets one clear reason. */
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

#include "record/record_json.h"
#include "record/record_read.h"

#define VALID \
	"{\"schema\":\"bhscope.record/1\",\"time\":\"2026-11-30T12:00:00Z\"," \
	"\"ok\":true,\"host\":{\"kernel\":\"6.18.0\",\"nr_cpus\":2}," \
	"\"target\":null,\"tunables\":{},\"workload\":{\"kind\":\"command\"," \
	"\"command\":[\"true\"]},\"runs\":[{\"ok\":true,\"exit_status\":0," \
	"\"wall_s\":0.5}]}"

static char path[64];
static char err[256];

static int read_text(const char *text)
{
	struct json_object *root = NULL;
	FILE *f;
	int fd, ret;

	strcpy(path, "/tmp/test_record_read.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	err[0] = '\0';
	ret = record_read(path, &root, err, sizeof(err));
	unlink(path);
	if (!ret)
		json_object_put(root);
	else
		assert_true(err[0] != '\0');
	return ret;
}

/* VALID with the first occurrence of from replaced by to. */
static int read_edited(const char *from, const char *to)
{
	char text[2048];
	const char *at = strstr(VALID, from);

	assert_non_null(at);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - VALID), VALID, to,
		 at + strlen(from));
	return read_text(text);
}

static void valid_record_is_read(void **state)
{
	(void)state;
	assert_int_equal(read_text(VALID), 0);
}

static void truncated_file_says_truncated(void **state)
{
	char text[] = VALID;

	(void)state;
	text[strlen(text) / 2] = '\0';
	assert_int_equal(read_text(text), -1);
	assert_non_null(strstr(err, "truncated"));
}

static void empty_file_says_empty(void **state)
{
	(void)state;
	assert_int_equal(read_text(" \n"), -1);
	assert_non_null(strstr(err, "empty file"));
}

static void text_that_is_not_json_says_so(void **state)
{
	(void)state;
	assert_int_equal(read_text("FSUse% Count Size Files/sec\n"), -1);
	assert_non_null(strstr(err, "not JSON"));
}

static void trailing_data_is_refused(void **state)
{
	(void)state;
	assert_int_equal(read_text(VALID VALID), -1);
	assert_non_null(strstr(err, "trailing data"));
}

static void top_level_array_is_not_a_record(void **state)
{
	(void)state;
	assert_int_equal(read_text("[1,2]"), -1);
	assert_non_null(strstr(err, "not a bhscope record"));
}

/* Found by fuzz_record: "null" was refused with no reason at all. */
static void null_document_says_why(void **state)
{
	(void)state;
	assert_int_equal(read_text("null\f"), -1);
	assert_string_equal(err, "not a bhscope record: the top level is null, not an object");
}

/*
 * A whole file that ends right after a top-level literal or number (printf
 * null: no newline) is that value, not a truncated one; a literal cut
 * short is.
 */
static void value_at_the_very_end_is_whole(void **state)
{
	(void)state;
	assert_int_equal(read_text("null"), -1);
	assert_string_equal(err, "not a bhscope record: the top level is null, not an object");
	assert_int_equal(read_text("42"), -1);
	assert_string_equal(err, "not a bhscope record: the top level is an integer, not an object");
	assert_int_equal(read_text("true"), -1);
	assert_string_equal(err, "not a bhscope record: the top level is a boolean, not an object");
	assert_int_equal(read_text("nul"), -1);
	assert_non_null(strstr(err, "truncated JSON"));
}

static void json_without_schema_is_not_a_record(void **state)
{
	(void)state;
	assert_int_equal(read_text("{\"bhbench_schema\":1}"), -1);
	assert_non_null(strstr(err, "no \"schema\""));
}

static void foreign_schema_is_named(void **state)
{
	(void)state;
	assert_int_equal(read_edited("bhscope.record/1", "bhscope.jbd2/1"), -1);
	assert_non_null(strstr(err, "foreign schema \"bhscope.jbd2/1\""));
}

static void newer_schema_version_asks_for_an_upgrade(void **state)
{
	(void)state;
	assert_int_equal(read_edited("bhscope.record/1", "bhscope.record/2"), -1);
	assert_non_null(strstr(err, "newer"));
	assert_non_null(strstr(err, "upgrade"));
}

static void garbled_schema_version_is_refused(void **state)
{
	(void)state;
	assert_int_equal(read_edited("bhscope.record/1", "bhscope.record/x"), -1);
	assert_non_null(strstr(err, "bad schema version"));
}

static void missing_field_is_named(void **state)
{
	(void)state;
	assert_int_equal(read_edited("\"kernel\":\"6.18.0\",", ""), -1);
	assert_string_equal(err, "missing field host.kernel");
}

static void wrong_type_is_named_with_both_types(void **state)
{
	(void)state;
	assert_int_equal(read_edited("\"nr_cpus\":2", "\"nr_cpus\":\"2\""), -1);
	assert_string_equal(err,
			    "field host.nr_cpus: want an integer, found a string");
}

static void wrong_type_in_a_run_is_named_with_its_index(void **state)
{
	(void)state;
	assert_int_equal(read_edited("\"wall_s\":0.5", "\"wall_s\":\"fast\""), -1);
	assert_string_equal(err, "field runs.0.wall_s: want a number, found a string");
}

static void record_without_runs_is_refused(void **state)
{
	(void)state;
	assert_int_equal(read_edited("\"runs\":[{\"ok\":true,\"exit_status\":0,\"wall_s\":0.5}]",
				     "\"runs\":[]"), -1);
	assert_non_null(strstr(err, "no run"));
}

static void unreadable_file_gives_the_system_error(void **state)
{
	struct json_object *root;

	(void)state;
	assert_int_equal(record_read("/nonexistent/x.json", &root, err,
				     sizeof(err)), -1);
	assert_string_equal(err, "No such file or directory");
}

static void numbers_are_found_by_dotted_path(void **state)
{
	struct json_object *root = json_tokener_parse(VALID);
	double v = 0;

	(void)state;
	assert_int_equal(record_json_number(root, "runs.0.wall_s", &v, err,
					    sizeof(err)), 1);
	assert_float_equal(v, 0.5, 0);
	assert_int_equal(record_json_number(root, "runs.1.wall_s", &v, err,
					    sizeof(err)), 0);
	assert_int_equal(record_json_number(root, "host.kernel", &v, err,
					    sizeof(err)), -1);
	assert_string_equal(err, "field host.kernel: want a number, found a string");
	json_object_put(root);
}

/* The run of VALID with more fields: "wall_s":0.5,<more>} */
static int read_run_with(const char *more)
{
	char to[1536];

	snprintf(to, sizeof(to), "\"wall_s\":0.5,%s}", more);
	return read_edited("\"wall_s\":0.5}", to);
}

/* NaN, Infinity and overflowing exponents parse in json-c: none is a figure. */
static void non_finite_numbers_are_refused_with_the_field_path(void **state)
{
	static const char *const bad[] = { "NaN", "Infinity", "-Infinity", "1e999" };
	char text[64], want[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		snprintf(text, sizeof(text), "\"wall_s\":%s", bad[i]);
		assert_int_equal(read_edited("\"wall_s\":0.5", text), -1);
		snprintf(want, sizeof(want), "field runs.0.wall_s: %s is not a finite number",
			 bad[i]);
		assert_string_equal(err, want);
	}
	/* Anywhere: compare -j copies target and tunables through. */
	assert_int_equal(read_edited("\"target\":null", "\"target\":{\"x\":[1,-Infinity]}"), -1);
	assert_string_equal(err, "field target.x.1: -Infinity is not a finite number");
}

/* The crash of issue 15: compare dereferenced a null device name. */
static void null_device_name_is_refused_with_its_path(void **state)
{
	(void)state;
	assert_int_equal(read_run_with("\"jbd2\":{\"devices\":[{\"dev\":\"8:0\"},"
				       "{\"dev\":null,\"transactions\":3}]}"), -1);
	assert_string_equal(err, "field runs.0.jbd2.devices.1.dev: want a string, found null");
}

static void wrong_types_deep_in_a_run_are_named(void **state)
{
	(void)state;
	assert_int_equal(read_run_with("\"lru\":{\"total\":{\"hits_per_s\":\"x\"}}"), -1);
	assert_string_equal(err, "field runs.0.lru.total.hits_per_s: want a number, found a string");
	assert_int_equal(read_run_with("\"jbd2\":{\"devices\":{}}"), -1);
	assert_string_equal(err, "field runs.0.jbd2.devices: want an array, found an object");
	assert_int_equal(read_run_with("\"jbd2\":{\"devices\":[7]}"), -1);
	assert_string_equal(err, "field runs.0.jbd2.devices.0: want an object, found an integer");
	assert_int_equal(read_edited("\"target\":null", "\"target\":{\"dev\":7}"), -1);
	assert_string_equal(err, "field target.dev: want a string, found an integer");
}

static void absurd_values_are_refused_with_the_range(void **state)
{
	(void)state;
	assert_int_equal(read_run_with("\"lru\":{\"total\":{\"hit_ratio\":2}}"), -1);
	assert_string_equal(err, "field runs.0.lru.total.hit_ratio: 2 is out of range (0 to 1)");
	assert_int_equal(read_edited("\"wall_s\":0.5", "\"wall_s\":-3"), -1);
	assert_non_null(strstr(err, "field runs.0.wall_s: -3 is out of range"));
	assert_int_equal(read_edited("\"nr_cpus\":2", "\"nr_cpus\":65536"), -1);
	assert_string_equal(err, "field host.nr_cpus: 65536 is out of range (1 to 8192)");
	/* json-c clamps an integer that overflows: still out of range. */
	assert_int_equal(read_run_with("\"jbd2\":{\"devices\":[{\"dev\":\"7:0\","
				       "\"transactions\":99999999999999999999999}]}"), -1);
	assert_non_null(strstr(err, "field runs.0.jbd2.devices.0.transactions: 18446744073709551615 is out of range"));
}

/* Per-CPU rows are bounded by the host's CPUs, so -C tables are too. */
static void more_cpus_than_the_host_has_are_refused(void **state)
{
	(void)state;
	assert_int_equal(read_run_with("\"lru\":{\"cpus\":[{},{},{}]}"), -1);
	assert_string_equal(err, "field runs.0.lru.cpus: 3 CPUs, but the host has 2");
	assert_int_equal(read_run_with("\"lru\":{\"cpus\":[{},{}]}"), 0);
}

/* Phase names become metric names and table cells: names only. */
static void phase_names_must_be_names(void **state)
{
	(void)state;
	assert_int_equal(read_run_with("\"result\":{\"phases\":{\"create\":{\"ops_per_sec\":5}}}"), 0);
	assert_int_equal(read_run_with("\"result\":{\"phases\":{\"\\u001b[2J\":{\"ops_per_sec\":5}}}"), -1);
	assert_non_null(strstr(err, "field runs.0.result.phases: member \"\x1b[2J\" is not a name"));
	assert_int_equal(read_run_with("\"result\":{\"phases\":{\"a.b\":{}}}"), -1);
	assert_non_null(strstr(err, "is not a name"));
}

static void record_number_reader_refuses_non_finite_values(void **state)
{
	struct json_object *root = json_tokener_parse("{\"a\":NaN,\"b\":1e999}");
	double v = 0;

	(void)state;
	assert_int_equal(record_json_number(root, "a", &v, err, sizeof(err)), -1);
	assert_string_equal(err, "field a: NaN is not a finite number");
	assert_int_equal(record_json_number(root, "b", &v, err, sizeof(err)), -1);
	json_object_put(root);
}

static void fifo_and_directory_are_refused_without_waiting(void **state)
{
	struct json_object *root;
	char dir[64] = "/tmp/test_record_read.XXXXXX", fifo[96];

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(record_read(dir, &root, err, sizeof(err)), -1);
	assert_string_equal(err, "a directory, not a regular file");
	snprintf(fifo, sizeof(fifo), "%s/fifo.json", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10);	/* a hang fails the test rather than make check */
	assert_int_equal(record_read(fifo, &root, err, sizeof(err)), -1);
	alarm(0);
	unlink(fifo);
	rmdir(dir);
	assert_string_equal(err, "a FIFO, not a regular file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(valid_record_is_read),
		cmocka_unit_test(truncated_file_says_truncated),
		cmocka_unit_test(empty_file_says_empty),
		cmocka_unit_test(text_that_is_not_json_says_so),
		cmocka_unit_test(trailing_data_is_refused),
		cmocka_unit_test(top_level_array_is_not_a_record),
		cmocka_unit_test(null_document_says_why),
		cmocka_unit_test(value_at_the_very_end_is_whole),
		cmocka_unit_test(json_without_schema_is_not_a_record),
		cmocka_unit_test(foreign_schema_is_named),
		cmocka_unit_test(newer_schema_version_asks_for_an_upgrade),
		cmocka_unit_test(garbled_schema_version_is_refused),
		cmocka_unit_test(missing_field_is_named),
		cmocka_unit_test(wrong_type_is_named_with_both_types),
		cmocka_unit_test(wrong_type_in_a_run_is_named_with_its_index),
		cmocka_unit_test(record_without_runs_is_refused),
		cmocka_unit_test(unreadable_file_gives_the_system_error),
		cmocka_unit_test(numbers_are_found_by_dotted_path),
		cmocka_unit_test(non_finite_numbers_are_refused_with_the_field_path),
		cmocka_unit_test(null_device_name_is_refused_with_its_path),
		cmocka_unit_test(wrong_types_deep_in_a_run_are_named),
		cmocka_unit_test(absurd_values_are_refused_with_the_range),
		cmocka_unit_test(more_cpus_than_the_host_has_are_refused),
		cmocka_unit_test(phase_names_must_be_names),
		cmocka_unit_test(record_number_reader_refuses_non_finite_values),
		cmocka_unit_test(fifo_and_directory_are_refused_without_waiting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
