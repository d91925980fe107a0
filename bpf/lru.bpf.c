// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU buffer-head LRU of fs/buffer.c, per CPU and per device.
 *
 * One classifying probe per lookup, at its exit: this CPU's LRU then holds the shadow
 * of the last lookup seen here with this lookup's change applied (see
 * lru_shadow.bpf.h), which says whether it was a hit in slot i, a miss
 * installed at slot 0, a miss not installed (lru_cache_disabled(),
 * isolated CPU) or absent (not in the page cache). The kernel moves a hit
 * to slot 0 and installs at slot 0, so a hit's slot is its LRU stack
 * distance; the ghost list extends the distances of misses beyond
 * BH_LRU_SIZE for the what-if curve.
 *
 * User space loads one set of programs (the others stay off, autoload):
 *   fentry + fexit on the lookup        find_get_block_common (6.15+ and
 *   kprobe + kretprobe on the lookup    backports), else __find_get_block
 *                                       and __find_get_block_nonatomic
 *   fentry/kprobe on invalidate_bh_lrus{,_cpu} and bh_lru_install where
 *                                       they are symbols (counters), and
 *                                       where an LRU is emptied next
 *                                       (invalidate_bh_lru, the IPI body;
 *                                       buffer_exit_cpu_dead)
 *   tracepoint block:block_touch_buffer hits only: no fentry, no kprobes
 *                                       (BTF tracepoint, else classic)
 *   raw tracepoints bhtune_*            bhtune.ko owns the LRU
 *
 * Nothing is guessed. The exit classifies a lookup only when it can prove
 * the LRU change it sees is this lookup's, on this CPU: the entry probe
 * left this task and its context-switch count, and they still hold
 * (lookup_proven()). A lookup preempted, migrated or asleep in between is
 * unsynced (a NULL return is absent wherever it ran). An invalidation IPI
 * is the one change an interrupt makes, and it empties the LRU, which the
 * shadow sees. A change the model did not see (a lookup whose exit ran
 * elsewhere) is found at the next entry here, and the model starts from
 * the LRU as it is; after a change that may be several, the next check
 * compares every slot (lru_shadow_holds()). A lookup whose exit
 * probe did not run (the kernel's recursion guard, a kretprobe without an
 * instance) or found another probe in flight on its CPU is lost: user
 * space reports those from the programs' recursion_misses and the
 * lookups_lost counter.
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
#include "lru/lru_time.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * With the ghost list or a trace: the shadow's last slot changed (an
 * install, a hit there, a restart), so its key is read now, while the LRU
 * holds that bh; a later install evicts it and releases it before any
 * probe runs. Not the LRU's own last slot: the key stays unknown (0).
 */
static __always_inline void tail_note(struct lru_cpu_state *st,
				      struct buffer_head *const *bhs)
{
	struct buffer_head *bh;
	__u64 last;

	if (!ghost_cap(lru_slots) && !trace_events)
		return;
	last = st->sh.bh[lru_slots - 1];
	if (last == st->tail_bh)
		return;
	bh = bhs[lru_slots - 1];
	if (last && (__u64)bh == last) {
		lru_key_of(bh, &st->tail);
		st->tail_bh = last;
	} else {
		st->tail_bh = 0;
	}
}

/*
 * The key of the shadow's bh at slot i, for a trace snapshot. The LRU
 * holds every one of them, but the last one when this lookup installed
 * into a full LRU: that one was released, so it comes from tail_note().
 */
static __always_inline void snapshot_key(struct lru_cpu_state *st, int i,
					 struct lru_key *k)
{
	__u64 bh = st->sh.bh[i];

	if (bh == st->tail_bh)
		*k = st->tail;
	else
		lru_key_read((const void *)bh, k);
}

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
		snapshot_key(st, i, &m->keys[i]);
		m->head.slot++;
	}
	bpf_ringbuf_submit(m, 0);
	trace_sent(st);
	st->trace_synced = 1;
}

/*
 * With --trace: cpu's LRU was found emptied (an LRU_RESET record, as
 * bhtune's invalidations): a replay empties its larger LRU too. A model
 * restart without one (an unseen change) is a snapshot alone.
 */
static __always_inline void trace_reset(struct lru_cpu_state *st, __u32 cpu)
{
	struct lru_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		trace_lost(st);
		return;
	}
	trace_head(e, st);
	e->cpu = cpu;
	e->block = 0;
	e->dev = 0;
	e->size = 0;
	e->slot = -1;
	e->lru_size = 0;
	e->outcome = LRU_RESET;
	bpf_ringbuf_submit(e, 0);
	trace_sent(st);
}

/*
 * The ghost list's side of an installed miss (cap > 0): its key taken
 * out, and the evicted one put in front. Returns the key's depth there,
 * or -1.
 */
static __always_inline int ghost_installed(struct lru_cpu_state *st,
					   const struct lru_key *key,
					   __u64 victim_bh, __u32 cap)
{
	int depth = ghost_take(&st->ghost, key);

	/* its key was read when it reached the last slot: released since,
	 * the bh is not read */
	if (victim_bh && victim_bh == st->tail_bh) {
		ghost_push(&st->ghost, &st->tail, cap);
	} else if (victim_bh) {
		/* its key was never read: one no lookup has (size 0) keeps
		 * its place, so the depths behind it stay true */
		struct lru_key unknown = {};

		ghost_push(&st->ghost, &unknown, cap);
		whatif_lower_bound();
	}
	return depth;
}

/* An installed miss: its depth in the ghost list, and the eviction. */
static __always_inline void lookup_installed(struct lru_cpu_state *st,
					     __u64 victim_bh,
					     struct lru_result *r)
{
	__u32 cap = ghost_cap(lru_slots);
	int depth;

	r->outcome = LRU_MISS_INSTALLED;
	r->evicted = victim_bh != 0;
	if (!cap)
		return;
	depth = ghost_installed(st, &r->key, victim_bh, cap);
	if (depth >= 0)
		r->dist = lru_slots + depth;
}

/*
 * The deferred hook's short paths with the ghost list, for what
 * lookup_classify() would count without the checks made already (a
 * shadow read from the LRU, slots 0 and 1 as it says, nothing unseen;
 * never with --trace, nor with timings). Each moves the shadow's last
 * slot, whose key tail_note() reads while the LRU holds its bh.
 */

/* An install. victim: what shadow_installed() returned. */
static __noinline int lookup_installed_short(struct lru_cpu_state *st,
					     struct buffer_head *const *bhs,
					     const struct lru_key *key,
					     __u64 victim)
{
	int depth = ghost_installed(st, key, victim, ghost_cap(lru_slots));
	struct lru_dev_stats *s = dev_counted(st, key->dev);
	__u32 dist = lru_slots + depth;

	if (s) {
		s->installed++;
		s->evictions += victim != 0;
		if (depth >= 0 && dist < BHSCOPE_LRU_DEPTH_MAX)
			s->dist[dist]++;
	}
	tail_note(st, bhs);
	return 0;
}

/* A hit in the last slot (short_slots). */
static __noinline int lookup_hit_tail_short(struct lru_cpu_state *st,
					    struct buffer_head *const *bhs,
					    __u32 dev, int slot)
{
	lru_count_hit(st, dev, slot);
	tail_note(st, bhs);
	return 0;
}

/* A miss the kernel did not install: a larger LRU may still hold it. */
static __always_inline void lookup_not_installed(struct lru_cpu_state *st,
						 struct lru_result *r)
{
	int depth;

