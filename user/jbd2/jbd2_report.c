// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <time.h>

#include "lib/devname.h"
#include "lib/hist.h"
#include "lib/hz.h"
#include "jbd2/jbd2_report.h"
#include "lib/ticker.h"
#include "lib/json_out.h"

const char *const jbd2_phase_names[JBD2_NR_PHASES] = {
	[JBD2_PHASE_WAIT] = "wait",
	[JBD2_PHASE_REQUEST_DELAY] = "request_delay",
	[JBD2_PHASE_RUNNING] = "running",
	[JBD2_PHASE_LOCKED] = "locked",
	[JBD2_PHASE_FLUSHING] = "flushing",
	[JBD2_PHASE_LOGGING] = "logging",
};

static double ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : 0.0;
}

static void text_phases(FILE *out, const struct jbd2_report_ctx *ctx,
			const struct jbd2_dev_stats *s)
{
	fprintf(out, "  phases, avg ms per transaction:");
	for (int p = 0; p < JBD2_NR_PHASES; p++)
		fprintf(out, " %s %.2f", jbd2_phase_names[p],
			jiffies_to_ms(s->phase_jiffies[p], ctx->hz) /
				s->transactions);
	fprintf(out, "\n");
}

static void text_checkpoints(FILE *out, const struct jbd2_report_ctx *ctx,
			     const struct jbd2_dev_stats *s)
{
	if (!ctx->checkpoints.available) {
		fprintf(out, "  checkpoints: unavailable: %s\n",
			ctx->checkpoints.why);
		return;
	}
	if (!s->checkpoints)
		return;
	fprintf(out,
		"  checkpoints: %llu transactions, avg %.2f ms, %llu blocks written, %llu dropped, %llu forced to close\n",
		(unsigned long long)s->checkpoints,
		jiffies_to_ms(s->chp_jiffies, ctx->hz) / s->checkpoints,
		(unsigned long long)s->chp_written,
		(unsigned long long)s->chp_dropped,
		(unsigned long long)s->chp_forced_to_close);
}

static void text_batch_sleep(FILE *out, const struct jbd2_report_ctx *ctx,
			     const struct jbd2_dev_stats *s)
{
	if (!ctx->batch_sleep.available) {
		fprintf(out, "  sync writers' batching sleep: unavailable: %s\n",
			ctx->batch_sleep.why);
		return;
	}
	fprintf(out,
		"  sync writers in jbd2_journal_stop: %llu, avg %.1f us\n",
		(unsigned long long)s->batch_stops,
		ratio(s->batch_ns, s->batch_stops) / 1000.0);
	hist_print_log2(out, s->batch_us_hist, BHSCOPE_LOG2_SLOTS, "usecs");
}

static void text_per_cpu(FILE *out, const struct jbd2_report_ctx *ctx,
			 const struct jbd2_snapshot *delta,
			 const struct jbd2_dev_snapshot *d)
{
	fprintf(out, "  %4s %12s %12s %12s %12s\n", "CPU", "handles",
		"sync", "commits", ctx->batch_sleep.available ? "stop avg us" :
								   "");
	for (int c = 0; c < delta->nr_cpus; c++) {
		const struct jbd2_dev_stats *s = &d->cpu[c];

		if (!s->handles_stopped && !s->commits && !s->batch_stops)
			continue;
		fprintf(out, "  %4d %12llu %12llu %12llu", c,
			(unsigned long long)s->handles_stopped,
			(unsigned long long)s->sync_handles,
			(unsigned long long)s->commits);
		if (ctx->batch_sleep.available)
			fprintf(out, " %12.1f",
				ratio(s->batch_ns, s->batch_stops) / 1000.0);
		fprintf(out, "\n");
	}
}

