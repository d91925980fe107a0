// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU buffer-head LRU of fs/buffer.c, per CPU and per device.
 *
 * One probe per lookup, at its exit: this CPU's LRU then holds the shadow
 * of the last lookup seen here with this lookup's change applied (see
 * lru_shadow.bpf.h), which says whether it was a hit in slot i, a miss
 * installed at slot 0, a miss not installed (lru_cache_disabled(),
 * isolated CPU) or absent (not in the page cache). The kernel moves a hit
 * to slot 0 and installs at slot 0, so a hit's slot is its LRU stack
 * distance; the ghost list extends the distances of misses beyond
 * BH_LRU_SIZE for the what-if curve.
 *
 * User space loads one set of programs (the others stay off, autoload):
 *   fexit on the lookup                 find_get_block_common (6.15+ and
 *   kprobe + kretprobe on the lookup    backports), else __find_get_block
 *   fentry/kprobe on invalidate_bh_lrus{,_cpu} and bh_lru_install where
 *                                       they are symbols (counters only)
 *   tracepoint block:block_touch_buffer hits only: no fentry, no kprobes
 *   tracepoints bhtune:*                bhtune.ko owns the LRU
 *
 * Races, accepted and counted: an invalidation IPI, a migration or a
 * preemption between a lookup and its probe leaves an LRU the shadow does
 * not explain. The model then restarts from the LRU as it is, and the
 * lookup counts as "unsynced" unless the LRU still says what it did (an
 * emptied LRU holding only the lookup's bh: an installed miss; a NULL
 * return: absent). Left undetected: a lookup that ran on another CPU and
 * changed nothing here reads as not installed; several unseen changes
 * that leave slots 0 and 1 as they were (see shadow_matches()).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "lru_bhtune.h"
#include "lru_stats.h"
#include "lru/lru_ghost.bpf.h"
#include "lru/lru_scan.bpf.h"
#include "lru/lru_state.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* With --trace: the LRU as the shadow knows it, so a replay starts from it. */
static __always_inline void trace_snapshot(struct lru_cpu_state *st)
{
	struct lru_snapshot_msg *m;

	m = bpf_ringbuf_reserve(&events, sizeof(*m), 0);
	if (!m) {
		trace_lost(st);
		return;
	}
	trace_head(&m->head, st);
	m->head.block = 0;
	m->head.dev = 0;
	m->head.size = 0;
	m->head.outcome = LRU_SNAPSHOT;
	m->head.lru_size = lru_slots;
	m->head.slot = 0;
#pragma clang loop unroll(full)
	for (int i = 0; i < BHSCOPE_LRU_SLOTS_MAX; i++) {
		if (i >= lru_slots || i >= st->sh.len)
			break;
		lru_key_read((const void *)st->sh.bh[i], &m->keys[i]);
		m->head.slot++;
	}
	bpf_ringbuf_submit(m, 0);
	trace_sent(st);
	st->trace_synced = 1;
}

/* An installed miss: its depth in the ghost list, and the eviction. */
static __always_inline void lookup_installed(struct lru_cpu_state *st,
					     __u64 victim_bh,
					     struct lru_result *r)
{
	__u32 cap = ghost_cap(lru_slots);
	struct lru_key victim;
	int depth;

	r->outcome = LRU_MISS_INSTALLED;
	r->evicted = victim_bh != 0;
	if (!cap)
		return;
	depth = ghost_take(&st->ghost, &r->key);
	if (depth >= 0)
		r->dist = lru_slots + depth;
	if (victim_bh) {
		lru_key_read((const void *)victim_bh, &victim);
		ghost_push(&st->ghost, &victim, cap);
	}
}

/* The model starts over from what this CPU's LRU holds now. */
static __always_inline void model_restart(struct lru_cpu_state *st,
					  struct buffer_head *const *bhs)
{
	lru_restart(st);
	shadow_read(&st->sh, bhs);
	st->trace_synced = 0;
}

