// SPDX-License-Identifier: GPL-2.0
/*
 * bhbench meta: the metadata workload of the seed threads' mdtest tables.
 * Each task creates, stats and removes its own -n files, either in its own
 * directory or in one shared by all tasks, optionally in directories already
 * holding --dir-size files. Every step checks its work.
 */
#include "bhbench.h"
#include "lib/write_all.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

enum phase { PH_CREATE, PH_STAT, PH_REMOVE, NR_PHASES };

static const char *const phase_names[NR_PHASES] = { "create", "stat",
						    "remove" };

enum { OPT_PHASES = 0x200, OPT_DIR_SIZE, OPT_DROP_CACHES, OPT_XATTR };

/* The extended attribute --xattr puts on every file. */
#define XATTR_NAME	"user.bhbench"
/* XATTR_SIZE_MAX of linux/limits.h: no attribute value is larger */
#define XATTR_MAX	65536

struct meta_cfg {
	struct common_opts c;
	long dir_size;		/* untimed files per working directory */
	bool drop_caches;	/* cold dentries and inodes for stat, remove */
	long xattr;		/* bytes of XATTR_NAME on every file; 0 none */
	void *xbuf;
	bool want[NR_PHASES];	/* phases to time and report */
	int step_of[NR_PHASES];	/* where each phase ran, -1 if it did not */
	struct tree tree;
	void *buf;		/* -s bytes of content for created files */
};