static void text_device(FILE *out, const struct jbd2_report_ctx *ctx,
			const struct jbd2_snapshot *delta,
			const struct jbd2_dev_snapshot *d)
{
	const struct jbd2_dev_stats *s = &d->total;
	char name[64], nums[32];

	devname_of(d->kdev, name, sizeof(name));
	devname_numbers(d->kdev, nums, sizeof(nums));
	fprintf(out, "%s (%s): %llu transactions (%.1f/s), %llu commits (%.1f/s, %llu sync)\n",
		name, nums, (unsigned long long)s->transactions,
		s->transactions / ctx->elapsed_s,
		(unsigned long long)s->commits, s->commits / ctx->elapsed_s,
		(unsigned long long)s->sync_commits);
	fprintf(out, "  handles stopped: %llu (%llu sync)\n",
		(unsigned long long)s->handles_stopped,
		(unsigned long long)s->sync_handles);
	if (s->transactions) {
		fprintf(out,
			"  per transaction: %.2f handles, %.2f blocks, %.2f logged blocks\n",
			ratio(s->handles, s->transactions),
			ratio(s->blocks, s->transactions),
			ratio(s->blocks_logged, s->transactions));
		text_phases(out, ctx, s);
		fprintf(out, "  handles per transaction:\n");
		hist_print_log2(out, s->handles_hist, BHSCOPE_LOG2_SLOTS,
				"handles");
	}
	if (s->commits) {
		fprintf(out, "  commit latency, avg %.1f us (kernel-style average %.1f us):\n",
			ratio(s->commit_ns, s->commits) / 1000.0,
			d->avg_commit_ns / 1000.0);
		hist_print_log2(out, s->commit_us_hist, BHSCOPE_LOG2_SLOTS,
				"usecs");
	}
	text_checkpoints(out, ctx, s);
	text_batch_sleep(out, ctx, s);
	if (ctx->per_cpu)
		text_per_cpu(out, ctx, delta, d);
}

void jbd2_report_text(FILE *out, const struct jbd2_report_ctx *ctx,
		      const struct jbd2_snapshot *delta)
{
	char ts[16];

	if (ctx->timestamps) {
		ticker_timestamp(ts, sizeof(ts));
		fprintf(out, "%s\n", ts);
	}
	if (!delta->nr_devs)
		fprintf(out, "no jbd2 activity in the last %.1f s\n",
			ctx->elapsed_s);
	if (delta->dropped_events)
		fprintf(out, "warning: %llu events lost: more than %d journal devices\n",
			(unsigned long long)delta->dropped_events,
			BHSCOPE_MAX_DEVS);
	if (!delta->lost_known)
		fprintf(out, "lost: unknown: this kernel does not count the runs of classic tracepoint programs it skips (before 6.7); every figure may miss events\n");
	else if (delta->lost_events)
		fprintf(out, "warning: %llu events lost: the kernel skipped their programs (recursion_misses); every figure misses them\n",
			(unsigned long long)delta->lost_events);
	for (int i = 0; i < delta->nr_devs; i++)
		text_device(out, ctx, delta, &delta->devs[i]);
	fprintf(out, "\n");
	fflush(out);
}

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static void add_double(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_out_double(v));
}

static struct json_object *json_status(const struct probe_status *st)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "available",
			       json_object_new_boolean(st->available));
	if (st->available && st->source[0])
		json_object_object_add(o, "source",
				       json_object_new_string(st->source));
	if (!st->available)
		json_object_object_add(o, "reason",
				       json_object_new_string(st->why));
	return o;
}

static struct json_object *json_cpu(int cpu, const struct jbd2_dev_stats *s,
				    const struct jbd2_report_ctx *ctx)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "cpu", json_object_new_int(cpu));
	add_u64(o, "handles_stopped", s->handles_stopped);
	add_u64(o, "sync_handles", s->sync_handles);
	add_u64(o, "commits", s->commits);
	if (ctx->batch_sleep.available) {
		add_u64(o, "batch_stops", s->batch_stops);
		add_u64(o, "batch_ns", s->batch_ns);
	}
	if (!ctx->cpu_hists)
		return o;
	json_object_object_add(o, "handles_per_transaction_hist",
			       hist_log2_json(s->handles_hist, BHSCOPE_LOG2_SLOTS));
	json_object_object_add(o, "commit_us_hist",
			       hist_log2_json(s->commit_us_hist, BHSCOPE_LOG2_SLOTS));
	if (ctx->batch_sleep.available)
		json_object_object_add(o, "batch_us_hist",
				       hist_log2_json(s->batch_us_hist,
						      BHSCOPE_LOG2_SLOTS));
	return o;
}

