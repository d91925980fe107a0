/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Buffer-head LRU figures shared by bpf/lru.bpf.c and user space: per-device
 * per-CPU counters, per-CPU counters, and the lookup events of --trace.
 * Every counter is a cumulative u64: an interval is the difference of two
 * snapshots, so nothing is ever reset under a running probe.
 */
#ifndef BHSCOPE_LRU_STATS_H
#define BHSCOPE_LRU_STATS_H

#include "bhscope.h"

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * Largest BH_LRU_SIZE the entry scan handles: the range of the 2014
 * CONFIG_BH_LRU_SIZE proposal (8..64). The real size is read from BTF.
 */
#define BHSCOPE_LRU_SLOTS_MAX	64

/*
 * Deepest LRU stack distance kept, and so the largest --whatif size. Hits
 * give distances below BH_LRU_SIZE; deeper ones come from the ghost list.
 */
#define BHSCOPE_LRU_DEPTH_MAX	256

/* A buffer head as the LRU matches it (fs/buffer.c lookup_bh_lru). */
struct lru_key {
	__u64 block;
	__u32 dev;		/* kernel dev_t */
	__u32 size;
};

/* What one lookup did, or what a non-lookup event says. */
enum lru_outcome {
	LRU_HIT,		/* in the LRU: slot = stack distance */
	LRU_MISS_INSTALLED,	/* found in the page cache, put at slot 0 */
	LRU_MISS_NOT_INSTALLED,	/* found, but the kernel skipped the install
				 * (lru_cache_disabled(), isolated CPU) */
	LRU_MISS_ABSENT,	/* not in the page cache */
	LRU_UNSYNCED,		/* raced with another change of this CPU's LRU
				 * (migrated, slept, preempted): unclassified */
	LRU_NR_LOOKUP_OUTCOMES,
	/* --trace only, not lookups: */
	LRU_SNAPSHOT = LRU_NR_LOOKUP_OUTCOMES, /* the CPU's LRU holds key at
				 * slot (a run of these gives its content) */
	LRU_RESET,		/* the CPU's LRU was emptied (bhtune) */
};

/* lru_event.flags */
#define LRU_EV_EMPTY	0x1	/* the LRU was emptied or changed unseen before */
#define LRU_EV_RESTART	0x2	/* unsynced, and the model restarted */
#define LRU_EV_GAP	0x4	/* events of this CPU were lost before this */
/*
 * Raw kernel state of a traced lookup, not the tracer's classification:
 * for a replay that must not take the probe's outcome as given.
 */
#define LRU_EV_FOUND 0x8  /* the lookup returned a bh */
#define LRU_EV_FRONT 0x10 /* after the lookup that bh is in slot 0 of this CPU's LRU */

/*
 * One record of the --trace stream: a lookup with its outcome, or a
 * snapshot/reset of a CPU's LRU. 40 bytes, host byte order.
 */
struct lru_event {
	__u64 ts_ns;		/* CLOCK_MONOTONIC */
	__u64 block;
	__u32 dev;		/* kernel dev_t */
	__u32 size;
	__u32 cpu;		/* whose LRU the outcome is about */
	__s16 slot;		/* HIT, SNAPSHOT: the slot; else -1 */
	__u16 lru_size;		/* the LRU's size at this event */
	__u8 outcome;		/* enum lru_outcome */
	__u8 flags;		/* LRU_EV_* */
	__u8 pad[6];
};

/*
 * A CPU's LRU content, sent as one ring buffer message; user space writes
 * it to the trace as head.slot LRU_SNAPSHOT records (one per slot, or a
 * single one with slot -1 when the LRU is empty).
 */
struct lru_snapshot_msg {
	struct lru_event head;	/* outcome LRU_SNAPSHOT, slot = nr keys */
	struct lru_key keys[BHSCOPE_LRU_SLOTS_MAX];
};

/* Per device, per CPU. */
struct lru_dev_stats {
	__u64 lookups;		/* every lookup that returned: the sum of
				 * the outcomes (the probe leaves it 0, and
				 * user space sums them when it reads; with
				 * the lookup hooks, hits too: the sum of
				 * dist[] below the LRU's size) */
	union {
		struct {
			__u64 hits;
			__u64 installed;
			__u64 not_installed;
			__u64 absent;
			__u64 unsynced;
		};
		/* the same, indexed by enum lru_outcome */
		__u64 outcomes[LRU_NR_LOOKUP_OUTCOMES];
	};
	__u64 evictions;	/* installs into a full LRU */
	/*
	 * Stack distance of each classified lookup that would hit some LRU
	 * size: hits at slot d (d < BH_LRU_SIZE), installed misses found at
	 * depth d in the ghost list (d >= BH_LRU_SIZE, with --whatif).
	 */
	__u64 dist[BHSCOPE_LRU_DEPTH_MAX];
	/*
	 * Of the unsynced lookups, those proven misses: the task was
	 * switched out inside the lookup under a preemption model that
	 * switches none on the LRU-hit path (the page cache's slow path
	 * slept), installed or not unknown. The rest could be either.
	 */
	__u64 unsynced_misses;
};

/*
 * Where the tracer counts a device: in one of the few buckets kept in
 * each CPU's own state, so that counting costs no map lookup (a hash
 * map's was 190 of the probe's 1330 ns under TCG, a second per-CPU
 * array's 14 of 257). Bucket 0 is the first device's counted on that CPU
 * (no hash to compute); another goes to the bucket its dev_t hashes to
 * among the rest, claimed by the first device counted there on that CPU,
 * else to the dev_stats hash map. A bucket's CPUs may hold different
 * devices, and a device may have counts in two buckets of a CPU (its own,
 * and bucket 0 once freed by serve): user space adds them all. 8 buckets:
 * a per-CPU value is at most 32 KiB.
 */
