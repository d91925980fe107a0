// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the LRU tracer's maps into snapshots, and forgetting devices:
 * the per-CPU state (its device buckets) and the dev_stats hash map.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/cpu_busy.h"
#include "lib/errmsg.h"
#include "lib/map_each.h"
#include "lib/prog_misses.h"
#include "lib/ticker.h"
#include "lru.skel.h"
#include "lru/lru_session.h"

/* One CPU's value in a per-CPU map's copy: values are 8-byte aligned. */
static size_t cpu_state_stride(const struct lru_session *s)
{
	return (bpf_map__value_size(s->skel->maps.cpu_state) + 7) & ~(size_t)7;
}

/* Bucket b of cpu, in a copy of every CPU's struct lru_cpu_state. */
static struct lru_dev_bucket *cpu_bucket(const struct lru_session *s,
					 void *states, int cpu, unsigned int b)
{
	char *state = (char *)states + cpu_state_stride(s) * cpu;

	return (struct lru_dev_bucket *)(state + s->skel->rodata->cpu_buckets_at) + b;
}

/* Copies every CPU's state, for its buckets. NULL, with errno, on failure. */
static void *read_cpu_states(const struct lru_session *s)
{
	void *states = calloc(s->nr_cpus, cpu_state_stride(s));
	__u32 zero = 0;

	if (states && bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.cpu_state),
					  &zero, states)) {
		free(states);
		return NULL;
	}
	return states;
}

/* A u64 at offset off of cpu's state, in a copy of every CPU's. */
static __u64 cpu_state_u64(const struct lru_session *s, const void *states,
			   int cpu, __u32 off)
{
	const char *state = (const char *)states + cpu_state_stride(s) * cpu;

	return *(const __u64 *)(state + off);
}

/*
 * The probe counts each lookup's outcome only: lookups is their sum. Not
 * in the hits-only tracepoint mode, which sees no lookups. With the lookup
 * hooks a hit is counted by its distance only (its slot, below the LRU's
 * size, where no other lookup has one): hits is their sum.
 */
static void sum_lookups(const struct lru_session *s, struct lru_dev_stats *d)
{
	if (!lru_hooks_classify(&s->hooks))
		return;
	if (s->hooks.mode == LRU_MODE_FENTRY ||
	    s->hooks.mode == LRU_MODE_KPROBE) {
		d->hits = 0;
		for (int i = 0; i < s->hooks.lru_size &&
				i < BHSCOPE_LRU_DEPTH_MAX; i++)
			d->hits += d->dist[i];
	}
	d->lookups = 0;
	for (int o = 0; o < LRU_NR_LOOKUP_OUTCOMES; o++)
		d->lookups += d->outcomes[o];
}

/*
 * Adds every CPU's buckets, and puts its entry and exit probe runs into
 * counters (nr_cpus of them).
 */
static int read_buckets(const struct lru_session *s, struct lru_snapshot *snap,
			struct lru_cpu_counters *counters)
{
	void *states = read_cpu_states(s);
	struct lru_dev_bucket *d;
	int err = 0;

	if (!states)
		return -errno;
	for (int c = 0; c < s->nr_cpus; c++) {
		counters[c].entries = cpu_state_u64(s, states, c,
						    s->skel->rodata->cpu_entries_at);
		counters[c].exits = cpu_state_u64(s, states, c,
						  s->skel->rodata->cpu_exits_at);
		counters[c].time_seen = cpu_state_u64(s, states, c,
						      s->skel->rodata->cpu_time_seen_at);
	}
	for (int c = 0; c < s->nr_cpus && !err; c++) {
		for (unsigned int b = 0; b < BHSCOPE_LRU_DEV_BUCKETS && !err; b++) {
			d = cpu_bucket(s, states, c, b);
			if (!d->owner)
				continue;
			sum_lookups(s, &d->s);
			err = lru_snapshot_add_cpu(snap, d->owner - 1, c,
						   &d->s);
		}
	}
	free(states);
	return err;
}

/* Which attached programs prog_misses_of() sums. */
enum misses_of { LOOKUP_ENTRY, LOOKUP_EXIT, SEES_EMPTIED, SEES_DISABLE };

