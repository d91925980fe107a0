// SPDX-License-Identifier: GPL-2.0
/* libbpf's messages: silent unless BHSCOPE_DEBUG is set. */
#include <bpf/libbpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/env.h"

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	static int verbose = -1;

	/*
	 * Failed probes are expected (that is how features are detected) and
	 * reported in our own words, so libbpf's own log is for debugging.
	 */
	(void)level;
	if (verbose < 0)
		verbose = getenv("BHSCOPE_DEBUG") != NULL;
	return verbose ? vfprintf(stderr, fmt, args) : 0;
}

void env_setup_libbpf_logging(void)
{
	libbpf_set_print(libbpf_print);
}
