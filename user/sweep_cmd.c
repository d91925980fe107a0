// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope sweep: run a matrix of tunables x workload parameters, one record
 * per cell, and print the combined table.
 */
#include <argp.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "lib/cli.h"
#include "record/record_schema.h"
#include "sweep/sweep_run.h"
#include "sweep/sweep_table.h"

enum {
	OPT_LRU_SIZE = 0x100, OPT_BATCH_MIN, OPT_BATCH_MAX, OPT_TASKS,
	OPT_DIR_SIZE, OPT_REPORT, OPT_LRU, OPT_BENCH, OPT_WARMUP,
};

static const char sweep_doc[] =
	"Run a matrix of settings and workload parameters, one record per cell "
	"in DIR, then print the combined table in the seed threads' shape: "
	"creation/stat/removal ops/s with the % change against the first "
	"setting (metadata workload), or files/s with the speedup against the "
	"first setting (synchronous writers). The workload is bhbench.\n\n"
	"lru_size is set through bhtune.ko (/sys/module/bhtune/parameters); "
	"batch times through bhtune when loaded, else by remounting the "
	"workload's ext4 with min_batch_time/max_batch_time. The original "
	"values are put back at the end, on failure and on Ctrl-C.\v"
	"Examples:\n"
	"  bhscope sweep --batch-min-us 0,1000,4000 --threads 1,2,4,8 -o sw \\\n"
	"      -- bench sync -D /mnt/t -n 300\n"
	"  bhscope sweep --lru-size 8,16,32 --tasks 1,2 --dir-size 0,1000 -o lru \\\n"
	"      -- bench meta -D /mnt/t -n 2000\n"
	"  bhscope sweep --report sw      # the table again, from sw/*.json\n"
	"  bhscope compare sw/batch_min_us-0_tasks-8.json sw/batch_min_us-4000_tasks-8.json\n\n"
	"Exit status: 0 when every cell ran, 1 otherwise, 64 on usage errors, "
	"130 when interrupted.";

static const struct argp_option sweep_options[] = {
	{ "output", 'o', "DIR", 0, "Write one record per cell into DIR (created)", 0 },
	{ "lru-size", OPT_LRU_SIZE, "LIST", 0,
	  "LRU sizes to try, e.g. 8,16,32 (needs bhtune.ko)", 0 },
	{ "batch-min-us", OPT_BATCH_MIN, "LIST", 0,
	  "jbd2 min batch times to try, microseconds", 0 },
	{ "batch-max-us", OPT_BATCH_MAX, "LIST", 0,
	  "jbd2 max batch times to try, microseconds", 0 },
	{ "tasks", OPT_TASKS, "LIST", 0, "bhbench -t values", 0 },
	{ "threads", OPT_TASKS, "LIST", OPTION_ALIAS, NULL, 0 },
	{ "dir-size", OPT_DIR_SIZE, "LIST", 0,
	  "bhbench --dir-size values (meta only)", 0 },
	{ "repeats", 'r', "N", 0, "Runs per cell (default 1)", 0 },
	{ "lru", OPT_LRU, NULL, 0, "Trace the LRU as well as jbd2", 0 },
	{ "warmup", OPT_WARMUP, NULL, 0,
	  "Run the first cell's workload once, unrecorded, before the sweep", 0 },
	{ "bench", OPT_BENCH, "ARGS", 0, "bhbench's arguments, split at spaces", 0 },
	{ "report", OPT_REPORT, "DIR", 0,
	  "Only print the table of the records already in DIR", 0 },
	{ "quiet", 'q', NULL, 0, "Only the table", 0 },
	{ 0 },
};

struct sweep_args {
	struct sweep_opts o;
	const char *report;
	char *bench_args[CLI_BENCH_ARGS_MAX + 1];
	char *bench_copy;
};