static void parse_phases(struct meta_cfg *m, char *arg)
{
	char *save, *tok;
	int p;

	memset(m->want, 0, sizeof(m->want));
	for (tok = strtok_r(arg, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (p = 0; p < NR_PHASES; p++)
			if (!strcmp(tok, phase_names[p]))
				break;
		if (p == NR_PHASES)
			usage_error(m->c.cmd,
				    "--phases: unknown phase '%s', want create, stat or remove",
				    tok);
		m->want[p] = true;
	}
	if (!m->want[PH_CREATE] && !m->want[PH_STAT] && !m->want[PH_REMOVE])
		usage_error(m->c.cmd, "--phases: empty list");
}

static error_t meta_parse(int key, char *arg, struct argp_state *state)
{
	struct meta_cfg *m = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &m->c;
		break;
	case OPT_PHASES:
		parse_phases(m, arg);
		break;
	case OPT_DIR_SIZE:
		if (parse_long(arg, 0, MAX_COUNT, &m->dir_size))
			usage_error(m->c.cmd, "--dir-size '%s': want 0 to %ld",
				    arg, MAX_COUNT);
		break;
	case OPT_DROP_CACHES:
		m->drop_caches = true;
		break;
	case OPT_XATTR:
		if (parse_long(arg, 1, XATTR_MAX, &m->xattr))
			usage_error(m->c.cmd, "--xattr '%s': want 1 to %d bytes",
				    arg, XATTR_MAX);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_option meta_options[] = {
	{ "phases", OPT_PHASES, "LIST", 0,
	  "Phases to time, from create,stat,remove (default all). Files are "
	  "still created untimed, and removed at the end, when not listed", 0 },
	{ "dir-size", OPT_DIR_SIZE, "N", 0,
	  "Fill each working directory with N files before the timed phases "
	  "(untimed, removed at the end; default 0)", 0 },
	{ "drop-caches", OPT_DROP_CACHES, NULL, 0,
	  "Before the stat and remove phases, write the filesystem back and "
	  "drop the dentry and inode caches (needs root), so they read inodes "
	  "and directories from the buffer cache, not from memory", 0 },
	{ "xattr", OPT_XATTR, "BYTES", 0,
	  "Give every file an extended attribute " XATTR_NAME " of BYTES, as "
	  "the seed threads' large ACLs: more than an inode holds (ext4: "
	  "about 100 bytes in a 256-byte inode) puts it in an attribute "
	  "block, shared by files with the same attribute, which every "
	  "create and remove then reads and writes", 0 },
	{ 0 },
};

static const struct argp_child meta_children[] = {
	{ &common_argp, 0, NULL, 0 },
	{ 0 },
};

const struct argp meta_argp = {
	.options = meta_options,
	.parser = meta_parse,
	.doc = "Metadata workload in the spirit of mdtest: each task creates, "
	       "stats and removes -n files; reports ops/s per phase and per "
	       "task. Tasks are processes unless --threads.\v"
	       "Files are named t<task>.f<index> in DIR/bhbench.<pid>/d<task>/ "
	       "(or .../shared/ with --shared). Exit status: 0 ok, 1 failed "
	       "or verification error, 64 usage, 130 interrupted.",
	.children = meta_children,
};

/* ---- steps, run by every task ---- */

static int fail_at(struct task *t, const char *what, const char *name,
		   int err)
{
	struct meta_cfg *m = task_arg(t);

	return tree_fail(&m->tree, t, what, name, err);
}

static int open_workdir(struct task *t)
{
	struct meta_cfg *m = task_arg(t);

	return tree_open_workdir(&m->tree, t);
}

static int create_one(struct task *t, int dfd, const char *name)
{
	struct meta_cfg *m = task_arg(t);
	int fd, err;

	fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
		    FILE_MODE);
	if (fd < 0)
		return fail_at(t, "create", name, errno);
	if (m->c.bytes && write_all(fd, m->buf, m->c.bytes, -1)) {
		err = errno;
		close(fd);
		return fail_at(t, "write", name, err);
	}
	if (m->xattr && fsetxattr(fd, XATTR_NAME, m->xbuf, m->xattr,
				  XATTR_CREATE)) {
		err = errno;
		close(fd);
		return fail_at(t, "--xattr: set " XATTR_NAME " on", name, err);
	}
	if (close(fd))
		return fail_at(t, "close", name, errno);
	return 0;
}

static int step_populate(struct task *t, struct step_res *res)
{
	struct meta_cfg *m = task_arg(t);
	/* A shared directory is filled by all tasks, each a stripe. */
	long i = m->c.shared ? t->id : 0;
	long stride = m->c.shared ? m->c.tasks : 1;
	char name[64];
	int dfd, err = 0;

	if (!m->dir_size)
		return 0;
	dfd = open_workdir(t);
	if (dfd < 0)
		return -1;
	for (; i < m->dir_size && !err && !task_stopped(t); i += stride) {
		snprintf(name, sizeof(name), "s.f%ld", i);
		err = create_one(t, dfd, name);
		res->ops += !err;
	}
	close(dfd);
	return err;
}

static int step_create(struct task *t, struct step_res *res)
{
	struct meta_cfg *m = task_arg(t);
	char name[64];
	int dfd, err = 0;
	long i;

	dfd = open_workdir(t);
	if (dfd < 0)
		return -1;
	for (i = 0; i < m->c.files && !err && !task_stopped(t); i++) {
		snprintf(name, sizeof(name), "t%d.f%ld", t->id, i);
		err = create_one(t, dfd, name);
		res->ops += !err;
	}
	close(dfd);
	return err;
}

static int step_stat(struct task *t, struct step_res *res)
{
	struct meta_cfg *m = task_arg(t);
	char name[64];
	struct stat st;
	int dfd, err = 0;
	long i;

	dfd = open_workdir(t);
	if (dfd < 0)
		return -1;
	for (i = 0; i < m->c.files && !err && !task_stopped(t); i++) {
		snprintf(name, sizeof(name), "t%d.f%ld", t->id, i);
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
			err = fail_at(t, "stat", name, errno);
		} else if (!S_ISREG(st.st_mode) ||
			   (st.st_mode & 07777) != FILE_MODE ||
			   st.st_size != m->c.bytes) {
			err = task_fail(t,
					"stat %s: mode %o size %lld, expected a regular file, mode %o size %lld",
					name, st.st_mode & 07777,
					(long long)st.st_size, FILE_MODE,
					m->c.bytes);
		}
		res->ops += !err;
	}
	close(dfd);
	return err;
}

static int step_remove(struct task *t, struct step_res *res)
{
	struct meta_cfg *m = task_arg(t);
	char name[64];
	int dfd, err = 0;
	long i;

	dfd = open_workdir(t);
	if (dfd < 0)
		return -1;
	for (i = 0; i < m->c.files && !err && !task_stopped(t); i++) {
		snprintf(name, sizeof(name), "t%d.f%ld", t->id, i);
		if (unlinkat(dfd, name, 0))
			err = fail_at(t, "unlink", name, errno);
		res->ops += !err;
	}
	close(dfd);
	return err;
}

/*
 * Untimed, by task 0 while the others wait at the next barrier: dirty
 * inodes cannot be dropped, hence the syncfs first. "2" drops dentries and
 * inodes, not the page cache, so the buffer heads stay and the next phase
 * looks them up.
 */
static int step_drop_caches(struct task *t, struct step_res *res)
{
	static const char path[] = "/proc/sys/vm/drop_caches";
	int dfd, fd, err = 0;

	(void)res;
	if (t->id != 0)
		return 0;
	dfd = open_workdir(t);
	if (dfd < 0)
		return -1;
	if (syncfs(dfd))
		err = fail_at(t, "syncfs", ".", errno);
	close(dfd);
	if (err)
		return err;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "2\n", 2) != 2)
		err = task_fail(t, "--drop-caches: write %s: %s (needs root)",
				path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return err;
}