static struct json_object *json_device(const struct jbd2_report_ctx *ctx,
				       const struct jbd2_snapshot *delta,
				       const struct jbd2_dev_snapshot *d)
{
	const struct jbd2_dev_stats *s = &d->total;
	struct json_object *o = json_object_new_object(), *ph, *chp, *cpus;
	char name[64], nums[32];

	devname_of(d->kdev, name, sizeof(name));
	devname_numbers(d->kdev, nums, sizeof(nums));
	json_object_object_add(o, "dev", json_object_new_string(nums));
	json_object_object_add(o, "name", json_object_new_string(name));
	add_u64(o, "transactions", s->transactions);
	add_double(o, "transactions_per_s", s->transactions / ctx->elapsed_s);
	add_u64(o, "commits", s->commits);
	add_double(o, "commits_per_s", s->commits / ctx->elapsed_s);
	add_u64(o, "sync_commits", s->sync_commits);
	add_u64(o, "handles", s->handles);
	add_u64(o, "blocks", s->blocks);
	add_u64(o, "blocks_logged", s->blocks_logged);
	add_double(o, "handles_per_transaction", ratio(s->handles, s->transactions));
	add_double(o, "blocks_per_transaction", ratio(s->blocks, s->transactions));
	add_double(o, "logged_blocks_per_transaction",
		   ratio(s->blocks_logged, s->transactions));
	json_object_object_add(o, "handles_per_transaction_hist",
			       hist_log2_json(s->handles_hist, BHSCOPE_LOG2_SLOTS));
	add_u64(o, "handles_stopped", s->handles_stopped);
	add_u64(o, "sync_handles", s->sync_handles);

	ph = json_object_new_object();
	for (int p = 0; p < JBD2_NR_PHASES; p++) {
		add_u64(ph, jbd2_phase_names[p], s->phase_jiffies[p]);
	}
	json_object_object_add(o, "phase_jiffies", ph);
	ph = json_object_new_object();
	for (int p = 0; p < JBD2_NR_PHASES; p++)
		add_double(ph, jbd2_phase_names[p],
			   s->transactions ?
				   jiffies_to_ms(s->phase_jiffies[p], ctx->hz) /
					   s->transactions : 0.0);
	json_object_object_add(o, "phase_avg_ms", ph);

	add_u64(o, "commit_ns", s->commit_ns);
	add_double(o, "commit_avg_us", ratio(s->commit_ns, s->commits) / 1000.0);
	add_double(o, "commit_ewma_us", d->avg_commit_ns / 1000.0);
	json_object_object_add(o, "commit_us_hist",
			       hist_log2_json(s->commit_us_hist, BHSCOPE_LOG2_SLOTS));

	if (ctx->checkpoints.available) {
		chp = json_object_new_object();
		add_u64(chp, "transactions", s->checkpoints);
		add_u64(chp, "jiffies", s->chp_jiffies);
		add_u64(chp, "written", s->chp_written);
		add_u64(chp, "dropped", s->chp_dropped);
		add_u64(chp, "forced_to_close", s->chp_forced_to_close);
		json_object_object_add(o, "checkpoints", chp);
	} else {
		json_object_object_add(o, "checkpoints", NULL);
	}
	if (ctx->batch_sleep.available) {
		chp = json_object_new_object();
		add_u64(chp, "sync_stops", s->batch_stops);
		add_u64(chp, "ns", s->batch_ns);
		json_object_object_add(chp, "us_hist",
				       hist_log2_json(s->batch_us_hist,
						      BHSCOPE_LOG2_SLOTS));
		json_object_object_add(o, "batch_sleep", chp);
	} else {
		/* null, not zero: the figure was not measured. */
		json_object_object_add(o, "batch_sleep", NULL);
	}
	if (ctx->per_cpu) {
		cpus = json_object_new_array();
		for (int c = 0; c < delta->nr_cpus; c++)
			json_object_array_add(cpus, json_cpu(c, &d->cpu[c], ctx));
		json_object_object_add(o, "cpus", cpus);
	}
	return o;
}

struct json_object *jbd2_report_json(const struct jbd2_report_ctx *ctx,
				     const struct jbd2_snapshot *delta)
{
	struct json_object *o = json_out_envelope(JBD2_JSON_SCHEMA), *devs, *probes;

	/* Microseconds are plenty; the rest is clock noise. */
	add_double(o, "interval_s", round(ctx->elapsed_s * 1e6) / 1e6);
	json_object_object_add(o, "hz", json_object_new_int(ctx->hz));
	json_object_object_add(o, "final", json_object_new_boolean(ctx->final));
	add_u64(o, "dropped_events", delta->dropped_events);
	/* null, not 0: the kernel does not count them (see the text) */
	json_object_object_add(o, "lost_events", delta->lost_known ?
			       json_object_new_uint64(delta->lost_events) : NULL);
	probes = json_object_new_object();
	json_object_object_add(probes, "events", json_status(&ctx->events));
	json_object_object_add(probes, "batch_sleep", json_status(&ctx->batch_sleep));
	json_object_object_add(probes, "checkpoints", json_status(&ctx->checkpoints));
	json_object_object_add(o, "probes", probes);
	devs = json_object_new_array();
	for (int i = 0; i < delta->nr_devs; i++)
		json_object_array_add(devs, json_device(ctx, delta, &delta->devs[i]));
	json_object_object_add(o, "devices", devs);
	return o;
}
