// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope record: run a workload under tracing and write one JSON record.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "lib/cli.h"
#include "record/record_run.h"
#include "record/record_schema.h"
#include "lib/stop_signals.h"

#define MAX_REPEATS	RECORD_MAX_RUNS
/* The LRU tracer's deepest stack distance (BHSCOPE_LRU_DEPTH_MAX). */
#define MAX_WHATIF	256

enum { OPT_JBD2 = 0x100, OPT_LRU, OPT_WHATIF, OPT_DIR, OPT_BENCH, OPT_LABEL };

static const char record_doc[] =
	"Run a workload under tracing and write one self-describing JSON record "
	"(schema bhscope.record/1): host, kernel, filesystem and mount options of "
	"the workload's directory, the tunables in force, the workload and its "
	"results, and the jbd2 (and LRU) figures of each run, per CPU.\n\n"
	"The workload is COMMAND..., or bhbench when COMMAND is the word 'bench' "
	"(or with --bench \"ARGS\"); bhbench's JSON result is kept whole. The "
	"directory the workload uses is --dir, bhbench's -D or fs_mark's -d.\v"
	"Examples:\n"
	"  bhscope record -o base.json -- bench sync -D /mnt/t -t 8 -n 500\n"
	"  bhscope record -o base.json -r 5 --bench \"meta -D /mnt/t -t 2\"\n"
	"  bhscope record -o fm.json -- fs_mark -d /mnt/t/fm -n 1000 -t 8 -s 4096\n"
	"  bhscope record -o lru.json --lru --whatif 64 -- bench meta -D /mnt/t\n"
	"  bhscope compare base.json tuned.json\n\n"
	"Exit status: 0 when every run succeeded and the record was written, "
	"1 otherwise (a failed workload is still recorded, with \"ok\": false), "
	"64 on usage errors.";

static const struct argp_option record_options[] = {
	{ "output", 'o', "FILE.json", 0, "Write the record to FILE.json (required)", 0 },
	{ "repeats", 'r', "N", 0, "Run the workload N times (default 1)", 0 },
	{ "jbd2", OPT_JBD2, NULL, 0,
	  "Trace jbd2 commit batching (the default when neither --jbd2 nor --lru is given)", 0 },
	{ "lru", OPT_LRU, NULL, 0, "Trace the buffer-head LRU", 0 },
	{ "whatif", OPT_WHATIF, "N", 0,
	  "Predict LRU hit ratios for sizes up to N (implies --lru), and "
	  "their lookup time a second and a workload operation (one lookup "
	  "in 64 timed)", 0 },
	{ "dir", OPT_DIR, "DIR", 0,
	  "The directory the workload uses, when not -D/-d in its arguments", 0 },
	{ "bench", OPT_BENCH, "ARGS", 0,
	  "Run bhbench ARGS -j (ARGS split at spaces)", 0 },
	{ "label", OPT_LABEL, "NAME", 0,
	  "Name this configuration in comparisons (default: the file name)", 0 },
	{ "quiet", 'q', NULL, 0, "No progress lines, no workload output", 0 },
	{ 0 },
};

struct record_args {
	struct record_opts o;
	char *bench_args[CLI_BENCH_ARGS_MAX + 1];
	char *bench_copy;
};

static long parse_count(struct argp_state *state, const char *opt,
			const char *arg, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > max)
		argp_error(state, "%s '%s': want a number from 1 to %ld", opt,
			   arg, max);
	return v;
}

static error_t record_read_parse(int key, char *arg, struct argp_state *state)
{
	struct record_args *a = state->input;

	switch (key) {
	case 'o':
		a->o.out = arg;
		break;
	case 'r':
		a->o.repeats = parse_count(state, "-r", arg, MAX_REPEATS);
		break;
	case OPT_JBD2:
		a->o.jbd2 = true;
		break;
	case OPT_WHATIF:
		a->o.whatif = parse_count(state, "--whatif", arg, MAX_WHATIF);
		/* fall through */
	case OPT_LRU:
		a->o.lru = true;
		break;
	case OPT_DIR:
		a->o.dir = arg;
		break;
	case OPT_BENCH:
		a->o.argc = cli_bench_args(state, arg, a->bench_args,
					   &a->bench_copy);
		a->o.argv = a->bench_args;
		a->o.bench = true;
		break;
	case OPT_LABEL:
		a->o.label = arg;
		break;
	case 'q':
		a->o.quiet = true;
		break;
	case ARGP_KEY_ARG:
		if (a->o.bench)
			argp_error(state, "give the workload either with --bench or after --, not both");
		/* The workload and all its arguments, options included. */
		a->o.argv = &state->argv[state->next - 1];
		a->o.argc = state->argc - state->next + 1;
		state->next = state->argc;
		if (!strcmp(a->o.argv[0], "bench")) {
			a->o.argv++;
			a->o.argc--;
			a->o.bench = true;
		}
		break;
	case ARGP_KEY_END:
		if (!a->o.out)
			argp_error(state, "-o FILE is required");
		if (!a->o.argv)
			argp_error(state, "no workload: give COMMAND... after --, or --bench \"ARGS\"");
		if (a->o.bench && !a->o.argc)
			argp_error(state, "'bench' needs bhbench's arguments, e.g. bench sync -D DIR");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp record_argp = {
	.options = record_options,
	.parser = record_read_parse,
	.args_doc = "-o FILE -- COMMAND [ARG...]",
	.doc = record_doc,
	.children = cli_help_children,
};

int cmd_record(int argc, char **argv)
{
	struct record_args a = { .o = { .repeats = 1 } };
	int ret;

	argp_err_exit_status = 64;
	if (argp_parse(&record_argp, argc, argv, ARGP_IN_ORDER, NULL, &a))
		return 64;
	if (!a.o.jbd2 && !a.o.lru)
		a.o.jbd2 = true;
	stop_signals_install();
	ret = record_run(&a.o);
	free(a.bench_copy);
	return ret;
}
