/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LRU tracer's maps, its per-CPU state, and the one place where a
 * classified lookup is counted (per device, per CPU) and traced.
 */
#ifndef BHSCOPE_LRU_STATE_BPF_H
#define BHSCOPE_LRU_STATE_BPF_H

#include "lru_ghost.bpf.h"
#include "lru_shadow.bpf.h"
#include "lru_stats.h"
#include "maps.bpf.h"

/* Kernel dev_t to count, 0 for every device (the model sees them all). */
const volatile __u32 target_dev = 0;
/* Stack distances tracked: 0, or the --whatif size (> BH_LRU_SIZE: ghost). */
const volatile __u32 whatif_depth = 0;
/* Send every lookup to the ring buffer (--trace). */
const volatile bool trace_events = false;
/*
 * Count entry and exit probe runs (kprobe mode: their difference is the
 * kretprobe instances missed; fexit's skipped runs are recursion_misses).
 */
const volatile bool count_runs = false;

/*
 * Devices whose bucket is taken. Not preallocated: a value is 2 KiB per
 * CPU, so memory follows the devices actually looked up, not
 * BHSCOPE_MAX_DEVS (tracing programs may use such maps since 6.1's BPF
 * memory allocator).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, BHSCOPE_MAX_DEVS);
	__type(key, __u32);
	__type(value, struct lru_dev_stats);
} dev_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lru_cpu_counters);
} cpu_counters SEC(".maps");

/* Sized by user space: one page when not tracing. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

/*
 * Hits at slots below this take the short path (lookup_done()): the LRU's
 * size, less its last slot where tail_note() keeps the tail's key.
 */
const volatile __u32 short_slots = 16;
/* Installs take the short path too: no ghost list to update. */
const volatile bool short_installs = true;

/*
 * Whether the exit of a lookup that cannot sleep (lookup_done()'s
 * may_solo) proves it alone: 0 yes, else these bits (lru_stats.h).
 *   LRU_SOLO_SWITCHED  set by watch_preempt() when the preemption model
 *                      is switched (any call: it turns kernel preemption
 *                      on for a while, even on its way to voluntary).
 *   LRU_SOLO_ENTRY     set by user space before it attaches the entry
 *                      probe: from then on the exit trusts only what an
 *                      entry left.
 * Sticky.
 */
__u32 solo_off;

/*
 * Bumped by every program that sees an LRU about to be emptied
 * (invalidate_bh_lrus, invalidate_bh_lrus_cpu, a CPU hotplug step), and
 * once by user space after it attached them all, when it sets
 * emptied_watched: then an exit that finds the number unchanged since the
 * last exit on its CPU knows no LRU was emptied in between.
 *
 * LRU_GEN_STOPPED, set with LRU_SOLO_SWITCHED, stops the deferred hook:
 * its entry then tests one word for an emptying, a switch and nothing
 * pending (lru_pending.gen). Never 0, which means nothing pending there.
 */
__u64 lru_emptied_gen = 1;
__u32 emptied_watched;

/* Every comparison slot by slot: skipped runs are neither seen nor counted. */
const volatile bool check_every_slot = false;

/*
 * A switch inside a lookup proves it missed the LRU: user space sets it
 * when the preemption model switches no task on the hit path (none,
 * voluntary, watched: a switch sets LRU_SOLO_SWITCHED), so the task slept
 * in the page cache's slow path.
 */
__u32 switch_means_miss;

/*
 * What a lookup's entry probe left for its exit probe on this CPU. The
 * exit trusts it only if it is its own task's and the task was never
 * switched out in between (see lookup_proven()).
 */
struct lru_inflight {
	__u64 task;		/* its task_struct's address; 0: none */
	__u64 nsw;		/* the task's context switches at entry */
	struct lru_key key;	/* kprobe mode: the lookup's arguments */
};