/*
 * The LRU is not what the shadow and this lookup explain: it was emptied
 * (an invalidation), or changed by a lookup the tracer saw elsewhere or
 * not at all (migration, preemption between the lookup and its probe).
 * The model starts over from what the LRU holds now; the lookup is still
 * classified where the LRU says enough, and the trace tells a replay to
 * start over too.
 */
static __always_inline void lookup_unexplained(struct lru_cpu_state *st,
					       struct buffer_head *const *bhs,
					       const void *ret,
					       struct lru_result *r)
{
	bool front = ret && (const void *)bhs[0] == ret;
	/* emptied before the lookup: at most the lookup's own install */
	bool emptied = st->sh.valid &&
		       (front ? lru_slots < 2 || !bhs[1] : !bhs[0]);

	model_restart(st, bhs);

	if (emptied && front)
		r->outcome = LRU_MISS_INSTALLED;
	else if (!emptied && ret)
		r->outcome = LRU_UNSYNCED;
	r->flags |= r->outcome == LRU_UNSYNCED ? LRU_EV_RESTART : LRU_EV_EMPTY;
	r->slot = -1;
	lru_account(st, r);
}

/*
 * Every lookup but a hit the shadow explains. lru0 is the LRU's slot 0;
 * when it is ret, shadow_to_front() has run already and said slot and
 * victim.
 */
static __always_inline void lookup_classify(struct lru_cpu_state *st,
					    struct buffer_head *const *bhs,
					    __u64 lru0, const void *ret,
					    const struct lru_key *key,
					    int slot, __u64 victim)
{
	struct lru_result r = {
		.key = *key, .dist = -1, .slot = -1, .lru_size = lru_slots,
	};

	if (!st->sh.valid) {
		lookup_unexplained(st, bhs, ret, &r);
		return;
	}
	if (ret && lru0 == (__u64)ret) {
		r.outcome = slot >= 0 ? LRU_HIT : LRU_MISS_INSTALLED;
	} else if (ret) {
		/* not installed; or a hit on another CPU, if we hold it */
		slot = shadow_find(&st->sh, ret);
		r.outcome = slot < 0 ? LRU_MISS_NOT_INSTALLED : LRU_UNSYNCED;
	} else {
		r.outcome = LRU_MISS_ABSENT;
	}
	/* the shadow read again from the LRU replaces a wrong change */
	if (!shadow_matches(&st->sh, lru0, bhs)) {
		lookup_unexplained(st, bhs, ret, &r);
		return;
	}

	if (trace_events && !st->trace_synced)
		trace_snapshot(st);
	if (r.outcome == LRU_HIT) {
		r.slot = slot;
		r.dist = slot;
	} else if (r.outcome == LRU_MISS_INSTALLED) {
		lookup_installed(st, victim, &r);
	}
	lru_account(st, &r);
}

/* The one probe of a lookup: key is its (bdev, block, size), ret its bh. */
static __always_inline void lookup_done(const void *ret,
					const struct lru_key *key)
{
	struct buffer_head *const *bhs = lru_this_cpu();
	struct lru_cpu_state *st = cpu_state_get();
	__u64 lru0, victim = 0;
	int slot = -1;

	if (!bhs || !st)
		return;
	lru0 = (__u64)bhs[0];
	if (st->sh.valid && ret && lru0 == (__u64)ret) {
		/* a replay starts from the LRU before this lookup */
		if (trace_events && !st->trace_synced)
			trace_snapshot(st);
		/* a hit, or an installed miss: the shadow changes alike */
		slot = shadow_to_front(&st->sh, ret, &victim);
		/* the common case, kept short: a hit the shadow explains */
		if (slot >= 0 && !trace_events &&
		    shadow_matches(&st->sh, lru0, bhs)) {
			lru_count_hit(st, key->dev, slot);
			return;
		}
	}
	lookup_classify(st, bhs, lru0, ret, key, slot, victim);
}

/*
 * fexit: the attach target is set by user space: find_get_block_common
 * (bdev, block, size, atomic) where it exists, else __find_get_block
 * (bdev, block, size); the first three arguments are the same.
 */