/* Directory entries now: our files (if present) plus the pre-populated. */
static int check_count(struct task *t, bool with_files)
{
	struct meta_cfg *m = task_arg(t);
	long want = m->dir_size, got;
	char dir[PATH_MAX];

	/* In a shared directory one count covers everyone. */
	if (m->c.shared && t->id != 0)
		return 0;
	if (with_files)
		want += m->c.files * (m->c.shared ? m->c.tasks : 1);
	tree_workdir(&m->tree, t->id, dir, sizeof(dir));
	got = dir_count(dir);
	if (got < 0)
		return task_fail(t, "read directory %s: %s", dir,
				 strerror(errno));
	if (got != want)
		return task_fail(t, "%s holds %ld entries after %s, expected %ld",
				 dir, got, with_files ? "create" : "remove",
				 want);
	return 0;
}

static int step_check_created(struct task *t, struct step_res *res)
{
	(void)res;
	return check_count(t, true);
}

static int step_check_removed(struct task *t, struct step_res *res)
{
	(void)res;
	return check_count(t, false);
}

/* ---- the report ---- */

static int build_steps(struct meta_cfg *m, struct step *steps)
{
	int n = 0, p;

	for (p = 0; p < NR_PHASES; p++)
		m->step_of[p] = -1;
	steps[n++] = (struct step){ "populate", step_populate };
	/* Later phases need the files, so create runs even when untimed. */
	m->step_of[PH_CREATE] = n;
	steps[n++] = (struct step){ "create", step_create };
	steps[n++] = (struct step){ "check-create", step_check_created };
	if (m->want[PH_STAT]) {
		if (m->drop_caches)
			steps[n++] = (struct step){ "drop-caches",
						    step_drop_caches };
		m->step_of[PH_STAT] = n;
		steps[n++] = (struct step){ "stat", step_stat };
	}
	if (m->want[PH_REMOVE]) {
		if (m->drop_caches)
			steps[n++] = (struct step){ "drop-caches",
						    step_drop_caches };
		m->step_of[PH_REMOVE] = n;
		steps[n++] = (struct step){ "remove", step_remove };
		steps[n++] = (struct step){ "check-remove",
					    step_check_removed };
	}
	return n;
}

static struct json_object *meta_params(const struct meta_cfg *m)
{
	struct json_object *p = json_object_new_object();
	struct json_object *ph = json_object_new_array();
	int i;

	for (i = 0; i < NR_PHASES; i++)
		if (m->want[i])
			json_object_array_add(ph,
				json_object_new_string(phase_names[i]));
	json_object_object_add(p, "dir", json_object_new_string(m->c.dir));
	json_object_object_add(p, "tasks", json_object_new_int64(m->c.tasks));
	json_object_object_add(p, "files_per_task",
			       json_object_new_int64(m->c.files));
	json_object_object_add(p, "workers", json_object_new_string(
				       m->c.threads ? "threads" : "processes"));
	json_object_object_add(p, "shared", json_object_new_boolean(m->c.shared));
	json_object_object_add(p, "dir_size",
			       json_object_new_int64(m->dir_size));
	json_object_object_add(p, "bytes", json_object_new_int64(m->c.bytes));
	json_object_object_add(p, "xattr_bytes", json_object_new_int64(m->xattr));
	json_object_object_add(p, "drop_caches",
			       json_object_new_boolean(m->drop_caches));
	json_object_object_add(p, "phases", ph);
	return p;
}

static struct json_object *rate_json(uint64_t ops, uint64_t ns,
				     const char *id_key, int id)
{
	struct json_object *o = json_object_new_object();

	if (id_key)
		json_object_object_add(o, id_key, json_object_new_int(id));
	json_object_object_add(o, "ops", json_object_new_int64(ops));
	json_object_object_add(o, "seconds", json_fixed(ns / 1e9, 6));
	json_object_object_add(o, "ops_per_sec",
			       json_fixed(per_sec(ops, ns), 1));
	return o;
}