/*
 * The deferred hook (lru_deferred.bpf.h): the lookup entered last on this
 * CPU, classified by the next entry here, or by a read's settle, from the
 * change it left in the LRU. Where a lookup may sleep (6.12's nonatomic
 * one), its task and context switches: a switch in between lets another
 * task's lookup change this LRU.
 */
struct lru_pending {
	struct lru_key key;
	/*
	 * lru_emptied_gen as the pending lookup's entry read it, before the
	 * LRU; 0: nothing pending. An entry that reads the same number knows
	 * at once that a lookup is pending, that no LRU was emptied since,
	 * that the hook runs on, and that nothing marked LRU_GEN_RECHECK
	 * here (pend_valid(), deferred_entry()).
	 */
	__u64 gen;
	/*
	 * lru_cache_disable() was off from the snapshot whose call count is
	 * disable_c0 (lru_disable_calls) on: see deferred_installing().
	 */
	__u8 disable_ok;
	/* a task switch here left it pending: see deferred_how() */
	__u8 switch_missed;
	__u8 pad[6];
	__u64 disable_c0;
	/*
	 * The LRU's front bh when the last settle here made it the front or
	 * read its key, and that key: a lookup that leaves the front as it
	 * was is then a hit in slot 0 if it has the key, without reading it
	 * (0: not known; any settle the long way forgets it).
	 */
	__u64 front_bh;
	struct lru_key front_key;
};

/*
 * A lookup picked for timing (lru_time.bpf.h): its entry's timestamp,
 * task and context switches; at its exit, its time (dt) until it is
 * counted where the lookup's class is known.
 */
struct lru_timer {
	__u64 t0;
	__u64 task;		/* 0: no lookup being timed */
	__u64 nsw;
	__u64 dt;		/* 0: no time to count */
	__u64 seen;		/* lookups the sampling saw (time_seen) */
	__u64 next;		/* the seen count of the next one timed */
};

struct lru_cpu_state {
	/*
	 * First: the walk's first slot is then the state's own address,
	 * which clang otherwise kept in a register of its own
	 */
	struct lru_shadow sh;
	__u64 busy;		/* a probe works on this state (xchg) */
	/*
	 * Entry and exit probe runs on this CPU, busy or not (atomic adds:
	 * a probe preempted in its own increment must not lose another's).
	 * Their totals' difference is the lookups whose exit never ran.
	 */
	__u64 entries;
	__u64 exits;
	struct lru_inflight in;
	struct lru_pending pend;
	struct lru_timer timer;
	/* lru_emptied_gen, read at this exit before the LRU, and at the last */
	__u64 emptied_now;
	__u64 emptied_seen;
	/*
	 * Bumped when a lookup may have changed this LRU unseen (an exit that
	 * cannot prove its lookup, an entry that finds another lookup in
	 * flight, a probe that found the state busy, and on every CPU by
	 * mark_unseen() when the kernel skipped runs of the lookup probes);
	 * unseen_checked: unseen at the last slot-by-slot check. Until they
	 * agree, the shadow is compared slot by slot, not by its first two
	 * slots (shadow_matches()).
	 */
	__u64 unseen;
	__u64 unseen_checked;
	/*
	 * With the ghost list or a trace: the bh in the shadow's last slot
	 * and its key, read while the LRU held it (an install releases it,
	 * brelse, before its exit probe runs). 0: not known.
	 */
	__u64 tail_bh;
	struct lru_key tail;
	__u8 nonempty;		/* bhtune: its LRU held entries after the last
				 * lookup (the probe's shadow says so itself) */
	__u8 trace_synced;	/* the trace has this LRU's content */
	__u8 trace_gap;		/* trace records lost since the last sent */
	__u8 pad[5];
	struct lru_ghost ghost;
	/* this CPU's per-device counters: see struct lru_dev_bucket */
	struct lru_dev_bucket buckets[BHSCOPE_LRU_DEV_BUCKETS];
};

