// SPDX-License-Identifier: GPL-2.0
/* A recorded workload's command line: which binary, which directory. */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/record_fsmark.h"
#include "record/record_workload.h"

const char *record_workload_bhbench(void)
{
	static char path[PATH_MAX];
	char self[PATH_MAX];
	ssize_t n;

	if (getenv("BHBENCH"))
		return getenv("BHBENCH");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		snprintf(path, sizeof(path), "%s/bhbench", dirname(self));
		if (!access(path, X_OK))
			return path;
	}
	return "bhbench";
}

const char *record_workload_dir(char **argv, int argc, bool bench)
{
	const char *fs_mark = bench || !argc || !record_fsmark_is(argv[0]) ? NULL : "-d";

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (bench && (!strcmp(a, "-D") || !strcmp(a, "--dir")))
			return i + 1 < argc ? argv[i + 1] : NULL;
		if (bench && !strncmp(a, "--dir=", 6))
			return a + 6;
		if (bench && !strncmp(a, "-D", 2))
			return a + 2;
		if (fs_mark && !strcmp(a, fs_mark))
			return i + 1 < argc ? argv[i + 1] : NULL;
	}
	return NULL;
}
