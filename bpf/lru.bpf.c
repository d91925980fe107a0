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
 *                                       they are symbols (counters only)
 *   tracepoint block:block_touch_buffer hits only: no fentry, no kprobes
 *                                       (BTF tracepoint, else classic)
 *   tracepoints bhtune:*                bhtune.ko owns the LRU
 *
 * Nothing is guessed. The exit classifies a lookup only when it can prove
 * the LRU change it sees is this lookup's, on this CPU: the entry probe
 * left this task and its context-switch count, and they still hold
 * (lookup_proven()). A lookup preempted, migrated or asleep in between is
 * unsynced (a NULL return is absent wherever it ran). An invalidation IPI
 * is the one change an interrupt makes, and it empties the LRU, which the
 * shadow sees. A change the model did not see (a lookup whose exit ran
 * elsewhere) is found at the next entry here, and the model starts from
 * the LRU as it is. Left undetected: several unseen changes that leave
 * slots 0 and 1 as they were (see shadow_matches()). A lookup whose exit
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
	depth = ghost_take(&st->ghost, &r->key);
	if (depth >= 0)
		r->dist = lru_slots + depth;
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
	return slot == 0 && !st->sh.bh[1] &&
	       (!emptied_watched || st->emptied_now != st->emptied_seen);
}

/* Not proven a hit (lone_front_ambiguous()): unsynced, the model kept. */
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
	if (!shadow_matches(&st->sh, lru0, bhs) || r.outcome == LRU_UNSYNCED) {
		lookup_unexplained(st, bhs, ret, &r);
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
	}
	lru_account(st, &r);
	tail_note(st, bhs);
}

/* A task's context switches (voluntary and not). */
static __always_inline __u64 task_switches(const struct task_struct *t)
{
	return t->nvcsw + t->nivcsw;
}

/*
 * The entry of a lookup, on the CPU it starts on: which task, and its
 * context switches, so that the exit can prove it ran here throughout
 * (lookup_proven()). key: the arguments, for a kretprobe (NULL for fexit,
 * which has them).
 */
