/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-device jbd2 figures, kept per CPU by bpf/jbd2.bpf.c and summed by
 * user space. Every field is a cumulative u64 so that user space reports an
 * interval as the difference of two snapshots and never races a reset.
 */
#ifndef BHSCOPE_JBD2_STATS_H
#define BHSCOPE_JBD2_STATS_H

#include "bhscope.h"

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* The run_stats phases, in the order of struct transaction_run_stats_s. */
enum jbd2_phase {
	JBD2_PHASE_WAIT,
	JBD2_PHASE_REQUEST_DELAY,
	JBD2_PHASE_RUNNING,
	JBD2_PHASE_LOCKED,
	JBD2_PHASE_FLUSHING,
	JBD2_PHASE_LOGGING,
	JBD2_NR_PHASES,
};

struct jbd2_dev_stats {
	/* jbd2_run_stats: one event per committed transaction */
	__u64 transactions;
	__u64 handles;			/* sum of handle_count */
	__u64 blocks;
	__u64 blocks_logged;
	__u64 phase_jiffies[JBD2_NR_PHASES];
	__u64 handles_hist[BHSCOPE_LOG2_SLOTS];	/* handles per transaction */

	/* jbd2_start_commit .. jbd2_end_commit */
	__u64 commits;
	__u64 sync_commits;
	__u64 commit_ns;		/* sum of commit latencies */
	__u64 commit_us_hist[BHSCOPE_LOG2_SLOTS];

	/* jbd2_handle_stats: one event per handle stopped (writer's CPU) */
	__u64 handles_stopped;
	__u64 sync_handles;
	__u64 handle_blocks_dirtied;

	/* jbd2_checkpoint_stats: one event per checkpointed transaction */
	__u64 checkpoints;
	__u64 chp_jiffies;
	__u64 chp_forced_to_close;
	__u64 chp_written;
	__u64 chp_dropped;

	/* fentry/fexit jbd2_journal_stop, sync handles only (writer's CPU) */
	__u64 batch_stops;
	__u64 batch_ns;
	__u64 batch_us_hist[BHSCOPE_LOG2_SLOTS];
};

/*
 * Per-journal commit state; only the journal's commit thread writes it, so a
 * plain hash entry is enough. avg_commit_ns follows the kernel's own rule for
 * j_average_commit_time (new = (sample + 3 * old) / 4).
 */
struct jbd2_journal_state {
	__u64 start_ns;			/* jbd2_start_commit */
	__u64 flush_ns;			/* jbd2_commit_flushing */
	__u64 avg_commit_ns;
	__u32 tid;
	__u32 pad;
};

/*
 * Where the tracer keeps a journal's figures: in the bucket its dev_t
 * hashes to (BHSCOPE_DEV_BUCKET), claimed by the first journal there, so
 * that an event costs an array lookup, not a hash lookup (a third of the
 * programs' run time). A journal whose bucket another one holds goes to
 * the hash maps (dev_stats, journal_state).
 *
 * Per CPU: struct jbd2_cpu_buckets, one element of a per-CPU array. The
 * commit states: BHSCOPE_JBD2_BUCKETS elements of an array, claimed with
 * a compare-and-swap (any CPU may run a journal's commit).
 */
#define BHSCOPE_JBD2_BUCKET_BITS	3
#define BHSCOPE_JBD2_BUCKETS		(1U << BHSCOPE_JBD2_BUCKET_BITS)

struct jbd2_dev_bucket {
	__u64 owner;			/* kernel dev_t + 1; 0: free */
	struct jbd2_dev_stats s;
};

struct jbd2_cpu_buckets {
	struct jbd2_dev_bucket b[BHSCOPE_JBD2_BUCKETS];
};

struct jbd2_state_bucket {
	__u64 owner;			/* kernel dev_t + 1; 0: free */
	struct jbd2_journal_state st;
};

#endif /* BHSCOPE_JBD2_STATS_H */