_Static_assert(sizeof(struct lru_cpu_state) <= 32768,
	       "a per-CPU map value is at most 32 KiB (PCPU_MIN_UNIT_SIZE)");

/* For user space, which reads the buckets out of each CPU's state. */
const volatile __u32 cpu_buckets_at = __builtin_offsetof(struct lru_cpu_state,
							 buckets);
const volatile __u32 cpu_entries_at = __builtin_offsetof(struct lru_cpu_state,
							 entries);
const volatile __u32 cpu_exits_at = __builtin_offsetof(struct lru_cpu_state,
						       exits);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lru_cpu_state);
} cpu_state SEC(".maps");

/* A lookup, classified. */
struct lru_result {
	struct lru_key key;
	__s32 dist;		/* stack distance, -1 if none is known */
	__s16 slot;
	__u16 lru_size;
	__u8 outcome;
	__u8 flags;
	__u8 evicted;
};

static const struct lru_dev_stats zero_stats;
static const __u32 zero_key;

static __always_inline struct lru_cpu_state *cpu_state_get(void)
{
	return bpf_map_lookup_elem(&cpu_state, &zero_key);
}

static __always_inline struct lru_cpu_counters *cpu_counters_get(void)
{
	return bpf_map_lookup_elem(&cpu_counters, &zero_key);
}

/*
 * dev's counters on this CPU; NULL when dev is not counted (target_dev)
 * or no map has room for it. The first device counted on a CPU takes
 * bucket 0, found at a fixed offset (most hosts look up one device most
 * of the time): its owner is tested first, since a device not counted
 * never takes a bucket. The others go to the bucket their dev_t hashes
 * to among the rest, else the hash map.
 */
static __always_inline struct lru_dev_stats *dev_counted(struct lru_cpu_state *st,
							 __u32 dev)
{
	struct lru_dev_bucket *d = &st->buckets[0];
	struct lru_cpu_counters *c;
	struct lru_dev_stats *s;
	__u32 b, key;

	if (likely(d->owner == dev + 1ULL))
		return &d->s;
	if (target_dev && dev != target_dev)
		return NULL;
	if (d->owner) {
		b = (dev * 0x9e3779b1U) >> (32 - BHSCOPE_LRU_DEV_BUCKET_BITS);
		d = &st->buckets[b ?: 1];
		if (d->owner == dev + 1ULL)
			return &d->s;
	}
	if (!d->owner) {
		d->owner = dev + 1ULL;
		return &d->s;
	}
	/* a key of its own: dev's address would keep it on the stack for all */
	key = dev;
	s = map_lookup_or_init(&dev_stats, &key, &zero_stats);
	if (!s) {
		c = cpu_counters_get();
		if (c)
			c->devs_dropped++;
	}
	return s;
}

/* Ghost entries kept beyond an LRU of lru_size slots. */
static __always_inline __u32 ghost_cap(__u32 lru_size)
{
	return whatif_depth > lru_size ? whatif_depth - lru_size : 0;
}

/* The LRU was emptied: so is the model beyond it. */
static __always_inline void lru_restart(struct lru_cpu_state *st)
{
	struct lru_cpu_counters *c;

	if (st->nonempty || st->sh.len || st->ghost.len) {
		c = cpu_counters_get();
		if (c)
			c->resets++;
	}
	ghost_clear(&st->ghost);
	st->nonempty = 0;
}

/*
 * From here on the curve above the LRU's size is a lower bound: a key the
 * ghost list lost is a miss at every size, where a larger LRU may have
 * hit (counted, so reports can say so).
 */
static __always_inline void whatif_lower_bound(void)
{
	struct lru_cpu_counters *c = cpu_counters_get();

	if (c)
		c->resyncs++;
}

/*
 * The LRU changed in a way the model did not see, and was not emptied. The
 * unseen lookups evicted an unknown number of keys in front of the ghost
 * list's, so every depth found there could be too short (a what-if hit
 * that a larger LRU would not have had), and may have taken some back. So
 * the ghost list is forgotten, as the sizes above the LRU's could only be
 * too high with it: without it they are a lower bound.
 */