static __always_inline void lookup_entered(const struct lru_key *key)
{
	struct buffer_head *const *bhs = lru_this_cpu();
	struct lru_cpu_state *st = cpu_state_get();
	struct task_struct *t;

	if (!bhs || !st)
		return;
	if (key && count_runs)	/* kprobe mode */
		__sync_fetch_and_add(&st->entries, 1);
	if (!state_claim(st))
		return;		/* its exit finds no entry: unsynced */
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
	if (!st->sh.valid || !shadow_matches(&st->sh, (__u64)bhs[0], bhs))
		model_restart(st, bhs, st->sh.valid && !bhs[0]);
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
static __always_inline bool lookup_proven(struct lru_cpu_state *st)
{
	struct task_struct *t = bpf_get_current_task_btf();
	bool own = st->in.task == (__u64)t && st->in.nsw == task_switches(t);

	st->in.task = 0;
	return own;
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
				      const struct lru_key *key)
{
	__u64 lru0 = (__u64)bhs[0];
	struct lru_result r = {
		.dist = -1, .slot = -1, .lru_size = lru_slots,
		.flags = lookup_flags(ret, lru0),
		.outcome = ret ? LRU_UNSYNCED : LRU_MISS_ABSENT,
	};

	/* it may have changed this LRU, or another CPU's: re-read if so */
	if (!st->sh.valid || !shadow_matches(&st->sh, lru0, bhs)) {
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
static __always_inline bool lookup_trusted(struct lru_cpu_state *st,
					   bool may_solo)
{
	__u32 off;

	if (!may_solo)
		return lookup_proven(st);
	off = solo_off;
	if (!off)
		return true;
	return off & LRU_SOLO_ENTRY ? lookup_proven(st) : false;
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
					bool may_solo, bool kprobe)
{
	struct buffer_head *const *bhs = lru_this_cpu();
	struct lru_cpu_state *st = cpu_state_get();
	int slot = -2;

	if (!bhs || !st)
		return;
	if (kprobe && count_runs)
		__sync_fetch_and_add(&st->exits, 1);
	if (!state_claim(st)) {
		/* another probe here was preempted inside: not counted */
		count_cpu(__builtin_offsetof(struct lru_cpu_counters,
					     lookups_lost));
		return;
	}
	/* before the LRU is read: an emptying after it changes the number */
	st->emptied_now = lru_emptied_gen;
	if (!lookup_trusted(st, may_solo)) {
		lookup_unproven(st, bhs, ret, key);
		goto out;
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
		if (!shadow_rest_matches(&st->sh, bhs))
			goto slow;
		if ((__u32)slot < short_slots &&
		    !lone_front_ambiguous(st, slot)) {
			lru_count_hit(st, key->dev, slot);
			goto out;
		}
		/* so is an install into a shadow read from the LRU */
		if (slot == -1 && short_installs && st->sh.valid) {
			lru_count_install(st, key->dev,
					  shadow_installed(&st->sh));
			goto out;
		}
	}
slow:
	lookup_slow(st, bhs, ret, key, slot);
out:
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
SEC("fentry/__find_get_block")
int BPF_PROG(fentry_lookup)
{
	lookup_entered(NULL);
	return 0;
}

SEC("fentry/__find_get_block_nonatomic")
int BPF_PROG(fentry_lookup2)
{
	lookup_entered(NULL);
	return 0;
}

SEC("fexit/__find_get_block")
int BPF_PROG(fexit_lookup, struct block_device *bdev, sector_t block,
	     unsigned int size, struct buffer_head *ret)
{
	struct lru_key key = { block, bdev->bd_dev, size };

	lookup_done(ret, &key, true, false);
	return 0;
}

SEC("fexit/__find_get_block_nonatomic")
int BPF_PROG(fexit_lookup2, struct block_device *bdev, sector_t block,
	     unsigned int size, struct buffer_head *ret)
{
	struct lru_key key = { block, bdev->bd_dev, size };

	lookup_done(ret, &key, false, false);
	return 0;
}

SEC("fexit/find_get_block_common")
int BPF_PROG(fexit_lookup_common, struct block_device *bdev, sector_t block,
	     unsigned int size, bool atomic, struct buffer_head *ret)
{
	struct lru_key key = { block, bdev->bd_dev, size };

	lookup_done(ret, &key, false, false);
	return 0;
}

/*
 * kprobe/kretprobe, attached by user space to the same function(s). A
 * kretprobe has no arguments: the entry keeps the key for it, and a
 * return that cannot prove the entry was its own takes the key from the
 * bh it returns (or has none), never a stale entry's.
 */
SEC("kprobe/__find_get_block")
int BPF_KPROBE(kprobe_lookup, struct block_device *bdev, sector_t block,
	       unsigned int size)
{
	struct lru_key key = {
		.block = block, .dev = BPF_CORE_READ(bdev, bd_dev),
		.size = size,
	};

	lookup_entered(&key);
	return 0;
}

SEC("kretprobe/__find_get_block")
int BPF_KRETPROBE(kretprobe_lookup, struct buffer_head *ret)
{
	lookup_done(ret, NULL, false, true);
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

/* Invalidations and installs: counters, where the functions are symbols. */
static __always_inline int count_invalidate_all(void)
{
	struct lru_cpu_counters *c = cpu_counters_get();

	__sync_fetch_and_add(&lru_emptied_gen, 1);
	if (c)
		c->invalidate_all++;
	return 0;
}

static __always_inline int count_invalidate_cpu(void)
{
	struct lru_cpu_counters *c = cpu_counters_get();

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
 * A CPU hotplug step: a dead CPU's LRU is emptied (buffer_exit_cpu_dead(),
 * run on another CPU), unseen by its next lookup's exit but for this.
 * A raw tracepoint: attached by name, it needs neither tracefs (a classic
 * one's id) nor a BTF flavour, and its skipped runs are counted.
 */
SEC("raw_tp/cpuhp_enter")
int raw_cpuhp_enter(void *ctx)
{
	__sync_fetch_and_add(&lru_emptied_gen, 1);
	return 0;
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
	r.flags = (ctx->found ? LRU_EV_FOUND : 0) |
		  (ctx->slot >= 0 || ctx->installed ? LRU_EV_FRONT : 0);
	if (ctx->slot >= 0) {
		r.outcome = LRU_HIT;
		r.slot = ctx->slot;
		r.dist = ctx->slot;
	} else if (!ctx->found) {
		r.outcome = LRU_MISS_ABSENT;
	} else if (!ctx->installed) {
		r.outcome = LRU_MISS_NOT_INSTALLED;
		cap = ghost_cap(ctx->lru_size);
		depth = cap ? ghost_find(&st->ghost, &r.key) : -1;
		if (depth >= 0) {
			r.dist = ctx->lru_size + depth;
			count_cpu(__builtin_offsetof(struct lru_cpu_counters,
						     ghost_not_installed));
		}
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

	st = bpf_map_lookup_percpu_elem(&cpu_state, &zero_key, ctx->cpu);
	if (!st)
		return 0;
	lru_restart(st);
	if (trace_events)
		trace_reset(st, ctx->cpu);
	return 0;
}
