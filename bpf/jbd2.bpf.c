// SPDX-License-Identifier: GPL-2.0
/*
 * jbd2 commit batching: per journal device, per CPU, from the jbd2
 * tracepoints (BTF tracepoints, or classic ones where the kernel refuses
 * those), plus the batching sleep of sync writers from fentry/fexit on
 * jbd2_journal_stop where the kernel allows tracing programs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "jbd2_stats.h"
#include "log2.bpf.h"
#include "maps.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Kernel dev_t to trace, 0 for every journal. */
const volatile __u32 target_dev = 0;

/* Journals in their bucket (see jbd2_stats.h), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct jbd2_cpu_buckets);
} cpu_buckets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BHSCOPE_JBD2_BUCKETS);
	__type(key, __u32);
	__type(value, struct jbd2_state_bucket);
} state_buckets SEC(".maps");

/* Journals whose bucket another one holds. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, BHSCOPE_MAX_DEVS);
	__type(key, __u32);
	__type(value, struct jbd2_dev_stats);
} dev_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BHSCOPE_MAX_DEVS);
	__type(key, __u32);
	__type(value, struct jbd2_journal_state);
} journal_state SEC(".maps");

/*
 * A sync handle inside jbd2_journal_stop(), kept with its task: an entry
 * whose exit never ran (the kernel skipped it) is overwritten by the
 * task's next one and freed with the task, never filling a map, and an
 * exit takes only its own call's entry (the same handle).
 */
struct stop_entry {
	__u64 handle;		/* the handle_t's address; 0: none open */
	__u64 start_ns;
	__u32 dev;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct stop_entry);
} stop_start SEC(".maps");

/* Events lost because the per-device maps were full; index 0, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} dropped_events SEC(".maps");

static const struct jbd2_dev_stats zero_stats;
static const struct jbd2_journal_state zero_state;

static __always_inline void count_drop(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&dropped_events, &zero);

	if (n)
		(*n)++;
}

static __always_inline struct jbd2_dev_stats *stats_of(__u32 dev)
{
	struct jbd2_cpu_buckets *c;
	struct jbd2_dev_bucket *b;
	struct jbd2_dev_stats *s;
	__u32 zero = 0;

	if (target_dev && dev != target_dev)
		return NULL;
	c = bpf_map_lookup_elem(&cpu_buckets, &zero);
	if (c) {
		/* this CPU's: only this program, not preempted, writes it */
		b = &c->b[BHSCOPE_DEV_BUCKET(dev, BHSCOPE_JBD2_BUCKET_BITS)];
		if (b->owner == dev + 1ULL)
			return &b->s;
		if (!b->owner) {
			b->owner = dev + 1ULL;
			return &b->s;
		}
	}
	s = map_lookup_or_init(&dev_stats, &dev, &zero_stats);
	if (!s)
		count_drop();
	return s;
}

static __always_inline struct jbd2_journal_state *state_of(__u32 dev)
{
	__u32 i = BHSCOPE_DEV_BUCKET(dev, BHSCOPE_JBD2_BUCKET_BITS);
	struct jbd2_state_bucket *b;
	struct jbd2_journal_state *st;

	if (target_dev && dev != target_dev)
		return NULL;
	b = bpf_map_lookup_elem(&state_buckets, &i);
	/* shared by the CPUs: claimed once, atomically (by any journal) */
	if (b && !b->owner)
		__sync_val_compare_and_swap(&b->owner, 0, dev + 1ULL);
	if (b && b->owner == dev + 1ULL)
		return &b->st;
	st = map_lookup_or_init(&journal_state, &dev, &zero_state);
	if (!st)
		count_drop();
	return st;
}

/* The journal whose bucket forget_device() frees: its dev_t + 1. */
__u64 forget_owner;

/*
 * Run by user space on each CPU (BPF_PROG_TEST_RUN, BPF_F_TEST_RUN_ON_CPU)
 * for a journal that went away (bhscope serve): frees its bucket there, on
 * that CPU, so that no other journal's count is lost.
 */
SEC("raw_tp")
int forget_device(void *ctx)
{
	__u32 zero = 0;
	struct jbd2_cpu_buckets *c = bpf_map_lookup_elem(&cpu_buckets, &zero);
	struct jbd2_dev_bucket *b;

	if (!c || !forget_owner)
		return 0;
	for (int i = 0; i < BHSCOPE_JBD2_BUCKETS; i++) {
		b = &c->b[i];
		if (b->owner != forget_owner)
			continue;
		__builtin_memset(&b->s, 0, sizeof(b->s));
		b->owner = 0;
	}
	return 0;
}

