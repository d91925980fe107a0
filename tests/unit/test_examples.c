// SPDX-License-Identifier: GPL-2.0
/*
 * The examples make install ships are what bhscope reads: contrib/
 * serve.conf loads as it is, and says the defaults it documents. Run from
 * the top of the tree, as tests/run-all.sh runs every test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <cmocka.h>

#include "serve/serve_config.h"

#define SERVE_CONF "contrib/serve.conf"

static void serve_conf_example_loads(void **state)
{
	struct serve_config cfg, cli;
	char err[512] = "";

	(void)state;
	if (access(SERVE_CONF, R_OK))
		fail_msg("%s: not found: run from the top of the tree", SERVE_CONF);
	serve_config_defaults(&cli);
	serve_config_defaults(&cfg);
	assert_int_equal(serve_config_load(&cfg, SERVE_CONF, &cli, 0, err,
					   sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_false(cfg.per_cpu);
	assert_true(cfg.interval_s == 15);
	assert_int_equal(cfg.nr_devices, 0);	/* every device */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(serve_conf_example_loads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
