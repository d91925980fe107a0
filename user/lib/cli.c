// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/devname.h"

void cli_common_init(struct cli_common *c)
{
	*c = (struct cli_common){ .interval_s = 1.0 };
}

int cli_parse_interval(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0.01 ||
	    v > 86400)
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_parse_duty(const char *s, unsigned int *window_ms,
		   unsigned int *period_ms)
{
	const char *slash = strchr(s, '/');
	double window, period;
	char w[32];

	if (!slash || slash - s >= (long)sizeof(w))
		return -EINVAL;
	snprintf(w, sizeof(w), "%.*s", (int)(slash - s), s);
	if (cli_parse_interval(w, &window) ||
	    cli_parse_interval(slash + 1, &period) ||
	    llround(window * 1e3) >= llround(period * 1e3))
		return -EINVAL;
	*window_ms = (unsigned int)llround(window * 1e3);
	*period_ms = (unsigned int)llround(period * 1e3);
	return 0;
}

int cli_parse_count(const char *s, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v == LONG_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_parse_uint(const char *s, unsigned int min, unsigned int max,
		   unsigned int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < (long)min || v > (long)max)
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

static const struct argp_option cli_options[] = {
	{ "per-cpu", 'C', NULL, 0, "Report per CPU as well", 0 },
	{ "device", 'd', "DEV", 0,
	  "Only this device: a name (loop0, /dev/loop0) or MAJOR:MINOR", 0 },
	{ "timestamp", 'T', NULL, 0, "Print a timestamp with each report", 0 },
	{ "json", 'j', NULL, 0, "JSON lines, one object per report", 0 },
	{ 0 },
};

static error_t cli_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct cli_common *c = state->input;
	char err[256];

	switch (key) {
	case 'C':
		c->per_cpu = true;
		break;
	case 'd':
		/* the tracers follow one device, or every one */
		if (c->dev_arg) {
			argp_error(state, "-d given twice ('%s', then '%s'): one device, or none for every device",
				   c->dev_arg, arg);
			return EINVAL;
		}
		if (devname_parse(arg, &c->kdev,
				  c->dev_elsewhere ? DEVNAME_ANY_NUMBERS : 0, err,
				  sizeof(err))) {
			argp_failure(state, 1, 0, "%s", err);
			return EINVAL;
		}
		c->dev_arg = arg;
		break;
	case 'T':
		c->timestamps = true;
		break;
	case 'j':
		c->json = true;
		break;
	case ARGP_KEY_ARG:
		if (c->positional == 0) {
			if (cli_parse_interval(arg, &c->interval_s)) {
				argp_error(state,
					   "invalid interval '%s': want seconds > 0",
					   arg);
				return EINVAL;
			}
		} else if (c->positional == 1) {
			if (cli_parse_count(arg, &c->count)) {
				argp_error(state,
					   "invalid count '%s': want an integer > 0",
					   arg);
				return EINVAL;
			}
		} else {
			argp_error(state, "unexpected argument '%s'", arg);
			return EINVAL;
		}
		c->positional++;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp cli_common_argp = {
	.options = cli_options,
	.parser = cli_parse_opt,
};

static const struct argp_option help_options[] = {
	{ NULL, 'h', NULL, 0, "Give this help list (as -?, --help)", -1 },
	{ 0 },
};

static error_t help_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	if (key != 'h')
		return ARGP_ERR_UNKNOWN;
	argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
	return 0;
}

const struct argp cli_help_argp = {
	.options = help_options,
	.parser = help_parse,
};

const struct argp_child cli_help_children[] = {
	{ &cli_help_argp, 0, NULL, 0 },
	{ 0 },
};

int cli_split_words(const char *s, char **words, int max, char **copy)
{
	char *save, *tok;
	int n = 0;

	free(*copy);
	*copy = strdup(s);
	if (!*copy)
		return -ENOMEM;
	for (tok = strtok_r(*copy, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return -E2BIG;
		words[n++] = tok;
	}
	words[n] = NULL;
	return n;
}

int cli_bench_args(struct argp_state *state, const char *arg, char **words,
		   char **copy)
{
	int n = cli_split_words(arg, words, CLI_BENCH_ARGS_MAX, copy);

	if (n == -ENOMEM)
		argp_failure(state, 1, ENOMEM, "--bench");
	else if (n < 0)
		argp_error(state, "--bench: more than %d arguments",
			   CLI_BENCH_ARGS_MAX);
	else if (!n)
		argp_error(state, "--bench: empty; give bhbench's arguments, e.g. \"sync -D DIR\"");
	return n > 0 ? n : 0;
}