/*
 * Each event's work, once, for both program flavours below: BTF tracepoints
 * (tp_btf: the kernel counts every run it skips, and no other BPF program
 * busy on the CPU makes it skip one) where it allows them, else classic
 * tracepoints.
 */
static __always_inline void start_commit(__u32 dev, __u32 tid)
{
	struct jbd2_journal_state *st = state_of(dev);

	if (!st)
		return;
	st->start_ns = bpf_ktime_get_ns();
	st->flush_ns = 0;
	st->tid = tid;
}

static __always_inline void commit_flushing(__u32 dev, __u32 tid)
{
	struct jbd2_journal_state *st = state_of(dev);

	if (st && st->tid == tid)
		st->flush_ns = bpf_ktime_get_ns();
}

static __always_inline void end_commit(__u32 dev, __u32 tid, bool sync)
{
	struct jbd2_journal_state *st = state_of(dev);
	struct jbd2_dev_stats *s;
	__u64 now = bpf_ktime_get_ns(), lat;

	/* A commit that began before we attached has no start: skip it. */
	if (!st || !st->start_ns || st->tid != tid)
		return;
	s = stats_of(dev);
	if (!s)
		return;
	lat = now - st->start_ns;
	s->commits++;
	s->sync_commits += sync;
	s->commit_ns += lat;
	s->commit_us_hist[log2_slot(lat / 1000)]++;

	st->start_ns = 0;
}

/* What jbd2_run_stats reports of a transaction. */
struct run_stats {
	__u64 phase[JBD2_NR_PHASES];	/* jiffies */
	__u32 handle_count, blocks, blocks_logged;
};

static __always_inline void run_stats(__u32 dev, __u32 tid,
				      const struct run_stats *r)
{
	struct jbd2_journal_state *st = state_of(dev);
	struct jbd2_dev_stats *s = stats_of(dev);
	__u64 sample;

	if (!s || !st)
		return;
	/*
	 * The kernel takes commit_time just after this event, from T_FLUSH:
	 * mirror its j_average_commit_time (new = (sample + 3 * old) / 4).
	 */
	if (st->flush_ns && st->tid == tid) {
		sample = bpf_ktime_get_ns() - st->flush_ns;
		st->avg_commit_ns = st->avg_commit_ns ?
			(sample + 3 * st->avg_commit_ns) / 4 : sample;
		st->flush_ns = 0;
	}
	s->transactions++;
	s->handles += r->handle_count;
	s->blocks += r->blocks;
	s->blocks_logged += r->blocks_logged;
	for (int i = 0; i < JBD2_NR_PHASES; i++)
		s->phase_jiffies[i] += r->phase[i];
	s->handles_hist[log2_slot(r->handle_count)]++;
}

static __always_inline void handle_stats(__u32 dev, bool sync,
					 __u32 dirtied_blocks)
{
	struct jbd2_dev_stats *s = stats_of(dev);

	if (!s)
		return;
	s->handles_stopped++;
	s->sync_handles += sync;
	s->handle_blocks_dirtied += dirtied_blocks;
}

static __always_inline void checkpoint_stats(__u32 dev, __u64 chp_jiffies,
					     __u32 forced_to_close,
					     __u32 written, __u32 dropped)
{
	struct jbd2_dev_stats *s = stats_of(dev);

	if (!s)
		return;
	s->checkpoints++;
	s->chp_jiffies += chp_jiffies;
	s->chp_forced_to_close += forced_to_close;
	s->chp_written += written;
	s->chp_dropped += dropped;
}

/*
 * BTF tracepoints: the event's arguments, as the kernel passes them. The
 * verifier (6.12 on) takes every pointer argument for possibly NULL.
 */

static __always_inline __u32 journal_dev(const journal_t *journal)
{
	const struct block_device *bdev = journal->j_fs_dev;

	return bdev ? bdev->bd_dev : 0;
}

SEC("tp_btf/jbd2_start_commit")
int BPF_PROG(btf_start_commit, journal_t *journal, transaction_t *t)
{
	if (!journal || !t)
		return 0;
	start_commit(journal_dev(journal), t->t_tid);
	return 0;
}

SEC("tp_btf/jbd2_commit_flushing")
int BPF_PROG(btf_commit_flushing, journal_t *journal, transaction_t *t)
{
	if (!journal || !t)
		return 0;
	commit_flushing(journal_dev(journal), t->t_tid);
	return 0;
}