	r->outcome = LRU_MISS_NOT_INSTALLED;
	if (!ghost_cap(lru_slots))
		return;
	depth = ghost_find(&st->ghost, &r->key);
	if (depth < 0)
		return;
	r->dist = lru_slots + depth;
	count_cpu(__builtin_offsetof(struct lru_cpu_counters,
				     ghost_not_installed));
}

/*
 * A lookup the page cache did not have. The LRU's reference pins a
 * buffer: one a larger LRU would still hold (in the ghost list) would have
 * stayed in the page cache and hit at once, where the kernel reads it
 * and looks it up again (then installed, found in the ghost list). So the
 * sizes above this one are approximate from here on: counted.
 */
static __always_inline void lookup_absent(struct lru_cpu_state *st,
					  const struct lru_result *r)
{
	if (ghost_cap(lru_slots) && ghost_find(&st->ghost, &r->key) >= 0)
		count_cpu(__builtin_offsetof(struct lru_cpu_counters,
					     ghost_absent));
}

/*
 * Whether an LRU may have been emptied since this CPU's last exit: the
 * emptying programs moved lru_emptied_gen (read at this exit, before the
 * LRU), or they are not all watched.
 */
static __always_inline bool emptied_since(const struct lru_cpu_state *st)
{
	return !emptied_watched || st->emptied_now != st->emptied_seen;
}

/*
 * The model starts over from what this CPU's LRU holds now, without the
 * ghost list: after an emptied LRU (invalidated: a larger one is emptied
 * too, and the curve stays exact), else lru_resync().
 */
static __always_inline void model_restart(struct lru_cpu_state *st,
					  struct buffer_head *const *bhs,
					  bool emptied)
{
	if (emptied && trace_events)
		trace_reset(st, bpf_get_smp_processor_id());
	if (emptied || !st->sh.valid)
		lru_restart(st);
	else
		lru_resync(st);
	shadow_read(&st->sh, bhs);
	tail_note(st, bhs);
	st->trace_synced = 0;
}

/*
 * The LRU is not what the shadow and this lookup explain: it was emptied
 * (an invalidation), or changed by a lookup the tracer saw elsewhere or
 * not at all, or the shadow was never read (a CPU that came online after
 * the start). The model starts over from what the LRU holds now; the
 * lookup is classified only where the LRU proves what it did: emptied
 * before it, then holding only its bh, it installed; a NULL return is
 * absent. Anything else is unsynced, never a guess (an installed miss
 * whose LRU an invalidation emptied before this probe looks exactly like
 * a miss not installed).
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

	model_restart(st, bhs, emptied);

	if (!ret)
		r->outcome = LRU_MISS_ABSENT;
	else if (emptied && front)
		r->outcome = LRU_MISS_INSTALLED;
	else
		r->outcome = LRU_UNSYNCED;
	r->flags |= r->outcome == LRU_UNSYNCED ? LRU_EV_RESTART : LRU_EV_EMPTY;
	r->slot = -1;
	r->dist = -1;
	lru_account(st, r);
}

/*
 * A hit in slot 0 of an LRU holding nothing else leaves it as an
 * invalidation followed by the lookup's installed miss does: only
 * lru_emptied_gen tells them apart, where nothing emptied an LRU since
 * this CPU's last exit.
 */
static __always_inline bool lone_front_ambiguous(const struct lru_cpu_state *st,
						 int slot)
{
	return slot == 0 && !st->sh.bh[1] && emptied_since(st);
}

/*
 * Not proven what it looks like (lone_front_ambiguous(), an empty LRU
 * after a miss): unsynced, the model read again.
 */
static __always_inline void lookup_lone_front(struct lru_cpu_state *st,
					      struct buffer_head *const *bhs,
					      struct lru_result *r)
{
	model_restart(st, bhs, false);
	r->outcome = LRU_UNSYNCED;
	r->flags |= LRU_EV_RESTART;
	r->slot = -1;
	r->dist = -1;
	lru_account(st, r);
}

/* What the kernel did, for the trace: LRU_EV_FOUND and LRU_EV_FRONT. */
static __always_inline __u8 lookup_flags(const void *ret, __u64 lru0)
{
	if (!ret)
		return 0;
	return LRU_EV_FOUND | (lru0 == (__u64)ret ? LRU_EV_FRONT : 0);
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
		.outcome = LRU_UNSYNCED, .flags = lookup_flags(ret, lru0),
	};

	if (!st->sh.valid) {
		lookup_unexplained(st, bhs, ret, &r);
		return;
	}
	if (ret && lru0 == (__u64)ret) {
		r.outcome = slot >= 0 ? LRU_HIT : LRU_MISS_INSTALLED;
	} else if (ret) {
		/*
		 * Not installed, or in the LRU but not at its front: then
		 * something not seen moved it (an isolated CPU's lookup
		 * does not look), so unsynced.
		 */
		slot = shadow_find(&st->sh, ret);
		r.outcome = slot < 0 ? LRU_MISS_NOT_INSTALLED : LRU_UNSYNCED;
	} else {
		r.outcome = LRU_MISS_ABSENT;
	}
	/* the shadow read again from the LRU replaces a wrong change */
	if (!lru_shadow_holds(st, lru0, bhs) || r.outcome == LRU_UNSYNCED) {
		lookup_unexplained(st, bhs, ret, &r);
		return;
	}
	/*
	 * An empty LRU that was empty before: not installed, or installed
	 * into and emptied since by an IPI. Only an emptying unseen tells.
	 */
	if (r.outcome == LRU_MISS_NOT_INSTALLED && !lru0 && emptied_since(st)) {
		lookup_lone_front(st, bhs, &r);
		return;
	}
	if (r.outcome == LRU_HIT && lone_front_ambiguous(st, slot)) {
		lookup_lone_front(st, bhs, &r);
		return;
	}

	if (trace_events && !st->trace_synced)
		trace_snapshot(st);
	if (r.outcome == LRU_HIT) {
		r.slot = slot;
		r.dist = slot;
	} else if (r.outcome == LRU_MISS_INSTALLED) {
		lookup_installed(st, victim, &r);
	} else if (r.outcome == LRU_MISS_NOT_INSTALLED) {
		lookup_not_installed(st, &r);
	} else {
		lookup_absent(st, &r);
	}
	lru_account(st, &r);
	tail_note(st, bhs);
}

/*
 * The entry of a lookup, on the CPU it starts on: which task, and its
 * context switches, so that the exit can prove it ran here throughout
 * (lookup_proven()). key: the arguments, for a kretprobe (NULL for fexit,
 * which has them).
 */
static __always_inline void lookup_entered(const struct lru_key *key,
					   bool timed)
{
	struct buffer_head *const *bhs = lru_this_cpu();
	struct lru_cpu_state *st = cpu_state_get();
	struct task_struct *t;

	if (!bhs || !st)
		return;
	if (key && count_runs)	/* kprobe mode */
		__sync_fetch_and_add(&st->entries, 1);
	if (!state_claim(st)) {
		lru_unseen(st);
		return;		/* its exit finds no entry: unsynced */
	}
	/* a lookup entered here whose exit has not run here: it may change
	 * this LRU unseen (preempted in it, migrated, or its exit skipped),
	 * and its time, if it is timed, would hold another lookup's */
	if (st->in.task) {
		lru_unseen(st);
		if (timed)
			time_abandon(st);
	}
	t = bpf_get_current_task_btf();
	st->in.task = (__u64)t;
	st->in.nsw = task_switches(t);
	if (key)
		st->in.key = *key;
	/*
	 * The LRU changed since the last probe here, by a lookup whose
	 * probes ran on another CPU (it migrated) or not at all, or the
	 * model never read it (a CPU that came online after the start): the
	 * model starts from the LRU this lookup really meets.
	 */
	if (!st->sh.valid || !lru_shadow_holds(st, (__u64)bhs[0], bhs))
		model_restart(st, bhs, st->sh.valid && !bhs[0]);
	if (timed)
		time_start_entry(st, t);
	state_release(st);
}

