// SPDX-License-Identifier: GPL-2.0
/* Who runs the buffer-head lookup, from a livepatch sysfs tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "lru/lru_owner.h"
#include "scratch_dir.h"

static char lp[128], mod[128];

static void mkdirs(const char *fmt, const char *a, const char *b)
{
	char path[512], cmd[600];

	snprintf(path, sizeof(path), fmt, a, b);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	assert_int_equal(system(cmd), 0);
}

/* A patch NAME replacing FUNC ("" none) in vmlinux, with its two flags. */
static void patch(const char *name, const char *func, int enabled,
		  int transition)
{
	char rel[256], text[4];

	mkdirs("%s/%s/vmlinux", lp, name);
	if (func[0]) {
		snprintf(rel, sizeof(rel), "%s/vmlinux/%s,1", name, func);
		mkdirs("%s/%s", lp, rel);
	}
	snprintf(rel, sizeof(rel), "lp/%s/enabled", name);
	snprintf(text, sizeof(text), "%d\n", enabled);
	scratch_file(rel, text, strlen(text));
	snprintf(rel, sizeof(rel), "lp/%s/transition", name);
	snprintf(text, sizeof(text), "%d\n", transition);
	scratch_file(rel, text, strlen(text));
}

static int fresh_tree(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(lp, sizeof(lp), "%s/lp", scratch_dir);
	snprintf(mod, sizeof(mod), "%s/mod", scratch_dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' && mkdir -p '%s' '%s'",
		 lp, mod, lp, mod);
	return system(cmd) ? -1 : 0;
}

static enum lru_owner_kind owner(char *name)
{
	struct lru_owner_paths p = { .livepatch = lp, .module = mod };
	struct lru_owner o;

	lru_owner_read(&p, &o);
	strcpy(name, o.patch);
	return o.kind;
}

static void no_livepatch_is_the_kernel(void **state)
{
	struct lru_owner_paths p = { .livepatch = "/nonexistent", .module = mod };
	struct lru_owner o;
	char name[64];

	(void)state;
	assert_int_equal(owner(name), LRU_OWNER_KERNEL);
	lru_owner_read(&p, &o);
	assert_int_equal(o.kind, LRU_OWNER_KERNEL);
	/* a patch of something else, enabled: still the kernel's lookup */
	patch("fix_cmdline", "cmdline_proc_show", 1, 0);
	assert_int_equal(owner(name), LRU_OWNER_KERNEL);
	/* a patch of the lookup, disabled and settled: gone */
	patch("old", "__find_get_block", 0, 0);
	assert_int_equal(owner(name), LRU_OWNER_KERNEL);
}

static void bhtune_owns_only_with_its_events_bound(void **state)
{
	char name[64];

	(void)state;
	patch("bhtune", "__find_get_block", 1, 0);
	assert_int_equal(owner(name), LRU_OWNER_BHTUNE_SILENT);
	assert_string_equal(name, "bhtune");
	/* the tracepoints' module present is not enough: bhtune must hold it */
	mkdirs("%s/%s/holders", mod, "bhtune_events");
	assert_int_equal(owner(name), LRU_OWNER_BHTUNE_SILENT);
	mkdirs("%s/%s/holders/bhtune", mod, "bhtune_events");
	assert_int_equal(owner(name), LRU_OWNER_BHTUNE);
}

static void a_transition_either_way_is_changing(void **state)
{
	char name[64];

	(void)state;
	mkdirs("%s/%s/holders/bhtune", mod, "bhtune_events");
	patch("bhtune", "find_get_block_common", 1, 1);	/* patching */
	assert_int_equal(owner(name), LRU_OWNER_CHANGING);
	patch("bhtune", "find_get_block_common", 0, 1);	/* unpatching */
	assert_int_equal(owner(name), LRU_OWNER_CHANGING);
	assert_string_equal(name, "bhtune");
	patch("bhtune", "find_get_block_common", 1, 0);
	assert_int_equal(owner(name), LRU_OWNER_BHTUNE);
}

static void another_patch_of_the_lookup_is_other(void **state)
{
	char name[64], buf[200];
	struct lru_owner o = { .kind = LRU_OWNER_OTHER };

	(void)state;
	/* a name that only starts like a lookup function does not count */
	patch("vendor", "__find_get_block_slow", 1, 0);
	assert_int_equal(owner(name), LRU_OWNER_KERNEL);
	patch("vendor", "bh_lru_install", 1, 0);
	assert_int_equal(owner(name), LRU_OWNER_OTHER);
	assert_string_equal(name, "vendor");
	strcpy(o.patch, name);
	assert_non_null(strstr(lru_owner_describe(&o, buf, sizeof(buf)), "vendor"));
	/* bhtune and another one stacked on the lookup: not bhtune's */
	mkdirs("%s/%s/holders/bhtune", mod, "bhtune_events");
	patch("bhtune", "__find_get_block", 1, 0);
	assert_int_equal(owner(name), LRU_OWNER_OTHER);
	assert_string_equal(name, "vendor");
}

static void same_compares_kind_and_patch(void **state)
{
	struct lru_owner a = { .kind = LRU_OWNER_OTHER, .patch = "x" },
			 b = { .kind = LRU_OWNER_OTHER, .patch = "y" };

	(void)state;
	assert_false(lru_owner_same(&a, &b));
	strcpy(b.patch, "x");
	assert_true(lru_owner_same(&a, &b));
	b.kind = LRU_OWNER_CHANGING;
	assert_false(lru_owner_same(&a, &b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(no_livepatch_is_the_kernel, fresh_tree),
		cmocka_unit_test_setup(bhtune_owns_only_with_its_events_bound, fresh_tree),
		cmocka_unit_test_setup(a_transition_either_way_is_changing, fresh_tree),
		cmocka_unit_test_setup(another_patch_of_the_lookup_is_other, fresh_tree),
		cmocka_unit_test(same_compares_kind_and_patch),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
