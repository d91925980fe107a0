// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/env.h"
#include "lib/errmsg.h"
#include "lib/stop_signals.h"
#include "record/record_exec.h"
#include "record/record_run.h"
#include "record/record_schema.h"
#include "record/record_workload.h"
#include "sweep/sweep_run.h"
#include "sweep/sweep_tune.h"

static struct sweep_tune tune = SWEEP_TUNE_INIT;

/* Puts the original settings back: 0, or -1 after saying so. */
static int restore_settings(void)
{
	if (!sweep_tune_restore(&tune))
		return 0;
	errmsg("could not restore the original settings; check them by hand");
	return -1;
}

static void restore_at_exit(void)
{
	restore_settings();
}

/* "lru_size-8_tasks-2.json" for the cell's swept dimensions. */
static void cell_file(const struct sweep_opts *a, const long v[NR_DIMS],
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

static struct json_object *cell_json(const struct sweep_opts *a, size_t i,
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
static char **cell_argv(const struct sweep_opts *a, const long v[NR_DIMS],
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

static int run_cell(const struct sweep_opts *a, size_t i, size_t total,
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
	ret = o.argv ? record_run(&o) : 1;
	json_object_put(o.sweep);
	free(o.argv);
	return ret ? -1 : 0;
}

/* A first run on a fresh filesystem is slower: spend it unrecorded. */
static int warm_up(const struct sweep_opts *a)
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
	argv[0] = (char *)record_workload_bhbench();
	memcpy(argv + 1, args, argc * sizeof(*args));
	argv[argc + 1] = "-q";
	if (!a->quiet)
		fprintf(stderr, "warm-up run (not recorded)\n");
	ret = record_exec_run(argv, false, &r) || r.exit_status ? -1 : 0;
	if (ret && !stop_signals_requested())
		errmsg("the warm-up run failed%s%s",
		       r.error[0] ? ": " : "", r.error);
	record_exec_result_free(&r);
	free(args);
	free(argv);
	return ret;
}

/* The sweep ends early before or at cell i: the settings put back, and why. */
static int sweep_ended(size_t i, size_t total, const char *dir)
{
	int stopped = stop_signals_requested();

	restore_settings();
	errmsg("sweep %s at cell %zu/%zu; records so far are in %s",
	       stopped ? "interrupted" : "stopped", i + 1, total, dir);
	return stopped ? 130 : 1;
}

int sweep_run(const struct sweep_opts *a, char ***paths, int *npaths)
{
	size_t total = sweep_matrix_cells(&a->m);
	char err[PATH_MAX + 256];
	bool lru = a->m.nr[DIM_LRU_SIZE];
	bool batch = a->m.nr[DIM_BATCH_MIN] || a->m.nr[DIM_BATCH_MAX];
	const char *dir = record_workload_dir(a->argv, a->argc, true);

	if (total > RECORD_MAX_CELLS) {
		errmsg("%zu cells is more than %d; sweep fewer values",
		       total, RECORD_MAX_CELLS);
		return 64;
	}
	if (!dir) {
		errmsg("give bhbench's directory with -D DIR");
		return 64;
	}
	/* Before anything is changed: one line for an unprivileged user. */
	if (env_check_privileges(ENV_TRACE | (lru || batch ? ENV_TUNE : 0)))
		return 1;
	/* from here a stop ends the sweep with the settings put back */
	stop_signals_install();
	atexit(restore_at_exit);
	if (sweep_tune_prepare(&tune, dir, lru, batch, err, sizeof(err))) {
		errmsg("%s", err);
		return 1;
	}
	if (mkdir(a->dir, 0755) && errno != EEXIST) {
		errmsg("%s: %s", a->dir, strerror(errno));
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
		failed = stop_signals_requested() || (!i && a->warmup && warm_up(a));
		if (!failed) {
			sweep_matrix_cell(&a->m, i, v);
			cell_file(a, v, path, sizeof(path));
			(*paths)[(*npaths)++] = strdup(path);
			failed = run_cell(a, i, total, path);
		}
		if (failed || stop_signals_requested())
			return sweep_ended(i, total, a->dir);
	}
	return restore_settings() ? 1 : 0;
}
