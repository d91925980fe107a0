/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Snapshots of the jbd2 per-CPU counters and the interval between two of
 * them. Pure code over plain structs, so it is unit tested without a kernel.
 */
#ifndef BHSCOPE_JBD2_SNAPSHOT_H
#define BHSCOPE_JBD2_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "jbd2_stats.h"

struct jbd2_dev_snapshot {
	uint32_t kdev;
	uint64_t avg_commit_ns;		/* the journal's EWMA, 0 if unseen */
	struct jbd2_dev_stats total;	/* summed over CPUs */
	struct jbd2_dev_stats *cpu;	/* nr_cpus entries */
};

struct jbd2_snapshot {
	int nr_cpus;
	uint64_t dropped_events;	/* lost to full maps, all CPUs */
	/*
	 * Events whose program the kernel skipped (recursion_misses), on no
	 * CPU in particular; unknown (lost_known false) when a program is of
	 * a kind whose skipped runs this kernel does not count.
	 */
	uint64_t lost_events;
	bool lost_known;
	int nr_devs;
	struct jbd2_dev_snapshot *devs;
};

/* dst += src, field by field. */
void jbd2_snapshot_stats_add(struct jbd2_dev_stats *dst,
			     const struct jbd2_dev_stats *src);

/* dst = cur - prev, field by field (prev may be NULL: dst = cur). */
void jbd2_snapshot_stats_sub(struct jbd2_dev_stats *dst,
			     const struct jbd2_dev_stats *cur,
			     const struct jbd2_dev_stats *prev);

/*
 * Adds a device's per-CPU values (nr_cpus of them), or one CPU's, to what
 * the snapshot has for it (nothing if the device is new to it).
 */
int jbd2_snapshot_add_dev(struct jbd2_snapshot *s, uint32_t kdev,
			  const struct jbd2_dev_stats *percpu);
int jbd2_snapshot_add_cpu(struct jbd2_snapshot *s, uint32_t kdev, int cpu,
			  const struct jbd2_dev_stats *v);

struct jbd2_dev_snapshot *jbd2_snapshot_find(const struct jbd2_snapshot *s,
					     uint32_t kdev);

/*
 * The interval from prev to cur: every device of cur, minus its values in
 * prev (devices new in cur count from zero). Sorted by device.
 */
int jbd2_snapshot_delta(struct jbd2_snapshot *out,
			const struct jbd2_snapshot *cur,
			const struct jbd2_snapshot *prev);

void jbd2_snapshot_free(struct jbd2_snapshot *s);

#endif /* BHSCOPE_JBD2_SNAPSHOT_H */