static __always_inline void lru_resync(struct lru_cpu_state *st)
{
	ghost_clear(&st->ghost);
	whatif_lower_bound();
}

/* One probe at a time works on a CPU's state: a probe can be preempted
 * (preempt=full) and the kernel's recursion guard is per program. */
static __always_inline bool state_claim(struct lru_cpu_state *st)
{
	return !__sync_lock_test_and_set(&st->busy, 1);
}

static __always_inline void state_release(struct lru_cpu_state *st)
{
	asm volatile("" ::: "memory");
	st->busy = 0;
}

/*
 * In lru_pending.gen, never in lru_emptied_gen: something the deferred
 * hook's common entry does not test happened here (a change unseen, a
 * task switch left unsettled), so the next entry goes the long way. An
 * atomic or: the mark may land inside a probe that holds the state,
 * which checks again after it stores the word (deferred_entry_slow()).
 */
#define LRU_GEN_RECHECK		(1ULL << 62)

static __always_inline void lru_pend_recheck(struct lru_cpu_state *st)
{
	__sync_fetch_and_or(&st->pend.gen, LRU_GEN_RECHECK);
}

/* This CPU's LRU may have changed unseen: its next check is slot by slot. */
static __always_inline void lru_unseen(struct lru_cpu_state *st)
{
	__sync_fetch_and_add(&st->unseen, 1);
	lru_pend_recheck(st);
}

/*
 * Does the LRU hold the shadow? Slots 0 and 1 tell after one change the
 * probe did not see (shadow_matches()); after a change that may be
 * several, every slot, and the check is noted done.
 */
static __always_inline bool lru_shadow_holds(struct lru_cpu_state *st,
					     __u64 lru0,
					     struct buffer_head *const *bhs)
{
	__u64 unseen = st->unseen;
	struct lru_cpu_counters *c;

	if (!check_every_slot && unseen == st->unseen_checked)
		return shadow_matches(&st->sh, lru0, bhs);
	st->unseen_checked = unseen;
	c = cpu_counters_get();
	if (c)
		c->full_checks++;
	return lru0 == st->sh.bh[0] && shadow_matches_all(&st->sh, bhs);
}

/*
 * Whether a change unseen is noted since the last slot-by-slot check: the
 * whole of lru_check_pending() for an fentry hook (check_every_slot is
 * for kprobes), without the flag's load and test on every lookup.
 */
static __always_inline bool lru_unseen_pending(const struct lru_cpu_state *st)
{
	return st->unseen != st->unseen_checked;
}

/* Whether the next check is slot by slot (the short path then goes long). */
static __always_inline bool lru_check_pending(const struct lru_cpu_state *st)
{
	return check_every_slot || lru_unseen_pending(st);
}

static __always_inline void count_cpu(__u32 off)
{
	struct lru_cpu_counters *c = cpu_counters_get();

	if (c)
		(*(__u64 *)((char *)c + off))++;
}

static __always_inline void trace_lost(struct lru_cpu_state *st)
{
	struct lru_cpu_counters *c = cpu_counters_get();

	if (c)
		c->events_lost++;
	/* The replay of this CPU is broken: resend the LRU's content. */
	st->trace_gap = 1;
	st->trace_synced = 0;
}

static __always_inline void trace_sent(struct lru_cpu_state *st)
{
	struct lru_cpu_counters *c = cpu_counters_get();

	if (c)
		c->events++;
	st->trace_gap = 0;
}

static __always_inline void trace_head(struct lru_event *e,
				       struct lru_cpu_state *st)
{
	e->ts_ns = bpf_ktime_get_ns();
	e->cpu = bpf_get_smp_processor_id();
	e->flags = st->trace_gap ? LRU_EV_GAP : 0;
	*(__u32 *)&e->pad[0] = 0;
	*(__u16 *)&e->pad[4] = 0;
}

