// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stddef.h>

#include "jbd2/jbd2_table.h"
#include "lib/hist.h"
#include "lib/hz.h"

#define DEV(f)		.from = JBD2_FROM_DEV, .off = offsetof(struct jbd2_dev_stats, f)
#define SNAP(f)		.from = JBD2_FROM_SNAP, .off = offsetof(struct jbd2_snapshot, f)
#define COUNTER		.prom_type = FIGURE_PROM_COUNTER
#define HISTOGRAM	.prom_type = FIGURE_PROM_HISTOGRAM
/* A row's function: most need only their input. */
#define ROW		const struct figure *f __attribute__((unused))

/* Histogram buckets written: slots outside fold into their neighbours. */
#define US_FIRST_SLOT		4	/* le 16 µs */
#define US_LAST_SLOT		24	/* le 16.8 s */
#define HANDLES_FIRST_SLOT	0	/* le 0 handles */
#define HANDLES_LAST_SLOT	20	/* le 1048575 handles */

static const struct jbd2_table_in *in_of(const void *in)
{
	return in;
}

static double ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : 0.0;
}

/* The row's u64 per second of the interval. */
static double per_s(ROW, const void *in)
{
	return figure_u64(f, in_of(in)->s) / in_of(in)->elapsed_s;
}

/* The row's u64 per committed transaction. */
static double per_transaction(ROW, const void *in)
{
	const struct jbd2_dev_stats *s = in_of(in)->s;

	return ratio(figure_u64(f, s), s->transactions);
}

static double phase_avg_ms(ROW, const void *in)
{
	const struct jbd2_dev_stats *s = in_of(in)->s;

	return s->transactions ?
	       hz_jiffies_to_ms(figure_u64(f, s), in_of(in)->hz) /
	       s->transactions : 0.0;
}

static double commit_avg_us(ROW, const void *in)
{
	const struct jbd2_dev_stats *s = in_of(in)->s;

	return ratio(s->commit_ns, s->commits) / 1000.0;
}

static double commit_ewma_us(ROW, const void *in)
{
	return in_of(in)->d->avg_commit_ns / 1000.0;
}

static double batch_avg_us(ROW, const void *in)
{
	const struct jbd2_dev_stats *s = in_of(in)->s;

	return ratio(s->batch_ns, s->batch_stops) / 1000.0;
}

static struct json_object *log2_hist(ROW, const void *in)
{
	return hist_log2_json((const __u64 *)((const char *)in_of(in)->s +
					      f->off), BHSCOPE_LOG2_SLOTS);
}

