// SPDX-License-Identifier: GPL-2.0
/*
 * bhbench sync: synchronous writers in the spirit of fs_mark, the workload
 * of the seeds' jbd2 batching tables. Each task creates -n files of -s bytes
 * and makes each one durable before the next (fsync, O_SYNC, or a dirsync
 * mount), timing every file. Afterwards every file is read back and checked.
 */
#include "bhbench.h"
#include "lib/write_all.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum sync_mode { MODE_UNSET = -1, MODE_FSYNC, MODE_OSYNC, MODE_DIRSYNC };

static const char *const mode_names[] = { "fsync", "osync", "dirsync" };

enum { OPT_FSYNC = 0x300, OPT_OSYNC, OPT_DIRSYNC, OPT_FSYNC_DIR, OPT_KEEP };

struct sync_cfg {
	struct common_opts c;
	enum sync_mode mode;
	bool fsync_dir;		/* fsync the directory after each file too */
	bool keep;		/* leave the files for inspection */
	const char *dir_sync;	/* what DIR's mount or attributes provide */
	struct tree tree;
};

static void set_mode(struct sync_cfg *s, enum sync_mode mode)
{
	if (s->mode != MODE_UNSET && s->mode != mode)
		usage_error(s->c.cmd, "--%s and --%s: choose one mode",
			    mode_names[s->mode], mode_names[mode]);
	s->mode = mode;
}

