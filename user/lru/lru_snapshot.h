/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Snapshots of the LRU tracer's cumulative per-CPU counters, and the
 * interval between two of them. Pure code over plain structs, unit tested
 * without a kernel.
 */
#ifndef BHSCOPE_LRU_SNAPSHOT_H
#define BHSCOPE_LRU_SNAPSHOT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>

#include "lru_stats.h"
#include "lru/lru_hooks.h"

struct lru_dev_snapshot {
	uint32_t kdev;
	struct lru_dev_stats total;	/* summed over CPUs */
	struct lru_dev_stats *cpu;	/* nr_cpus entries */
};

/* --timing's sampled lookup times of a device. */
struct lru_dev_times {
	uint32_t kdev;
	struct lru_time_stats total;	/* summed over CPUs */
	struct lru_time_stats *cpu;	/* nr_cpus entries */
};

struct lru_snapshot {
	int nr_cpus;
	int nr_devs;
	struct lru_dev_snapshot *devs;	/* sorted by kdev after a delta */
	int nr_time_devs;
	struct lru_dev_times *times;	/* likewise; none without --timing */
	/*
	 * CPU time spent busy (not idle or waiting for I/O), summed over the
	 * CPUs, in ns, from /proc/stat, since the session opened; 0 if
	 * unknown.
	 */
	uint64_t busy_ns;
	struct lru_cpu_counters *counters;	/* nr_cpus, NULL if unread */
	/*
	 * Runs of the exit probes the kernel skipped (their programs'
	 * recursion_misses): lookups lost, on no CPU in particular.
	 */
	uint64_t exit_misses;
	/*
	 * Runs of the entry probes the kernel skipped (kprobe mode: a lookup
	 * whose entry and exit were both skipped is in no count but these).
	 */
	uint64_t entry_misses;
	/*
	 * Whether the kernel counts the skipped runs of every program that
	 * runs: kprobes and classic tracepoints before 6.7 do not, and the
	 * lost count is then a lower bound.
	 */
	bool misses_known;
	/*
	 * Runs of the programs that see LRUs emptied the kernel skipped: the
	 * model may have missed an emptying, after which a lone entry
	 * refilled looks like a hit (or, with bhtune, any slot may be off).
	 */
	uint64_t emptied_misses;
	/*
	 * What the figures came from, as plain data for the reports: the
	 * LRU's size at the read (bhtune's may change at run time) and the
	 * session's hooks then, marked unavailable if the lookup's owner
	 * changed by the end of the read. A delta has cur's.
	 */
	int lru_size;
	struct lru_hooks hooks;
};

/* dst += src and dst = cur - prev (prev NULL: dst = cur), field by field. */
void lru_snapshot_stats_add(struct lru_dev_stats *dst,
			    const struct lru_dev_stats *src);
void lru_snapshot_stats_sub(struct lru_dev_stats *dst,
			    const struct lru_dev_stats *cur,
			    const struct lru_dev_stats *prev);
void lru_snapshot_counters_add(struct lru_cpu_counters *dst,
			       const struct lru_cpu_counters *src);

/*
 * Adds a device's per-CPU values (nr_cpus of them), or one CPU's, to what
 * the snapshot has for it (nothing if the device is new to it).
 */
int lru_snapshot_add_dev(struct lru_snapshot *s, uint32_t kdev,
			 const struct lru_dev_stats *percpu);
int lru_snapshot_add_cpu(struct lru_snapshot *s, uint32_t kdev, int cpu,
			 const struct lru_dev_stats *v);

/* Adds a device's per-CPU lookup times (nr_cpus of them). */
int lru_snapshot_add_times(struct lru_snapshot *s, uint32_t kdev,
			   const struct lru_time_stats *percpu);

/* Every device's lookup times, summed: one CPU's (cpu >= 0), or all. */
void lru_snapshot_times(const struct lru_snapshot *s, int cpu,
			struct lru_time_stats *out);

/* Sets the per-CPU counters (nr_cpus of them, copied). */
int lru_snapshot_set_counters(struct lru_snapshot *s,
			      const struct lru_cpu_counters *percpu);

struct lru_dev_snapshot *lru_snapshot_find(const struct lru_snapshot *s,
					   uint32_t kdev);

/* One CPU's figures over every device, and everything summed. */
void lru_snapshot_cpu(const struct lru_snapshot *s, int cpu,
		      struct lru_dev_stats *out);
void lru_snapshot_total(const struct lru_snapshot *s,
			struct lru_dev_stats *out);
void lru_snapshot_counters_total(const struct lru_snapshot *s,
				 struct lru_cpu_counters *out);

/*
 * Lookups that ran but were counted nowhere: exit probes skipped by the
 * kernel or by another probe in flight on the CPU, and (kprobe mode,
 * by_entries) lookups whose entry ran or was skipped without an exit (a
 * kretprobe instance missed or skipped, or a lookup still running when the
 * snapshot was read). A lower bound unless s->misses_known.
 */
uint64_t lru_snapshot_lost(const struct lru_snapshot *s, bool by_entries);

/*
 * The interval from prev to cur (prev may be NULL): every device of cur
 * minus its values in prev, new devices from zero; sorted by device. Its
 * LRU size and hooks are cur's.
 */
int lru_snapshot_delta(struct lru_snapshot *out,
		       const struct lru_snapshot *cur,
		       const struct lru_snapshot *prev);

void lru_snapshot_free(struct lru_snapshot *s);

#endif /* BHSCOPE_LRU_SNAPSHOT_H */