const struct figure jbd2_table[] = {
	/* a journal (a device's "devices" entry), or one CPU of it */
	{ .json = "transactions", .prom = "bhscope_jbd2_transactions_total",
	  COUNTER,
	  .help = "Transactions committed (jbd2_run_stats), counted on the commit thread's CPU.",
	  .kind = FIGURE_COUNT, DEV(transactions),
	  .compare_pos = 1, .compare = "jbd2 transactions", .unit = "" },
	{ .json = "transactions_per_s", .kind = FIGURE_RATE, DEV(transactions),
	  .num = per_s },
	{ .json = "commits", .json_cpu = "commits", .kind = FIGURE_COUNT,
	  DEV(commits), .text = "commits", .text_pos = 3, .text_width = 12 },
	{ .json = "commits_per_s", .kind = FIGURE_RATE, DEV(commits),
	  .num = per_s,
	  .compare_pos = 5, .compare = "commit rate", .unit = "commits/s" },
	{ .json = "sync_commits", .prom = "bhscope_jbd2_sync_commits_total",
	  COUNTER,
	  .help = "Commits of transactions marked synchronous (jbd2_end_commit sync_commit).",
	  .kind = FIGURE_COUNT, DEV(sync_commits) },
	{ .json = "handles", .kind = FIGURE_COUNT, DEV(handles) },
	{ .json = "blocks", .prom = "bhscope_jbd2_transaction_blocks_total",
	  COUNTER,
	  .help = "Blocks in committed transactions (jbd2_run_stats blocks).",
	  .kind = FIGURE_COUNT, DEV(blocks) },
	{ .json = "blocks_logged",
	  .prom = "bhscope_jbd2_transaction_blocks_logged_total", COUNTER,
	  .help = "Blocks the commits wrote to the journal, descriptors included (jbd2_run_stats blocks_logged).",
	  .kind = FIGURE_COUNT, DEV(blocks_logged) },
	{ .json = "handles_per_transaction", .kind = FIGURE_RATE, DEV(handles),
	  .num = per_transaction,
	  .compare_pos = 2, .compare = "handles/transaction", .unit = "" },
	{ .json = "blocks_per_transaction", .kind = FIGURE_RATE, DEV(blocks),
	  .num = per_transaction,
	  .compare_pos = 3, .compare = "blocks/transaction", .unit = "" },
	{ .json = "logged_blocks_per_transaction", .kind = FIGURE_RATE,
	  DEV(blocks_logged), .num = per_transaction },
	{ .json = "handles_per_transaction_hist",
	  .json_cpu = "handles_per_transaction_hist",
	  .prom = "bhscope_jbd2_transaction_handles", HISTOGRAM,
	  .help = "Handles per committed transaction (jbd2_run_stats handle_count): how many updates share one commit.",
	  .kind = FIGURE_SHAPED, DEV(handles_hist), .shape = log2_hist,
	  .hist_first = HANDLES_FIRST_SLOT, .hist_last = HANDLES_LAST_SLOT,
	  .hist_sum = offsetof(struct jbd2_dev_stats, handles),
	  .flags = FIGURE_DETAIL },
	{ .json = "handles_stopped", .json_cpu = "handles_stopped",
	  .prom = "bhscope_jbd2_handles_stopped_total", COUNTER,
	  .help = "Handles stopped (jbd2_handle_stats), counted on the writer's CPU.",
	  .kind = FIGURE_COUNT, DEV(handles_stopped),
	  .text = "handles", .text_pos = 1, .text_width = 12 },
	{ .json = "sync_handles", .json_cpu = "sync_handles",
	  .prom = "bhscope_jbd2_sync_handles_total", COUNTER,
	  .help = "Stopped handles that were synchronous: only these may sleep in jbd2_journal_stop to batch.",
	  .kind = FIGURE_COUNT, DEV(sync_handles),
	  .text = "sync", .text_pos = 2, .text_width = 12,
	  .compare_pos = 6, .compare = "sync handles", .unit = "" },
	{ .prom = "bhscope_jbd2_handle_blocks_dirtied_total", COUNTER,
	  .help = "Blocks dirtied by the stopped handles (jbd2_handle_stats dirtied_blocks).",
	  .kind = FIGURE_COUNT, DEV(handle_blocks_dirtied) },
	{ .json = "phase_jiffies.wait", .prom = "bhscope_jbd2_phase_seconds_total",
	  COUNTER, .prom_label = "phase", .prom_value = "wait",
	  .help = "Time committed transactions spent in each phase (jbd2_run_stats, jiffies converted with the kernel's HZ): wait, request_delay, running, locked, flushing, logging.",
	  .kind = FIGURE_COUNT, .time = FIGURE_TIME_JIFFIES,
	  DEV(phase_jiffies[JBD2_PHASE_WAIT]) },
	{ .json = "phase_jiffies.request_delay", .prom = "bhscope_jbd2_phase_seconds_total",
	  COUNTER, .prom_label = "phase", .prom_value = "request_delay",
	  .kind = FIGURE_COUNT, .time = FIGURE_TIME_JIFFIES,
	  DEV(phase_jiffies[JBD2_PHASE_REQUEST_DELAY]) },
	{ .json = "phase_jiffies.running", .prom = "bhscope_jbd2_phase_seconds_total",
	  COUNTER, .prom_label = "phase", .prom_value = "running",
	  .kind = FIGURE_COUNT, .time = FIGURE_TIME_JIFFIES,
	  DEV(phase_jiffies[JBD2_PHASE_RUNNING]) },
	{ .json = "phase_jiffies.locked", .prom = "bhscope_jbd2_phase_seconds_total",
	  COUNTER, .prom_label = "phase", .prom_value = "locked",
	  .kind = FIGURE_COUNT, .time = FIGURE_TIME_JIFFIES,
	  DEV(phase_jiffies[JBD2_PHASE_LOCKED]) },
	{ .json = "phase_jiffies.flushing", .prom = "bhscope_jbd2_phase_seconds_total",
	  COUNTER, .prom_label = "phase", .prom_value = "flushing",
	  .kind = FIGURE_COUNT, .time = FIGURE_TIME_JIFFIES,
	  DEV(phase_jiffies[JBD2_PHASE_FLUSHING]) },
	{ .json = "phase_jiffies.logging", .prom = "bhscope_jbd2_phase_seconds_total",
	  COUNTER, .prom_label = "phase", .prom_value = "logging",
	  .kind = FIGURE_COUNT, .time = FIGURE_TIME_JIFFIES,
	  DEV(phase_jiffies[JBD2_PHASE_LOGGING]) },
	{ .json = "phase_avg_ms.wait", .kind = FIGURE_RATE,
	  DEV(phase_jiffies[JBD2_PHASE_WAIT]), .num = phase_avg_ms },
	{ .json = "phase_avg_ms.request_delay", .kind = FIGURE_RATE,
	  DEV(phase_jiffies[JBD2_PHASE_REQUEST_DELAY]), .num = phase_avg_ms },
	{ .json = "phase_avg_ms.running", .kind = FIGURE_RATE,
	  DEV(phase_jiffies[JBD2_PHASE_RUNNING]), .num = phase_avg_ms },
	{ .json = "phase_avg_ms.locked", .kind = FIGURE_RATE,
	  DEV(phase_jiffies[JBD2_PHASE_LOCKED]), .num = phase_avg_ms },
	{ .json = "phase_avg_ms.flushing", .kind = FIGURE_RATE,
	  DEV(phase_jiffies[JBD2_PHASE_FLUSHING]), .num = phase_avg_ms },
	{ .json = "phase_avg_ms.logging", .kind = FIGURE_RATE,
	  DEV(phase_jiffies[JBD2_PHASE_LOGGING]), .num = phase_avg_ms },
	{ .json = "commit_ns", .kind = FIGURE_COUNT, DEV(commit_ns) },
	{ .json = "commit_avg_us", .kind = FIGURE_RATE, .from = JBD2_FROM_DEV,
	  .num = commit_avg_us,
	  .compare_pos = 4, .compare = "commit latency avg", .unit = "us" },
	{ .json = "commit_ewma_us", .prom = "bhscope_jbd2_commit_ewma_seconds",
	  .prom_type = FIGURE_PROM_GAUGE,
	  .help = "The kernel's running average commit time for the journal (j_average_commit_time, mirrored), once a commit was seen.",
	  .kind = FIGURE_RATE, .time = FIGURE_TIME_US,
	  .from = JBD2_FROM_JOURNAL, .num = commit_ewma_us,
	  .flags = FIGURE_NONZERO },
	{ .json = "commit_us_hist", .json_cpu = "commit_us_hist",
	  .prom = "bhscope_jbd2_commit_duration_seconds", HISTOGRAM,
	  .help = "Commit latency, jbd2_start_commit to jbd2_end_commit, counted on the commit thread's CPU.",
	  .kind = FIGURE_SHAPED, .time = FIGURE_TIME_US, DEV(commit_us_hist),
	  .shape = log2_hist, .hist_first = US_FIRST_SLOT,
	  .hist_last = US_LAST_SLOT,
	  .hist_sum = offsetof(struct jbd2_dev_stats, commit_ns),
	  .hist_sum_time = FIGURE_TIME_NS, .flags = FIGURE_DETAIL },
	{ .json = "checkpoints.transactions",
	  .prom = "bhscope_jbd2_checkpoint_transactions_total", COUNTER,
	  .help = "Transactions checkpointed (jbd2_checkpoint_stats).",
	  .kind = FIGURE_COUNT, DEV(checkpoints),
	  .avail = JBD2_AVAIL_CHECKPOINTS },
	{ .json = "checkpoints.jiffies",
	  .prom = "bhscope_jbd2_checkpoint_seconds_total", COUNTER,
	  .help = "Time the checkpointed transactions spent in checkpointing (chp_time).",
	  .kind = FIGURE_COUNT, .time = FIGURE_TIME_JIFFIES, DEV(chp_jiffies),
	  .avail = JBD2_AVAIL_CHECKPOINTS },
	{ .json = "checkpoints.written",
	  .prom = "bhscope_jbd2_checkpoint_written_total", COUNTER,
	  .help = "Buffers written back by checkpointing (jbd2_checkpoint_stats written).",
	  .kind = FIGURE_COUNT, DEV(chp_written),
	  .avail = JBD2_AVAIL_CHECKPOINTS },
	{ .json = "checkpoints.dropped",
	  .prom = "bhscope_jbd2_checkpoint_dropped_total", COUNTER,
	  .help = "Buffers dropped from the checkpoint lists (jbd2_checkpoint_stats dropped).",
	  .kind = FIGURE_COUNT, DEV(chp_dropped),
	  .avail = JBD2_AVAIL_CHECKPOINTS },
	{ .json = "checkpoints.forced_to_close",
	  .prom = "bhscope_jbd2_checkpoint_forced_to_close_total", COUNTER,
	  .help = "Checkpointed transactions that were forced to close (jbd2_checkpoint_stats forced_to_close).",
	  .kind = FIGURE_COUNT, DEV(chp_forced_to_close),
	  .avail = JBD2_AVAIL_CHECKPOINTS },
	{ .json = "batch_sleep.sync_stops", .json_cpu = "batch_stops",
	  .kind = FIGURE_COUNT, DEV(batch_stops),
	  .avail = JBD2_AVAIL_BATCH_SLEEP },
	{ .json = "batch_sleep.ns", .json_cpu = "batch_ns",
	  .kind = FIGURE_COUNT, DEV(batch_ns), .avail = JBD2_AVAIL_BATCH_SLEEP,
	  .compare_pos = 7, .compare = "batch sleep avg", .unit = "us",
	  .compare_key = "jbd2.batch_sleep_avg_us",
	  .per = "batch_sleep.sync_stops", .scale = 1e-3 },
	{ .json = "batch_sleep.us_hist", .json_cpu = "batch_us_hist",
	  .prom = "bhscope_jbd2_batch_sleep_seconds", HISTOGRAM,
	  .help = "Time sync writers spent in jbd2_journal_stop (the batching sleep and the commit wait), fentry/fexit, on the writer's CPU.",
	  .kind = FIGURE_SHAPED, .time = FIGURE_TIME_US, DEV(batch_us_hist),
	  .shape = log2_hist, .hist_first = US_FIRST_SLOT,
	  .hist_last = US_LAST_SLOT,
	  .hist_sum = offsetof(struct jbd2_dev_stats, batch_ns),
	  .hist_sum_time = FIGURE_TIME_NS,
	  .avail = JBD2_AVAIL_BATCH_SLEEP, .flags = FIGURE_DETAIL },
	{ .kind = FIGURE_RATE, .from = JBD2_FROM_CPU, .num = batch_avg_us,
	  .avail = JBD2_AVAIL_BATCH_SLEEP,
	  .text = "stop avg us", .text_pos = 4, .text_width = 12 },

	/* the whole snapshot */
	{ .json = "dropped_events", .prom = "bhscope_jbd2_dropped_events_total",
	  COUNTER, .help = "jbd2 events lost because the per-device maps were full.",
	  .kind = FIGURE_COUNT, SNAP(dropped_events) },
	{ .json = "lost_events", .prom = "bhscope_jbd2_lost_events_total",
	  COUNTER,
	  .help = "jbd2 events in no figure: runs of their programs the kernel skipped (recursion_misses). Absent where the kernel does not count them (classic tracepoints before 6.7).",
	  .kind = FIGURE_COUNT, SNAP(lost_events),
	  .avail = JBD2_AVAIL_LOST_KNOWN },
};

