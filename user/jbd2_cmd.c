// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope jbd2: live jbd2 commit-batching statistics per journal device.
 */
#include <argp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "env.h"
#include "hz.h"
#include "jbd2.skel.h"
#include "jbd2_report.h"
#include "jbd2_snapshot.h"
#include "probe_reason.h"
#include "ticker.h"

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

/* The tracepoint programs and where they hook, for existence checks. */
static const struct {
	const char *name;
} jbd2_tracepoints[] = {
	{ "jbd2_start_commit" },	{ "jbd2_commit_flushing" },
	{ "jbd2_end_commit" },		{ "jbd2_run_stats" },
	{ "jbd2_handle_stats" },
};

static int check_jbd2_tracepoints(void)
{
	for (size_t i = 0; i < sizeof(jbd2_tracepoints) / sizeof(*jbd2_tracepoints); i++) {
		if (env_tracepoint_exists("jbd2", jbd2_tracepoints[i].name))
			continue;
		fprintf(stderr,
			"bhscope: tracepoint jbd2:%s not found; is jbd2 loaded (mount an ext4 filesystem with a journal, or modprobe jbd2)?\n",
			jbd2_tracepoints[i].name);
		return -1;
	}
	return 0;
}

static struct jbd2_bpf *open_jbd2(uint32_t kdev, bool with_batch_sleep,
				  bool with_checkpoints)
{
	struct jbd2_bpf *skel = jbd2_bpf__open();

	if (!skel)
		return NULL;
	skel->rodata->target_dev = kdev;
	bpf_program__set_autoload(skel->progs.journal_stop_entry,
				  with_batch_sleep);
	bpf_program__set_autoload(skel->progs.journal_stop_exit,
				  with_batch_sleep);
	bpf_program__set_autoload(skel->progs.tp_checkpoint_stats,
				  with_checkpoints);
	return skel;
}

/*
 * Loads with the fentry/fexit pair first: whether they can run is only known
 * by really loading them. On failure, loads the tracepoints alone and keeps
 * the reason for the report.
 */
static struct jbd2_bpf *load_jbd2(uint32_t kdev, struct jbd2_report_ctx *ctx)
{
	struct jbd2_bpf *skel;
	int err;

	ctx->checkpoints.available =
		env_tracepoint_exists("jbd2", "jbd2_checkpoint_stats");
	if (!ctx->checkpoints.available)
		snprintf(ctx->checkpoints.why, sizeof(ctx->checkpoints.why),
			 "this kernel has no jbd2:jbd2_checkpoint_stats tracepoint");

	skel = open_jbd2(kdev, true, ctx->checkpoints.available);
	if (!skel)
		return NULL;
	err = jbd2_bpf__load(skel);
	if (!err)
		err = jbd2_bpf__attach(skel);
	if (!err) {
		ctx->batch_sleep.available = true;
		return skel;
	}
	probe_reason(ctx->batch_sleep.why, sizeof(ctx->batch_sleep.why),
		     "fentry/fexit", "jbd2_journal_stop", err);
	jbd2_bpf__destroy(skel);

	skel = open_jbd2(kdev, false, ctx->checkpoints.available);
	if (!skel)
		return NULL;
	err = jbd2_bpf__load(skel);
	if (err) {
		fprintf(stderr, "bhscope: loading the jbd2 BPF programs failed: %s\n",
			strerror(-err));
		goto fail;
	}
	err = jbd2_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "bhscope: attaching to the jbd2 tracepoints failed: %s\n",
			strerror(-err));
		goto fail;
	}
	return skel;
fail:
	jbd2_bpf__destroy(skel);
	return NULL;
}

static int read_snapshot(struct jbd2_bpf *skel, struct jbd2_snapshot *snap)
{
	int stats_fd = bpf_map__fd(skel->maps.dev_stats);
	int state_fd = bpf_map__fd(skel->maps.journal_state);
	struct jbd2_dev_stats *percpu;
	__u32 key, next, *prev = NULL;
	int err = 0;

	percpu = calloc(snap->nr_cpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	while (!bpf_map_get_next_key(stats_fd, prev, &next)) {
		struct jbd2_journal_state st = {};

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(stats_fd, &key, percpu))
			continue;	/* removed meanwhile */
		err = jbd2_snapshot_add_dev(snap, key, percpu);
		if (err)
			break;
		if (!bpf_map_lookup_elem(state_fd, &key, &st))
			snap->devs[snap->nr_devs - 1].avg_commit_ns =
				st.avg_commit_ns;
	}
	free(percpu);
	return err;
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

		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
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
		err = read_snapshot(skel, &cur);
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
	skel = load_jbd2(opt.kdev, &ctx);
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
