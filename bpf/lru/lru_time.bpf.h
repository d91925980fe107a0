/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sampled lookup times (--timing): one lookup in time_every per CPU is
 * timed from its entry probe to its exit probe and counted by outcome
 * class (lru_stats.h), per device and CPU. A time counts only when the
 * exit proves it is its own entry's lookup, never switched out in
 * between: a lookup that slept or was preempted is dropped, not timed
 * with another task's run inside it.
 */
#ifndef BHSCOPE_LRU_TIME_BPF_H
#define BHSCOPE_LRU_TIME_BPF_H

#include "log2.bpf.h"
#include "lru_state.bpf.h"

/*
 * Time one lookup in this many per CPU, of those the timing sees (user
 * space may attach the program that starts timings for windows only).
 */
__u32 time_every = 1;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, BHSCOPE_MAX_DEVS);
	__type(key, __u32);
	__type(value, struct lru_time_stats);
} lookup_time SEC(".maps");

static const struct lru_time_stats zero_time;

/* For user space, which reads time_seen out of each CPU's state. */
const volatile __u32 cpu_time_seen_at = __builtin_offsetof(struct lru_cpu_state,
							   timer.seen);

/* A task's context switches (voluntary and not). */
static __always_inline __u64 task_switches(const struct task_struct *t)
{
	return t->nvcsw + t->nivcsw;
}

static __always_inline void time_dropped(void)
{
	struct lru_cpu_counters *c = cpu_counters_get();

	if (c)
		c->time_dropped++;
}

/*
 * At a lookup's entry: every time_every-th here is timed (the first one
 * seen included). Its task goes last, its switch count first: whatever
 * preempts this in between makes the exit's check fail.
 */
static __always_inline void time_sample(struct lru_cpu_state *st,
					struct task_struct *t, __u64 seen)
{
	if (seen < st->timer.next)
		return;
	st->timer.next = seen + (time_every ?: 1);
	st->timer.task = 0;
	st->timer.nsw = task_switches(t);
	asm volatile("" ::: "memory");
	st->timer.t0 = bpf_ktime_get_ns();
	asm volatile("" ::: "memory");
	st->timer.task = (__u64)t;
}

/* A timed lookup whose exit has not run (yet): its time is dropped. */
static __always_inline void time_abandon(struct lru_cpu_state *st)
{
	if (!st->timer.task)
		return;
	st->timer.task = 0;
	time_dropped();
}

/*
 * fentry_timing's, where no entry probe runs: a lookup of this task timed
 * here never reached its exit probe if it is still on.
 */
static __always_inline void time_start(struct lru_cpu_state *st,
				       struct task_struct *t)
{
	__u64 seen = ++st->timer.seen;

	if (st->timer.task == (__u64)t)
		time_abandon(st);
	time_sample(st, t, seen);
}

/*
 * The entry probe's: it calls time_abandon() itself where a lookup that
 * entered here has not reached its exit, which every timed one left on
 * is (each exit stops the timer first, and only exits clear the entry's
 * mark), so the common path holds no check of its own.
 */
static __always_inline void time_start_entry(struct lru_cpu_state *st,
					     struct task_struct *t)
{
	time_sample(st, t, ++st->timer.seen);
}

/* At a lookup's exit, first: its time, if its own entry started one. */
static __always_inline void time_stop(struct lru_cpu_state *st)
{
	struct task_struct *t;
	__u64 task = st->timer.task;

	if (!task)
		return;
	st->timer.task = 0;
	t = bpf_get_current_task_btf();
	if (task != (__u64)t || st->timer.nsw != task_switches(t)) {
		time_dropped();
		return;
	}
	st->timer.dt = bpf_ktime_get_ns() - st->timer.t0 ?: 1;
}

/* Counts the time of a lookup of class cls on dev. Out of line: rare. */
static __noinline int time_count(__u32 dev, int cls, __u64 dt)
{
	struct lru_time_stats *t;
	int g;

	if (cls < 0 || cls >= LRU_TIME_CLASSES) {
		time_dropped();	/* unsynced: no class to time */
		return 0;
	}
	if (target_dev && dev != target_dev)
		return 0;
	t = map_lookup_or_init(&lookup_time, &dev, &zero_time);
	if (!t) {
		time_dropped();	/* no room for dev: not timed, and said so */
		return 0;
	}
	t->n[cls]++;
	t->ns[cls] += dt;
	g = lru_time_group_of(cls);
	if (g >= 0 && g < LRU_NR_TIME_GROUPS)
		t->hist[g][log2_slot(dt)]++;
	return 0;
}

/* An exit that counted no class: its time is dropped. */
static __always_inline void time_forget(struct lru_cpu_state *st)
{
	if (!st->timer.dt)
		return;
	time_dropped();
	st->timer.dt = 0;
}

#endif /* BHSCOPE_LRU_TIME_BPF_H */