static error_t sync_parse(int key, char *arg, struct argp_state *state)
{
	struct sync_cfg *s = state->input;

	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &s->c;
		break;
	case OPT_FSYNC:
		set_mode(s, MODE_FSYNC);
		break;
	case OPT_OSYNC:
		set_mode(s, MODE_OSYNC);
		break;
	case OPT_DIRSYNC:
		set_mode(s, MODE_DIRSYNC);
		break;
	case OPT_FSYNC_DIR:
		s->fsync_dir = true;
		break;
	case OPT_KEEP:
		s->keep = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_option sync_options[] = {
	{ "fsync", OPT_FSYNC, NULL, 0,
	  "Each file: create, write, fsync, close (default)", 0 },
	{ "osync", OPT_OSYNC, NULL, 0,
	  "Each file: create with O_SYNC, write, close", 0 },
	{ "dirsync", OPT_DIRSYNC, NULL, 0,
	  "Each file: create, write, close, relying on a dirsync or sync "
	  "mount (or chattr +D/+S) to make it synchronous; bhbench reports "
	  "which it found and warns if none", 0 },
	{ "fsync-dir", OPT_FSYNC_DIR, NULL, 0,
	  "Also fsync the directory after each file (any mode)", 0 },
	{ "keep", OPT_KEEP, NULL, 0,
	  "Keep the files after a successful run (default: remove them)", 0 },
	{ 0 },
};

static const struct argp_child sync_children[] = {
	{ &common_argp, 0, NULL, 0 },
	{ 0 },
};

const struct argp sync_argp = {
	.options = sync_options,
	.parser = sync_parse,
	.doc = "Synchronous writers in the spirit of fs_mark: each task "
	       "creates -n files of -s bytes (default 4096), each made durable "
	       "before the next; reports files/s and per-file latency. Tasks "
	       "are threads unless --processes.\v"
	       "Files are named t<task>.f<index> in DIR/bhbench.<pid>/d<task>/ "
	       "(or .../shared/ with --shared); each holds a pattern derived "
	       "from its name, checked after the run. Exit status: 0 ok, 1 "
	       "failed or verification error, 64 usage, 130 interrupted.",
	.children = sync_children,
};

/* ---- steps, run by every task ---- */

struct task_files {
	int dfd;
	void *buf;
	void *check;		/* second buffer for read-back */
};

static int files_open(struct task *t, struct task_files *f, bool check)
{
	struct sync_cfg *s = task_arg(t);
	size_t len = s->c.bytes ? s->c.bytes : 1;

	*f = (struct task_files){ .dfd = -1 };
	f->buf = malloc(len);
	f->check = check ? malloc(len) : NULL;
	if (!f->buf || (check && !f->check))
		return task_fail(t, "out of memory for -s %lld", s->c.bytes);
	f->dfd = tree_open_workdir(&s->tree, t);
	return f->dfd < 0 ? -1 : 0;
}

static void files_close(struct task_files *f)
{
	if (f->dfd >= 0)
		close(f->dfd);
	free(f->buf);
	free(f->check);
}

static int fail_at(struct task *t, const char *what, const char *name,
		   int err)
{
	struct sync_cfg *s = task_arg(t);

	return tree_fail(&s->tree, t, what, name, err);
}

/* One durable file; the caller times it. */
static int write_one(struct task *t, struct task_files *f, const char *name)
{
	struct sync_cfg *s = task_arg(t);
	int flags = O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC;
	int fd, err;

	if (s->mode == MODE_OSYNC)
		flags |= O_SYNC;
	fd = openat(f->dfd, name, flags, FILE_MODE);
	if (fd < 0)
		return fail_at(t, "create", name, errno);
	if (write_all(fd, f->buf, s->c.bytes, -1) ||
	    (s->mode == MODE_FSYNC && fsync(fd))) {
		err = errno;
		close(fd);
		return fail_at(t, "write", name, err);
	}
	if (close(fd))
		return fail_at(t, "close", name, errno);
	if (s->fsync_dir && fsync(f->dfd))
		return fail_at(t, "fsync directory of", name, errno);
	return 0;
}

static int step_write(struct task *t, struct step_res *res)
{
	struct sync_cfg *s = task_arg(t);
	struct task_files f;
	uint64_t t0, lat;
	char name[64];
	int err;
	long i;

	err = files_open(t, &f, false);
	for (i = 0; i < s->c.files && !err && !task_stopped(t); i++) {
		snprintf(name, sizeof(name), "t%d.f%ld", t->id, i);
		/* Content is made before the clock starts: we time the fs. */
		pattern_fill(f.buf, s->c.bytes, t->id, i);
		t0 = now_ns();
		err = write_one(t, &f, name);
		if (err)
			break;
		lat = now_ns() - t0;
		res->ops++;
		res->lat_sum_ns += lat;
		if (lat > res->lat_max_ns)
			res->lat_max_ns = lat;
	}
	files_close(&f);
	return err;
}

static int read_all(int fd, void *buf, size_t len, size_t *got)
{
	char *p = buf;
	ssize_t n;

	*got = 0;
	while (*got < len) {
		n = read(fd, p + *got, len - *got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		*got += n;
	}
	return 0;
}

static int verify_one(struct task *t, struct task_files *f, const char *name,
		      long index)
{
	struct sync_cfg *s = task_arg(t);
	struct stat st;
	size_t got;
	int fd, err;

	fd = openat(f->dfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail_at(t, "verify: open", name, errno);
	if (fstat(fd, &st) || read_all(fd, f->check, s->c.bytes, &got)) {
		err = errno;
		close(fd);
		return fail_at(t, "verify: read", name, err);
	}
	close(fd);
	if (st.st_size != s->c.bytes || got != (size_t)s->c.bytes)
		return task_fail(t, "verify: %s: %lld bytes, expected %lld",
				 name, (long long)st.st_size, s->c.bytes);
	pattern_fill(f->buf, s->c.bytes, t->id, index);
	if (memcmp(f->buf, f->check, s->c.bytes))
		return task_fail(t, "verify: %s: content differs from what "
				 "was written", name);
	return 0;
}

static int step_verify(struct task *t, struct step_res *res)
{
	struct sync_cfg *s = task_arg(t);
	struct task_files f;
	char name[64];
	int err;
	long i;

	err = files_open(t, &f, true);
	for (i = 0; i < s->c.files && !err && !task_stopped(t); i++) {
		snprintf(name, sizeof(name), "t%d.f%ld", t->id, i);
		err = verify_one(t, &f, name, i);
		res->ops += !err;
	}
	files_close(&f);
	return err;
}

/* Untimed: by name, so a file missing here is an error too. */
static int step_remove(struct task *t, struct step_res *res)
{
	struct sync_cfg *s = task_arg(t);
	struct task_files f = { .dfd = -1 };
	char name[64];
	int err = 0;
	long i;

	f.dfd = tree_open_workdir(&s->tree, t);
	if (f.dfd < 0)
		return -1;
	for (i = 0; i < s->c.files && !err && !task_stopped(t); i++) {
		snprintf(name, sizeof(name), "t%d.f%ld", t->id, i);
		if (unlinkat(f.dfd, name, 0))
			err = fail_at(t, "unlink", name, errno);
		res->ops += !err;
	}
	files_close(&f);
	return err;
}

/* ---- the report ---- */

enum { STEP_WRITE, STEP_VERIFY, STEP_REMOVE };

static const struct step sync_steps[] = {
	[STEP_WRITE] = { "write", step_write },
	[STEP_VERIFY] = { "verify", step_verify },
	[STEP_REMOVE] = { "remove", step_remove },
};

static struct json_object *sync_params(const struct sync_cfg *s)
{
	struct json_object *p = json_object_new_object();

	json_object_object_add(p, "dir", json_object_new_string(s->c.dir));
	json_object_object_add(p, "tasks", json_object_new_int64(s->c.tasks));
	json_object_object_add(p, "files_per_task",
			       json_object_new_int64(s->c.files));
	json_object_object_add(p, "workers", json_object_new_string(
				       s->c.threads ? "threads" : "processes"));
	json_object_object_add(p, "shared", json_object_new_boolean(s->c.shared));
	json_object_object_add(p, "bytes", json_object_new_int64(s->c.bytes));
	json_object_object_add(p, "mode",
			       json_object_new_string(mode_names[s->mode]));
	json_object_object_add(p, "fsync_dir",
			       json_object_new_boolean(s->fsync_dir));
	json_object_object_add(p, "keep", json_object_new_boolean(s->keep));
	return p;
}

static double avg_us(uint64_t sum_ns, uint64_t n)
{
	return n ? (double)sum_ns / (double)n / 1e3 : 0.0;
}

static struct json_object *rate_json(int task, uint64_t files, uint64_t ns,
				     uint64_t lat_sum, uint64_t lat_max)
{
	struct json_object *o = json_object_new_object();

	if (task >= 0)
		json_object_object_add(o, "task", json_object_new_int(task));

	json_object_object_add(o, "files", json_object_new_int64(files));
	json_object_object_add(o, "seconds", json_fixed(ns / 1e9, 6));
	json_object_object_add(o, "files_per_sec",
			       json_fixed(per_sec(files, ns), 1));
	json_object_object_add(o, "avg_latency_us",
			       json_fixed(avg_us(lat_sum, files), 1));
	json_object_object_add(o, "max_latency_us",
			       json_fixed(lat_max / 1e3, 1));
	return o;
}

static struct json_object *sync_results(const struct sync_cfg *s,
					const struct runner *r)
{
	uint64_t files, wall, lat_sum, lat_max;
	struct json_object *o, *tasks;
	int i;

	runner_step_total(r, STEP_WRITE, &files, &wall, &lat_sum, &lat_max);
	o = rate_json(-1, files, wall, lat_sum, lat_max);
	json_object_object_add(o, "bytes",
			       json_object_new_int64(files * s->c.bytes));
	json_object_object_add(o, "verified", json_object_new_boolean(true));
	json_object_object_add(o, "dir_sync",
			       json_object_new_string(s->dir_sync));
	if (s->keep)
		json_object_object_add(o, "kept_dir",
				       json_object_new_string(s->tree.root));
	tasks = json_object_new_array();
	for (i = 0; i < r->ntasks; i++) {
		const struct step_res *res = runner_res(r, i, STEP_WRITE);

		json_object_array_add(tasks,
			rate_json(i, res->ops, res->t1_ns - res->t0_ns,
				  res->lat_sum_ns, res->lat_max_ns));
	}
	json_object_object_add(o, "tasks", tasks);
	return o;
}

static void sync_print_row(const char *label, uint64_t files, uint64_t ns,
			   uint64_t lat_sum, uint64_t lat_max)
{
	printf("%-8s %10llu %10.3f %12.1f %12.1f %12.1f\n", label,
	       (unsigned long long)files, ns / 1e9, per_sec(files, ns),
	       avg_us(lat_sum, files), lat_max / 1e3);
}

static void sync_print(const struct sync_cfg *s, const struct runner *r)
{
	uint64_t files, wall, lat_sum, lat_max;
	char label[16];
	int i;

	printf("bhbench sync: %ld task%s (%s), %ld files each, %lld bytes, "
	       "%s%s, directory sync: %s\n\n", s->c.tasks,
	       s->c.tasks > 1 ? "s" : "",
	       s->c.threads ? "threads" : "processes", s->c.files, s->c.bytes,
	       mode_names[s->mode], s->fsync_dir ? " + fsync dir" : "",
	       s->dir_sync);
	printf("%-8s %10s %10s %12s %12s %12s\n", "task", "files", "seconds",
	       "files/s", "avg_us", "max_us");
	runner_step_total(r, STEP_WRITE, &files, &wall, &lat_sum, &lat_max);
	sync_print_row("all", files, wall, lat_sum, lat_max);
	for (i = 0; r->ntasks > 1 && i < r->ntasks; i++) {
		const struct step_res *res = runner_res(r, i, STEP_WRITE);

		snprintf(label, sizeof(label), "%d", i);
		sync_print_row(label, res->ops, res->t1_ns - res->t0_ns,
			       res->lat_sum_ns, res->lat_max_ns);
	}
	if (s->keep)
		printf("\nfiles kept in %s\n", s->tree.root);
}

static void sync_report(const struct sync_cfg *s, const struct runner *r,
			const char *err)
{
	struct json_object *root = report_new("sync", sync_params(s));

	if (err)
		fprintf(stderr, "bhbench: sync: %s\n", err);
	else if (!s->c.json && !s->c.quiet)
		sync_print(s, r);
	if (!err)
		json_object_object_add(root, "results", sync_results(s, r));
	report_finish(root, s->c.json, err);
}

int sync_main(int argc, char **argv)
{
	struct sync_cfg s = { .mode = MODE_UNSET };
	struct runner r;
	const char *err;
	int rc, nsteps;

	common_init(&s.c, "sync", 4096);
	argp_parse(&sync_argp, argc, argv, 0, NULL, &s);
	if (common_check(&s.c))
		return 1;
	if (s.mode == MODE_UNSET)
		s.mode = MODE_FSYNC;
	if (s.c.threads < 0)
		s.c.threads = 1;	/* fs_mark's writers share one process */
	s.dir_sync = dir_sync_mode(s.c.dir);
	if (s.mode == MODE_DIRSYNC && !strcmp(s.dir_sync, "none") &&
	    !s.c.quiet)
		fprintf(stderr, "bhbench: sync: warning: %s is on neither a "
				"dirsync nor a sync mount: --dirsync writes "
				"are not synchronous\n", s.c.dir);
	umask(0);
	if (runner_init(&r, s.c.tasks, s.c.threads, &s))
		return 1;
	nsteps = s.keep ? STEP_REMOVE : STEP_REMOVE + 1;
	if (!tree_create(&s.tree, &r, s.c.dir, s.c.tasks, s.c.shared))
		runner_run(&r, sync_steps, nsteps);
	/* Kept only when complete and verified: partial trees never stay. */
	if (!s.keep || runner_error(&r))
		tree_remove(&s.tree, &r);
	err = runner_error(&r);
	sync_report(&s, &r, err);
	rc = !err ? 0 : runner_interrupted(&r) ? EXIT_INTERRUPTED : 1;
	runner_free(&r);
	return rc;
}
