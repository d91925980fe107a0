// SPDX-License-Identifier: GPL-2.0
/*
 * lib/tunables' pure parts: a journal's batch times from an option list,
 * and bhtune's over them (for every journal, or the one of batch_dev).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/tunables.h"

/* The batch times and commit interval an option list gives. */
static void assert_parsed(const char *options, long min, long max,
			  long commit)
{
	struct journal_tunables j;

	tunables_journal_parse(options, &j);
	assert_int_equal(j.min_batch_us, min);
	assert_int_equal(j.max_batch_us, max);
	assert_int_equal(j.commit_s, commit);
	assert_int_equal(j.from, TUNABLES_DEFAULT);
}

static void missing_options_leave_jbd2_defaults(void **state)
{
	(void)state;
	assert_parsed("rw,relatime,data=ordered", 0, 15000, 5);
	assert_parsed(NULL, 0, 15000, 5);
}

static void each_option_sets_its_own_value(void **state)
{
	(void)state;
	assert_parsed("rw\ncommit=30\nmax_batch_time=20000\n", 0, 20000, 30);
	assert_parsed("min_batch_time=300,commit_interval=9", 300, 15000, 5);
}

static struct bhtune_params bhtune(long min, long max, const char *dev)
{
	struct bhtune_params b = { .loaded = true, .lru_size = 16,
				   .batch_min_us = min, .batch_max_us = max };

	strcpy(b.batch_dev, dev);
	return b;
}

static void bhtune_sets_only_what_it_imposes(void **state)
{
	struct journal_tunables j;
	struct bhtune_params b = bhtune(4000, -1, "");

	(void)state;
	tunables_journal_parse("max_batch_time=9000", &j);
	assert_true(tunables_journal_apply_bhtune(&j, &b, "7:0"));
	assert_int_equal(j.min_batch_us, 4000);
	assert_int_equal(j.max_batch_us, 9000);
	assert_int_equal(j.from, TUNABLES_BHTUNE);
}

static void bhtune_at_minus_one_leaves_the_filesystems(void **state)
{
	struct journal_tunables j;
	struct bhtune_params b = bhtune(-1, -1, "");

	(void)state;
	tunables_journal_parse("min_batch_time=10", &j);
	assert_false(tunables_journal_apply_bhtune(&j, &b, "7:0"));
	assert_int_equal(j.min_batch_us, 10);
	assert_int_equal(j.from, TUNABLES_DEFAULT);
	b = bhtune(BHTUNE_ABSENT, BHTUNE_ABSENT, "");
	assert_false(tunables_journal_apply_bhtune(&j, &b, "7:0"));
}

static void batch_dev_limits_bhtune_to_its_journal(void **state)
{
	struct journal_tunables j;
	struct bhtune_params b = bhtune(2000, 4000, "7:1");

	(void)state;
	tunables_journal_parse("", &j);
	assert_false(tunables_journal_apply_bhtune(&j, &b, "7:0"));
	assert_false(tunables_journal_apply_bhtune(&j, &b, ""));
	assert_int_equal(j.min_batch_us, 0);
	assert_true(tunables_journal_apply_bhtune(&j, &b, "7:1"));
	assert_int_equal(j.min_batch_us, 2000);
	assert_int_equal(j.max_batch_us, 4000);
}

static void remount_options_name_both_times(void **state)
{
	char buf[128];

	(void)state;
	tunables_journal_options(1000, 20000, buf, sizeof(buf));
	assert_string_equal(buf, "min_batch_time=1000,max_batch_time=20000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(missing_options_leave_jbd2_defaults),
		cmocka_unit_test(each_option_sets_its_own_value),
		cmocka_unit_test(bhtune_sets_only_what_it_imposes),
		cmocka_unit_test(bhtune_at_minus_one_leaves_the_filesystems),
		cmocka_unit_test(batch_dev_limits_bhtune_to_its_journal),
		cmocka_unit_test(remount_options_name_both_times),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
