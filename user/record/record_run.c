// SPDX-License-Identifier: GPL-2.0
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/record_exec.h"
#include "record/record_fsmark.h"
#include "record/record_workload.h"
#include "record/record_host.h"
#include "record/record_per_op.h"
#include "record/record_run.h"
#include "record/record_schema.h"
#include "record/record_target.h"
#include "record/record_trace.h"
#include "record/record_tunables.h"
#include "record/record_write.h"
#include "lib/atomic_file.h"
#include "lib/env.h"
#include "lib/errmsg.h"
#include "lib/term_safe.h"
#include "lib/stop_signals.h"
#include "lib/json_out.h"

/* Output of a command other than bhbench kept in the record, for failures. */
#define OUTPUT_TAIL	2048

/* argv for exec: bhbench ARGS -j, or the command as given. */
static char **workload_argv(const struct record_opts *o)
{
	char **v = calloc(o->argc + 3, sizeof(*v));
	bool has_j = false;
	int n = 0;

	if (!v)
		return NULL;
	if (o->bench)
		v[n++] = (char *)record_workload_bhbench();
	for (int i = 0; i < o->argc; i++) {
		has_j |= !strcmp(o->argv[i], "-j") || !strcmp(o->argv[i], "--json");
		v[n++] = o->argv[i];
	}
	if (o->bench && !has_j)
		v[n++] = "-j";
	return v;
}

static struct json_object *strings_json(char **v)
{
	struct json_object *a = json_object_new_array();

	for (; *v; v++)
		json_object_array_add(a, json_object_new_string(*v));
	return a;
}

static void set_error(struct json_object *run, const char *msg)
{
	json_object_object_add(run, "ok", json_object_new_boolean(false));
	json_object_object_add(run, "error", json_object_new_string(msg));
}

/* bhbench's result: its one JSON object on stdout, ok or not. */
static void add_bench_result(struct json_object *run,
			     const struct exec_result *r)
{
	struct json_object *res = r->out ? json_tokener_parse(r->out) : NULL;
	struct json_object *ok;

	if (!json_object_is_type(res, json_type_object)) {
		json_object_put(res);
		json_object_object_add(run, "result", NULL);
		set_error(run, "bhbench printed no JSON result");
		return;
	}
	json_object_object_add(run, "result", res);
	if (json_object_object_get_ex(res, "ok", &ok) &&
	    !json_object_get_boolean(ok)) {
		struct json_object *e;

		set_error(run, json_object_object_get_ex(res, "error", &e) ?
				       json_object_get_string(e) :
				       "bhbench reported a failure");
	}
}

static void add_command_result(struct json_object *run, char **argv,
			       const struct exec_result *r)
{
	size_t skip = r->out_len > OUTPUT_TAIL ? r->out_len - OUTPUT_TAIL : 0;

	json_object_object_add(run, "result", NULL);
	json_object_object_add(run, "output_tail", r->out ?
				json_object_new_string(r->out + skip) : NULL);
	if (!record_fsmark_is(argv[0]))
		return;
	json_object_object_add(run, "fs_mark", record_fsmark_parse(r->out));
}

static struct json_object *one_run(const struct record_opts *o, char **argv,
				   struct record_trace *tr, int index)
{
	struct json_object *run = json_object_new_object();
	struct exec_result r;
	char when[32], sig[32], msg[300];

	json_out_utc_now(when, sizeof(when));
	json_object_object_add(run, "run", json_object_new_int(index));
	json_object_object_add(run, "start", json_object_new_string(when));
	record_trace_run_begin(tr);
	record_exec_run(argv, !o->bench && !o->quiet, &r);
	record_trace_run_end(tr, run, r.wall_s);

	json_object_object_add(run, "ok", json_object_new_boolean(
				!r.exit_status && !r.error[0]));
	json_object_object_add(run, "exit_status",
			       json_object_new_int(r.exit_status));
	json_object_object_add(run, "signal", r.signal ? json_object_new_string(
				record_exec_signal_name(r.signal, sig,
							sizeof(sig))) : NULL);
	json_object_object_add(run, "wall_s", json_out_double(r.wall_s));
	if (o->bench) {
		add_bench_result(run, &r);
		record_per_op_add(run);
	} else {
		add_command_result(run, argv, &r);
	}
	if (r.error[0]) {
		set_error(run, r.error);
	} else if (r.exit_status) {
		struct json_object *e;

		if (!json_object_object_get_ex(run, "error", &e)) {
			if (r.signal)
				snprintf(msg, sizeof(msg), "killed by %s", sig);
			else
				snprintf(msg, sizeof(msg), "exit status %d",
					 r.exit_status);
			set_error(run, msg);
		}
	}
	record_exec_result_free(&r);
	return run;
}

static bool run_ok(struct json_object *run)
{
	struct json_object *ok;

	return json_object_object_get_ex(run, "ok", &ok) &&
	       json_object_get_boolean(ok);
}

