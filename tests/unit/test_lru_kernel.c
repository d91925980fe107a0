// SPDX-License-Identifier: GPL-2.0
/* Reading kallsyms, BTF and sysfs for the LRU tracer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lru/lru_kernel.h"

static FILE *stream(const char *text)
{
	return fmemopen((void *)text, strlen(text), "r");
}

static void kallsyms_names_must_match_exactly(void **state)
{
	/* 6.18-like: the cold split and a module symbol must not count. */
	FILE *f = stream("ffffffff81217909 t find_get_block_common.cold\n"
			 "ffffffff8173fea0 T __find_get_block\n"
			 "ffffffff8173fec0 T __find_get_block_nonatomic\n"
			 "ffffffff8173c8b0 T invalidate_bh_lrus\n"
			 "ffffffffc0001000 t bh_lru_install\t[bhtune]\n"
			 "0000000000012340 d bh_lrus\n"
			 "ffffffff8299a0c8 d preempt_dynamic_mode\n"
			 "ffffffff81300000 T lru_cache_disable\n"
			 "ffffffff82a00040 B lru_disable_count\n"
			 "ffffffffc0003000 t partition_xcpus_add\t[x]\n"
			 "ffffffffc0002000 t sched_dynamic_update\t[x]\n");
	struct lru_symbols s;

	(void)state;
	lru_kernel_symbols_parse(f, &s);
	fclose(f);
	assert_false(s.find_get_block_common);
	assert_true(s.find_get_block);
	assert_true(s.invalidate_all);
	assert_false(s.invalidate_cpu);
	assert_false(s.install);
	assert_true(s.bh_lrus);
	assert_true(s.preempt_dynamic_mode == 0xffffffff8299a0c8ull);
	assert_false(s.sched_dynamic_update);
	/* the deferred hook's proofs */
	assert_true(s.lru_cache_disable);
	assert_true(s.lru_disable_count == 0xffffffff82a00040ull);
	assert_false(s.partition_xcpus_add);

	assert_false(s.invalidate_ipi);
	assert_false(s.cpu_dead);
	assert_false(s.klp_transition);

	f = stream("ffffffff8173fa30 t find_get_block_common\n"
		   "ffffffff817405d0 T invalidate_bh_lrus_cpu\n"
		   "ffffffff81740500 t invalidate_bh_lru\n"
		   "ffffffff81740700 t buffer_exit_cpu_dead\n"
		   "ffffffff81180a10 T klp_start_transition\n"
		   "ffffffff81190000 t partition_xcpus_add\n");
	lru_kernel_symbols_parse(f, &s);
	fclose(f);
	assert_true(s.partition_xcpus_add);
	assert_false(s.lru_cache_disable);
	assert_true(s.lru_disable_count == 0);
	assert_true(s.find_get_block_common);
	assert_true(s.invalidate_cpu);
	assert_true(s.invalidate_ipi);
	assert_true(s.cpu_dead);
	assert_true(s.klp_transition);
	assert_false(s.invalidate_all);
	assert_false(s.find_get_block);
	assert_false(s.bh_lrus);
	assert_true(s.preempt_dynamic_mode == 0);

	/* lines without a type or a name are skipped */
	f = stream("ffffffff81000000\n"
		   "garbage\n"
		   "ffffffff81000000 T\n"
		   "ffffffff8173fea0 T __find_get_block\n");
	lru_kernel_symbols_parse(f, &s);
	fclose(f);
	assert_true(s.find_get_block);
}

static void full_preemption_is_read_from_debugfs_cmdline_or_version(void **state)
{
	char why[128];

	(void)state;
	/* debugfs says what runs now, whatever the command line said */
	assert_true(lru_kernel_preempt_full_of("none voluntary (full) lazy\n",
					       "preempt=none", NULL, why, sizeof(why)));
	assert_non_null(strstr(why, "full"));
	assert_false(lru_kernel_preempt_full_of("none (voluntary) full\n",
						"ro preempt=full", NULL, why, sizeof(why)));
	assert_true(lru_kernel_preempt_full_of("none voluntary full (lazy)\n", NULL,
					       NULL, why, sizeof(why)));
	/* without debugfs: preempt= as a whole word of the command line */
	assert_true(lru_kernel_preempt_full_of(NULL, "root=/dev/vda preempt=full quiet",
					       NULL, why, sizeof(why)));
	assert_false(lru_kernel_preempt_full_of(NULL, "root=/dev/vda nopreempt=full",
						NULL, why, sizeof(why)));
	assert_false(lru_kernel_preempt_full_of(NULL, "preempt=voluntary", NULL, why,
						sizeof(why)));
	/* a static model from uname -v */
	assert_false(lru_kernel_preempt_full_of(NULL, "quiet",
						"#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3",
						why, sizeof(why)));
	assert_true(lru_kernel_preempt_full_of(NULL, "quiet",
					       "#1 SMP PREEMPT_RT Debian 6.1.192-3",
					       why, sizeof(why)));
	assert_true(lru_kernel_preempt_full_of(NULL, NULL, "#1 SMP PREEMPT Tue",
					       why, sizeof(why)));
}

static void exit_alone_only_where_no_task_is_switched_inside(void **state)
{
	const char *dyn = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3";
	char why[200];

	(void)state;
	/* PREEMPT_DYNAMIC: the model read from the kernel, switches watched */
	assert_true(lru_kernel_preempt_solo_of(1, true, dyn, why, sizeof(why)));
	assert_non_null(strstr(why, "voluntary"));
	assert_true(lru_kernel_preempt_solo_of(0, true, dyn, why, sizeof(why)));
	assert_non_null(strstr(why, "none"));
	assert_false(lru_kernel_preempt_solo_of(2, true, dyn, why, sizeof(why)));
	assert_non_null(strstr(why, "full"));
	assert_false(lru_kernel_preempt_solo_of(3, true, dyn, why, sizeof(why)));
	assert_non_null(strstr(why, "lazy"));
	assert_false(lru_kernel_preempt_solo_of(7, true, dyn, why, sizeof(why)));
	/* a switch nobody watches could come at any time */
	assert_false(lru_kernel_preempt_solo_of(1, false, dyn, why, sizeof(why)));
	assert_non_null(strstr(why, "sched_dynamic_update"));
	/* PREEMPT_DYNAMIC whose model cannot be read: not known, so no */
	assert_false(lru_kernel_preempt_solo_of(-1, true, dyn, why, sizeof(why)));
	/* a model fixed at build time, from uname -v */
	assert_true(lru_kernel_preempt_solo_of(-1, false, "#1 SMP Debian 6.1.192-3",
					       why, sizeof(why)));
	assert_false(lru_kernel_preempt_solo_of(-1, false, "#1 SMP PREEMPT Tue",
						why, sizeof(why)));
	assert_false(lru_kernel_preempt_solo_of(-1, false, "#1 SMP PREEMPT_RT Tue",
						why, sizeof(why)));
	assert_non_null(strstr(why, "PREEMPT_RT"));
	assert_false(lru_kernel_preempt_solo_of(-1, false, "#1 SMP PREEMPT_LAZY Tue",
						why, sizeof(why)));
	assert_false(lru_kernel_preempt_solo_of(-1, false, NULL, why, sizeof(why)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kallsyms_names_must_match_exactly),
		cmocka_unit_test(full_preemption_is_read_from_debugfs_cmdline_or_version),
		cmocka_unit_test(exit_alone_only_where_no_task_is_switched_inside),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
