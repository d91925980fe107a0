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
#include "commands.h"
#include "lib/env.h"
#include "lib/hz.h"
#include "jbd2.skel.h"
#include "jbd2/jbd2_load.h"
#include "jbd2/jbd2_report.h"
#include "jbd2/jbd2_snapshot.h"
#include "lib/ticker.h"

static const char jbd2_doc[] =
	"Live jbd2 commit batching per journal device: transactions and commits "
	"per second, handles and blocks per transaction, commit latency, the "
	"run_stats phases, checkpoints, and the batching sleep of sync writers "
	"where the kernel allows fentry.\v"
	"Examples:\n"
	"  bhscope jbd2              # every journal, each second, until Ctrl-C\n"
	"  bhscope jbd2 -d loop0 5 3 # loop0 only, three 5-second reports\n"
	"  bhscope jbd2 -C -j 1 10   # per CPU, as JSON lines";

static const struct argp_child jbd2_children[] = {
	{ &cli_common_argp, 0, NULL, 0 },
	{ 0 },
};

static const struct argp jbd2_argp = {
	.args_doc = "[INTERVAL [COUNT]]",
	.doc = jbd2_doc,
	.children = jbd2_children,
};

static int check_jbd2_tracepoints(void)
{
	const char *missing = jbd2_missing_tracepoint();

	if (!missing)
		return 0;
	fprintf(stderr,
		"bhscope: tracepoint jbd2:%s not found; is jbd2 loaded (mount an ext4 filesystem with a journal, or modprobe jbd2)?\n",
		missing);
	return -1;
}

static int report(const struct cli_common *opt, struct jbd2_report_ctx *ctx,
		  const struct jbd2_snapshot *cur,
		  const struct jbd2_snapshot *prev)
{
	struct jbd2_snapshot delta;
	int err = jbd2_snapshot_delta(&delta, cur, prev);

	if (err)
		return err;
	ctx->elapsed_s = ticker_elapsed();
	if (opt->json) {
		struct json_object *o = jbd2_report_json(ctx, &delta);

		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE));
		fflush(stdout);
		json_object_put(o);
	} else {
		jbd2_report_text(stdout, ctx, &delta);
	}
	jbd2_snapshot_free(&delta);
	return 0;
}

static int trace_loop(struct jbd2_bpf *skel, const struct cli_common *opt,
		      struct jbd2_report_ctx *ctx, int nr_cpus)
{
	struct jbd2_snapshot prev = { .nr_cpus = nr_cpus }, cur;
	int err = 0;

	for (long n = 1; !err; n++) {
		bool more = ticker_wait(opt->interval_s);

		cur = (struct jbd2_snapshot){ .nr_cpus = nr_cpus };
		err = jbd2_read_snapshot(skel, &cur);
		ctx->final = !more || (opt->count && n >= opt->count);
		if (!err)
			err = report(opt, ctx, &cur, &prev);
		jbd2_snapshot_free(&prev);
		prev = cur;
		if (ctx->final)
			break;
	}
	jbd2_snapshot_free(&prev);
	return err;
}

int cmd_jbd2(int argc, char **argv)
{
	struct jbd2_report_ctx ctx = {};
	struct cli_common opt;
	struct jbd2_bpf *skel;
	int nr_cpus, err;

	cli_common_init(&opt);
	if (argp_parse(&jbd2_argp, argc, argv, 0, NULL, &opt))
		return 64;
	ctx.per_cpu = opt.per_cpu;
	ctx.timestamps = opt.timestamps;

	if (env_prepare_tracing() || check_jbd2_tracepoints())
		return 1;
	ctx.hz = hz_of_running_kernel();
	if (ctx.hz <= 0) {
		fprintf(stderr, "bhscope: cannot tell the kernel's HZ (no /proc/config.gz, /boot/config-*, or /proc/timer_list); jiffies cannot be converted\n");
		return 1;
	}
	nr_cpus = libbpf_num_possible_cpus();
	if (nr_cpus <= 0) {
		fprintf(stderr, "bhscope: cannot count the possible CPUs: %s\n",
			strerror(-nr_cpus));
		return 1;
	}
	env_setup_libbpf_logging();
	skel = jbd2_load(opt.kdev, &ctx.batch_sleep, &ctx.checkpoints, NULL);
	if (!skel)
		return 1;

	ticker_install_signals();
	if (!opt.json)
		fprintf(stderr, "Tracing jbd2 commits%s%s... Ctrl-C to end.\n",
			opt.dev_arg ? " on " : "", opt.dev_arg ? opt.dev_arg : "");
	if (!ctx.batch_sleep.available && !opt.json)
		fprintf(stderr, "bhscope: sync writers' batching sleep unavailable: %s\n",
			ctx.batch_sleep.why);
	err = trace_loop(skel, &opt, &ctx, nr_cpus);
	jbd2_bpf__destroy(skel);
	if (err) {
		fprintf(stderr, "bhscope: reading the jbd2 maps failed: %s\n",
			strerror(-err));
		return 1;
	}
	return 0;
}