static bool is(const struct lru_attached *a, enum misses_of which)
{
	switch (which) {
	case LOOKUP_ENTRY:
		return a->per_lookup && !a->lookup_exit && !a->timing;
	case LOOKUP_EXIT:
		return a->lookup_exit;
	case SEES_DISABLE:
		return a->sees_disable;
	default:
		return a->sees_emptied;
	}
}

/*
 * Runs the kernel skipped of the attached programs of one role: its
 * recursion guard (a second run on the CPU while the first is inside the
 * program, preempted; for kprobes and classic tracepoints, also any BPF
 * program or map copy busy there) counts them in recursion_misses.
 */
static uint64_t prog_misses_of(const struct lru_session *s,
			       enum misses_of which)
{
	uint64_t n = 0;

	for (int i = 0; i < s->nr_att; i++)
		if (s->att[i].link && is(&s->att[i], which))
			n += prog_misses(s->att[i].prog);
	return n;
}

/* Whether the kernel counts the skipped runs of every program that runs. */
static bool misses_known(const struct lru_session *s)
{
	for (int i = 0; i < s->nr_att; i++) {
		const struct lru_attached *a = &s->att[i];

		if (a->link && (a->per_lookup || a->sees_emptied) &&
		    !prog_misses_counted(a->prog))
			return false;
	}
	return true;
}

/*
 * Runs of the lookup's probes the kernel skipped changed LRUs unseen:
 * every CPU compares its shadow slot by slot at its next probe. A skipped
 * run of an emptying watch leaves an emptying unseen: from then on no
 * exit takes the count for proof (lone_front_ambiguous()).
 */
static void react_to_misses(struct lru_session *s, const struct lru_snapshot *snap)
{
	uint64_t lookups = snap->entry_misses + snap->exit_misses;
	char at[16];

	if (lookups != s->lookup_misses) {
		s->lookup_misses = lookups;
		lru_session_run_on_each_cpu(s, s->skel->progs.mark_unseen);
	}
	if (snap->emptied_misses &&
	    __atomic_exchange_n(&s->skel->bss->emptied_watched, 0, __ATOMIC_SEQ_CST)) {
		ticker_timestamp(at, sizeof(at));
		errmsg("%s the kernel skipped %llu runs of the probes that watch LRUs being emptied: a slot-0 hit in an LRU of one entry is unsynced from now on",
		       at, (unsigned long long)snap->emptied_misses);
	}
	/* the deferred hook's proof that a found bh would have been installed */
	if (prog_misses_of(s, SEES_DISABLE) &&
	    __atomic_exchange_n(&s->skel->bss->disable_watched, 0, __ATOMIC_SEQ_CST)) {
		ticker_timestamp(at, sizeof(at));
		errmsg("%s the kernel skipped runs of the probes that count lru_cache_disable() calls: a miss that left the LRU as it was is unsynced from now on",
		       at);
	}
}

/* What the map walks of a read add to. */
struct read_ctx {
	const struct lru_session *s;
	struct lru_snapshot *snap;
};

static int add_dev(__u32 kdev, void *values, void *arg)
{
	struct read_ctx *r = arg;
	struct lru_dev_stats *percpu = values;

	for (int c = 0; c < r->s->nr_cpus; c++)
		sum_lookups(r->s, &percpu[c]);
	return lru_snapshot_add_dev(r->snap, kdev, percpu);
}

static int add_times(__u32 kdev, void *values, void *arg)
{
	struct read_ctx *r = arg;

	return lru_snapshot_add_times(r->snap, kdev, values);
}

