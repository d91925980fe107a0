/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scratch directory for the unit tests that need real files: made by
 * scratch_setup (a cmocka group setup), removed with its contents by
 * scratch_teardown, files in it written by scratch_file. Header-only: each
 * test is one binary linking the core library alone.
 */
#ifndef BHSCOPE_TESTS_SCRATCH_DIR_H
#define BHSCOPE_TESTS_SCRATCH_DIR_H

#include <stdio.h>
#include <stdlib.h>

static char scratch_dir[64];

static int scratch_setup(void **state)
{
	(void)state;
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/bhscope-test-XXXXXX");
	return mkdtemp(scratch_dir) ? 0 : -1;
}

static int scratch_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch_dir);
	return system(cmd) ? -1 : 0;
}

/* Writes n bytes of text to NAME in the scratch directory; its path. */
static const char *scratch_file(const char *name, const char *text, size_t n)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", scratch_dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	return path;
}

#endif