/*
 * The exit found the state as its own entry left it: same task, never
 * switched out since. Then nothing but this lookup and interrupts ran on
 * this CPU in between, and the only interrupt that changes an LRU empties
 * it (invalidate_bh_lrus' IPI), which the shadow check sees. Anything
 * else (preempted, migrated, slept in the nonatomic lookup, or the entry
 * found another probe in flight) cannot be proven.
 */
enum lookup_proof {
	PROOF_NONE,	/* no entry of this task's here: nothing known */
	PROOF_SWITCHED,	/* its own entry, but switched out since */
	PROOF_OWN,	/* its own entry, never switched out: proven */
};

static __always_inline int lookup_proven(struct lru_cpu_state *st)
{
	struct task_struct *t = bpf_get_current_task_btf();
	int proof = st->in.task != (__u64)t ? PROOF_NONE :
		    st->in.nsw == task_switches(t) ? PROOF_OWN :
		    PROOF_SWITCHED;

	st->in.task = 0;
	return proof;
}

/*
 * A lookup that found a bh but was switched out inside: under a model
 * that switches no task on the LRU-hit path, it slept in the page
 * cache's slow path, so it missed the LRU (installed or not, unknown).
 */
static __always_inline bool switched_means_miss(int proof)
{
	return proof == PROOF_SWITCHED && switch_means_miss &&
	       !(solo_off & LRU_SOLO_SWITCHED);
}

/*
 * A lookup whose exit cannot prove what it did. A NULL return is absent
 * wherever it ran; the rest is unsynced. key NULL: a kretprobe's, read
 * from the bh returned, or not known (nothing returned), then counted
 * per CPU. Out of line: rare, and the short path keeps fewer registers.
 */
static __noinline int lookup_unproven(struct lru_cpu_state *st,
				      struct buffer_head *const *bhs,
				      const void *ret,
				      const struct lru_key *key, int proof)
{
	__u64 lru0 = (__u64)bhs[0];
	struct lru_result r = {
		.dist = -1, .slot = -1, .lru_size = lru_slots,
		.flags = lookup_flags(ret, lru0),
		.outcome = ret ? LRU_UNSYNCED : LRU_MISS_ABSENT,
	};
	struct lru_dev_stats *s;

	/* it may have changed this LRU, or another CPU's: re-read if so,
	 * and the next check of this one goes slot by slot */
	lru_unseen(st);
	if (!st->sh.valid || !lru_shadow_holds(st, lru0, bhs)) {
		model_restart(st, bhs, st->sh.valid && !lru0);
		r.flags |= LRU_EV_RESTART;
	}
	if (key) {
		r.key = *key;
	} else if (ret) {
		lru_key_read(ret, &r.key);
	} else {
		count_cpu(__builtin_offsetof(struct lru_cpu_counters,
					     unsynced_nodev));
		/* traced with no key, counted on no device */
		if (trace_events)
			trace_lookup(st, &r);
		return 0;
	}
	lru_account(st, &r);
	if (ret && switched_means_miss(proof)) {
		s = dev_counted(st, r.key.dev);
		if (s)
			s->unsynced_misses++;
	}
	return 0;
}

/*
 * Every proven lookup but a hit the short path counts. slot: what
 * shadow_to_front() said (a hit's slot, -1 an install: ret is at the
 * LRU's front), or -2 if it did not run.
 */
static __noinline int lookup_slow(struct lru_cpu_state *st,
				  struct buffer_head *const *bhs,
				  const void *ret, const struct lru_key *key,
				  int slot)
{
	__u64 victim = 0;

	/* with --trace every lookup comes here */
	if (trace_events && slot == -2 && st->sh.valid && ret &&
	    (__u64)bhs[0] == (__u64)ret) {
		/* a replay starts from the LRU before this lookup */
		if (!st->trace_synced)
			trace_snapshot(st);
		slot = shadow_to_front(&st->sh, ret);
	}
	if (slot == -1)
		victim = shadow_installed(&st->sh);
	lookup_classify(st, bhs, slot >= -1 ? (__u64)ret : (__u64)bhs[0],
			ret, key, slot, victim);
	return 0;
}

/*
 * Whether the exit may trust what it sees to be this lookup's work alone
 * on this CPU (see solo_off and lookup_proven()).
 */
static __always_inline int lookup_trusted(struct lru_cpu_state *st,
					  bool may_solo)
{
	__u32 off;

	if (!may_solo)
		return lookup_proven(st);
	off = solo_off;
	if (!off)
		return PROOF_OWN;
	return off & LRU_SOLO_ENTRY ? lookup_proven(st) : PROOF_NONE;
}

/*
 * The one classifying probe of a lookup: key is its (bdev, block, size),
 * or NULL for a kretprobe (then the entry's, if proven), ret its bh.
 * may_solo: a lookup that cannot sleep, which the exit proves alone (no
 * entry probe) while the preemption model switches no task inside it
 * (none, voluntary: user space attaches the entry probe otherwise, and
 * when the model is switched, see solo_off). kprobe: a kretprobe, whose
 * runs are counted (an entry without an exit is a lost lookup).
 */
static __always_inline void lookup_done(const void *ret,
					const struct lru_key *key,
					bool may_solo, bool kprobe, bool timed)
{
	struct buffer_head *const *bhs = lru_this_cpu();
	struct lru_cpu_state *st = cpu_state_get();
	int slot = -2, proof;

	if (!bhs || !st)
		return;
	if (timed)
		time_stop(st);
	if (kprobe && count_runs)
		__sync_fetch_and_add(&st->exits, 1);
	if (!state_claim(st)) {
		/* another probe here was preempted inside: not counted */
		count_cpu(__builtin_offsetof(struct lru_cpu_counters,
					     lookups_lost));
		lru_unseen(st);
		if (timed)
			time_forget(st);
		return;
	}
	/* before the LRU is read: an emptying after it changes the number */
	st->emptied_now = lru_emptied_gen;
	proof = lookup_trusted(st, may_solo);
	if (proof != PROOF_OWN) {
		lookup_unproven(st, bhs, ret, key, proof);
		goto forget;
	}
	if (!key)
		key = &st->in.key;
	/*
	 * The common cases, kept short: a hit the shadow explains, and (no
	 * ghost list) an install. A shadow never read is all 0: it looks
	 * like an install, and goes the long way, where it is read.
	 */
	if (!trace_events && ret && (__u64)bhs[0] == (__u64)ret) {
		/* a hit, or an installed miss: the shadow changes alike */
		slot = shadow_to_front(&st->sh, ret);
		/* after a change perhaps unseen, every slot is compared */
		if (!shadow_rest_matches(&st->sh, bhs) ||
		    lru_check_pending(st))
			goto slow;
		if ((__u32)slot < short_slots &&
		    !lone_front_ambiguous(st, slot)) {
			lru_count_hit(st, key->dev, slot);
			if (timed)
				time_note(st, key->dev, slot);
			goto out;
		}
		/* so is an install into a shadow read from the LRU */
		if (slot == -1 && short_installs && st->sh.valid) {
			lru_count_install(st, key->dev,
					  shadow_installed(&st->sh));
			if (timed)
				time_note(st, key->dev,
					      LRU_TIME_INSTALLED);
			goto out;
		}
	}
slow:
	lookup_slow(st, bhs, ret, key, slot);
forget:
	/* timed, but counted with no class (unsynced, no key) */
	if (timed)
		time_forget(st);
out:	/* the short paths counted their time, if any */
	st->emptied_seen = st->emptied_now;
	state_release(st);
}

