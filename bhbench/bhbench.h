/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bhbench: the workloads bhscope measures. "meta" is an mdtest-like
 * create/stat/remove run, "sync" an fs_mark-like run of synchronous writers.
 *
 * Both run N tasks (processes or threads) through a list of steps. Every
 * step starts behind a barrier, so the wall time of a phase is the span from
 * the earliest start to the latest finish, as mdtest measures it.
 */
#ifndef BHBENCH_H
#define BHBENCH_H

/* Built with -D_GNU_SOURCE by the top-level Makefile; be safe without it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <argp.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#define BHBENCH_SCHEMA		1
#define BHBENCH_VERSION		"0.1"

#define EXIT_USAGE		64	/* sysexits.h EX_USAGE */
#define EXIT_INTERRUPTED	130	/* 128 + SIGINT, as shells report it */

#define MAX_TASKS		1024
#define MAX_COUNT		100000000L	/* files per task, dir size */
#define MAX_BYTES		(1LL << 30)

#define FILE_MODE		0644

/* ---- options shared by both workloads (options.c) ---- */

struct common_opts {
	const char *cmd;	/* "meta" or "sync", for messages */
	const char *dir;	/* -D: existing directory to work in */
	long tasks;		/* -t */
	long files;		/* -n: files per task */
	long long bytes;	/* -s: bytes per file */
	int threads;		/* --threads 1, --processes 0, unset -1 */
	bool shared;		/* --shared: one directory for all tasks */
	bool json;		/* -j */
	bool quiet;		/* -q */
};

extern const struct argp common_argp;

void common_init(struct common_opts *c, const char *cmd, long long bytes);

/* Checks what the child parser cannot: -D given, an existing directory. */
int common_check(const struct common_opts *c);

/* One-line usage error on stderr, exit 64. */
void usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* Strict parsers: whole string, no sign, in [min, max]; -s takes k/m/g. */
int parse_long(const char *s, long min, long max, long *out);
int parse_bytes(const char *s, long long *out);

/* ---- tasks, barriers, interruption (runner.c) ---- */

struct step_res {
	uint64_t ops;
	uint64_t t0_ns;		/* after the starting barrier */
	uint64_t t1_ns;
	uint64_t lat_sum_ns;	/* per-op latency, where a step measures it */
	uint64_t lat_max_ns;
};

struct task;
typedef int (*step_fn)(struct task *t, struct step_res *res);

struct step {
	const char *name;
	step_fn fn;
};

struct shared;

struct runner {
	int ntasks;
	bool threads;
	const struct step *steps;
	int nsteps;
	void *arg;		/* the workload's configuration, read-only */
	struct shared *sh;	/* MAP_SHARED, so forked tasks see it too */
};

struct task {
	int id;
	struct runner *run;
};

#define MAX_STEPS		8

/* Maps the shared area and catches SIGINT/SIGTERM/SIGHUP. */
int runner_init(struct runner *r, int ntasks, bool threads, void *arg);
void runner_free(struct runner *r);

/* Runs every task through the steps. 0 when every task succeeded. */
int runner_run(struct runner *r, const struct step *steps, int nsteps);

struct step_res *runner_res(const struct runner *r, int task, int step);

/* Sum of ops, and wall time from the first start to the last finish. */
void runner_step_total(const struct runner *r, int step, uint64_t *ops,
		       uint64_t *wall_ns, uint64_t *lat_sum_ns,
		       uint64_t *lat_max_ns);

bool runner_interrupted(const struct runner *r);
const char *runner_error(const struct runner *r);

/* Records the first failure (a formatted one-line reason) and aborts all. */
int runner_fail(struct runner *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* True once any task failed or a signal asked us to stop. */
bool task_stopped(const struct task *t);

static inline void *task_arg(const struct task *t)
{
	return t->run->arg;
}

#define task_fail(t, ...) runner_fail((t)->run, __VA_ARGS__)

uint64_t now_ns(void);

/* ---- the working tree (tree.c) ---- */

/*
 * All files live under DIR/bhbench.<pid>/: "shared" with --shared, else
 * "d<task>" per task. File names are deterministic: t<task>.f<index> for the
 * measured files, s.f<index> for the untimed pre-populated ones.
 */
struct tree {
	char root[PATH_MAX - 64];	/* room for "/d<task>/t<task>.f<index>" */
	int ntasks;
	bool shared;
	bool created;		/* root is ours: only then do we remove it */
};

int tree_create(struct tree *tr, struct runner *r, const char *dir,
		int ntasks, bool shared);
void tree_workdir(const struct tree *tr, int task, char *buf, size_t len);
/* A task's working directory, for the *at() calls; fails the task if not. */
int tree_open_workdir(const struct tree *tr, struct task *t);

/* Fails the task with "WHAT DIR/NAME: strerror(err)". Returns -1. */
int tree_fail(const struct tree *tr, struct task *t, const char *what,
	      const char *name, int err);

/* Removes root and everything below it, if we created it. */
int tree_remove(struct tree *tr, struct runner *r);

/* Entries in a directory, without "." and "..". -1 and errno on error. */
long dir_count(const char *path);

/* Writes the deterministic content of file (task, index). */
void pattern_fill(void *buf, size_t len, uint32_t task, uint64_t index);

/* "sync", "dirsync", "none" or "unknown": what makes DIR's ops synchronous. */
const char *dir_sync_mode(const char *dir);

/* ---- report helpers (report.c) ---- */

struct json_object *report_new(const char *workload,
			       struct json_object *params);
/* Adds "ok" (and "error"), prints it if wanted, frees it. */
void report_finish(struct json_object *root, bool print, const char *error);
struct json_object *json_fixed(double v, int decimals);
double per_sec(uint64_t ops, uint64_t ns);

/* ---- the workloads ---- */

int meta_main(int argc, char **argv);
int sync_main(int argc, char **argv);
/* Their option tables, which bash completion reads (main.c). */
extern const struct argp meta_argp, sync_argp;

#endif /* BHBENCH_H */