SEC("fexit/__find_get_block")
int BPF_PROG(fexit_lookup, struct block_device *bdev, sector_t block,
	     unsigned int size, struct buffer_head *ret)
{
	struct lru_key key = { block, bdev->bd_dev, size };

	lookup_done(ret, &key);
	return 0;
}

SEC("fexit/find_get_block_common")
int BPF_PROG(fexit_lookup_common, struct block_device *bdev, sector_t block,
	     unsigned int size, bool atomic, struct buffer_head *ret)
{
	struct lru_key key = { block, bdev->bd_dev, size };

	lookup_done(ret, &key);
	return 0;
}

/*
 * kprobe/kretprobe, attached by user space to the same function. A
 * kretprobe has no arguments: the entry keeps the key for it.
 */
SEC("kprobe/__find_get_block")
int BPF_KPROBE(kprobe_lookup, struct block_device *bdev, sector_t block,
	       unsigned int size)
{
	struct lru_cpu_state *st = cpu_state_get();

	if (!st)
		return 0;
	st->in.tid = (__u32)bpf_get_current_pid_tgid();
	st->in.key.block = block;
	st->in.key.dev = BPF_CORE_READ(bdev, bd_dev);
	st->in.key.size = size;
	return 0;
}

SEC("kretprobe/__find_get_block")
int BPF_KRETPROBE(kretprobe_lookup, struct buffer_head *ret)
{
	struct lru_cpu_state *st = cpu_state_get();
	struct lru_key key = {};

	if (!st)
		return 0;
	if (st->in.tid == (__u32)bpf_get_current_pid_tgid()) {
		key = st->in.key;
		st->in.tid = 0;
	} else if (ret) {
		/* preempted between its probes: the bh still names it */
		lru_key_read(ret, &key);
	}
	lookup_done(ret, &key);
	return 0;
}

/*
 * Run by user space on each CPU (BPF_PROG_TEST_RUN, BPF_F_TEST_RUN_ON_CPU)
 * once the lookup probe is attached, so that the shadow starts as the LRU
 * is and even a CPU's first lookup is classified. In the IPI, so no lookup
 * is between its interrupts-off sections on this CPU.
 */
SEC("raw_tp")
int prime_shadow(void *ctx)
{
	struct buffer_head *const *bhs = lru_this_cpu();
	struct lru_cpu_state *st = cpu_state_get();

	if (bhs && st && !st->sh.valid)
		model_restart(st, bhs);
	return 0;
}

/* The device whose counters forget_device() drops: its dev_t + 1. */
__u64 forget_owner;

/*
 * Run by user space on each CPU, like prime_shadow(), for a device that
 * went away (bhscope serve): frees its bucket there. On that CPU, so that
 * only its own probe, interrupted, can be counting, and only for a device
 * still looked up.
 */
SEC("raw_tp")
int forget_device(void *ctx)
{
	struct lru_cpu_state *st = cpu_state_get();
	struct lru_dev_bucket *d;
	__u64 *words;

	if (!st || !forget_owner)
		return 0;
	for (int b = 0; b < BHSCOPE_LRU_DEV_BUCKETS; b++) {
		d = &st->buckets[b];
		if (d->owner != forget_owner)
			continue;
		/* a loop: memset() is too long for clang to inline */
		words = (__u64 *)&d->s;
		for (int i = 0; i < sizeof(d->s) / sizeof(*words); i++) {
			barrier_var(words);
			words[i] = 0;
		}
		d->owner = 0;
	}
	return 0;
}

/* Invalidations and installs: counters, where the functions are symbols. */
static __always_inline int count_invalidate_all(void)
{
	struct lru_cpu_counters *c = cpu_counters_get();

	if (c)
		c->invalidate_all++;
	return 0;
}

static __always_inline int count_invalidate_cpu(void)
{
	struct lru_cpu_counters *c = cpu_counters_get();

	if (c)
		c->invalidate_cpu++;
	return 0;
}