/*
 * fentry/fexit: the attach targets are set by user space:
 * find_get_block_common (bdev, block, size, atomic) where it is a symbol,
 * else __find_get_block (bdev, block, size) and, where it exists,
 * __find_get_block_nonatomic (the same arguments) through the programs
 * named 2. The first three arguments are the same.
 */
/*
 * Each lookup program comes twice: as is, and _timed, which also starts
 * (entry) or stops (exit) the sampled timings. User space loads one of
 * the two, so that a probe without --timing pays no check for them.
 */
SEC("fentry/__find_get_block")
int BPF_PROG(fentry_lookup)
{
	lookup_entered(NULL, false);
	return 0;
}

SEC("fentry/__find_get_block")
int BPF_PROG(fentry_lookup_timed)
{
	lookup_entered(NULL, true);
	return 0;
}

SEC("fentry/__find_get_block_nonatomic")
int BPF_PROG(fentry_lookup2)
{
	lookup_entered(NULL, false);
	return 0;
}

SEC("fentry/__find_get_block_nonatomic")
int BPF_PROG(fentry_lookup2_timed)
{
	lookup_entered(NULL, true);
	return 0;
}

/*
 * --timing where the exit may prove a lookup alone (no entry probe, or
 * one attached later): starts the sampled timings, and nothing else.
 */
SEC("fentry/__find_get_block")
int BPF_PROG(fentry_timing)
{
	struct lru_cpu_state *st = cpu_state_get();

	if (st)
		time_start(st, bpf_get_current_task_btf());
	return 0;
}

static __always_inline int lookup_exit(struct block_device *bdev,
				       sector_t block, unsigned int size,
				       struct buffer_head *ret, bool may_solo,
				       bool timed)
{
	struct lru_key key = { block, bdev->bd_dev, size };

	lookup_done(ret, &key, may_solo, false, timed);
	return 0;
}

SEC("fexit/__find_get_block")
int BPF_PROG(fexit_lookup, struct block_device *bdev, sector_t block,
	     unsigned int size, struct buffer_head *ret)
{
	return lookup_exit(bdev, block, size, ret, true, false);
}

SEC("fexit/__find_get_block")
int BPF_PROG(fexit_lookup_timed, struct block_device *bdev, sector_t block,
	     unsigned int size, struct buffer_head *ret)
{
	return lookup_exit(bdev, block, size, ret, true, true);
}

SEC("fexit/__find_get_block_nonatomic")
int BPF_PROG(fexit_lookup2, struct block_device *bdev, sector_t block,
	     unsigned int size, struct buffer_head *ret)
{
	return lookup_exit(bdev, block, size, ret, false, false);
}

SEC("fexit/__find_get_block_nonatomic")
int BPF_PROG(fexit_lookup2_timed, struct block_device *bdev, sector_t block,
	     unsigned int size, struct buffer_head *ret)
{
	return lookup_exit(bdev, block, size, ret, false, true);
}

SEC("fexit/find_get_block_common")
int BPF_PROG(fexit_lookup_common, struct block_device *bdev, sector_t block,
	     unsigned int size, bool atomic, struct buffer_head *ret)
{
	return lookup_exit(bdev, block, size, ret, false, false);
}

SEC("fexit/find_get_block_common")
int BPF_PROG(fexit_lookup_common_timed, struct block_device *bdev,
	     sector_t block, unsigned int size, bool atomic,
	     struct buffer_head *ret)
{
	return lookup_exit(bdev, block, size, ret, false, true);
}

/*
 * The deferred hook: one fentry program per lookup, which classifies the
 * lookup entered before it on this CPU from the change that one left in
 * the LRU (../shared/designs/lru-entry-probe.md, design A). Used where the
 * preemption model switches no task inside a lookup (none, voluntary,
 * watched): then, between two entries on a CPU, its LRU was changed only
 * by the first lookup and by emptyings, which lru_emptied_gen sees. A hit
 * moves a bh to the front, an install puts a new one there, and a lookup
 * that leaves the front as it was hit slot 0 if the front has its key,
 * else missed and installed nothing: absent, where lru_cache_disable()
 * provably stayed off (deferred_installing()), else unsynced.
 *
 * deferred_switch_check: where a lookup may sleep (6.12's nonatomic
 * lookup, in the page cache), a context switch on the CPU between two
 * entries lets a sleeper install here: switch_settle() settles the
 * pending lookup at each switch, before that.
 */
const volatile bool deferred_switch_check = false;
/* lru_disable_count's address (kallsyms), 0 if it is not a symbol. */
const volatile __u64 lru_disable_count_addr;
/*
 * lru_cache_disable() calls begun and ended, and whether both probes are
 * attached (user space sets it). Isolating a CPU at run time (6.12: a
 * cpuset partition) stops installs there too: isolation_seen, sticky.
 */
__u64 lru_disable_calls, lru_disable_done;
__u32 disable_watched, isolation_seen;
/* user space: the exit design took over after a preemption-model switch */
__u32 deferred_off;

SEC("fentry/lru_cache_disable")
int BPF_PROG(fentry_cache_disable)
{
	__sync_fetch_and_add(&lru_disable_calls, 1);
	return 0;
}

SEC("fexit/lru_cache_disable")
int BPF_PROG(fexit_cache_disable)
{
	__sync_fetch_and_add(&lru_disable_done, 1);
	return 0;
}

SEC("fentry/partition_xcpus_add")
int BPF_PROG(fentry_isolate)
{
	isolation_seen = 1;
	return 0;
}

/*
 * A zero snapshot (design 2.3): every call begun has ended and the count
 * is 0. Then while lru_disable_calls stays at this value the count stays
 * 0: a raise after this read belongs to a call begun after it.
 */
static __always_inline void disable_snapshot(struct lru_cpu_state *st)
{
	__u64 done = *(volatile __u64 *)&lru_disable_done;
	__u64 calls = *(volatile __u64 *)&lru_disable_calls;
	int count = 1;

	if (lru_disable_count_addr)
		bpf_probe_read_kernel(&count, sizeof(count),
				      (const void *)lru_disable_count_addr);
	st->pend.disable_ok = done == calls && !count;
	st->pend.disable_c0 = calls;
}

/*
 * Would the kernel have installed a bh the pending lookup found? Only
 * lru_cache_disable() (and on 6.12 CPU isolation) stops an install.
 * Proven if the last snapshot here said the count was 0 and no call
 * began since; else a new snapshot, and no.
 */
static __always_inline bool deferred_installing(struct lru_cpu_state *st)
{
	if (disable_watched && !isolation_seen && st->pend.disable_ok &&
	    *(volatile __u64 *)&lru_disable_calls == st->pend.disable_c0)
		return true;
	disable_snapshot(st);
	return false;
}