#define BHSCOPE_LRU_DEV_BUCKET_BITS	3
#define BHSCOPE_LRU_DEV_BUCKETS		(1U << BHSCOPE_LRU_DEV_BUCKET_BITS)

struct lru_dev_bucket {
	__u64 owner;		/* kernel dev_t + 1 of the device; 0: free */
	struct lru_dev_stats s;
};

_Static_assert(__builtin_offsetof(struct lru_dev_stats, outcomes) +
	       LRU_MISS_ABSENT * sizeof(__u64) ==
	       __builtin_offsetof(struct lru_dev_stats, absent),
	       "outcomes[] follows enum lru_outcome");

/* Counts one lookup of outcome o: the probe and the replay count alike. */
static inline void lru_stats_count(struct lru_dev_stats *s, unsigned int o)
{
	s->lookups++;
	if (o >= LRU_NR_LOOKUP_OUTCOMES)
		o = LRU_UNSYNCED;
	s->outcomes[o]++;
}

/*
 * The probe's solo_off word (.bss): 0 while the exit of a lookup that
 * cannot sleep proves it alone, else why not.
 */
#define LRU_SOLO_SWITCHED	1U	/* the preemption model was switched */
#define LRU_SOLO_ENTRY		2U	/* its entry probe is attached */
/* In lru_emptied_gen: the deferred hook stops (set with LRU_SOLO_SWITCHED). */
#define LRU_GEN_STOPPED		(1ULL << 63)

/* Per CPU, whatever the device. */
struct lru_cpu_counters {
	__u64 resets;		/* LRU found emptied: the model restarted */
	__u64 invalidate_all;	/* invalidate_bh_lrus() calls */
	__u64 invalidate_cpu;	/* invalidate_bh_lrus_cpu() calls */
	__u64 install_calls;	/* bh_lru_install() calls, where hookable */
	__u64 events;		/* --trace records written */
	__u64 events_lost;	/* --trace records dropped: ring buffer full */
	__u64 devs_dropped;	/* lookups of devices beyond BHSCOPE_MAX_DEVS */
	/* appended: */
	__u64 lookups_lost;	/* lookups whose exit probe found another
				 * probe of this CPU in flight (preempted
				 * inside it), not counted */
	__u64 entries;		/* entry probe runs (kprobe mode) */
	__u64 exits;		/* exit probe runs (kprobe mode) */
	__u64 resyncs;		/* the LRU held what the model did not
				 * explain and was not emptied: the model
				 * read it again and kept its ghost list (the
				 * sizes above the LRU's are a lower bound) */
	__u64 ghost_not_installed; /* misses not installed found in the
				 * ghost list: a larger LRU would have hit and
				 * reordered (the sizes above are approximate) */
	__u64 unsynced_nodev;	/* unsynced lookups of no known device
				 * (kprobe mode: NULL returned after a switch) */
	__u64 ghost_absent;	/* absent lookups found in the ghost list: a
				 * larger LRU's reference would have kept the
				 * buffer, one lookup where the kernel makes
				 * two (the sizes above are approximate) */
	__u64 full_checks;	/* shadows compared slot by slot after a
				 * change the probe may not have seen */
	__u64 time_dropped;	/* lookups picked for timing that were not
				 * timed: switched out or preempted inside,
				 * or unsynced */
	__u64 time_seen;	/* lookups the timing's sampling saw (one
				 * in time_every of them is picked; user
				 * space reads it from the per-CPU state) */
};

/*
 * Sampled lookup times (--timing): one lookup in N per CPU is timed from
 * its entry probe to its exit probe, and its time is counted by outcome
 * class: a hit by its slot, else the kind of miss. A time includes the
 * probes' own trampoline work between the two timestamps, the same for
 * every class, so differences between classes are the kernel's.
 */
#define LRU_TIME_INSTALLED	BHSCOPE_LRU_SLOTS_MAX
#define LRU_TIME_NOT_INSTALLED	(BHSCOPE_LRU_SLOTS_MAX + 1)
#define LRU_TIME_ABSENT		(BHSCOPE_LRU_SLOTS_MAX + 2)
#define LRU_TIME_CLASSES	(BHSCOPE_LRU_SLOTS_MAX + 3)

/* The histograms' groups: every hit, and each kind of miss. */
enum lru_time_group {
	LRU_TG_HIT,
	LRU_TG_INSTALLED,
	LRU_TG_NOT_INSTALLED,
	LRU_TG_ABSENT,
	LRU_NR_TIME_GROUPS,
};

/* Per device, per CPU. */
struct lru_time_stats {
	__u64 n[LRU_TIME_CLASSES];	/* lookups timed */
	__u64 ns[LRU_TIME_CLASSES];	/* their summed times */
	/* log2 histograms of the times, in ns (slot 0: 0 ns) */
	__u64 hist[LRU_NR_TIME_GROUPS][BHSCOPE_LOG2_SLOTS];
};

static inline int lru_time_group_of(unsigned int cls)
{
	return cls < BHSCOPE_LRU_SLOTS_MAX ? LRU_TG_HIT :
	       (int)(cls - BHSCOPE_LRU_SLOTS_MAX) + LRU_TG_INSTALLED;
}

#endif /* BHSCOPE_LRU_STATS_H */
