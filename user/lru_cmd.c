// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope lru: live per-CPU buffer-head LRU statistics and the what-if
 * curve, with --trace for an offline replay (bhscope simulate).
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "cmd.h"
#include "lib/env.h"
#include "lru/lru_session.h"
#include "lrutrace/lru_recorder.h"
#include "lru/lru_report.h"
#include "lru/lru_selfcost.h"
#include "lib/errmsg.h"
#include "lib/interval_loop.h"
#include "lib/stop_signals.h"
#include "lib/ticker.h"
#include "lib/json_out.h"

enum {
	OPT_TRACE = 0x100,
	OPT_TRACE_BUFFER,
	OPT_PROBES,
	OPT_SELF_COST,
	OPT_HOOK,
	OPT_TIMING,
};

struct lru_opts {
	struct cli_common common;
	int whatif;
	const char *trace;
	unsigned int trace_mb;
	bool probes;
	bool self_cost;
	enum lru_mode mode;
	long timing;		/* one lookup in N timed; 0 none, -1 unset */
};

static const char lru_doc[] =
	"Live per-CPU buffer-head LRU (fs/buffer.c bh_lrus) statistics per "
	"device and per CPU: lookups per second, hit ratio, misses (installed "
	"in the LRU, found but not installed, absent from the page cache), "
	"evictions and the hit-slot histogram; and the what-if curve: the hit "
	"ratio every LRU size would have given, from one run of an unmodified "
	"kernel.\v"
	"Hooks are chosen at run time, best first: bhtune.ko's tracepoints when "
	"the module owns the LRU, fentry/fexit on the lookup, kprobes, and "
	"last the block:block_touch_buffer tracepoint, which counts hits only. "
	"--probes tells which hook gives each figure here, and why any is "
	"missing.\n\n"
	"Nothing is guessed: a lookup preempted, migrated or asleep between its "
	"entry and its return, or whose LRU was emptied after its install, is "
	"UNSYNCED (counted, left out of the ratios); a lookup no probe counted "
	"(the kernel skipped the probe, or another was in flight on the CPU) "
	"is LOST. Reports give both and their shares.\n\n"
	"What-if: sizes 1 to the kernel's BH_LRU_SIZE are exact over the "
	"classified lookups (a hit's slot is its stack distance). Larger sizes "
	"come from a ghost list of evicted keys: exact while the model never "
	"re-read an LRU changed unseen and no miss not installed was found in "
	"the ghost list; a lower bound after such a re-read (which forgets the "
	"ghost list: the unseen lookups evicted keys it cannot place); "
	"approximate after "
	"such a miss. Each report says which (whatif_above).\n\n"
	"--timing times one lookup in N on each CPU, from its entry to its exit "
	"probe, by outcome (hit by slot, installed, not installed, absent); a "
	"lookup switched out or preempted inside is dropped, not timed. With "
	"--whatif (which turns it on, one in 64) each size also gets its "
	"lookup CPU time: hits cost as timed at their slot, or by the line "
	"fitted through the slots (a hit scans and shifts one slot more per "
	"slot), misses their timed cost plus that slope per slot more. The "
	"times include the probes' own trampoline work between the two "
	"timestamps, alike for every outcome, so the changes between sizes "
	"are the kernel's.\n\n"
	"--trace writes every lookup (CPU, device, block, size, time, outcome, "
	"slot, and whether the page cache had it and the kernel put it at the "
	"LRU's front) to a file, in zstd-compressed frames of delta-coded "
	"columns: a few bytes a lookup. A frame is "
	"written at least every second, so a recording that is killed keeps "
	"all but its last second.\n\n"
	"Examples:\n"
	"  bhscope lru                     # each second, until Ctrl-C\n"
	"  bhscope lru -C -d ram0 5 3      # per CPU, ram0 only, three 5 s reports\n"
	"  bhscope lru --whatif 64 10 1    # hit ratio and lookup time at sizes 1..64, over 10 s\n"
	"  bhscope lru --timing 16 10 1    # lookup times by outcome, one in 16 timed\n"
	"  bhscope lru --trace lru.trace 10 1\n"
	"  bhscope simulate lru.trace --sizes 1-64   # the same curve, offline\n"
	"  bhscope lru --probes            # which hook gives each figure here\n"
	"  bhscope lru --self-cost 5 1     # what the probes cost per lookup";

static const struct argp_option lru_options[] = {
	{ "whatif", 'w', "N", 0,
	  "What-if curve: the hit ratio at every LRU size 1..N (N <= 256)", 0 },
	{ "trace", OPT_TRACE, "FILE", 0,
	  "Record every lookup to FILE, for 'bhscope simulate'", 0 },
	{ "trace-buffer", OPT_TRACE_BUFFER, "MB", 0,
	  "Ring buffer for --trace, MiB, a power of 2 (default 16)", 0 },
	{ "probes", OPT_PROBES, NULL, 0,
	  "Print which hook each figure comes from on this kernel, and exit", 0 },
	{ "self-cost", OPT_SELF_COST, NULL, 0,
	  "Print the probes' own run time per event (kernel BPF stats)", 0 },
	{ "timing", OPT_TIMING, "N", 0,
	  "Time one lookup in N per CPU by outcome (0: off; --whatif times 1 in 64)", 0 },
	{ "hook", OPT_HOOK, "auto|bhtune|fentry|kprobe|tracepoint", 0,
	  "Where the lookups come from (default auto: the best that loads)", 0 },
	{ 0 },
};