/*
 * What a settle may assume of the pending lookup:
 *   SETTLE_DONE      it ran to its end and nothing else changed this LRU
 *   SETTLE_SWITCHED  a task switch on this CPU since its entry: a sleeper
 *                    may have installed here, so only a hit is proven, by
 *                    the lookup's key at the front (a hit moved the bh of
 *                    that key there; nothing else can, since the lookup
 *                    would have hit a bh of its key first)
 *   SETTLE_LEAVING   its task is being switched out (switch_settle()):
 *                    any change is its own, but it may be asleep inside,
 *                    so a miss that changed nothing is not yet decided
 */
enum settle_how { SETTLE_DONE, SETTLE_SWITCHED, SETTLE_LEAVING };

/*
 * Whether a task switch on this CPU since the pending lookup's entry went
 * unsettled. Where a lookup may sleep, switch_settle() settles the
 * pending lookup at every switch here, before another task runs here:
 * so a lookup still pending ran to its end with no switch in it, unless
 * a switch_settle() here could not claim the state, which it marks until
 * the lookup is settled (and with LRU_GEN_RECHECK, so that the next entry
 * goes the long way, where this is asked).
 */
static __always_inline int deferred_how(const struct lru_cpu_state *st,
					bool may_sleep)
{
	if (!may_sleep)
		return SETTLE_DONE;
	return st->pend.switch_missed ? SETTLE_SWITCHED : SETTLE_DONE;
}

/*
 * Not proven: unsynced, and the model read again if the LRU disagrees
 * (resync: a change the model applied without knowing whose it was).
 * miss: proven a miss all the same (its install or absence unknown), as
 * lookup_unproven() counts them.
 */
static __always_inline void deferred_unsynced(struct lru_cpu_state *st,
					      struct buffer_head *const *bhs,
					      const struct lru_key *key,
					      bool resync, bool miss)
{
	struct lru_dev_stats *s;
	struct lru_result r = {
		.key = *key, .dist = -1, .slot = -1, .lru_size = lru_slots,
		.outcome = LRU_UNSYNCED,
	};
	__u64 lru0 = (__u64)bhs[0];

	if (resync || !st->sh.valid || !lru_shadow_holds(st, lru0, bhs)) {
		model_restart(st, bhs, st->sh.valid && !lru0);
		r.flags |= LRU_EV_RESTART;
	}
	lru_account(st, &r);
	if (miss) {
		s = dev_counted(st, key->dev);
		if (s)
			s->unsynced_misses++;
	}
}

/*
 * The pending lookup's key is the front's now. Word by word: a struct
 * copy had clang keep a pointer to it, and spill a register for that.
 */
static __always_inline void front_key_set(struct lru_cpu_state *st)
{
	st->pend.front_key.block = st->pend.key.block;
	*(ghost_u64 *)&st->pend.front_key.dev = lru_key_devsize(&st->pend.key);
}

/* Whether the bh at the LRU's front has key (read, and kept for later). */
static __always_inline bool deferred_front_is(struct lru_cpu_state *st,
					      struct buffer_head *const *bhs,
					      const struct lru_key *key)
{
	lru_key_of(bhs[0], &st->pend.front_key);
	st->pend.front_bh = (__u64)bhs[0];
	return lru_key_eq(&st->pend.front_key, key);
}

/*
 * Every pending lookup but a hit or install the short path counts. slot:
 * what shadow_to_front() said there, or -2 if it did not run.
 */
static __noinline int deferred_slow(struct lru_cpu_state *st,
				    struct buffer_head *const *bhs, int slot,
				    int how)
{
	struct lru_key key = st->pend.key;
	__u64 lru0 = (__u64)bhs[0], victim = 0;

	if (slot == -2) {
		if (!st->sh.valid || (how == SETTLE_SWITCHED &&
				      !(lru0 && deferred_front_is(st, bhs, &key)))) {
			deferred_unsynced(st, bhs, &key, false, false);
			return 0;
		}
		if (lru0 && lru0 != st->sh.bh[0]) {
			if (trace_events && !st->trace_synced)
				trace_snapshot(st);
			slot = shadow_to_front(&st->sh, (const void *)lru0);
		}
	}
	if (slot != -2) {
		/*
		 * after a switch, an install of its key may be another's; it
		 * missed all the same (it would have hit a bh of its key)
		 */
		if (how == SETTLE_SWITCHED && slot == -1) {
			deferred_unsynced(st, bhs, &key, true, true);
			return 0;
		}
		/* its hit or its install: nothing else changed this LRU */
		if (slot == -1)
			victim = shadow_installed(&st->sh);
		lookup_classify(st, bhs, lru0, (const void *)lru0, &key, slot,
				victim);
		return 0;
	}
	/* the front as it was, or an LRU empty before and after */
	if (!lru_shadow_holds(st, lru0, bhs) || (!lru0 && emptied_since(st))) {
		deferred_unsynced(st, bhs, &key, false, false);
		return 0;
	}
	if (lru0 && deferred_front_is(st, bhs, &key)) {
		slot = shadow_to_front(&st->sh, (const void *)lru0);
		lookup_classify(st, bhs, lru0, (const void *)lru0, &key, slot,
				0);
		return 0;
	}
	/*
	 * a miss that installed nothing: absent if installing was on (and it
	 * is not asleep in the page cache, about to install)
	 */
	if (how != SETTLE_DONE || !deferred_installing(st)) {
		deferred_unsynced(st, bhs, &key, false, true);
		return 0;
	}
	lookup_classify(st, bhs, lru0, NULL, &key, -2, 0);
	return 0;
}

/*
 * Classifies this CPU's pending lookup against the LRU as it is now. The
 * caller clears pend.gen (a lookup's entry sets it again after).
 * unseen_ruled_out: the caller found pend.gen as the pending lookup's
 * entry left it, so no change unseen was marked here since (lru_unseen()
 * marks LRU_GEN_RECHECK in it); the short paths then skip that test.
 * ghost: whether the ghost list is kept (!short_installs), as the
 * entry's twins for it (fentry_deferred_ghost*) know without a load; the
 * other settles ask deferred_ghost(). With it, a hit in the last slot and
 * an install take short calls that update it; without it every hit and
 * install is short (short_slots is the LRU's size), and those calls are
 * not in the code: in the entry they would take registers saved on
 * every run.
 */
static __always_inline void deferred_settle(struct lru_cpu_state *st,
					    struct buffer_head *const *bhs,
					    int how, bool unseen_ruled_out,
					    bool ghost)
{
	__u64 lru0 = (__u64)bhs[0];
	int slot = -2;

	/*
	 * never with --trace (deferred_wanted()): no records to send here;
	 * a lookup pending means a shadow read (deferred_first())
	 */
	if (unlikely(how == SETTLE_SWITCHED || !lru0))
		goto slow;
	if (lru0 != st->sh.bh[0]) {
		/*
		 * a hit in slot 1 or more, or an install, moves slot 0 to
		 * slot 1: checked first, so the walk below keeps no more
		 * than it needs
		 */
		if (unlikely((__u64)bhs[1] != st->sh.bh[0] ||
			     (!unseen_ruled_out && lru_unseen_pending(st))))
			goto slow;
		slot = shadow_to_front(&st->sh, (const void *)lru0);
		/* slot 0 cannot be: the front changed */
		if (likely(ghost ? (__u32)slot < short_slots : slot >= 0)) {
			lru_count_hit(st, st->pend.key.dev, slot);
		} else if (!ghost) {
			lru_count_install(st, st->pend.key.dev,
					  shadow_installed(&st->sh));
		} else if (slot >= 0) {
			lookup_hit_tail_short(st, bhs, st->pend.key.dev, slot);
		} else {
			lookup_installed_short(st, bhs, &st->pend.key,
					       shadow_installed(&st->sh));
		}
		/* its hit or its install put its own bh in front */
		st->pend.front_bh = lru0;
		front_key_set(st);
		return;
	}
	/* the front as it was, with its key: a hit in slot 0 */
	if (lru0 == st->pend.front_bh &&
	    lru_key_eq(&st->pend.front_key, &st->pend.key) &&
	    (__u64)bhs[1] == st->sh.bh[1] &&
	    (unseen_ruled_out || !lru_unseen_pending(st)) &&
	    !lone_front_ambiguous(st, 0)) {
		/* loaded anew: cut from the word compared above, it took 3 */
		lru_count_hit(st, *(volatile __u32 *)&st->pend.key.dev, 0);
		return;
	}
slow:
	st->pend.front_bh = 0;
	deferred_slow(st, bhs, slot, how);
}

