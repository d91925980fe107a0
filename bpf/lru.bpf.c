// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU buffer-head LRU of fs/buffer.c, per CPU and per device.
 *
 * A lookup is classified before it runs, by scanning this CPU's bh_lrus
 * for (bdev, block, size): a hit in slot i, or a miss. Its return value
 * then splits misses into installed (the bh is now in slot 0), not
 * installed (lru_cache_disabled(), isolated CPU) and absent (not in the
 * page cache). The kernel moves a hit to slot 0 and installs at slot 0, so
 * a hit's slot is its LRU stack distance; the ghost list extends the
 * distances of misses beyond BH_LRU_SIZE for the what-if curve.
 *
 * User space loads one set of programs (the others stay off, autoload):
 *   fentry + fexit on the lookup        find_get_block_common (6.15+ and
 *   kprobe + kretprobe on the lookup    backports), else __find_get_block
 *   fentry/kprobe on invalidate_bh_lrus{,_cpu} and bh_lru_install where
 *                                       they are symbols (counters only)
 *   tracepoint block:block_touch_buffer hits only: no fentry, no kprobes
 *   tracepoints bhtune:*                bhtune.ko owns the LRU
 *
 * Races, accepted and counted: the entry probe runs before the lookup
 * disables interrupts, so a preemption, a migration, a sleeping lookup
 * (6.15+ nonatomic) or an invalidation IPI can come between the scan and
 * the lookup. Every exit checks that the CPU, the task and the LRU's change
 * count are those of its entry, and that a full LRU is still full (an
 * invalidation IPI empties it); a lookup that fails this is "unsynced": it
 * is counted but not classified, and if it moved a bh to slot 0 the ghost
 * list starts over (its eviction, if any, was not seen). Left undetected:
 * an invalidation during a lookup that found the LRU not yet full.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "lru_bhtune.h"
#include "lru_stats.h"
#include "lru_ghost.bpf.h"
#include "lru_scan.bpf.h"
#include "lru_state.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* With --trace: this CPU's LRU content, so a replay starts from it. */
static __always_inline void trace_snapshot(struct lru_cpu_state *st,
					   struct buffer_head *const *bhs)
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
	m->head.slot = lru_copy(bhs, m->keys);
	bpf_ringbuf_submit(m, 0);
	trace_sent(st);
	st->trace_synced = 1;
}

static __always_inline void lookup_enter(const void *bdev, __u64 block,
					 __u32 size, __u32 dev)
{
	struct buffer_head *const *bhs = lru_this_cpu();
	struct lru_cpu_state *st = cpu_state_get();
	struct lru_scan sc;

	if (!bhs || !st)
		return;
	if (trace_events && !st->trace_synced)
		trace_snapshot(st, bhs);
	lru_scan(bhs, bdev, block, size, &sc);
	st->in.tid = (__u32)bpf_get_current_pid_tgid();
	st->in.seq = st->seq;
	st->in.slot = sc.slot;
	st->in.empty = sc.empty;
	st->in.full = sc.full;
	st->in.key.block = block;
	st->in.key.dev = dev;
	st->in.key.size = size;
	if (sc.slot < 0 && sc.full && ghost_cap(lru_slots))
		lru_victim(bhs, &st->in.victim);
}

/*
 * A lookup whose entry scan may not describe the LRU it ran on. If it left
 * its bh in slot 0 here, this LRU changed in a way the model did not see:
 * the ghost list restarts, and a replay resynchronises from a snapshot.
 */
static __always_inline void lookup_unsynced(struct lru_cpu_state *st,
					    struct lru_result *r, bool front)
{
	r->outcome = LRU_UNSYNCED;
	if (!front)
		return;
	r->flags |= LRU_EV_FRONT;
	st->ghost.len = 0;
	st->seq++;
	st->nonempty = 1;
	st->trace_synced = 0;
}

/* An installed miss: its depth in the ghost list, and the eviction. */
static __always_inline void lookup_installed(struct lru_cpu_state *st,
					     struct lru_result *r)
{
	__u32 cap = ghost_cap(lru_slots);
	int depth;

