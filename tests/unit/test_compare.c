// SPDX-License-Identifier: GPL-2.0
/* compare: medians over repeats, % change vs the first record, warnings. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "analyse/chart_svg.h"
#include "analyse/compare_model.h"
#include "analyse/compare_print.h"
#include "lib/clock.h"
#include "lib/json_out.h"

/* A record of sync runs with the given files/s (ok unless negative). */
static struct json_object *sync_record(const char *kernel, int tasks,
				       const double *fps, int n)
{
	char buf[4096];
	size_t len;
	struct json_object *root, *runs;

	len = snprintf(buf, sizeof(buf),
		"{\"schema\":\"bhscope.record/1\",\"time\":\"t\",\"ok\":true,"
		"\"host\":{\"kernel\":\"%s\",\"nr_cpus\":2},"
		"\"target\":{\"fstype\":\"ext4\",\"dev\":\"7:0\",\"source\":\"/dev/loop0\","
		"\"super_options\":\"rw,dirsync\"},\"tunables\":{},"
		"\"workload\":{\"kind\":\"bhbench\",\"name\":\"sync\",\"command\":[],"
		"\"params\":{\"dir\":\"/x\",\"tasks\":%d}},\"runs\":[]}",
		kernel, tasks);
	assert_true(len < sizeof(buf));
	root = json_tokener_parse(buf);
	assert_non_null(root);
	runs = json_object_object_get(root, "runs");
	for (int i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf),
			 "{\"ok\":%s,\"exit_status\":0,\"wall_s\":1,"
			 "\"result\":{\"results\":{\"files_per_sec\":%g}},"
			 "\"jbd2\":{\"devices\":[{\"dev\":\"8:0\",\"transactions\":99,"
			 "\"handles_per_transaction\":1},{\"dev\":\"7:0\","
			 "\"transactions\":5,\"handles_per_transaction\":%g}]}}",
			 fps[i] < 0 ? "false" : "true", fabs(fps[i]), fabs(fps[i]) / 100);
		json_object_array_add(runs, json_tokener_parse(buf));
	}
	return root;
}

static void build(struct cmp_table *t, struct json_object **roots, int n)
{
	static struct cmp_record recs[4];
	static const char *const names[] = { "a.json", "b.json", "c.json", "d.json" };
	char err[256];

	memset(t, 0, sizeof(*t));
	memset(recs, 0, sizeof(recs));
	for (int i = 0; i < n; i++) {
		recs[i].path = names[i];
		recs[i].root = roots[i];
	}
	t->recs = recs;
	t->nr_recs = n;
	assert_int_equal(compare_model_build(t, err, sizeof(err)), 0);
}

static void release(struct cmp_table *t)
{
	/* recs is static here: free everything else. */
	for (int r = 0; r < t->nr_recs; r++)
		json_object_put(t->recs[r].root);
	t->nr_recs = 0;
	t->recs = NULL;
	compare_model_free(t);
}

static void medians_and_change_against_the_first_record(void **state)
{
	double a[] = { 100, 300, 200 }, b[] = { 50, 60, 40, 70 };
	struct json_object *roots[] = { sync_record("6.18", 4, a, 3),
					sync_record("6.18", 4, b, 4) };
	const struct cmp_row *row;
	struct cmp_table t;

	(void)state;
	build(&t, roots, 2);
	row = compare_model_row(&t, "sync.files_per_sec");
	assert_non_null(row);
	assert_int_equal(row->cells[0].s.n, 3);
	assert_float_equal(row->cells[0].s.median, 200, 0);
	assert_float_equal(row->cells[1].s.median, 55, 0);
	assert_float_equal(row->cells[1].pct, -72.5, 1e-9);
	assert_false(row->cells[1].noise);
	assert_int_equal(t.nr_warnings, 0);
	release(&t);
}

static void failed_runs_are_left_out(void **state)
{
	double a[] = { 100, -5000, 110 };
	struct json_object *roots[] = { sync_record("6.18", 4, a, 3) };
	const struct cmp_row *row;
	struct cmp_table t;

	(void)state;
	build(&t, roots, 1);
	row = compare_model_row(&t, "sync.files_per_sec");
	assert_int_equal(row->cells[0].s.n, 2);
	assert_float_equal(row->cells[0].s.median, 105, 0);
	assert_int_equal(t.recs[0].nr_ok, 2);
	assert_int_equal(t.recs[0].nr_runs, 3);
	release(&t);
}

