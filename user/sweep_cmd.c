// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope sweep: run a matrix of tunables x workload parameters, one record
 * per cell, and print the combined table.
 */
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "lib/cli.h"
#include "record/record_exec.h"
#include "record/record_read.h"
#include "record/record_run.h"
#include "record/record_schema.h"
#include "record/record_workload.h"
#include "record/sweep_matrix.h"
#include "analyse/sweep_table.h"
#include "record/sweep_tune.h"
#include "lib/env.h"
#include "lib/term_safe.h"
#include "lib/stop_signals.h"

#define MAX_CELLS	RECORD_MAX_CELLS

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
	struct sweep_matrix m;
	const char *dir;
	const char *report;
	int repeats;
	bool lru, quiet, warmup;
	char **argv;		/* bhbench's arguments */
	int argc;
	char *bench_args[130];
	char *bench_copy;
};

static void parse_list(struct argp_state *state, struct sweep_args *a,
		       enum sweep_dim dim, const char *opt, const char *arg,
		       long min, long max)
{
	if (a->m.nr[dim])
		argp_error(state, "%s given twice", opt);
	if (sweep_matrix_parse(&a->m, dim, arg, min, max))
		argp_error(state, "%s '%s': want distinct numbers %ld..%ld separated by commas",
			   opt, arg, min, max);
}

static void split_bench(struct argp_state *state, struct sweep_args *a,
			char *arg)
{
	char *save, *tok;
	int n = 0;

	a->bench_copy = strdup(arg);
	for (tok = a->bench_copy ? strtok_r(a->bench_copy, " \t", &save) : NULL;
	     tok && n < 128; tok = strtok_r(NULL, " \t", &save))
		a->bench_args[n++] = tok;
	if (!n)
		argp_error(state, "--bench: give bhbench's arguments, e.g. \"sync -D DIR\"");
	a->argv = a->bench_args;
	a->argc = n;
}

static error_t sweep_parse(int key, char *arg, struct argp_state *state)
{
	struct sweep_args *a = state->input;
	char *end;

	switch (key) {
	case 'o':
		a->dir = arg;
		break;
	case OPT_LRU_SIZE:
		parse_list(state, a, DIM_LRU_SIZE, "--lru-size", arg, 0, 64);
		break;
	case OPT_BATCH_MIN:
		parse_list(state, a, DIM_BATCH_MIN, "--batch-min-us", arg, 0, 1000000);
		break;
	case OPT_BATCH_MAX:
		parse_list(state, a, DIM_BATCH_MAX, "--batch-max-us", arg, 0, 1000000);
		break;
	case OPT_TASKS:
		parse_list(state, a, DIM_TASKS, "--tasks", arg, 1, 1024);
		break;
	case OPT_DIR_SIZE:
		parse_list(state, a, DIM_DIR_SIZE, "--dir-size", arg, 0, 100000000);
		break;
	case 'r':
		a->repeats = (int)strtol(arg, &end, 10);
		if (*end || end == arg || a->repeats < 1 ||
		    a->repeats > RECORD_MAX_RUNS)
			argp_error(state, "-r '%s': want 1 to %d", arg,
				   RECORD_MAX_RUNS);
		break;
	case OPT_LRU:
		a->lru = true;
		break;
	case OPT_WARMUP:
		a->warmup = true;
		break;
	case OPT_BENCH:
		split_bench(state, a, arg);
		break;
	case OPT_REPORT:
		a->report = arg;
		break;
	case 'q':
		a->quiet = true;
		break;
	case ARGP_KEY_ARG:
		if (strcmp(arg, "bench"))
			argp_error(state, "the workload is bhbench: '-- bench meta|sync ARGS', not '%s'",
				   arg);
		a->argv = &state->argv[state->next];
		a->argc = state->argc - state->next;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (a->report)
			break;
		if (!a->dir)
			argp_error(state, "-o DIR is required");
		if (!a->argv || !a->argc)
			argp_error(state, "no workload: give '-- bench meta|sync ARGS'");
		if (strcmp(a->argv[0], "meta") && strcmp(a->argv[0], "sync"))
			argp_error(state, "the bhbench workload is meta or sync, not '%s'",
				   a->argv[0]);
		if (a->m.nr[DIM_DIR_SIZE] && strcmp(a->argv[0], "meta"))
			argp_error(state, "--dir-size needs the meta workload");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
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

static struct sweep_tune tune = SWEEP_TUNE_INIT;

/* Puts the original settings back: 0, or -1 after saying so. */
static int restore_settings(void)
{
	if (!sweep_tune_restore(&tune))
		return 0;
	fprintf(stderr, "bhscope: could not restore the original settings; check them by hand\n");
	return -1;
}

static void restore_at_exit(void)
{
	restore_settings();
}

/* "lru_size-8_tasks-2.json" for the cell's swept dimensions. */
static void cell_file(const struct sweep_args *a, const long v[NR_DIMS],
		      char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "%s/", a->dir);

	for (int d = 0; d < NR_DIMS; d++)
		if (a->m.nr[d])
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%s-%ld",
				      n > strlen(a->dir) + 1 ? "_" : "",
				      sweep_dim_names[d], v[d]);
	if (n == strlen(a->dir) + 1)
		n += snprintf(buf + n, n < len ? len - n : 0, "cell");
	snprintf(buf + n, n < len ? len - n : 0, ".json");
}