const size_t jbd2_table_len = sizeof(jbd2_table) / sizeof(*jbd2_table);

const struct figure_table jbd2_figures_table = {
	.tracer = "jbd2",
	.rows = jbd2_table,
	.nr = sizeof(jbd2_table) / sizeof(*jbd2_table),
	.run_path = "jbd2.devices.*",
};

bool jbd2_table_available(const struct figure *f,
			  const struct jbd2_table_status *st)
{
	switch (f->avail) {
	case JBD2_AVAIL_CHECKPOINTS:
		return st->checkpoints;
	case JBD2_AVAIL_BATCH_SLEEP:
		return st->batch_sleep;
	case JBD2_AVAIL_LOST_KNOWN:
		return st->lost_known;
	default:
		return true;
	}
}

double jbd2_table_value(const struct figure *f,
			const struct jbd2_table_in *in)
{
	if (f->num)
		return f->num(f, in);
	switch (f->from) {
	case JBD2_FROM_DEV:
		return figure_u64(f, in->s);
	case JBD2_FROM_SNAP:
		return figure_u64(f, in->snap);
	}
	return NAN;
}

struct json_object *jbd2_table_json(const struct figure *f,
				    const struct jbd2_table_in *in)
{
	if (f->kind == FIGURE_SHAPED)
		return f->shape(f, in);
	return figure_json_number(f, jbd2_table_value(f, in));
}