/* The matrix's options: a dimension each, and the values it takes. */
static const struct {
	int key;
	enum sweep_dim dim;
	const char *opt;
	long min, max;
} lists[] = {
	{ OPT_LRU_SIZE, DIM_LRU_SIZE, "--lru-size", 0, 64 },
	{ OPT_BATCH_MIN, DIM_BATCH_MIN, "--batch-min-us", 0, 1000000 },
	{ OPT_BATCH_MAX, DIM_BATCH_MAX, "--batch-max-us", 0, 1000000 },
	{ OPT_TASKS, DIM_TASKS, "--tasks", 1, 1024 },
	{ OPT_DIR_SIZE, DIM_DIR_SIZE, "--dir-size", 0, 100000000 },
};

/* A matrix option, or ARGP_ERR_UNKNOWN. */
static error_t parse_list(struct argp_state *state, struct sweep_args *a,
			  int key, const char *arg)
{
	for (size_t i = 0; i < sizeof(lists) / sizeof(*lists); i++) {
		if (lists[i].key != key)
			continue;
		if (a->o.m.nr[lists[i].dim])
			argp_error(state, "%s given twice", lists[i].opt);
		if (sweep_matrix_parse(&a->o.m, lists[i].dim, arg,
				       lists[i].min, lists[i].max))
			argp_error(state, "%s '%s': want distinct numbers %ld..%ld separated by commas",
				   lists[i].opt, arg, lists[i].min,
				   lists[i].max);
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static error_t sweep_parse(int key, char *arg, struct argp_state *state)
{
	struct sweep_args *a = state->input;
	char *end;

	switch (key) {
	case 'o':
		a->o.dir = arg;
		break;
	case 'r':
		a->o.repeats = (int)strtol(arg, &end, 10);
		if (*end || end == arg || a->o.repeats < 1 ||
		    a->o.repeats > RECORD_MAX_RUNS)
			argp_error(state, "-r '%s': want 1 to %d", arg,
				   RECORD_MAX_RUNS);
		break;
	case OPT_LRU:
		a->o.lru = true;
		break;
	case OPT_WARMUP:
		a->o.warmup = true;
		break;
	case OPT_BENCH:
		a->o.argc = cli_bench_args(state, arg, a->bench_args,
					   &a->bench_copy);
		a->o.argv = a->bench_args;
		break;
	case OPT_REPORT:
		a->report = arg;
		break;
	case 'q':
		a->o.quiet = true;
		break;
	case ARGP_KEY_ARG:
		if (strcmp(arg, "bench"))
			argp_error(state, "the workload is bhbench: '-- bench meta|sync ARGS', not '%s'",
				   arg);
		a->o.argv = &state->argv[state->next];
		a->o.argc = state->argc - state->next;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (a->report)
			break;
		if (!a->o.dir)
			argp_error(state, "-o DIR is required");
		if (!a->o.argv || !a->o.argc)
			argp_error(state, "no workload: give '-- bench meta|sync ARGS'");
		if (strcmp(a->o.argv[0], "meta") && strcmp(a->o.argv[0], "sync"))
			argp_error(state, "the bhbench workload is meta or sync, not '%s'",
				   a->o.argv[0]);
		if (a->o.m.nr[DIM_DIR_SIZE] && strcmp(a->o.argv[0], "meta"))
			argp_error(state, "--dir-size needs the meta workload");
		break;
	default:
		return parse_list(state, a, key, arg);
	}
	return 0;
}

const struct argp sweep_argp = {
	.options = sweep_options,
	.parser = sweep_parse,
	.args_doc = "-o DIR [MATRIX] -- bench meta|sync [ARG...]",
	.doc = sweep_doc,
	.children = cli_help_children,
};

int cmd_sweep(int argc, char **argv)
{
	struct sweep_args a = { .o = { .repeats = 1 } };
	char **paths = NULL;
	int n = 0, ret;

	argp_err_exit_status = 64;
	if (argp_parse(&sweep_argp, argc, argv, ARGP_IN_ORDER, NULL, &a))
		return 64;
	if (a.report)
		ret = sweep_table_list(a.report, &paths, &n) ? 1 : 0;
	else
		ret = sweep_run(&a.o, &paths, &n);
	if (!ret && sweep_table_print(stdout, paths, n))
		ret = 1;
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(a.bench_copy);
	return ret;
}
