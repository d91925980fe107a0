// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope jbd2: live jbd2 commit-batching statistics per journal device.
 */
#include <argp.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "cmd.h"
#include "lib/env.h"
#include "lib/errmsg.h"
#include "lib/hz.h"
#include "jbd2.skel.h"
#include "jbd2/jbd2_load.h"
#include "jbd2/jbd2_report.h"
#include "jbd2/jbd2_snapshot.h"
#include "lib/interval_loop.h"
#include "lib/stop_signals.h"
#include "lib/json_out.h"
#include "lib/ticker.h"

static const char jbd2_doc[] =
	"Live jbd2 commit batching per journal device: transactions and commits "
	"per second, handles and blocks per transaction, commit latency, the "
	"run_stats phases, checkpoints, and the batching sleep of sync writers "
	"where the kernel allows fentry.\v"
	"The events come from BTF tracepoints (tp_btf) where the kernel allows "
	"them: it counts every run of theirs it skips, which the report shows "
	"as lost events. Classic tracepoints are skipped on a CPU where another "
	"BPF program or a map read holds the kernel's BPF guard; kernels before "
	"6.7 do not count those runs, and the report says lost: unknown.\n\n"
	"Examples:\n"
	"  bhscope jbd2              # every journal, each second, until Ctrl-C\n"
	"  bhscope jbd2 -d loop0 5 3 # loop0 only, three 5-second reports\n"
	"  bhscope jbd2 -C -j 1 10   # per CPU, as JSON lines\n"
	"  bhscope jbd2 --hook=tracepoint  # classic tracepoints only";

enum { OPT_HOOK = 0x100 };

struct jbd2_opts {
	struct cli_common common;
	enum jbd2_hook hook;
};

static const struct argp_option jbd2_options[] = {
	{ "hook", OPT_HOOK, "auto|btf|raw|tracepoint", 0,
	  "Where the events come from (default auto: btf where allowed, "
	  "else raw, else tracepoint)", 0 },
	{ 0 },
};

static error_t jbd2_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct jbd2_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->common;
		break;
	case OPT_HOOK:
		if (jbd2_load_hook_parse(arg, &o->hook))
			argp_error(state,
				   "invalid --hook '%s': want auto, btf or tracepoint",
				   arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child jbd2_children[] = {
	{ &cli_common_argp, 0, NULL, 0 },
	{ &cli_help_argp, 0, NULL, 0 },
	{ 0 },
};

const struct argp jbd2_argp = {
	.options = jbd2_options,
	.parser = jbd2_parse_opt,
	.args_doc = "[INTERVAL [COUNT]]",
	.doc = jbd2_doc,
	.children = jbd2_children,
};

static int check_jbd2_tracepoints(void)
{
	const char *missing = jbd2_load_missing_tracepoint();

	if (!missing)
		return 0;
	errmsg("tracepoint jbd2:%s not found; is jbd2 loaded (mount an ext4 filesystem with a journal, or modprobe jbd2)?",
	       missing);
	return -1;
}

struct jbd2_live {
	const struct cli_common *opt;
	struct jbd2_report_ctx *ctx;
	struct jbd2_bpf *skel;
	int nr_cpus;
};

static void snapshot_free(void *snap)
{
	jbd2_snapshot_free(snap);
}

static int read_snapshot(void *arg, void *out)
{
	struct jbd2_live *l = arg;
	struct jbd2_snapshot *snap = out;

	snap->nr_cpus = l->nr_cpus;
	return jbd2_load_read_snapshot(l->skel, snap);
}

static int report(void *arg, const void *cur, const void *prev,
		  double elapsed_s, bool final)
{
	struct jbd2_live *l = arg;
	struct jbd2_snapshot delta;
	int err = jbd2_snapshot_delta(&delta, cur, prev);

	if (err)
		return err;
	l->ctx->elapsed_s = elapsed_s;
	l->ctx->final = final;
	if (l->opt->json)
		err = json_out_print(stdout, jbd2_report_json(l->ctx, &delta),
				     JSON_OUT_LINE) ? INTERVAL_LOOP_OUTPUT_FAILED : 0;
	else
		jbd2_report_text(stdout, l->ctx, &delta);
	jbd2_snapshot_free(&delta);
	return err;
}

/* Everything before the loop: checks, HZ, CPUs, load and attach. */
static int jbd2_setup(const struct jbd2_opts *o, struct jbd2_report_ctx *ctx,
		      int *nr_cpus, struct jbd2_bpf **skel)
{
	if (env_prepare_tracing() || check_jbd2_tracepoints())
		return -1;
	ctx->hz = hz_of_running_kernel();
	if (ctx->hz <= 0) {
		errmsg("%s", HZ_UNKNOWN_MSG);
		return -1;
	}
	*nr_cpus = libbpf_num_possible_cpus();
	if (*nr_cpus <= 0) {
		errmsg("cannot count the possible CPUs: %s",
		       strerror(-*nr_cpus));
		return -1;
	}
	env_setup_libbpf_logging();
	*skel = jbd2_load(o->common.kdev, o->hook, &ctx->events,
			  &ctx->batch_sleep, &ctx->checkpoints, NULL);
	return *skel ? 0 : -1;
}

int cmd_jbd2(int argc, char **argv)
{
	struct jbd2_report_ctx ctx = {};
	struct jbd2_live live;
	struct jbd2_opts o = { .hook = JBD2_HOOK_AUTO };
	const struct cli_common *opt = &o.common;
	struct jbd2_bpf *skel = NULL;
	sigset_t setup_mask;
	int nr_cpus = 0, err;

	cli_common_init(&o.common);
	if (argp_parse(&jbd2_argp, argc, argv, 0, NULL, &o))
		return 64;
	ctx.per_cpu = opt->per_cpu;
	ctx.timestamps = opt->timestamps;
	/*
	 * A stop during the setup waits for it (blocked, never an EINTR in
	 * a load), then ends the loop at once with its final report.
	 */
	stop_signals_install();
	stop_signals_block(&setup_mask, NULL);
	err = jbd2_setup(&o, &ctx, &nr_cpus, &skel);
	stop_signals_restore(&setup_mask);
	if (err)
		return 1;

	ticker_start();
	/* On stderr even with -j: scripts wait for it to start a workload. */
	fprintf(stderr, "Tracing jbd2 commits%s%s... Ctrl-C to end.\n",
		opt->dev_arg ? " on " : "", opt->dev_arg ? opt->dev_arg : "");
	if (!ctx.batch_sleep.available && !opt->json)
		errmsg("sync writers' batching sleep unavailable: %s",
		       ctx.batch_sleep.why);
	live = (struct jbd2_live){ .opt = opt, .ctx = &ctx, .skel = skel,
				   .nr_cpus = nr_cpus };
	err = interval_loop(opt, &(struct interval_source){
		.ctx = &live, .snap_size = sizeof(struct jbd2_snapshot),
		.read = read_snapshot, .report = report,
		.free = snapshot_free });
	jbd2_bpf__destroy(skel);
	if (err == INTERVAL_LOOP_OUTPUT_FAILED)
		return 1;
	if (err) {
		errmsg("reading the jbd2 maps failed: %s",
		       strerror(-err));
		return 1;
	}
	return 0;
}