	r->outcome = LRU_MISS_INSTALLED;
	r->evicted = st->in.full;
	if (!cap)
		return;
	depth = ghost_take(&st->ghost, &r->key);
	if (depth >= 0)
		r->dist = lru_slots + depth;
	if (r->evicted)
		ghost_push(&st->ghost, &st->in.victim, cap);
}

/* args: the lookup's key from the probe's arguments, NULL if unknown. */
static __always_inline void lookup_exit(const void *ret,
					const struct lru_key *args)
{
	struct buffer_head *const *bhs = lru_this_cpu();
	struct lru_cpu_state *st = cpu_state_get();
	struct lru_result r = { .dist = -1, .slot = -1 };
	bool mine, front, emptied;

	if (!bhs || !st)
		return;
	r.lru_size = lru_slots;
	front = ret && (const void *)bhs[0] == ret;
	mine = st->in.tid == (__u32)bpf_get_current_pid_tgid() &&
	       (!args || lru_key_eq(args, &st->in.key));
	if (mine)
		st->in.tid = 0;
	/*
	 * A hit or an install leaves a full LRU full: a free last slot now
	 * means an invalidation came between the scan and the lookup.
	 */
	emptied = st->in.full && !bhs[lru_slots - 1];

	if (!mine || st->in.seq != st->seq || (st->in.slot >= 0 && !front) ||
	    emptied) {
		if (emptied && mine)
			lru_restart(st);
		if (args)
			r.key = *args;
		else if (mine)
			r.key = st->in.key;
		else if (ret)
			lru_key_read(ret, &r.key);
		lookup_unsynced(st, &r, front);
		lru_account(st, &r);
		return;
	}

	r.key = st->in.key;
	if (st->in.empty) {
		r.flags |= LRU_EV_EMPTY;
		lru_restart(st);
	}
	if (st->in.slot >= 0) {
		r.outcome = LRU_HIT;
		r.slot = st->in.slot;
		r.dist = st->in.slot;
	} else if (!ret) {
		r.outcome = LRU_MISS_ABSENT;
	} else if (!front) {
		r.outcome = LRU_MISS_NOT_INSTALLED;
	} else {
		lookup_installed(st, &r);
	}
	if (front) {
		st->seq++;
		st->nonempty = 1;
	}
	lru_account(st, &r);
}

/*
 * fentry/fexit. The attach target is set by user space: find_get_block_common
 * (bdev, block, size, atomic) where it exists, else __find_get_block
 * (bdev, block, size); the first three arguments are the same.
 */
SEC("fentry/__find_get_block")
int BPF_PROG(fentry_lookup, struct block_device *bdev, sector_t block,
	     unsigned int size)
{
	lookup_enter(bdev, block, size, bdev->bd_dev);
	return 0;
}

SEC("fexit/__find_get_block")
int BPF_PROG(fexit_lookup, struct block_device *bdev, sector_t block,
	     unsigned int size, struct buffer_head *ret)
{
	struct lru_key args = { block, bdev->bd_dev, size };

	lookup_exit(ret, &args);
	return 0;
}

SEC("fexit/find_get_block_common")
int BPF_PROG(fexit_lookup_common, struct block_device *bdev, sector_t block,
	     unsigned int size, bool atomic, struct buffer_head *ret)
{
	struct lru_key args = { block, bdev->bd_dev, size };

	lookup_exit(ret, &args);
	return 0;
}

/* kprobe/kretprobe: attached by user space to the same function. */
SEC("kprobe/__find_get_block")
int BPF_KPROBE(kprobe_lookup, struct block_device *bdev, sector_t block,
	       unsigned int size)
{
	lookup_enter(bdev, block, size, BPF_CORE_READ(bdev, bd_dev));
	return 0;
}

SEC("kretprobe/__find_get_block")
int BPF_KRETPROBE(kretprobe_lookup, struct buffer_head *ret)
{
	lookup_exit(ret, NULL);
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
	__u32 dev = ctx->dev;
	struct lru_dev_stats *s;

	if (target_dev && dev != target_dev)
		return 0;
	s = map_lookup_or_init(&dev_stats, &dev, &zero_stats);
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