/* name and params of the workload, from bhbench's first result. */
static struct json_object *workload_json(const struct record_opts *o,
					 char **argv, struct json_object *runs)
{
	struct json_object *w = json_object_new_object(), *res, *v;
	const char *base = strrchr(argv[0], '/');

	json_object_object_add(w, "kind", json_object_new_string(
				o->bench ? "bhbench" : "command"));
	json_object_object_add(w, "command", strings_json(argv));
	res = json_object_array_length(runs) ?
		json_object_object_get(json_object_array_get_idx(runs, 0), "result") :
		NULL;
	if (o->bench && json_object_object_get_ex(res, "workload", &v))
		json_object_object_add(w, "name", json_object_get(v));
	else
		json_object_object_add(w, "name", json_object_new_string(
					base ? base + 1 : argv[0]));
	json_object_object_add(w, "params",
			       o->bench && json_object_object_get_ex(res, "params", &v) ?
				       json_object_get(v) : NULL);
	json_object_object_add(w, "repeats", json_object_new_int(o->repeats));
	return w;
}

/* Fails before the workload runs when the record could not be written. */
static int check_output(const char *out)
{
	char why[2 * PATH_MAX + 128];

	if (!atomic_file_check(AT_FDCWD, out, why, sizeof(why)))
		return 0;
	term_safe_error("%s; nothing was run", why);
	return -1;
}

static int find_target(const struct record_opts *o, struct record_target *t,
		       bool *have)
{
	const char *dir = o->dir ? o->dir :
		record_workload_dir(o->argv, o->argc, o->bench);
	char err[PATH_MAX + 128];

	*have = false;
	if (!dir) {
		if (!o->quiet)
			errmsg("no --dir: the record will not say which filesystem the workload used");
		return 0;
	}
	if (record_target_find(dir, t, err, sizeof(err))) {
		errmsg("%s", err);
		return -1;
	}
	*have = true;
	return 0;
}

static struct json_object *header(const struct record_opts *o,
				  const struct record_target *t,
				  const struct journal_tunables *batch,
				  const struct bhtune_params *bhtune)
{
	struct json_object *rec = json_out_new(RECORD_SCHEMA);
	char when[32];

	json_out_utc_now(when, sizeof(when));
	json_object_object_add(rec, "bhscope_version",
			       json_object_new_string(BHSCOPE_VERSION));
	json_object_object_add(rec, "time", json_object_new_string(when));
	json_object_object_add(rec, "label", o->label ?
				json_object_new_string(o->label) : NULL);
	json_object_object_add(rec, "host", record_host_json(libbpf_num_possible_cpus()));
	json_object_object_add(rec, "target", t ? record_target_json(t) : NULL);
	json_object_object_add(rec, "tunables", record_tunables_json(batch, bhtune));
	if (o->sweep)
		json_object_object_add(rec, "sweep", json_object_get(o->sweep));
	return rec;
}

static void progress(const struct record_opts *o, int i,
		     struct json_object *run)
{
	struct json_object *e;

	if (o->quiet)
		return;
	if (run_ok(run))
		fprintf(stderr, "run %d/%d: ok, %.3f s\n", i, o->repeats,
			json_object_get_double(json_object_object_get(run, "wall_s")));
	else if (json_object_object_get_ex(run, "error", &e))
		/* bhbench's "error" is the workload's text: made safe. */
		term_safe_error("run %d/%d failed: %s", i, o->repeats,
				json_object_get_string(e));
}

int record_run(const struct record_opts *o)
{
	struct record_trace tr = { .want_jbd2 = o->jbd2, .want_lru = o->lru,
				   .whatif = o->whatif };
	struct json_object *rec, *runs;
	struct journal_tunables batch;
	struct bhtune_params bhtune;
	struct record_target t;
	bool have_target, ok = true;
	char **argv;
	int ret;

	/* First: an unprivileged user learns it before anything runs. */
	if ((o->jbd2 || o->lru) && env_check_privileges(ENV_TRACE))
		return 1;
	if (check_output(o->out) || find_target(o, &t, &have_target))
		return 1;
	if (have_target && t.device[0])
		tr.kdev = record_target_kdev(&t);
	if (record_trace_start(&tr)) {	/* it said why, in one line */
		record_trace_stop(&tr);
		return 1;
	}
	argv = workload_argv(o);
	if (!argv) {
		record_trace_stop(&tr);
		return 1;
	}
	record_tunables_read(have_target ? &t : NULL, &batch, &bhtune);
	rec = header(o, have_target ? &t : NULL, &batch, &bhtune);
	if (!o->quiet && tr.want_lru && !tr.lru.available)
		errmsg("LRU figures unavailable: %s", tr.lru.why);

	runs = json_object_new_array();
	for (int i = 1; i <= o->repeats && ok; i++) {
		struct json_object *run = one_run(o, argv, &tr, i);

		json_object_array_add(runs, run);
		ok = run_ok(run);
		progress(o, i, run);
		if (stop_signals_requested() && i < o->repeats) {
			errmsg("interrupted; recording the runs so far");
			ok = false;
		}
	}
	record_trace_stop(&tr);
	json_object_object_add(rec, "tracing", record_trace_json(&tr));
	json_object_object_add(rec, "workload", workload_json(o, argv, runs));
	json_object_object_add(rec, "ok", json_object_new_boolean(ok));
	json_object_object_add(rec, "runs", runs);

	ret = record_write_json(o->out, rec) ? 1 : !ok;
	if (!ret && !o->quiet)
		fprintf(stderr, "recorded %d run%s to %s\n", o->repeats,
			o->repeats > 1 ? "s" : "", o->out);
	else if (!ok)
		errmsg("the workload failed; %s says so (\"ok\": false)",
		       o->out);
	json_object_put(rec);
	free(argv);
	return ret;
}