static __always_inline int count_install(void)
{
	struct lru_cpu_counters *c = cpu_counters_get();

	if (c)
		c->install_calls++;
	return 0;
}

SEC("fentry/invalidate_bh_lrus")
int BPF_PROG(fentry_invalidate_all)
{
	return count_invalidate_all();
}

SEC("fentry/invalidate_bh_lrus_cpu")
int BPF_PROG(fentry_invalidate_cpu)
{
	return count_invalidate_cpu();
}

SEC("fentry/bh_lru_install")
int BPF_PROG(fentry_install)
{
	return count_install();
}

SEC("kprobe/invalidate_bh_lrus")
int BPF_KPROBE(kprobe_invalidate_all)
{
	return count_invalidate_all();
}

SEC("kprobe/invalidate_bh_lrus_cpu")
int BPF_KPROBE(kprobe_invalidate_cpu)
{
	return count_invalidate_cpu();
}

SEC("kprobe/bh_lru_install")
int BPF_KPROBE(kprobe_install)
{
	return count_install();
}

/*
 * Degraded mode: touch_buffer() has one caller, the LRU-hit branch of the
 * lookup, so this tracepoint counts hits per CPU; nothing else is known.
 */
SEC("tracepoint/block/block_touch_buffer")
int tp_touch_buffer(struct trace_event_raw_block_buffer *ctx)
{
	struct lru_cpu_state *st = cpu_state_get();
	struct lru_dev_stats *s = st ? dev_counted(st, ctx->dev) : NULL;

	if (s)
		s->hits++;
	return 0;
}

/* bhtune.ko owns the LRU: its tracepoints say what each lookup did. */
SEC("tracepoint/bhtune/bhtune_lookup")
int tp_bhtune_lookup(struct bhtune_lookup_args *ctx)
{
	struct lru_cpu_state *st = cpu_state_get();
	struct lru_result r = { .dist = -1, .slot = -1 };
	struct lru_key victim;
	__u32 cap;
	int depth;

	if (!st)
		return 0;
	r.key.block = ctx->block;
	r.key.dev = ctx->dev;
	r.key.size = ctx->size;
	r.lru_size = ctx->lru_size;
	if (ctx->slot >= 0) {
		r.outcome = LRU_HIT;
		r.slot = ctx->slot;
		r.dist = ctx->slot;
	} else if (!ctx->found) {
		r.outcome = LRU_MISS_ABSENT;
	} else if (!ctx->installed) {
		r.outcome = LRU_MISS_NOT_INSTALLED;
	} else {
		r.outcome = LRU_MISS_INSTALLED;
		r.evicted = ctx->evict_size != 0;
		cap = ghost_cap(ctx->lru_size);
		if (cap) {
			depth = ghost_take(&st->ghost, &r.key);
			if (depth >= 0)
				r.dist = ctx->lru_size + depth;
			victim.block = ctx->evict_block;
			victim.dev = ctx->evict_dev;
			victim.size = ctx->evict_size;
			if (r.evicted)
				ghost_push(&st->ghost, &victim, cap);
		}
	}
	if (ctx->slot >= 0 || r.outcome == LRU_MISS_INSTALLED)
		st->nonempty = 1;
	lru_account(st, &r);
	return 0;
}

SEC("tracepoint/bhtune/bhtune_invalidate")
int tp_bhtune_invalidate(struct bhtune_invalidate_args *ctx)
{
	struct lru_cpu_state *st;
	struct lru_event *e;

	st = bpf_map_lookup_percpu_elem(&cpu_state, &zero_key, ctx->cpu);
	if (!st)
		return 0;
	lru_restart(st);
	if (!trace_events)
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		trace_lost(st);
		return 0;
	}
	trace_head(e, st);
	e->cpu = ctx->cpu;
	e->block = 0;
	e->dev = 0;
	e->size = 0;
	e->slot = -1;
	e->lru_size = 0;
	e->outcome = LRU_RESET;
	bpf_ringbuf_submit(e, 0);
	trace_sent(st);
	return 0;
}