SEC("tp_btf/jbd2_end_commit")
int BPF_PROG(btf_end_commit, journal_t *journal, transaction_t *t)
{
	if (!journal || !t)
		return 0;
	end_commit(journal_dev(journal), t->t_tid,
		   BPF_CORE_READ_BITFIELD(t, t_synchronous_commit));
	return 0;
}

/* A commit's run statistics, from the tracepoint's argument (BTF or raw). */
static __always_inline void run_stats_of(dev_t dev, tid_t tid,
					 const struct transaction_run_stats_s *s)
{
	struct run_stats r = {
		.phase = {
			[JBD2_PHASE_WAIT] = BPF_CORE_READ(s, rs_wait),
			[JBD2_PHASE_REQUEST_DELAY] = BPF_CORE_READ(s, rs_request_delay),
			[JBD2_PHASE_RUNNING] = BPF_CORE_READ(s, rs_running),
			[JBD2_PHASE_LOCKED] = BPF_CORE_READ(s, rs_locked),
			[JBD2_PHASE_FLUSHING] = BPF_CORE_READ(s, rs_flushing),
			[JBD2_PHASE_LOGGING] = BPF_CORE_READ(s, rs_logging),
		},
		.handle_count = BPF_CORE_READ(s, rs_handle_count),
		.blocks = BPF_CORE_READ(s, rs_blocks),
		.blocks_logged = BPF_CORE_READ(s, rs_blocks_logged),
	};

	run_stats(dev, tid, &r);
}

/* A transaction's checkpoint statistics, from the tracepoint's argument. */
static __always_inline void checkpoint_stats_of(dev_t dev,
						const struct transaction_chp_stats_s *s)
{
	checkpoint_stats(dev, BPF_CORE_READ(s, cs_chp_time),
			 BPF_CORE_READ(s, cs_forced_to_close),
			 BPF_CORE_READ(s, cs_written),
			 BPF_CORE_READ(s, cs_dropped));
}

SEC("tp_btf/jbd2_run_stats")
int BPF_PROG(btf_run_stats, dev_t dev, tid_t tid,
	     struct transaction_run_stats_s *stats)
{
	if (stats)
		run_stats_of(dev, tid, stats);
	return 0;
}

SEC("tp_btf/jbd2_handle_stats")
int BPF_PROG(btf_handle_stats, dev_t dev, tid_t tid, unsigned int type,
	     unsigned int line_no, int interval, int sync, int requested_blocks,
	     int dirtied_blocks)
{
	handle_stats(dev, !!sync, dirtied_blocks);
	return 0;
}

SEC("tp_btf/jbd2_checkpoint_stats")
int BPF_PROG(btf_checkpoint_stats, dev_t dev, tid_t tid,
	     struct transaction_chp_stats_s *stats)
{
	if (stats)
		checkpoint_stats_of(dev, stats);
	return 0;
}

/*
 * Raw tracepoints: the same arguments, untyped, read through CO-RE. They
 * need neither tracefs nor a perf event (a classic tracepoint's, which
 * Debian's perf_event_paranoid 3 allows only CAP_SYS_ADMIN), nor the
 * kernel's copy of the jbd2 module's BTF (a BTF tracepoint's, which only
 * CAP_SYS_ADMIN may read): bhscope.service's CAP_BPF and CAP_PERFMON do.
 */

static __always_inline __u32 journal_dev_read(const journal_t *journal)
{
	return BPF_CORE_READ(journal, j_fs_dev, bd_dev);
}

SEC("raw_tp/jbd2_start_commit")
int BPF_PROG(raw_start_commit, journal_t *journal, transaction_t *t)
{
	start_commit(journal_dev_read(journal), BPF_CORE_READ(t, t_tid));
	return 0;
}

SEC("raw_tp/jbd2_commit_flushing")
int BPF_PROG(raw_commit_flushing, journal_t *journal, transaction_t *t)
{
	commit_flushing(journal_dev_read(journal), BPF_CORE_READ(t, t_tid));
	return 0;
}

SEC("raw_tp/jbd2_end_commit")
int BPF_PROG(raw_end_commit, journal_t *journal, transaction_t *t)
{
	end_commit(journal_dev_read(journal), BPF_CORE_READ(t, t_tid),
		   BPF_CORE_READ_BITFIELD_PROBED(t, t_synchronous_commit));
	return 0;
}

SEC("raw_tp/jbd2_run_stats")
int BPF_PROG(raw_run_stats, dev_t dev, tid_t tid,
	     struct transaction_run_stats_s *stats)
{
	run_stats_of(dev, tid, stats);
	return 0;
}

