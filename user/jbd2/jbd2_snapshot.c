// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>
#include <string.h>

#include "jbd2/jbd2_snapshot.h"
#include "lib/dev_table.h"

_Static_assert(sizeof(struct jbd2_dev_stats) % sizeof(__u64) == 0,
	       "jbd2_dev_stats must hold u64 counters only");

static const struct dev_table devs_table = {
	.entry = sizeof(struct jbd2_dev_snapshot),
	.stats = sizeof(struct jbd2_dev_stats),
	.total = offsetof(struct jbd2_dev_snapshot, total),
	.cpu = offsetof(struct jbd2_dev_snapshot, cpu),
};

void jbd2_snapshot_stats_add(struct jbd2_dev_stats *dst,
			     const struct jbd2_dev_stats *src)
{
	dev_table_u64_add(dst, src, sizeof(*dst));
}

void jbd2_snapshot_stats_sub(struct jbd2_dev_stats *dst,
			     const struct jbd2_dev_stats *cur,
			     const struct jbd2_dev_stats *prev)
{
	dev_table_u64_sub(dst, cur, prev, sizeof(*dst));
}

/* Adds to kdev's entry: one CPU's (cpu >= 0), or every CPU's. */
static int add(struct jbd2_snapshot *s, uint32_t kdev, int cpu,
	       const struct jbd2_dev_stats *v)
{
	void *devs = s->devs;
	int err = dev_table_add(&devs_table, &devs, &s->nr_devs, s->nr_cpus,
				kdev, cpu, v);

	s->devs = devs;
	return err;
}

int jbd2_snapshot_add_dev(struct jbd2_snapshot *s, uint32_t kdev,
			  const struct jbd2_dev_stats *percpu)
{
	return add(s, kdev, -1, percpu);
}

int jbd2_snapshot_add_cpu(struct jbd2_snapshot *s, uint32_t kdev, int cpu,
			  const struct jbd2_dev_stats *v)
{
	return add(s, kdev, cpu, v);
}

struct jbd2_dev_snapshot *jbd2_snapshot_find(const struct jbd2_snapshot *s,
					     uint32_t kdev)
{
	return dev_table_find(&devs_table, s->devs, s->nr_devs, kdev);
}

int jbd2_snapshot_delta(struct jbd2_snapshot *out,
			const struct jbd2_snapshot *cur,
			const struct jbd2_snapshot *prev)
{
	void *devs;
	int err;

	memset(out, 0, sizeof(*out));
	out->nr_cpus = cur->nr_cpus;
	out->dropped_events = cur->dropped_events -
			      (prev ? prev->dropped_events : 0);
	out->lost_events = cur->lost_events - (prev ? prev->lost_events : 0);
	out->lost_known = cur->lost_known && (!prev || prev->lost_known);
	/* a journal's EWMA (avg_commit_ns) comes with it, as it is now */
	err = dev_table_delta(&devs_table, &devs, &out->nr_devs, cur->devs,
			      cur->nr_devs, prev ? prev->devs : NULL,
			      prev ? prev->nr_devs : 0, cur->nr_cpus);
	out->devs = devs;
	return err;
}

void jbd2_snapshot_free(struct jbd2_snapshot *s)
{
	void *devs = s->devs;

	dev_table_free(&devs_table, &devs, &s->nr_devs);
	s->devs = NULL;
}
