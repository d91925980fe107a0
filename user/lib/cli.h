/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Options shared by the live subcommands, one meaning per flag everywhere:
 * [interval] [count], -C per CPU, -d DEV, -T timestamps, -j JSON lines.
 */
#ifndef BHSCOPE_CLI_H
#define BHSCOPE_CLI_H

#include <argp.h>
#include <stdbool.h>
#include <stdint.h>

struct cli_common {
	double interval_s;	/* seconds between reports */
	long count;		/* reports to print, 0 = until interrupted */
	bool per_cpu;
	bool timestamps;
	bool json;
	const char *dev_arg;	/* as the user wrote it */
	uint32_t kdev;		/* kernel dev_t of dev_arg, 0 = every device */
	bool dev_elsewhere;	/* -d may name a device of another host (set
				 * before parsing: offline data) */
	int positional;		/* positional arguments seen so far */
};

/* argp child parsing -C -d -T -j and [interval] [count] into a cli_common. */
extern const struct argp cli_common_argp;

/*
 * argp child giving every command -h (argp's own help is -? and --help).
 * -V and --version come with argp_program_version_hook (set by main()).
 */
extern const struct argp cli_help_argp;

/* The children of a command that has no other: cli_help_argp alone. */
extern const struct argp_child cli_help_children[];

/* Defaults: 1 s interval, unlimited count, no filter. */
void cli_common_init(struct cli_common *c);

/* Parses "1", "0.5": > 0 and <= 1 day. Returns 0 or -EINVAL. */
int cli_parse_interval(const char *s, double *out);

/*
 * Parses a duty cycle "WINDOW/PERIOD" in seconds ("2/60", "0.5/10"): each
 * as an interval, in whole ms, the window shorter than the period.
 * Returns 0 or -EINVAL.
 */
int cli_parse_duty(const char *s, unsigned int *window_ms,
		   unsigned int *period_ms);

/* Parses a positive count. Returns 0 or -EINVAL. */
int cli_parse_count(const char *s, long *out);

/* Parses a whole number min..max. Returns 0 or -EINVAL. */
int cli_parse_uint(const char *s, unsigned int min, unsigned int max,
		   unsigned int *out);

/* --timing N and serve's --lru-timing N: one lookup in N timed, 0 none. */
#define CLI_TIMING_MAX	(1U << 20)

/* The most words --bench "ARGS" may hold (record, sweep). */
#define CLI_BENCH_ARGS_MAX	128

/*
 * Splits s at spaces and tabs into words[] (max of them, then NULL: words
 * has max + 1 entries), pointing into a copy put in *copy (the caller
 * frees it; one held there before is freed). Returns the number of words,
 * -E2BIG when there are more than max, or -ENOMEM.
 */
int cli_split_words(const char *s, char **words, int max, char **copy);

/*
 * --bench "ARGS" of record and sweep: bhbench's arguments split with
 * cli_split_words() into words[] (CLI_BENCH_ARGS_MAX + 1 entries); an
 * empty ARGS or more words than that is a usage error through argp.
 * Returns the number of words.
 */
int cli_bench_args(struct argp_state *state, const char *arg, char **words,
		   char **copy);

#endif /* BHSCOPE_CLI_H */