static __always_inline void trace_lookup(struct lru_cpu_state *st,
					 const struct lru_result *r)
{
	struct lru_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		trace_lost(st);
		return;
	}
	trace_head(e, st);
	e->block = r->key.block;
	e->dev = r->key.dev;
	e->size = r->key.size;
	e->slot = r->slot;
	e->lru_size = r->lru_size;
	e->outcome = r->outcome;
	e->flags |= r->flags;
	bpf_ringbuf_submit(e, 0);
	trace_sent(st);
}

/*
 * Counts one lookup of outcome o. Not lookups: user space sums the
 * outcomes into it (one increment less per lookup).
 */
static __always_inline void lru_count_outcome(struct lru_dev_stats *s,
					      unsigned int o)
{
	if (o >= LRU_NR_LOOKUP_OUTCOMES)
		o = LRU_UNSYNCED;
	s->outcomes[o]++;
}

/*
 * A hit in slot: the common case, so counted without the rest, and by its
 * distance only: user space sums the distances below the LRU's size into
 * hits (a hit is the only lookup with one there).
 */
static __always_inline void lru_count_hit(struct lru_cpu_state *st,
					 __u32 dev, int slot)
{
	struct lru_dev_stats *s;

	/* bucket 0 apart: addressed from st, not through a pointer to it */
	if (likely(st->buckets[0].owner == dev + 1ULL)) {
		st->buckets[0].s.dist[slot]++;
		return;
	}
	s = dev_counted(st, dev);
	if (s)
		s->dist[slot]++;
}

/* An install the shadow explains, without a ghost list: the short path. */
static __always_inline void lru_count_install(struct lru_cpu_state *st,
					      __u32 dev, __u64 victim)
{
	struct lru_dev_stats *s = dev_counted(st, dev);

	if (!s)
		return;
	s->installed++;
	s->evictions += victim != 0;
}

/* A classified lookup's timing class: LRU_TIME_*, a hit's slot, or -1. */
static __always_inline int lru_time_class(const struct lru_result *r)
{
	switch (r->outcome) {
	case LRU_HIT:
		return r->slot >= 0 && r->slot < BHSCOPE_LRU_SLOTS_MAX ?
		       r->slot : -1;
	case LRU_MISS_INSTALLED:
		return LRU_TIME_INSTALLED;
	case LRU_MISS_NOT_INSTALLED:
		return LRU_TIME_NOT_INSTALLED;
	case LRU_MISS_ABSENT:
		return LRU_TIME_ABSENT;
	default:
		return -1;
	}
}

/* lru_time.bpf.h */
static __noinline int time_count(__u32 dev, int cls, __u64 dt);

/*
 * Where a lookup's class is known: counts its time with it, if it was
 * timed (time_stop() left dt; never without --timing, so no flag for it
 * is read: the check is the same two instructions).
 */
static __always_inline void time_note(struct lru_cpu_state *st, __u32 dev,
				      int cls)
{
	if (!st->timer.dt)
		return;
	time_count(dev, cls, st->timer.dt);
	st->timer.dt = 0;
}

/* Counts r for its device and, with --trace, sends it. */
static __always_inline void lru_account(struct lru_cpu_state *st,
					const struct lru_result *r)
{
	struct lru_dev_stats *s;

	time_note(st, r->key.dev, lru_time_class(r));
	if (trace_events)
		trace_lookup(st, r);
	s = dev_counted(st, r->key.dev);
	if (!s)
		return;
	lru_count_outcome(s, r->outcome);
	s->evictions += r->evicted;
	if (r->dist >= 0 && r->dist < BHSCOPE_LRU_DEPTH_MAX)
		s->dist[r->dist]++;
}

#endif /* BHSCOPE_LRU_STATE_BPF_H */
