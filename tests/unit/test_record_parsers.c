// SPDX-License-Identifier: GPL-2.0
/* What record reads from the system: mountinfo, mount options, fs_mark. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/tunables.h"

#include "record/record_fsmark.h"
#include "record/record_run.h"
#include "record/record_workload.h"
#include "record/record_target.h"
#include "record/record_tunables.h"
#include "sweep/sweep_matrix.h"

static const char mountinfo[] =
	"26 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
	"42 26 7:0 / /mnt/t rw,relatime - ext4 /dev/loop0 rw,dirsync\n"
	"43 42 7:0 /sub /mnt/t/a\\040b rw,nosuid shared:5 - ext4 /dev/loop0 rw,dirsync,min_batch_time=1000\n"
	"44 26 0:30 / /tmp rw - tmpfs tmpfs rw,size=1024k\n";

static int parse(const char *dir, unsigned int ma, unsigned int mi,
		 struct record_target *t)
{
	FILE *f = fmemopen((void *)mountinfo, sizeof(mountinfo) - 1, "r");
	int ret;

	assert_non_null(f);
	memset(t, 0, sizeof(*t));
	ret = record_target_parse(f, dir, ma, mi, t);
	fclose(f);
	return ret;
}

static void deepest_mount_of_the_device_wins(void **state)
{
	struct record_target t;

	(void)state;
	assert_int_equal(parse("/mnt/t/a b/x", 7, 0, &t), 0);
	assert_string_equal(t.mount_point, "/mnt/t/a b");
	assert_string_equal(t.mount_options, "rw,nosuid");
	assert_string_equal(t.fstype, "ext4");
	assert_string_equal(t.source, "/dev/loop0");
	assert_string_equal(t.super_options, "rw,dirsync,min_batch_time=1000");
}

static void mount_point_prefix_must_end_at_a_slash(void **state)
{
	struct record_target t;

	(void)state;
	assert_int_equal(parse("/mnt/tx", 7, 0, &t), -1);
	assert_int_equal(parse("/mnt/t", 7, 0, &t), 0);
	assert_string_equal(t.mount_point, "/mnt/t");
}

static void other_devices_are_ignored(void **state)
{
	struct record_target t;

	(void)state;
	assert_int_equal(parse("/tmp/x", 0, 30, &t), 0);
	assert_string_equal(t.fstype, "tmpfs");
	assert_int_equal(parse("/tmp/x", 7, 1, &t), -1);
}

static void batch_options_are_read_from_option_lists(void **state)
{
	(void)state;
	assert_int_equal(tunables_option_value("rw,min_batch_time=1000,max_batch_time=20000",
					 "min_batch_time"), 1000);
	assert_int_equal(tunables_option_value("rw\nmax_batch_time=20000\n",
					 "max_batch_time"), 20000);
	assert_int_equal(tunables_option_value("rw,xmin_batch_time=5", "min_batch_time"), -1);
}

static void fs_mark_table_is_parsed(void **state)
{
	const char *out =
		"#  fs_mark  -d /mnt -n 50 -t 2\n"
		"#\tVersion 3.3, 2 thread(s)\n\n"
		"FSUse%        Count         Size    Files/sec     App Overhead\n"
		"     8          100         4096       3280.1             1623\n"
		"     9          200         4096       3000.0             1500\n";
	struct json_object *o = record_fsmark_parse(out), *rows;

	(void)state;
	assert_non_null(o);
	assert_float_equal(json_object_get_double(json_object_object_get(o, "files_per_sec")),
			   3140.05, 1e-9);
	rows = json_object_object_get(o, "rows");
	assert_int_equal(json_object_array_length(rows), 2);
	json_object_put(o);
	assert_null(record_fsmark_parse("no table here\n"));
	assert_true(record_fsmark_is("/usr/bin/fs_mark"));
	assert_false(record_fsmark_is("fs_marker"));
}

static void workload_dir_is_found_in_its_arguments(void **state)
{
	char *bench[] = { "sync", "-t", "4", "-D", "/mnt/t", NULL };
	char *bench2[] = { "meta", "--dir=/mnt/u", NULL };
	char *fsm[] = { "fs_mark", "-n", "10", "-d", "/mnt/f", NULL };
	char *other[] = { "dd", "-d", "/x", NULL };

	(void)state;
	assert_string_equal(record_workload_dir(bench, 5, true), "/mnt/t");
	assert_string_equal(record_workload_dir(bench2, 2, true), "/mnt/u");
	assert_string_equal(record_workload_dir(fsm, 5, false), "/mnt/f");
	assert_null(record_workload_dir(other, 3, false));
}

static void sweep_matrix_varies_tunables_slowest(void **state)
{
	struct sweep_matrix m = { 0 };
	long v[NR_DIMS];
	char label[128];

	(void)state;
	assert_int_equal(sweep_matrix_parse(&m, DIM_LRU_SIZE, "8,16,32", 0, 64), 0);
	assert_int_equal(sweep_matrix_parse(&m, DIM_TASKS, "1,2", 1, 1024), 0);
	assert_int_equal(sweep_matrix_cells(&m), 6);
	sweep_matrix_cell(&m, 3, v);
	assert_int_equal(v[DIM_LRU_SIZE], 16);
	assert_int_equal(v[DIM_TASKS], 2);
	assert_int_equal(v[DIM_BATCH_MIN], -1);
	assert_int_equal(sweep_matrix_config(&m, 3), 1);
	assert_int_equal(sweep_matrix_config(&m, 4), 2);
	sweep_matrix_label(&m, v, true, true, label, sizeof(label));
	assert_string_equal(label, "lru_size=16 tasks=2");
	sweep_matrix_label(&m, v, true, false, label, sizeof(label));
	assert_string_equal(label, "lru_size=16");
}

static void sweep_lists_are_strict(void **state)
{
	struct sweep_matrix m = { 0 };

	(void)state;
	assert_int_equal(sweep_matrix_parse(&m, DIM_LRU_SIZE, "8,,16", 0, 64), -1);
	assert_int_equal(sweep_matrix_parse(&m, DIM_LRU_SIZE, "8,16,", 0, 64), -1);
	assert_int_equal(sweep_matrix_parse(&m, DIM_LRU_SIZE, "8,8", 0, 64), -1);
	assert_int_equal(sweep_matrix_parse(&m, DIM_LRU_SIZE, "65", 0, 64), -1);
	assert_int_equal(sweep_matrix_parse(&m, DIM_LRU_SIZE, "-1", 0, 64), -1);
	assert_int_equal(sweep_matrix_parse(&m, DIM_LRU_SIZE, "", 0, 64), -1);
	assert_int_equal(sweep_matrix_parse(&m, DIM_LRU_SIZE, "0,64", 0, 64), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(deepest_mount_of_the_device_wins),
		cmocka_unit_test(mount_point_prefix_must_end_at_a_slash),
		cmocka_unit_test(other_devices_are_ignored),
		cmocka_unit_test(batch_options_are_read_from_option_lists),
		cmocka_unit_test(fs_mark_table_is_parsed),
		cmocka_unit_test(workload_dir_is_found_in_its_arguments),
		cmocka_unit_test(sweep_matrix_varies_tunables_slowest),
		cmocka_unit_test(sweep_lists_are_strict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