static struct json_object *meta_phases(const struct meta_cfg *m,
				       const struct runner *r)
{
	struct json_object *phases = json_object_new_object(), *o, *tasks;
	uint64_t ops, wall, unused1, unused2;
	int p, s, i;

	for (p = 0; p < NR_PHASES; p++) {
		s = m->step_of[p];
		if (!m->want[p] || s < 0)
			continue;
		runner_step_total(r, s, &ops, &wall, &unused1, &unused2);
		o = rate_json(ops, wall, NULL, 0);
		tasks = json_object_new_array();
		for (i = 0; i < r->ntasks; i++) {
			const struct step_res *res = runner_res(r, i, s);

			json_object_array_add(tasks,
				rate_json(res->ops, res->t1_ns - res->t0_ns,
					  "task", i));
		}
		json_object_object_add(o, "tasks", tasks);
		json_object_object_add(phases, phase_names[p], o);
	}
	return phases;
}

static void meta_print(const struct meta_cfg *m, const struct runner *r)
{
	uint64_t ops, wall, unused1, unused2;
	int p, s, i;

	printf("bhbench meta: %ld task%s (%s), %ld files each, %lld bytes, "
	       "%ld bytes of xattr, dir size %ld, %s\n\n", m->c.tasks,
	       m->c.tasks > 1 ? "s" : "",
	       m->c.threads ? "threads" : "processes", m->c.files, m->c.bytes,
	       m->xattr, m->dir_size,
	       m->c.shared ? "one shared directory" : "one directory per task");
	printf("%-8s %12s %10s %12s\n", "phase", "ops", "seconds", "ops/s");
	for (p = 0; p < NR_PHASES; p++) {
		if (!m->want[p])
			continue;
		runner_step_total(r, m->step_of[p], &ops, &wall, &unused1,
				  &unused2);
		printf("%-8s %12llu %10.3f %12.1f\n", phase_names[p],
		       (unsigned long long)ops, wall / 1e9, per_sec(ops, wall));
	}
	if (r->ntasks < 2)
		return;
	printf("\n%-8s", "task");
	for (p = 0; p < NR_PHASES; p++)
		if (m->want[p])
			printf(" %12s", phase_names[p]);
	printf("   (ops/s)\n");
	for (i = 0; i < r->ntasks; i++) {
		printf("%-8d", i);
		for (p = 0; p < NR_PHASES; p++) {
			const struct step_res *res;

			if (!m->want[p])
				continue;
			s = m->step_of[p];
			res = runner_res(r, i, s);
			printf(" %12.1f",
			       per_sec(res->ops, res->t1_ns - res->t0_ns));
		}
		printf("\n");
	}
}

static void meta_report(const struct meta_cfg *m, const struct runner *r,
			const char *err)
{
	struct json_object *root = report_new("meta", meta_params(m));

	if (err)
		fprintf(stderr, "bhbench: meta: %s\n", err);
	else if (!m->c.json && !m->c.quiet)
		meta_print(m, r);
	if (!err)
		json_object_object_add(root, "phases", meta_phases(m, r));
	report_finish(root, m->c.json, err);
}

static int meta_run(struct meta_cfg *m, struct runner *r)
{
	struct step steps[MAX_STEPS];
	int nsteps;

	if (m->c.bytes) {
		m->buf = malloc(m->c.bytes);
		if (!m->buf)
			return runner_fail(r, "out of memory for -s %lld",
					   m->c.bytes);
		pattern_fill(m->buf, m->c.bytes, 0, 0);
	}
	if (m->xattr) {
		m->xbuf = malloc(m->xattr);
		if (!m->xbuf)
			return runner_fail(r, "out of memory for --xattr %ld",
					   m->xattr);
		pattern_fill(m->xbuf, m->xattr, 1, 0);
	}
	if (tree_create(&m->tree, r, m->c.dir, m->c.tasks, m->c.shared))
		return -1;
	nsteps = build_steps(m, steps);
	return runner_run(r, steps, nsteps);
}

int meta_main(int argc, char **argv)
{
	struct meta_cfg m = { .want = { true, true, true } };
	struct runner r;
	const char *err;
	int rc;

	common_init(&m.c, "meta", 0);
	argp_parse(&meta_argp, argc, argv, 0, NULL, &m);
	if (common_check(&m.c))
		return 1;
	if (m.c.threads < 0)
		m.c.threads = 0;	/* processes, like mdtest's ranks */
	umask(0);			/* so the stat check can expect 0644 */
	if (runner_init(&r, m.c.tasks, m.c.threads, &m))
		return 1;
	meta_run(&m, &r);
	/* Ours alone, whatever happened: seeds, leftovers, directories. */
	tree_remove(&m.tree, &r);
	err = runner_error(&r);
	meta_report(&m, &r, err);
	rc = !err ? 0 : runner_interrupted(&r) ? EXIT_INTERRUPTED : 1;
	runner_free(&r);
	free(m.buf);
	free(m.xbuf);
	return rc;
}