/* Whether a lookup's entry left a lookup pending here. */
static __always_inline bool pend_valid(const struct lru_cpu_state *st)
{
	return (st->pend.gen & ~LRU_GEN_RECHECK) != 0;
}

/* Whether the ghost list is kept: for the settles outside the entry. */
static __always_inline bool deferred_ghost(void)
{
	return !short_installs;
}

/* Nothing pending here any more, nor its switch mark. */
static __always_inline void deferred_unpend(struct lru_cpu_state *st)
{
	st->pend.gen = 0;
	st->pend.switch_missed = 0;
}

/*
 * deferred_settle() outside a lookup's entry (a read, a task switch, a
 * dead CPU): the emptyings since the last entry are those it weighs.
 */
static __always_inline void deferred_settle_now(struct lru_cpu_state *st,
						struct buffer_head *const *bhs,
						int how)
{
	st->emptied_now = lru_emptied_gen;
	deferred_unpend(st);
	deferred_settle(st, bhs, how, false, deferred_ghost());
	st->emptied_seen = st->emptied_now;
}

/* Lookups the deferred hook saw but cannot count: lost. */
static __always_inline void deferred_lost(void)
{
	count_cpu(__builtin_offsetof(struct lru_cpu_counters, lookups_lost));
}

/*
 * The preemption model was switched: from now on a lookup may be
 * preempted inside, so nothing pending is proven, and the lookups until
 * user space has the exit design attached are lost (deferred_off: from
 * then on the exit counts them).
 */
static __always_inline void deferred_stopped(struct lru_cpu_state *st,
					     struct buffer_head *const *bhs)
{
	if (pend_valid(st)) {
		deferred_unpend(st);
		deferred_unsynced(st, bhs, &st->pend.key, false, false);
	}
	if (!deferred_off)
		deferred_lost();
}

/*
 * The first lookup here since the tracer started or a read settled the
 * last: nothing pending, so the LRU is read if the shadow does not hold.
 */
static __noinline int deferred_first(struct lru_cpu_state *st,
				     struct buffer_head *const *bhs)
{
	if (!st->sh.valid || !lru_shadow_holds(st, (__u64)bhs[0], bhs)) {
		model_restart(st, bhs, st->sh.valid && !bhs[0]);
		st->pend.front_bh = 0;	/* it may hold another bh */
	}
	/* a CPU's first lookup (since a read): proof ready for it */
	if (!st->pend.disable_ok)
		disable_snapshot(st);
	return 0;
}

/*
 * An entry that found lru_emptied_gen moved since the pending lookup's
 * (an LRU emptied, or the hook stopped), nothing pending, or
 * LRU_GEN_RECHECK: the long way, where the settle weighs the emptyings,
 * a change unseen and a task switch unsettled. Returns 1 if the hook
 * stopped: the lookup is not noted.
 */
static __noinline int deferred_entry_slow(struct lru_cpu_state *st,
					  struct buffer_head *const *bhs,
					  __u64 gen, bool may_sleep)
{
	int how;

	if ((gen & LRU_GEN_STOPPED) || solo_off) {
		deferred_stopped(st, bhs);
		return 1;
	}
	st->emptied_now = gen;
	if (!pend_valid(st)) {
		deferred_first(st, bhs);
	} else {
		how = deferred_how(st, may_sleep);
		st->pend.switch_missed = 0;
		deferred_settle(st, bhs, how, false, deferred_ghost());
	}
	/* from here on emptied_now and emptied_seen agree until gen moves */
	st->emptied_seen = gen;
	st->pend.gen = gen;
	/* a mark that landed before that store is kept (lru_pend_recheck()) */
	asm volatile("" ::: "memory");
	if (lru_unseen_pending(st) || st->pend.switch_missed)
		lru_pend_recheck(st);
	return 0;
}

/*
 * A lookup's entry. may_sleep: the lookup may sleep (6.12's nonatomic
 * one), as deferred_switch_check says; ghost: with the ghost list, as
 * short_installs says not. The entry comes as four programs, so that it
 * tests no flag for either. Its arguments are read from ctx last, after
 * the settle: held across it from the start, each took a register saved
 * on every run.
 *
 * The common case tests one number: lru_emptied_gen as the pending
 * lookup's entry read it (pend.gen). Unchanged, a lookup is pending, no
 * LRU was emptied since, the hook runs on, and no change unseen nor task
 * switch unsettled was marked here (LRU_GEN_RECHECK); emptied_now and
 * emptied_seen then agree (deferred_entry_slow() set both), and nothing
 * here needs to be stored but the lookup's key.
 */
static __always_inline int deferred_entry(__u64 *ctx, bool may_sleep,
					  bool ghost)
{
	struct buffer_head *const *bhs;
	struct lru_cpu_state *st;
	struct block_device *bdev;
	__u64 gen;

	/* tested apart first: a NULL held across the call took an instruction */
	if (!&bh_lrus)
		return 0;
	bhs = lru_this_cpu();
	st = cpu_state_get();
	if (unlikely(!st))
		return 0;
	if (unlikely(!state_claim(st))) {
		/* a settle in flight here (an IPI's): this lookup uncounted */
		deferred_lost();
		lru_unseen(st);
		return 0;
	}
	/* before the LRU is read: an emptying after it changes the number */
	gen = *(volatile __u64 *)&lru_emptied_gen;
	asm volatile("" ::: "memory");
	if (unlikely(gen != st->pend.gen)) {
		if (deferred_entry_slow(st, bhs, gen, may_sleep))
			goto out;
	} else {
		deferred_settle(st, bhs, SETTLE_DONE, true, ghost);
	}
	bdev = (struct block_device *)ctx[0];
	st->pend.key.block = ctx[1];
	st->pend.key.dev = bdev->bd_dev;
	st->pend.key.size = ctx[2];
out:
	state_release(st);
	return 0;
}

SEC("fentry/__find_get_block")
int BPF_PROG(fentry_deferred)
{
	return deferred_entry(ctx, false, false);
}

SEC("fentry/find_get_block_common")
int BPF_PROG(fentry_deferred_sleeps)
{
	return deferred_entry(ctx, true, false);
}

SEC("fentry/__find_get_block")
int BPF_PROG(fentry_deferred_ghost)
{
	return deferred_entry(ctx, false, true);
}

SEC("fentry/find_get_block_common")
int BPF_PROG(fentry_deferred_ghost_sleeps)
{
	return deferred_entry(ctx, true, true);
}