static struct json_object *cell_json(const struct sweep_args *a, size_t i,
				     const long v[NR_DIMS])
{
	struct json_object *o = json_object_new_object();
	struct json_object *tun = json_object_new_object();
	struct json_object *par = json_object_new_object();
	char label[256];

	sweep_matrix_label(&a->m, v, true, false, label, sizeof(label));
	json_object_object_add(o, "config", json_object_new_string(label));
	json_object_object_add(o, "config_index", json_object_new_int64(
				(int64_t)sweep_matrix_config(&a->m, i)));
	json_object_object_add(o, "cell", json_object_new_int64((int64_t)i));
	for (int d = 0; d < NR_DIMS; d++)
		if (a->m.nr[d])
			json_object_object_add(d < NR_TUNABLE_DIMS ? tun : par,
					       sweep_dim_names[d],
					       json_object_new_int64(v[d]));
	json_object_object_add(o, "tunables", tun);
	json_object_object_add(o, "params", par);
	return o;
}

/* bhbench's arguments for a cell: the user's, then -t / --dir-size. */
static char **cell_argv(const struct sweep_args *a, const long v[NR_DIMS],
			char nums[2][24], int *argc)
{
	char **argv = calloc(a->argc + 5, sizeof(*argv));
	int n = 0;

	if (!argv)
		return NULL;
	for (int i = 0; i < a->argc; i++)
		argv[n++] = a->argv[i];
	/* bhbench takes the last of a repeated option. */
	if (v[DIM_TASKS] >= 0) {
		snprintf(nums[0], 24, "%ld", v[DIM_TASKS]);
		argv[n++] = "-t";
		argv[n++] = nums[0];
	}
	if (v[DIM_DIR_SIZE] >= 0) {
		snprintf(nums[1], 24, "%ld", v[DIM_DIR_SIZE]);
		argv[n++] = "--dir-size";
		argv[n++] = nums[1];
	}
	*argc = n;
	return argv;
}

static int run_cell(const struct sweep_args *a, size_t i, size_t total,
		    char *path)
{
	struct record_opts o = { .jbd2 = true, .lru = a->lru, .bench = true,
				 .repeats = a->repeats, .quiet = true, .out = path };
	char nums[2][24], label[256];
	long v[NR_DIMS];
	int ret;

	sweep_matrix_cell(&a->m, i, v);
	if (sweep_matrix_config(&a->m, i) != (i ? sweep_matrix_config(&a->m, i - 1) : (size_t)-1) &&
	    sweep_tune_apply(&tune, v[DIM_LRU_SIZE], v[DIM_BATCH_MIN], v[DIM_BATCH_MAX]))
		return -1;
	sweep_matrix_label(&a->m, v, true, true, label, sizeof(label));
	o.label = label;
	o.sweep = cell_json(a, i, v);
	o.argv = cell_argv(a, v, nums, &o.argc);
	if (!a->quiet)
		fprintf(stderr, "cell %zu/%zu: %s\n", i + 1, total, label);
	ret = o.argv ? record_main(&o) : 1;
	json_object_put(o.sweep);
	free(o.argv);
	return ret ? -1 : 0;
}

/* A first run on a fresh filesystem is slower: spend it unrecorded. */
static int warm_up(const struct sweep_args *a)
{
	struct exec_result r;
	char nums[2][24], **args, **argv;
	long v[NR_DIMS];
	int argc, ret;

	sweep_matrix_cell(&a->m, 0, v);
	args = cell_argv(a, v, nums, &argc);
	argv = calloc(argc + 3, sizeof(*argv));
	if (!args || !argv) {
		free(args);
		free(argv);
		return -1;
	}
	argv[0] = (char *)record_bhbench_path();
	memcpy(argv + 1, args, argc * sizeof(*args));
	argv[argc + 1] = "-q";
	if (!a->quiet)
		fprintf(stderr, "warm-up run (not recorded)\n");
	ret = exec_run(argv, false, &r) || r.exit_status ? -1 : 0;
	if (ret && !stop_requested())
		fprintf(stderr, "bhscope: the warm-up run failed%s%s\n",
			r.error[0] ? ": " : "", r.error);
	exec_result_free(&r);
	free(args);
	free(argv);
	return ret;
}

/* The sweep ends early before or at cell i: the settings put back, and why. */
static int sweep_ended(size_t i, size_t total, const char *dir)
{
	int stopped = stop_requested();

	restore_settings();
	fprintf(stderr, "bhscope: sweep %s at cell %zu/%zu; records so far are in %s\n",
		stopped ? "interrupted" : "stopped", i + 1, total, dir);
	return stopped ? 130 : 1;
}