SEC("raw_tp/jbd2_handle_stats")
int BPF_PROG(raw_handle_stats, dev_t dev, tid_t tid, unsigned int type,
	     unsigned int line_no, int interval, int sync, int requested_blocks,
	     int dirtied_blocks)
{
	handle_stats(dev, !!sync, dirtied_blocks);
	return 0;
}

SEC("raw_tp/jbd2_checkpoint_stats")
int BPF_PROG(raw_checkpoint_stats, dev_t dev, tid_t tid,
	     struct transaction_chp_stats_s *stats)
{
	checkpoint_stats_of(dev, stats);
	return 0;
}

/* Classic tracepoints: the event's record. */

SEC("tracepoint/jbd2/jbd2_start_commit")
int tp_start_commit(struct trace_event_raw_jbd2_commit *ctx)
{
	start_commit(ctx->dev, ctx->transaction);
	return 0;
}

SEC("tracepoint/jbd2/jbd2_commit_flushing")
int tp_commit_flushing(struct trace_event_raw_jbd2_commit *ctx)
{
	commit_flushing(ctx->dev, ctx->transaction);
	return 0;
}

SEC("tracepoint/jbd2/jbd2_end_commit")
int tp_end_commit(struct trace_event_raw_jbd2_end_commit *ctx)
{
	end_commit(ctx->dev, ctx->transaction, !!ctx->sync_commit);
	return 0;
}

SEC("tracepoint/jbd2/jbd2_run_stats")
int tp_run_stats(struct trace_event_raw_jbd2_run_stats *ctx)
{
	struct run_stats r = {
		.phase = {
			[JBD2_PHASE_WAIT] = ctx->wait,
			[JBD2_PHASE_REQUEST_DELAY] = ctx->request_delay,
			[JBD2_PHASE_RUNNING] = ctx->running,
			[JBD2_PHASE_LOCKED] = ctx->locked,
			[JBD2_PHASE_FLUSHING] = ctx->flushing,
			[JBD2_PHASE_LOGGING] = ctx->logging,
		},
		.handle_count = ctx->handle_count,
		.blocks = ctx->blocks,
		.blocks_logged = ctx->blocks_logged,
	};

	run_stats(ctx->dev, ctx->tid, &r);
	return 0;
}

SEC("tracepoint/jbd2/jbd2_handle_stats")
int tp_handle_stats(struct trace_event_raw_jbd2_handle_stats *ctx)
{
	handle_stats(ctx->dev, !!ctx->sync, ctx->dirtied_blocks);
	return 0;
}

SEC("tracepoint/jbd2/jbd2_checkpoint_stats")
int tp_checkpoint_stats(struct trace_event_raw_jbd2_checkpoint_stats *ctx)
{
	checkpoint_stats(ctx->dev, ctx->chp_time, ctx->forced_to_close,
			 ctx->written, ctx->dropped);
	return 0;
}

/*
 * The batching sleep happens inside jbd2_journal_stop() after
 * jbd2_handle_stats fired, so only the whole call of a sync handle
 * measures it. These two load only where tracing programs are allowed.
 */
SEC("fentry/jbd2_journal_stop")
int BPF_PROG(journal_stop_entry, handle_t *handle)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct stop_entry *e;
	__u32 dev;

	if (!BPF_CORE_READ_BITFIELD(handle, h_sync))
		return 0;
	/* The handle is freed by the time fexit runs: take the dev now. */
	dev = BPF_CORE_READ(handle, h_transaction, t_journal, j_fs_dev, bd_dev);
	if (target_dev && dev != target_dev)
		return 0;
	e = bpf_task_storage_get(&stop_start, task, NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!e)
		return 0;
	e->dev = dev;
	e->start_ns = bpf_ktime_get_ns();
	e->handle = (__u64)handle;
	return 0;
}

SEC("fexit/jbd2_journal_stop")
int BPF_PROG(journal_stop_exit, handle_t *handle, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct stop_entry *e;
	struct jbd2_dev_stats *s;
	__u64 ns;

	e = bpf_task_storage_get(&stop_start, task, NULL, 0);
	/* not this call's entry: skipped, or not a sync handle */
	if (!e || e->handle != (__u64)handle)
		return 0;
	e->handle = 0;
	ns = bpf_ktime_get_ns() - e->start_ns;
	s = stats_of(e->dev);
	if (!s)
		return 0;
	s->batch_stops++;
	s->batch_ns += ns;
	s->batch_us_hist[log2_slot(ns / 1000)]++;
	return 0;
}