static void jbd2_figures_come_from_the_target_device(void **state)
{
	double a[] = { 300 };
	struct json_object *roots[] = { sync_record("6.18", 4, a, 1) };
	const struct cmp_row *row;
	struct cmp_table t;

	(void)state;
	build(&t, roots, 1);
	row = compare_model_row(&t, "jbd2.handles_per_transaction");
	assert_non_null(row);
	/* 7:0 (the target) has 3.0, the busier 8:0 has 1 */
	assert_float_equal(row->cells[0].s.median, 3, 1e-12);
	release(&t);
}

static void overlapping_repeats_are_marked_as_noise(void **state)
{
	double a[] = { 100, 120, 110 }, b[] = { 115, 125, 105 };
	struct json_object *roots[] = { sync_record("6.18", 4, a, 3),
					sync_record("6.18", 4, b, 3) };
	const struct cmp_row *row;
	struct cmp_table t;
	char buf[32];

	(void)state;
	build(&t, roots, 2);
	row = compare_model_row(&t, "sync.files_per_sec");
	assert_true(row->cells[1].noise);
	compare_print_change(buf, sizeof(buf), &row->cells[1]);
	assert_string_equal(buf, "+4.5% ~");
	release(&t);
}

static void different_kernel_and_workload_are_warned(void **state)
{
	double a[] = { 100 };
	struct json_object *roots[] = { sync_record("6.18", 4, a, 1),
					sync_record("6.1", 8, a, 1) };
	struct cmp_table t;
	bool kernel = false, tasks = false;

	(void)state;
	build(&t, roots, 2);
	for (int i = 0; i < t.nr_warnings; i++) {
		kernel |= strstr(t.warnings[i], "kernel differs: \"6.18\" in a.json, \"6.1\" in b.json") != NULL;
		tasks |= strstr(t.warnings[i], "workload parameter tasks differs") != NULL;
	}
	assert_true(kernel);
	assert_true(tasks);
	release(&t);
}

static void values_are_printed_with_sensible_decimals(void **state)
{
	char buf[32];

	(void)state;
	compare_print_value(buf, sizeof(buf), 8366.4);
	assert_string_equal(buf, "8366");
	compare_print_value(buf, sizeof(buf), 636.59);
	assert_string_equal(buf, "636.6");
	compare_print_value(buf, sizeof(buf), 6.328);
	assert_string_equal(buf, "6.33");
	compare_print_value(buf, sizeof(buf), NAN);
	assert_string_equal(buf, "-");
}

static void chart_has_a_bar_per_record_and_says_what_is_missing(void **state)
{
	double a[] = { 100, 120 }, b[] = { 50, 60 };
	struct json_object *roots[] = { sync_record("6.18", 4, a, 2),
					sync_record("6.18", 4, b, 2) };
	struct cmp_table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int bars = 0;

	(void)state;
	build(&t, roots, 2);
	chart_svg_write(f, &t);
	fclose(f);
	assert_non_null(strstr(buf, "<svg "));
	assert_non_null(strstr(buf, "</svg>"));
	/* Throughput as % of A: A at 100%, B at 50% (labels: the medians). */
	assert_non_null(strstr(buf, ">110</text>"));
	assert_non_null(strstr(buf, ">55</text>"));
	for (char *p = buf; (p = strstr(p, "<rect x=")); p++)
		bars++;
	assert_int_equal(bars, 2 + 2);	/* two bars, two legend boxes */
	assert_non_null(strstr(buf, "no LRU figures in these records"));
	free(buf);
	release(&t);
}

/* Even unchecked (record_check() refuses it), a null name is no crash. */
static void null_device_name_does_not_crash_the_device_choice(void **state)
{
	double a[] = { 100 };
	struct json_object *root = sync_record("6.18", 4, a, 1), *devs;
	struct json_object *roots[1];
	const struct cmp_row *row;
	struct cmp_table t;

	(void)state;
	devs = json_object_object_get(json_object_object_get(
		json_object_array_get_idx(json_object_object_get(root, "runs"), 0),
		"jbd2"), "devices");
	json_object_object_add(json_object_array_get_idx(devs, 0), "dev", NULL);
	json_object_object_add(json_object_array_get_idx(devs, 1), "dev", NULL);
	roots[0] = root;
	build(&t, roots, 1);
	/* No name matches the target: the busiest journal (99 transactions). */
	row = compare_model_row(&t, "jbd2.transactions");
	assert_non_null(row);
	assert_float_equal(row->cells[0].s.median, 99, 0);
	release(&t);
}