int lru_session_read(struct lru_session *s, struct lru_snapshot *snap)
{
	int counters_fd = bpf_map__fd(s->skel->maps.cpu_counters);
	struct lru_cpu_counters *counters = NULL, *runs = NULL;
	struct read_ctx r = { .s = s, .snap = snap };
	__u32 zero = 0;
	uint64_t busy;
	int err;

	snap->nr_cpus = s->nr_cpus;
	counters = calloc(s->nr_cpus, sizeof(*counters));
	runs = calloc(s->nr_cpus, sizeof(*runs));
	if (!counters || !runs) {
		err = -ENOMEM;
		goto out;
	}
	/* before the counts: a skip after them shows in the next read */
	snap->entry_misses = prog_misses_of(s, LOOKUP_ENTRY);
	snap->exit_misses = prog_misses_of(s, LOOKUP_EXIT);
	snap->emptied_misses = prog_misses_of(s, SEES_EMPTIED);
	snap->misses_known = misses_known(s);
	react_to_misses(s, snap);
	err = read_buckets(s, snap, runs) ?:
	      map_each_percpu(bpf_map__fd(s->skel->maps.dev_stats),
			      sizeof(struct lru_dev_stats), s->nr_cpus, add_dev, &r);
	if (!err && !bpf_map_lookup_elem(counters_fd, &zero, counters)) {
		for (int c = 0; c < s->nr_cpus; c++) {
			counters[c].entries = runs[c].entries;
			counters[c].exits = runs[c].exits;
			counters[c].time_seen = runs[c].time_seen;
		}
		err = lru_snapshot_set_counters(snap, counters);
	}
	/* --timing's lookup times, and the busy time they are a share of */
	if (!err && s->hooks.time_every) {
		err = map_each_percpu(bpf_map__fd(s->skel->maps.lookup_time),
				      sizeof(struct lru_time_stats), s->nr_cpus,
				      add_times, &r);
		busy = cpu_busy_ns();
		snap->busy_ns = busy > s->busy_at_open ?
				busy - s->busy_at_open : 0;
	}
out:
	free(counters);
	free(runs);
	/* after the counts, as a report of them would ask */
	snap->lru_size = lru_session_lru_size(s);
	snap->hooks = s->hooks;
	return err;
}

static bool has_owner(const __u64 *owners, int n, __u64 owner)
{
	for (int i = 0; i < n; i++)
		if (owners[i] == owner)
			return true;
	return false;
}

/* Frees, on every CPU, the buckets of the devices gone. */
static int forget_buckets(struct lru_session *s, dev_present_fn present,
			  void *arg)
{
	int nr_gone = 0, max = s->nr_cpus * BHSCOPE_LRU_DEV_BUCKETS;
	struct lru_dev_bucket *d;
	void *states;
	__u64 *gone;

	states = read_cpu_states(s);
	if (!states)
		return -errno;
	gone = calloc(max, sizeof(*gone));
	if (!gone) {
		free(states);
		return -ENOMEM;
	}
	for (int c = 0; c < s->nr_cpus; c++) {
		for (unsigned int b = 0; b < BHSCOPE_LRU_DEV_BUCKETS; b++) {
			d = cpu_bucket(s, states, c, b);
			if (d->owner && !present(d->owner - 1, arg) &&
			    !has_owner(gone, nr_gone, d->owner))
				gone[nr_gone++] = d->owner;
		}
	}
	free(states);
	for (int i = 0; i < nr_gone; i++) {
		s->skel->bss->forget_owner = gone[i];
		lru_session_run_on_each_cpu(s, s->skel->progs.forget_device);
	}
	s->skel->bss->forget_owner = 0;
	free(gone);
	return 0;
}

/* Deletes the keys (kernel dev_t) of a hash map for devices gone. */
static void forget_keys(int fd, dev_present_fn present, void *arg)
{
	__u32 key, next, *prev = NULL, drop[BHSCOPE_MAX_DEVS];
	int nr_drop = 0;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!present(key, arg) && nr_drop < BHSCOPE_MAX_DEVS)
			drop[nr_drop++] = key;
	}
	for (int i = 0; i < nr_drop; i++)
		bpf_map_delete_elem(fd, &drop[i]);
}

int lru_session_forget_devices(struct lru_session *s, dev_present_fn present,
			       void *arg)
{
	forget_keys(bpf_map__fd(s->skel->maps.dev_stats), present, arg);
	forget_keys(bpf_map__fd(s->skel->maps.lookup_time), present, arg);
	return forget_buckets(s, present, arg);
}
