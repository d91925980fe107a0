// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jbd2/jbd2_snapshot.h"

/* The stats are u64 counters only, so they combine as arrays of u64. */
#define NR_FIELDS (sizeof(struct jbd2_dev_stats) / sizeof(__u64))
_Static_assert(sizeof(struct jbd2_dev_stats) % sizeof(__u64) == 0,
	       "jbd2_dev_stats must hold u64 counters only");

void jbd2_stats_add(struct jbd2_dev_stats *dst,
		    const struct jbd2_dev_stats *src)
{
	__u64 *d = (__u64 *)dst;
	const __u64 *s = (const __u64 *)src;

	for (size_t i = 0; i < NR_FIELDS; i++)
		d[i] += s[i];
}

void jbd2_stats_sub(struct jbd2_dev_stats *dst,
		    const struct jbd2_dev_stats *cur,
		    const struct jbd2_dev_stats *prev)
{
	__u64 *d = (__u64 *)dst;
	const __u64 *c = (const __u64 *)cur, *p = (const __u64 *)prev;

	for (size_t i = 0; i < NR_FIELDS; i++)
		d[i] = c[i] - (p ? p[i] : 0);
}

/* kdev's entry, added empty when the snapshot has none yet. */
static struct jbd2_dev_snapshot *dev_get(struct jbd2_snapshot *s,
					 uint32_t kdev)
{
	struct jbd2_dev_snapshot *devs, *d = jbd2_snapshot_find(s, kdev);

	if (d)
		return d;
	devs = realloc(s->devs, (s->nr_devs + 1) * sizeof(*devs));
	if (!devs)
		return NULL;
	s->devs = devs;
	d = &devs[s->nr_devs];
	memset(d, 0, sizeof(*d));
	d->kdev = kdev;
	d->cpu = calloc(s->nr_cpus, sizeof(*d->cpu));
	if (!d->cpu)
		return NULL;
	s->nr_devs++;
	return d;
}

int jbd2_snapshot_add_dev(struct jbd2_snapshot *s, uint32_t kdev,
			  const struct jbd2_dev_stats *percpu)
{
	struct jbd2_dev_snapshot *d = dev_get(s, kdev);

	if (!d)
		return -ENOMEM;
	for (int c = 0; c < s->nr_cpus; c++) {
		jbd2_stats_add(&d->cpu[c], &percpu[c]);
		jbd2_stats_add(&d->total, &percpu[c]);
	}
	return 0;
}

int jbd2_snapshot_add_cpu(struct jbd2_snapshot *s, uint32_t kdev, int cpu,
			  const struct jbd2_dev_stats *v)
{
	struct jbd2_dev_snapshot *d = dev_get(s, kdev);

	if (!d)
		return -ENOMEM;
	jbd2_stats_add(&d->cpu[cpu], v);
	jbd2_stats_add(&d->total, v);
	return 0;
}

struct jbd2_dev_snapshot *jbd2_snapshot_find(const struct jbd2_snapshot *s,
					     uint32_t kdev)
{
	for (int i = 0; i < s->nr_devs; i++)
		if (s->devs[i].kdev == kdev)
			return &s->devs[i];
	return NULL;
}

static int by_kdev(const void *a, const void *b)
{
	const struct jbd2_dev_snapshot *x = a, *y = b;

	return (x->kdev > y->kdev) - (x->kdev < y->kdev);
}

int jbd2_snapshot_delta(struct jbd2_snapshot *out,
			const struct jbd2_snapshot *cur,
			const struct jbd2_snapshot *prev)
{
	memset(out, 0, sizeof(*out));
	out->nr_cpus = cur->nr_cpus;
	out->dropped_events = cur->dropped_events -
			      (prev ? prev->dropped_events : 0);
	out->lost_events = cur->lost_events - (prev ? prev->lost_events : 0);
	out->lost_known = cur->lost_known && (!prev || prev->lost_known);
	for (int i = 0; i < cur->nr_devs; i++) {
		const struct jbd2_dev_snapshot *c = &cur->devs[i];
		const struct jbd2_dev_snapshot *p =
			prev ? jbd2_snapshot_find(prev, c->kdev) : NULL;
		struct jbd2_dev_snapshot *d;
		int err;

		err = jbd2_snapshot_add_dev(out, c->kdev, c->cpu);
		if (err)
			return err;
		d = &out->devs[out->nr_devs - 1];
		d->avg_commit_ns = c->avg_commit_ns;
		if (!p)
			continue;
		memset(&d->total, 0, sizeof(d->total));
		for (int cpu = 0; cpu < cur->nr_cpus; cpu++) {
			jbd2_stats_sub(&d->cpu[cpu], &c->cpu[cpu], &p->cpu[cpu]);
			jbd2_stats_add(&d->total, &d->cpu[cpu]);
		}
	}
	if (out->nr_devs)	/* devs is NULL then: qsort's is nonnull */
		qsort(out->devs, out->nr_devs, sizeof(*out->devs), by_kdev);
	return 0;
}

void jbd2_snapshot_free(struct jbd2_snapshot *s)
{
	for (int i = 0; i < s->nr_devs; i++)
		free(s->devs[i].cpu);
	free(s->devs);
	s->devs = NULL;
	s->nr_devs = 0;
}