static bool power_of_2(unsigned long v)
{
	return v && !(v & (v - 1));
}

static error_t lru_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct lru_opts *o = state->input;
	unsigned int timing;
	char *end;
	long v;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->common;
		break;
	case 'w':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || v < 1 || v > BHSCOPE_LRU_DEPTH_MAX)
			argp_error(state, "invalid --whatif '%s': want 1 to %d",
				   arg, BHSCOPE_LRU_DEPTH_MAX);
		o->whatif = v;
		break;
	case OPT_TRACE:
		o->trace = arg;
		break;
	case OPT_TRACE_BUFFER:
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || v < 1 || v > 1024 || !power_of_2(v))
			argp_error(state,
				   "invalid --trace-buffer '%s': want MiB, a power of 2 up to 1024",
				   arg);
		o->trace_mb = v;
		break;
	case OPT_PROBES:
		o->probes = true;
		break;
	case OPT_SELF_COST:
		o->self_cost = true;
		break;
	case OPT_TIMING:
		if (cli_parse_uint(arg, 0, CLI_TIMING_MAX, &timing))
			argp_error(state, "invalid --timing '%s': want 0 to %u",
				   arg, CLI_TIMING_MAX);
		o->timing = timing;
		break;
	case OPT_HOOK:
		if (lru_hooks_mode_parse(arg, &o->mode))
			argp_error(state,
				   "invalid --hook '%s': want auto, bhtune, fentry, kprobe or tracepoint",
				   arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child lru_children[] = {
	{ &cli_common_argp, 0, NULL, 0 },
	{ &cli_help_argp, 0, NULL, 0 },
	{ 0 },
};

const struct argp lru_argp = {
	.options = lru_options,
	.parser = lru_parse_opt,
	.args_doc = "[INTERVAL [COUNT]]",
	.doc = lru_doc,
	.children = lru_children,
};

static int print_probes(const struct lru_opts *o, const struct lru_hooks *h,
			bool loaded)
{
	struct json_object *j;

	if (o->common.json) {
		j = lru_hooks_json(h, loaded);
		/* main's stdout check says why, once */
		return json_out_print(stdout, j, JSON_OUT_LINE) ? 1 : 0;
	}
	lru_hooks_print(stdout, h, loaded);
	return 0;
}

static void say_what_is_missing(const struct lru_opts *o,
				const struct lru_session *s)
{
	if (s->hooks.mode == LRU_MODE_TRACEPOINT)
		errmsg("counting LRU hits only (block:block_touch_buffer); lookups, misses, hit slots and the what-if curve need fentry or kprobes on the lookup: fentry: %s; kprobe: %s",
		       s->hooks.tried[LRU_MODE_FENTRY], s->hooks.tried[LRU_MODE_KPROBE]);
	/* On stderr even with -j: scripts wait for it to start a workload. */
	fprintf(stderr, "Tracing the buffer-head LRU (%s%s)%s%s... Ctrl-C to end.\n",
		s->hooks.hook, s->deferred_at >= 0 ? ", deferred" : "",
		o->common.dev_arg ? " on " : "",
		o->common.dev_arg ? o->common.dev_arg : "");
}

struct lru_live {
	const struct lru_opts *o;
	struct lru_session *s;
	struct lru_selfcost *cost;
	struct lru_report_ctx ctx;
};

static void snapshot_free(void *snap)
{
	lru_snapshot_free(snap);
}

static int read_snapshot(void *arg, void *out)
{
	struct lru_live *l = arg;
	struct lru_snapshot *snap = out;

	snap->nr_cpus = l->s->nr_cpus;
	return lru_session_interval(l->s, snap);
}

static int report(void *arg, const void *cur, const void *prev,
		  double elapsed_s, bool final)
{
	struct lru_live *l = arg;
	struct lru_report_ctx ctx;
	struct lru_snapshot delta;
	int err = lru_snapshot_delta(&delta, cur, prev);

	if (err)
		return err;
	l->ctx.elapsed_s = elapsed_s;
	l->ctx.final = final;
	if (l->cost && lru_selfcost_read(l->cost, l->s) == 0)
		l->ctx.selfcost = l->cost;
	/* the LRU's size and hooks as of the read */
	ctx = l->ctx;
	ctx.lru_size = delta.lru_size;
	ctx.hooks = &delta.hooks;
	if (l->o->common.json)
		err = json_out_print(stdout, lru_report_json(&ctx, &delta),
				     JSON_OUT_LINE) ? INTERVAL_LOOP_OUTPUT_FAILED : 0;
	else
		lru_report_text(stdout, &ctx, &delta);
	lru_snapshot_free(&delta);
	return err;
}

static int trace_loop(const struct lru_opts *o, struct lru_session *s,
		      struct lru_selfcost *cost)
{
	struct lru_live l = {
		.o = o, .s = s, .cost = cost,
		.ctx = {
			.per_cpu = o->common.per_cpu,
			.timestamps = o->common.timestamps,
			.whatif = lru_hooks_classify(&s->hooks) ? o->whatif : 0,
		},
	};

	return interval_loop(&o->common, &(struct interval_source){
		.ctx = &l, .snap_size = sizeof(struct lru_snapshot),
		.read = read_snapshot, .report = report,
		.free = snapshot_free });
}

/* Lost events of the whole run, from the per-CPU counters. */
static uint64_t events_lost(struct lru_session *s)
{
	struct lru_snapshot snap = { .nr_cpus = s->nr_cpus };
	struct lru_cpu_counters c = {};

	/* rechecked as every read is: the messages of a change, if any */
	if (!lru_session_interval(s, &snap))
		lru_snapshot_counters_total(&snap, &c);
	lru_snapshot_free(&snap);
	return c.events_lost;
}

static int finish_trace(const struct lru_opts *o, struct lru_session *s,
			struct lru_recorder *rec)
{
	uint64_t lost = events_lost(s);
	int err = lru_recorder_stop(rec, lost);
	const struct lru_trace_writer *w = &rec->w;
	char per[32] = "";

	if (err) {
		errmsg("writing the trace %s failed: %s",
		       o->trace, strerror(-err));
		return err;
	}
	if (w->lookups)
		snprintf(per, sizeof(per), ", %.2f a lookup",
			 (double)w->bytes / w->lookups);
	errmsg("trace %s: %llu records (%llu lookups) in %llu bytes%s; %llu events lost%s",
	       o->trace, (unsigned long long)w->h.records,
	       (unsigned long long)w->lookups, (unsigned long long)w->bytes,
	       per, (unsigned long long)lost,
	       lost ? " (raise --trace-buffer; the replay restarts each CPU's model after a loss)" : "");
	return 0;
}

int cmd_lru(int argc, char **argv)
{
	struct lru_opts o = { .trace_mb = 16, .timing = -1 };
	struct lru_selfcost cost = { .stats_fd = -1 };
	struct lru_recorder rec = {};
	struct lru_load_opts lo;
	struct lru_session s;
	sigset_t setup_mask;
	int err;

	cli_common_init(&o.common);
	if (argp_parse(&lru_argp, argc, argv, 0, NULL, &o))
		return 64;
	/*
	 * A stop during the setup waits for it (blocked, never an EINTR in
	 * a load or attach), then ends the loop at once with its final
	 * report. The recorder's thread, made meanwhile, never takes one.
	 */
	stop_signals_install();
	stop_signals_block(&setup_mask, NULL);
	if (env_prepare_tracing()) {
		stop_signals_restore(&setup_mask);
		return 1;
	}
	env_setup_libbpf_logging();
	if (o.self_cost && (err = lru_selfcost_enable(&cost))) {
		errmsg("cannot turn on the kernel's BPF run-time statistics: %s (needs CAP_SYS_ADMIN)",
		       strerror(-err));
		stop_signals_restore(&setup_mask);
		return 1;
	}
	lo = (struct lru_load_opts){
		.kdev = o.common.kdev,
		.whatif = o.whatif,
		.trace = o.trace != NULL,
		.trace_bytes = o.trace_mb << 20,
		.mode = o.mode,
		.time_every = o.timing >= 0 ? (uint32_t)o.timing :
			      o.whatif ? LRU_TIMING_EVERY_WHATIF : 0,
	};
	err = lru_session_open(&s, &lo);
	if (o.probes) {
		stop_signals_restore(&setup_mask);
		err = print_probes(&o, &s.hooks, !err);
		lru_session_close(&s);
		lru_selfcost_disable(&cost);
		return err;
	}
	if (err)
		goto out;
	ticker_start();
	if (o.trace) {
		struct lru_trace_params tp = {
			.lru_size = lru_session_lru_size(&s),
			.nr_cpus = s.nr_cpus,
			.hook = s.hooks.hook,
			/* the probe sets LRU_EV_FOUND/FRONT on every lookup */
			.raw_bits = true,
		};

		err = lru_recorder_start(&rec, lru_session_events_fd(&s),
					 o.trace, &tp);
		if (err) {
			errmsg("cannot record to %s: %s",
			       o.trace, lru_trace_create_strerror(err));
			goto out;
		}
	}
	say_what_is_missing(&o, &s);
	/* a stop that came during the setup lands now: a final report */
	stop_signals_restore(&setup_mask);
	err = trace_loop(&o, &s, o.self_cost ? &cost : NULL);
	if (err < 0)
		errmsg("reading the LRU maps failed: %s",
		       strerror(-err));
	if (o.trace)
		err = finish_trace(&o, &s, &rec) ?: err;
out:
	stop_signals_restore(&setup_mask);
	lru_session_close(&s);
	lru_selfcost_disable(&cost);
	return err ? 1 : 0;
}