/*
 * Run by user space before each read, on each CPU from a thread pinned
 * there (not in an IPI, which may land between a lookup's entry and its
 * LRU step): settles the CPU's pending lookup, so a read counts every
 * lookup entered before it.
 */
SEC("raw_tp")
int settle_pending(void *ctx)
{
	struct buffer_head *const *bhs = lru_this_cpu();
	struct lru_cpu_state *st = cpu_state_get();

	if (!bhs || !st || !state_claim(st))
		return 0;
	if (pend_valid(st) && solo_off) {
		/* the model was switched: it may have been preempted inside */
		deferred_unpend(st);
		deferred_unsynced(st, bhs, &st->pend.key, false, false);
	} else if (pend_valid(st)) {
		deferred_settle_now(st, bhs,
				    deferred_how(st, deferred_switch_check));
	}
	state_release(st);
	return 0;
}

/*
 * A CPU is dead (buffer_exit_cpu_dead(), on another CPU, before it empties
 * the dead one's LRU): its last lookup ran to its end there, so it is
 * settled now against that LRU. Where a lookup may sleep, sched_switch
 * settled it already as the CPU went idle; a leftover proves a hit only.
 */
static __always_inline void deferred_settle_dead(__u32 cpu)
{
	struct buffer_head *const *bhs;
	struct lru_cpu_state *st;

	if (deferred_off || !&bh_lrus)
		return;
	st = bpf_map_lookup_percpu_elem(&cpu_state, &zero_key, cpu);
	bhs = (struct buffer_head *const *)bpf_per_cpu_ptr(&bh_lrus, cpu);
	if (!st || !bhs || !pend_valid(st) || !state_claim(st))
		return;
	if (pend_valid(st) && !solo_off)
		deferred_settle_now(st, bhs, deferred_switch_check ?
					     SETTLE_SWITCHED : SETTLE_DONE);
	state_release(st);
}

/*
 * This CPU's LRU is about to be emptied: its pending lookup is settled
 * first, against the LRU it left, where at the next entry the emptying
 * would leave it unsynced. Set where the deferred hook runs.
 *   The drain work (invalidate_bh_lrus_cpu(), from lru_add_drain_all()
 *   or lru_cache_disable()) is a task on this CPU, never inside a
 *   lookup: always.
 *   The IPI (invalidate_bh_lru(), interrupts off) may land between a
 *   lookup's entry and its LRU step: only if the LRU's front moved since
 *   the entry, which only the lookup's own step (a hit or an install,
 *   each with interrupts off) could do; else it stays pending, for the
 *   next entry (in_ipi).
 */
const volatile bool deferred_settles_emptying = false;

static __always_inline void deferred_settle_emptying(bool in_ipi)
{
	struct buffer_head *const *bhs = lru_this_cpu();
	struct lru_cpu_state *st = cpu_state_get();
	__u64 lru0;

	if (deferred_off || !bhs || !st || !pend_valid(st) || !state_claim(st))
		return;
	lru0 = (__u64)bhs[0];
	if (pend_valid(st) && !solo_off &&
	    (!in_ipi || (st->sh.valid && lru0 && lru0 != st->sh.bh[0])))
		deferred_settle_now(st, bhs,
				    deferred_how(st, deferred_switch_check));
	state_release(st);
}

/* The deferred hook's own program there: the exit design loads none. */
SEC("fentry/buffer_exit_cpu_dead")
int BPF_PROG(dead_settle, unsigned int cpu)
{
	deferred_settle_dead(cpu);
	return 0;
}

/*
 * Where a lookup may sleep: every task switch settles this CPU's pending
 * lookup before another task can run here (and install, if it slept in
 * its own lookup). The task leaving is the lookup's, with no switch
 * since its entry (the last switch here settled what was pending then),
 * so any change is its own; if a switch here went unsettled, only a hit
 * is proven. A tracepoint program is skipped only when it recurses, which
 * a switch cannot inside it, and no program that claims the state can
 * switch where the deferred hook runs; a failed claim is marked all the
 * same.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(switch_settle, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	struct buffer_head *const *bhs;
	struct lru_cpu_state *st = cpu_state_get();

	if (!st || !pend_valid(st))
		return 0;
	bhs = lru_this_cpu();
	if (!bhs || !state_claim(st)) {
		st->pend.switch_missed = 1;
		lru_pend_recheck(st);
		return 0;
	}
	if (pend_valid(st) && !solo_off)
		deferred_settle_now(st, bhs, st->pend.switch_missed ?
					     SETTLE_SWITCHED : SETTLE_LEAVING);
	state_release(st);
	return 0;
}

/*
 * kprobe/kretprobe, attached by user space to the same function(s). A
 * kretprobe has no arguments: the entry keeps the key for it, and a
 * return that cannot prove the entry was its own takes the key from the
 * bh it returns (or has none), never a stale entry's.
 */
static __always_inline int kprobe_entered(struct block_device *bdev,
					  sector_t block, unsigned int size,
					  bool timed)
{
	struct lru_key key = {
		.block = block, .dev = BPF_CORE_READ(bdev, bd_dev),
		.size = size,
	};

	lookup_entered(&key, timed);
	return 0;
}

SEC("kprobe/__find_get_block")
int BPF_KPROBE(kprobe_lookup, struct block_device *bdev, sector_t block,
	       unsigned int size)
{
	return kprobe_entered(bdev, block, size, false);
}

SEC("kprobe/__find_get_block")
int BPF_KPROBE(kprobe_lookup_timed, struct block_device *bdev,
	       sector_t block, unsigned int size)
{
	return kprobe_entered(bdev, block, size, true);
}

SEC("kretprobe/__find_get_block")
int BPF_KRETPROBE(kretprobe_lookup, struct buffer_head *ret)
{
	lookup_done(ret, NULL, false, true, false);
	return 0;
}

SEC("kretprobe/__find_get_block")
int BPF_KRETPROBE(kretprobe_lookup_timed, struct buffer_head *ret)
{
	lookup_done(ret, NULL, false, true, true);
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

	if (!bhs || !st || !state_claim(st))
		return 0;	/* in flight here: its lookups resync */
	if (!st->sh.valid)
		model_restart(st, bhs, false);
	/* the deferred hook's proof of absent, for the first lookup here */
	disable_snapshot(st);
	state_release(st);
	return 0;
}

/*
 * The preemption model is being switched (PREEMPT_DYNAMIC, through
 * debugfs's sched/preempt). Each switch first turns kernel preemption on,
 * whatever the new model (kernel/sched/core.c), so any call ends what an
 * exit probe alone can prove.
 */
SEC("fentry/sched_dynamic_update")
int BPF_PROG(watch_preempt)
{
	__sync_fetch_and_or(&solo_off, LRU_SOLO_SWITCHED);
	__sync_fetch_and_or(&lru_emptied_gen, LRU_GEN_STOPPED);
	return 0;
}

/*
 * Where PREEMPT_DYNAMIC's model is (none 0, voluntary 1, full 2; 6.13:
 * lazy 3), from user space's own kallsyms read: a typeless __ksym would
 * make libbpf read all of kallsyms again at every load.
 */
const volatile __u64 preempt_mode_addr;

/* read_preempt_mode()'s answer: the model, or -1 if it is not a symbol. */
int preempt_mode_now = -1;

