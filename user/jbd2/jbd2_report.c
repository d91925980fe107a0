// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <time.h>

#include "lib/devname.h"
#include "lib/hist.h"
#include "lib/hz.h"
#include "jbd2/jbd2_report.h"
#include "jbd2/jbd2_table.h"
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

/* What holds for the rows: the probes, and whether lost runs are known. */
static struct jbd2_table_status status_of(const struct jbd2_report_ctx *ctx,
					  const struct jbd2_snapshot *delta)
{
	return (struct jbd2_table_status){
		.checkpoints = ctx->checkpoints.available,
		.batch_sleep = ctx->batch_sleep.available,
		.lost_known = delta && delta->lost_known,
	};
}

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
			hz_jiffies_to_ms(s->phase_jiffies[p], ctx->hz) /
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
		hz_jiffies_to_ms(s->chp_jiffies, ctx->hz) / s->checkpoints,
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

/* The per-CPU table's columns: the rows with a text place. */
static const struct figure *cpu_col(const struct jbd2_report_ctx *ctx,
				    int pos)
{
	struct jbd2_table_status st = status_of(ctx, NULL);

	for (size_t i = 0; i < jbd2_table_len; i++)
		if (jbd2_table[i].text_pos == pos &&
		    jbd2_table_available(&jbd2_table[i], &st))
			return &jbd2_table[i];
	return NULL;
}

static void text_per_cpu(FILE *out, const struct jbd2_report_ctx *ctx,
			 const struct jbd2_snapshot *delta,
			 const struct jbd2_dev_snapshot *d)
{
	const struct figure *f;

	fprintf(out, "  %4s", "CPU");
	for (int pos = 1; pos <= (int)jbd2_table_len; pos++)
		if ((f = cpu_col(ctx, pos)))
			fprintf(out, " %*s", f->text_width, f->text);
	fprintf(out, "\n");
	for (int c = 0; c < delta->nr_cpus; c++) {
		struct jbd2_table_in in = { .s = &d->cpu[c], .d = d,
					    .hz = ctx->hz };

		if (!in.s->handles_stopped && !in.s->commits &&
		    !in.s->batch_stops)
			continue;
		fprintf(out, "  %4d", c);
		for (int pos = 1; pos <= (int)jbd2_table_len; pos++) {
			double v;

			f = cpu_col(ctx, pos);
			if (!f)
				continue;
			v = jbd2_table_value(f, &in);
			if (f->kind == FIGURE_COUNT)
				fprintf(out, " %*llu", f->text_width,
					(unsigned long long)v);
			else
				fprintf(out, " %*.1f", f->text_width, v);
		}
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

/* One CPU of a journal: its rows with a per-CPU key, where they hold. */
static struct json_object *json_cpu(int cpu, const struct jbd2_table_in *in,
				    const struct jbd2_report_ctx *ctx)
{
	struct json_object *o = json_object_new_object();
	struct jbd2_table_status st = status_of(ctx, NULL);

	json_object_object_add(o, "cpu", json_object_new_int(cpu));
	for (size_t i = 0; i < jbd2_table_len; i++) {
		const struct figure *f = &jbd2_table[i];

		if (!f->json_cpu || !jbd2_table_available(f, &st) ||
		    ((f->flags & FIGURE_DETAIL) && !ctx->cpu_hists))
			continue;
		json_object_object_add(o, f->json_cpu, jbd2_table_json(f, in));
	}
	return o;
}

/* The rows from src into o; null (a group: null as a whole) if unavailable. */
static void json_rows(struct json_object *o, const struct jbd2_table_status *st,
		      enum jbd2_table_from src, const struct jbd2_table_in *in)
{
	for (size_t i = 0; i < jbd2_table_len; i++) {
		const struct figure *f = &jbd2_table[i];
		bool in_journal = f->from == JBD2_FROM_DEV ||
				  f->from == JBD2_FROM_JOURNAL;

		if (!f->json || (src == JBD2_FROM_SNAP ?
				 f->from != JBD2_FROM_SNAP : !in_journal))
			continue;
		figure_json_put(o, f->json, jbd2_table_available(f, st) ?
				jbd2_table_json(f, in) : NULL);
	}
}

static struct json_object *json_device(const struct jbd2_report_ctx *ctx,
				       const struct jbd2_snapshot *delta,
				       const struct jbd2_dev_snapshot *d)
{
	struct jbd2_table_status st = status_of(ctx, delta);
	struct jbd2_table_in in = { .s = &d->total, .d = d, .snap = delta,
				    .elapsed_s = ctx->elapsed_s, .hz = ctx->hz };
	struct json_object *o = json_object_new_object(), *cpus;
	char name[64], nums[32];

	devname_of(d->kdev, name, sizeof(name));
	devname_numbers(d->kdev, nums, sizeof(nums));
	json_object_object_add(o, "dev", json_object_new_string(nums));
	json_object_object_add(o, "name", json_object_new_string(name));
	json_rows(o, &st, JBD2_FROM_DEV, &in);
	if (ctx->per_cpu) {
		cpus = json_object_new_array();
		for (int c = 0; c < delta->nr_cpus; c++) {
			in.s = &d->cpu[c];
			json_object_array_add(cpus, json_cpu(c, &in, ctx));
		}
		json_object_object_add(o, "cpus", cpus);
	}
	return o;
}

struct json_object *jbd2_report_json(const struct jbd2_report_ctx *ctx,
				     const struct jbd2_snapshot *delta)
{
	struct json_object *o = json_out_envelope(JBD2_JSON_SCHEMA), *devs, *probes;

	struct jbd2_table_status st = status_of(ctx, delta);
	struct jbd2_table_in in = { .snap = delta };

	/* Microseconds are plenty; the rest is clock noise. */
	json_object_object_add(o, "interval_s",
			       json_out_double(round(ctx->elapsed_s * 1e6) / 1e6));
	json_object_object_add(o, "hz", json_object_new_int(ctx->hz));
	json_object_object_add(o, "final", json_object_new_boolean(ctx->final));
	/* lost_events: null, not 0, where the kernel does not count them */
	json_rows(o, &st, JBD2_FROM_SNAP, &in);
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