/* A record with per-CPU LRU figures for n CPUs, hit ratios from seed. */
static struct json_object *lru_record(int n, int seed)
{
	struct json_object *root = sync_record("6.18", 4, (double[]){ 100 }, 1);
	struct json_object *run, *lru = json_object_new_object();
	struct json_object *cpus = json_object_new_array_ext(n);

	for (int c = 0; c < n; c++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "hit_ratio",
				       json_object_new_double(((c + seed) % 100) / 100.0));
		json_object_object_add(o, "hits_per_s", json_object_new_double(c));
		json_object_array_add(cpus, o);
	}
	json_object_object_add(lru, "cpus", cpus);
	run = json_object_array_get_idx(json_object_object_get(root, "runs"), 0);
	json_object_object_add(run, "lru", lru);
	return root;
}

/*
 * The most the schema allows: 26 records of 8192 CPUs, 16,384 per-CPU rows
 * each. Finding rows by a linear search took minutes; linear work takes a
 * fraction of a second (5 s leaves room for sanitizers and a busy host).
 */
static void comparison_is_linear_in_the_number_of_metrics(void **state)
{
	enum { RECS = 26, CPUS = 8192 };
	static struct cmp_record recs[RECS];
	struct cmp_table t = { .recs = recs, .nr_recs = RECS };
	const struct cmp_row *row;
	char err[256], key[64];
	double t0;

	(void)state;
	for (int r = 0; r < RECS; r++)
		recs[r] = (struct cmp_record){ .path = "x.json",
					       .root = lru_record(CPUS, r) };
	/*
	 * The process's own CPU time, not the wall clock: a quadratic build
	 * takes minutes here, and a loaded host (or ASan) must not fail a
	 * linear one.
	 */
	t0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	assert_int_equal(compare_model_build(&t, err, sizeof(err)), 0);
	assert_true(clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0 < 5);
	assert_true(t.nr_rows >= 2 * CPUS);
	snprintf(key, sizeof(key), "lru.cpu%d.hit_ratio", CPUS - 1);
	row = compare_model_row(&t, key);
	assert_non_null(row);
	assert_float_equal(row->cells[25].s.median, ((CPUS - 1 + 25) % 100), 1e-9);
	release(&t);
}

/* 1e15 against 1e-300: no Infinity in JSON (it is not JSON), no nan in SVG. */
static void extreme_values_give_no_infinity_or_nan_in_any_output(void **state)
{
	double a[] = { 1e-300 }, b[] = { 1e15 };
	struct json_object *roots[] = { sync_record("6.18", 4, a, 1),
					sync_record("6.18", 4, b, 1) };
	struct cmp_table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	build(&t, roots, 2);
	f = open_memstream(&buf, &len);
	assert_int_equal(json_out_print(f, compare_print_json(&t), JSON_OUT_PRETTY), 0);
	compare_print_text(f, &t);
	compare_print_csv(f, &t);
	compare_print_markdown(f, &t);
	chart_svg_write(f, &t);
	fclose(f);
	assert_null(strcasestr(buf, "infinity"));
	assert_null(strcasestr(buf, "nan"));
	assert_null(strcasestr(buf, "inf%"));
	assert_null(strstr(buf, "\"inf"));
	assert_non_null(strstr(buf, "n/a"));	/* the change: not computable */
	free(buf);
	release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(medians_and_change_against_the_first_record),
		cmocka_unit_test(failed_runs_are_left_out),
		cmocka_unit_test(jbd2_figures_come_from_the_target_device),
		cmocka_unit_test(overlapping_repeats_are_marked_as_noise),
		cmocka_unit_test(different_kernel_and_workload_are_warned),
		cmocka_unit_test(values_are_printed_with_sensible_decimals),
		cmocka_unit_test(chart_has_a_bar_per_record_and_says_what_is_missing),
		cmocka_unit_test(null_device_name_does_not_crash_the_device_choice),
		cmocka_unit_test(comparison_is_linear_in_the_number_of_metrics),
		cmocka_unit_test(extreme_values_give_no_infinity_or_nan_in_any_output),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