/* Run by user space (BPF_PROG_TEST_RUN): reads the model the kernel uses. */
SEC("raw_tp")
int read_preempt_mode(void *ctx)
{
	int mode;

	if (!preempt_mode_addr ||
	    bpf_probe_read_kernel(&mode, sizeof(mode),
				  (const void *)preempt_mode_addr))
		mode = -1;
	preempt_mode_now = mode;
	return 0;
}

/*
 * Run by user space on each CPU when the kernel counted skipped runs of
 * the lookup probes: lookups may have changed any CPU's LRU unseen, so
 * each CPU's next check is slot by slot. An atomic add, as a probe that
 * finds the state busy does: it may land inside a probe there.
 */
SEC("raw_tp")
int mark_unseen(void *ctx)
{
	struct lru_cpu_state *st = cpu_state_get();

	if (st)
		lru_unseen(st);
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

	if (!st || !forget_owner || !state_claim(st))
		return 0;	/* busy: the next prune tries again */
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
	state_release(st);
	return 0;
}

/*
 * Invalidations and installs: counters, where the functions are symbols.
 * invalidate_bh_lrus() empties other CPUs' LRUs later, in its IPIs: the
 * proof that no LRU was emptied moves there (note_emptying()).
 */
static __always_inline int count_invalidate_all(void)
{
	struct lru_cpu_counters *c = cpu_counters_get();

	if (c)
		c->invalidate_all++;
	return 0;
}

/*
 * An LRU is emptied next, with no lookup of its CPU in between: in the
 * IPI body of invalidate_bh_lrus() (invalidate_bh_lru(), interrupts off,
 * on the CPU it empties), in buffer_exit_cpu_dead() (a dead CPU's, from
 * another). Watched at the entry of invalidate_bh_lrus(), a lookup's exit
 * between the count and the IPI took the old number for proof.
 */
static __always_inline int note_emptying(void)
{
	__sync_fetch_and_add(&lru_emptied_gen, 1);
	return 0;
}

static __always_inline int count_invalidate_cpu(void)
{
	struct lru_cpu_counters *c = cpu_counters_get();

	if (deferred_settles_emptying)
		deferred_settle_emptying(false);
	__sync_fetch_and_add(&lru_emptied_gen, 1);
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

SEC("fentry/invalidate_bh_lru")
int BPF_PROG(fentry_emptying_ipi)
{
	if (deferred_settles_emptying)
		deferred_settle_emptying(true);
	return note_emptying();
}

SEC("fentry/buffer_exit_cpu_dead")
int BPF_PROG(fentry_emptying_dead)
{
	return note_emptying();
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
 * As kprobes the kernel skips them while a BPF program or map copy holds
 * the CPU (bpf_prog_active): the IPI's, when it interrupts the lookup's
 * own kprobe. User space trusts them only where those runs are counted.
 */
SEC("kprobe/invalidate_bh_lru")
int BPF_KPROBE(kprobe_emptying_ipi)
{
	return note_emptying();
}

SEC("kprobe/buffer_exit_cpu_dead")
int BPF_KPROBE(kprobe_emptying_dead)
{
	return note_emptying();
}

/*
 * Degraded mode: touch_buffer() has one caller, the LRU-hit branch of the
 * lookup, so this tracepoint counts hits per CPU; nothing else is known.
 * As a BTF tracepoint where the kernel allows one (no perf buffer: a third
 * of the classic one's cost in make bench), else the classic one.
 */
static __always_inline void degraded_hit(__u32 dev)
{
	struct lru_cpu_state *st = cpu_state_get();
	struct lru_dev_stats *s = st ? dev_counted(st, dev) : NULL;

	if (s)
		s->hits++;
}

SEC("tp_btf/block_touch_buffer")
int BPF_PROG(tp_btf_touch_buffer, struct buffer_head *bh)
{
	degraded_hit(bh->b_bdev->bd_dev);
	return 0;
}

SEC("tracepoint/block/block_touch_buffer")
int tp_touch_buffer(struct trace_event_raw_block_buffer *ctx)
{
	degraded_hit(ctx->dev);
	return 0;
}

/*
 * A livepatch transition starts, enabling or disabling a patch: who runs
 * the lookup may change, and change back, between two reads of
 * /sys/kernel/livepatch. User space compares the count at every read.
 */
__u64 livepatch_gen;

SEC("fentry/klp_start_transition")
int BPF_PROG(fentry_livepatch)
{
	__sync_fetch_and_add(&livepatch_gen, 1);
	return 0;
}

SEC("kprobe/klp_start_transition")
int BPF_KPROBE(kprobe_livepatch)
{
	__sync_fetch_and_add(&livepatch_gen, 1);
	return 0;
}

/*
 * bhtune.ko owns the LRU: its tracepoints say what each lookup did, read
 * as raw tracepoints (see lru_bhtune.h).
 */
SEC("raw_tp/bhtune_lookup")
int BPF_PROG(raw_bhtune_lookup, const struct bhtune_lookup_record *li)
{
	struct lru_cpu_state *st = cpu_state_get();
	struct lru_result r = { .dist = -1, .slot = -1 };
	struct bhtune_lookup_record e;
	struct lru_key victim;
	__u32 cap;
	int depth;

	if (!st || bpf_probe_read_kernel(&e, sizeof(e), li))
		return 0;
	r.key.block = e.block;
	r.key.dev = e.dev;
	r.key.size = e.size;
	r.lru_size = e.lru_size;
	r.flags = (e.found ? LRU_EV_FOUND : 0) |
		  (e.slot >= 0 || e.installed ? LRU_EV_FRONT : 0);
	if (e.slot >= 0) {
		r.outcome = LRU_HIT;
		r.slot = e.slot;
		r.dist = e.slot;
	} else if (!e.found) {
		r.outcome = LRU_MISS_ABSENT;
		/* see lookup_absent() */
		if (ghost_cap(e.lru_size) &&
		    ghost_find(&st->ghost, &r.key) >= 0)
			count_cpu(__builtin_offsetof(struct lru_cpu_counters,
						     ghost_absent));
	} else if (!e.installed) {
		r.outcome = LRU_MISS_NOT_INSTALLED;
		cap = ghost_cap(e.lru_size);
		depth = cap ? ghost_find(&st->ghost, &r.key) : -1;
		if (depth >= 0) {
			r.dist = e.lru_size + depth;
			count_cpu(__builtin_offsetof(struct lru_cpu_counters,
						     ghost_not_installed));
		}
	} else {
		r.outcome = LRU_MISS_INSTALLED;
		r.evicted = e.evict_size != 0;
		cap = ghost_cap(e.lru_size);
		if (cap) {
			depth = ghost_take(&st->ghost, &r.key);
			if (depth >= 0)
				r.dist = e.lru_size + depth;
			victim.block = e.evict_block;
			victim.dev = e.evict_dev;
			victim.size = e.evict_size;
			if (r.evicted)
				ghost_push(&st->ghost, &victim, cap);
		}
	}
	if (e.slot >= 0 || r.outcome == LRU_MISS_INSTALLED)
		st->nonempty = 1;
	lru_account(st, &r);
	return 0;
}

SEC("raw_tp/bhtune_invalidate")
int BPF_PROG(raw_bhtune_invalidate, __u32 cpu)
{
	struct lru_cpu_state *st;

	st = bpf_map_lookup_percpu_elem(&cpu_state, &zero_key, cpu);
	if (!st)
		return 0;
	lru_restart(st);
	if (trace_events)
		trace_reset(st, cpu);
	return 0;
}