static int run_sweep(struct sweep_args *a, char ***paths, int *npaths)
{
	size_t total = sweep_matrix_cells(&a->m);
	char err[PATH_MAX + 256];
	bool lru = a->m.nr[DIM_LRU_SIZE];
	bool batch = a->m.nr[DIM_BATCH_MIN] || a->m.nr[DIM_BATCH_MAX];
	const char *dir = record_workload_dir(a->argv, a->argc, true);

	if (total > MAX_CELLS) {
		fprintf(stderr, "bhscope: %zu cells is more than %d; sweep fewer values\n",
			total, MAX_CELLS);
		return 64;
	}
	if (!dir) {
		fprintf(stderr, "bhscope: give bhbench's directory with -D DIR\n");
		return 64;
	}
	/* Before anything is changed: one line for an unprivileged user. */
	if (env_check_privileges(ENV_TRACE | (lru || batch ? ENV_TUNE : 0)))
		return 1;
	/* from here a stop ends the sweep with the settings put back */
	stop_signals_install();
	atexit(restore_at_exit);
	if (sweep_tune_prepare(&tune, dir, lru, batch, err, sizeof(err))) {
		fprintf(stderr, "bhscope: %s\n", err);
		return 1;
	}
	if (mkdir(a->dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "bhscope: %s: %s\n", a->dir, strerror(errno));
		return 1;
	}
	*paths = calloc(total, sizeof(**paths));
	if (!*paths)
		return 1;
	for (size_t i = 0; i < total; i++) {
		long v[NR_DIMS];
		char path[PATH_MAX];
		int failed;

		/* a stop before a cell runs no more of it, not even its setup */
		failed = stop_requested() || (!i && a->warmup && warm_up(a));
		if (!failed) {
			sweep_matrix_cell(&a->m, i, v);
			cell_file(a, v, path, sizeof(path));
			(*paths)[(*npaths)++] = strdup(path);
			failed = run_cell(a, i, total, path);
		}
		if (failed || stop_requested())
			return sweep_ended(i, total, a->dir);
	}
	return restore_settings() ? 1 : 0;
}

static long cell_index(const char *path)
{
	struct json_object *root;
	char err[256];
	long v = -1;

	if (!record_read(path, &root, err, sizeof(err))) {
		struct json_object *c = record_get(root, "sweep.cell");

		if (c)
			v = json_object_get_int64(c);
		json_object_put(root);
	}
	return v;
}

struct indexed {
	long cell;
	char *path;
};

static int by_cell(const void *x, const void *y)
{
	const struct indexed *a = x, *b = y;

	return (a->cell > b->cell) - (a->cell < b->cell);
}

static void free_indexed(struct indexed *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

/* The records in dir, in the order the sweep ran them (a sweep's at most). */
static int list_records(const char *dir, char ***paths, int *n)
{
	struct indexed *v = calloc(MAX_CELLS, sizeof(*v));
	struct dirent *e;
	DIR *d = opendir(dir);
	int nr = 0;

	if (!d || !v) {
		term_safe_error("%s: %s", dir, strerror(errno));
		if (d)
			closedir(d);
		free(v);
		return -1;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char *p;

		if (len < 6 || strcmp(e->d_name + len - 5, ".json") ||
		    e->d_name[0] == '.')
			continue;
		if (nr == MAX_CELLS) {
			term_safe_error("%s: more than %d records, more than a sweep writes",
					dir, MAX_CELLS);
			closedir(d);
			free_indexed(v, nr);
			return -1;
		}
		if (asprintf(&p, "%s/%s", dir, e->d_name) < 0)
			break;
		v[nr].path = p;
		v[nr].cell = cell_index(p);
		nr++;
	}
	closedir(d);
	if (!nr) {
		term_safe_error("%s: no records (*.json) there", dir);
		free(v);
		return -1;
	}
	qsort(v, nr, sizeof(*v), by_cell);
	*paths = calloc(nr, sizeof(**paths));
	if (!*paths) {
		free_indexed(v, nr);
		return -1;
	}
	for (int i = 0; i < nr; i++)
		(*paths)[i] = v[i].path;
	*n = nr;
	free(v);
	return 0;
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep_args a = { .repeats = 1 };
	char **paths = NULL;
	int n = 0, ret;

	argp_err_exit_status = 64;
	if (argp_parse(&sweep_argp, argc, argv, ARGP_IN_ORDER, NULL, &a))
		return 64;
	if (a.report)
		ret = list_records(a.report, &paths, &n) ? 1 : 0;
	else
		ret = run_sweep(&a, &paths, &n);
	if (!ret && sweep_table_print(stdout, paths, n))
		ret = 1;
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(a.bench_copy);
	return ret;
}
