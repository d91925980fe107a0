// SPDX-License-Identifier: GPL-2.0
/*
 * Options both workloads share, parsed by one argp child so that a flag
 * means the same thing in "meta" and "sync".
 */
#include "bhbench.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum {
	OPT_THREADS = 0x100,
	OPT_PROCESSES,
	OPT_SHARED,
};

static const struct argp_option common_options[] = {
	{ "dir", 'D', "DIR", 0,
	  "Existing directory to work in (required); bhbench works in "
	  "DIR/bhbench.<pid>/ and removes it afterwards", 0 },
	{ "files", 'n', "N", 0, "Files per task (default 1000)", 0 },
	{ "tasks", 't', "N", 0, "Tasks running in parallel (default 1)", 0 },
	{ "bytes", 's', "BYTES", 0,
	  "Bytes written to each file (meta: 0, sync: 4096); k, m, g "
	  "suffixes are powers of 1024",
	  0 },
	{ "threads", OPT_THREADS, NULL, 0, "Run tasks as threads", 0 },
	{ "processes", OPT_PROCESSES, NULL, 0, "Run tasks as processes", 0 },
	{ "shared", OPT_SHARED, NULL, 0,
	  "All tasks in one shared directory (default: one per task)", 0 },
	{ "json", 'j', NULL, 0, "Print one JSON object instead of tables", 0 },
	{ "quiet", 'q', NULL, 0, "No tables or warnings; errors still print",
	  0 },
	{ NULL, 'h', NULL, 0, "Give this help list (as -?, --help)", -1 },
	{ 0 },
};

void usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bhbench: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'bhbench %s --help')\n", cmd);
	exit(EXIT_USAGE);
}

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	/* strtol accepts "-5", " 7" and "+7"; a count is digits only. */
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_bytes(const char *s, long long *out)
{
	long long v, mult = 1;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'g': case 'G':
		mult <<= 10;
		/* fall through */
	case 'm': case 'M':
		mult <<= 10;
		/* fall through */
	case 'k': case 'K':
		mult <<= 10;
		end++;
		break;
	}
	if (*end || v > MAX_BYTES / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

static error_t common_parse(int key, char *arg, struct argp_state *state)
{
	struct common_opts *c = state->input;

	switch (key) {
	case 'D':
		c->dir = arg;
		break;
	case 'n':
		if (parse_long(arg, 1, MAX_COUNT, &c->files))
			usage_error(c->cmd, "-n '%s': want files per task, 1 to %ld",
				    arg, MAX_COUNT);
		break;
	case 't':
		if (parse_long(arg, 1, MAX_TASKS, &c->tasks))
			usage_error(c->cmd, "-t '%s': want tasks, 1 to %d", arg,
				    MAX_TASKS);
		break;
	case 's':
		if (parse_bytes(arg, &c->bytes))
			usage_error(c->cmd, "-s '%s': want bytes, 0 to 1g", arg);
		break;
	case OPT_THREADS:
		c->threads = 1;
		break;
	case OPT_PROCESSES:
		c->threads = 0;
		break;
	case OPT_SHARED:
		c->shared = true;
		break;
	case 'j':
		c->json = true;
		break;
	case 'q':
		c->quiet = true;
		break;
	case 'h':
		argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		usage_error(c->cmd, "unexpected argument '%s'", arg);
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp common_argp = {
	.options = common_options,
	.parser = common_parse,
};

void common_init(struct common_opts *c, const char *cmd, long long bytes)
{
	*c = (struct common_opts){
		.cmd = cmd,
		.tasks = 1,
		.files = 1000,
		.bytes = bytes,
		.threads = -1,
	};
}

int common_check(const struct common_opts *c)
{
	struct stat st;

	if (!c->dir)
		usage_error(c->cmd, "-D DIR is required");
	if (stat(c->dir, &st)) {
		fprintf(stderr, "bhbench: %s: -D %s: %s\n", c->cmd, c->dir,
			strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "bhbench: %s: -D %s: not a directory\n", c->cmd,
			c->dir);
		return -1;
	}
	return 0;
}
