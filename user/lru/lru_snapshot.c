// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lru/lru_snapshot.h"

/* Both structs hold u64 counters only, so they combine as u64 arrays. */
_Static_assert(sizeof(struct lru_dev_stats) % sizeof(__u64) == 0,
	       "lru_dev_stats must hold u64 counters only");
_Static_assert(sizeof(struct lru_cpu_counters) % sizeof(__u64) == 0,
	       "lru_cpu_counters must hold u64 counters only");

static void u64s_add(__u64 *d, const __u64 *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] += s[i];
}

void lru_stats_add(struct lru_dev_stats *dst, const struct lru_dev_stats *src)
{
	u64s_add((__u64 *)dst, (const __u64 *)src, sizeof(*dst) / sizeof(__u64));
}

void lru_counters_add(struct lru_cpu_counters *dst,
		      const struct lru_cpu_counters *src)
{
	u64s_add((__u64 *)dst, (const __u64 *)src, sizeof(*dst) / sizeof(__u64));
}

static void u64s_sub(__u64 *d, const __u64 *c, const __u64 *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = c[i] - (p ? p[i] : 0);
}

void lru_stats_sub(struct lru_dev_stats *dst, const struct lru_dev_stats *cur,
		   const struct lru_dev_stats *prev)
{
	u64s_sub((__u64 *)dst, (const __u64 *)cur, (const __u64 *)prev,
		 sizeof(*dst) / sizeof(__u64));
}

static struct lru_dev_snapshot *dev_get(struct lru_snapshot *s, uint32_t kdev)
{
	struct lru_dev_snapshot *devs, *d = lru_snapshot_find(s, kdev);

	if (d)
		return d;
	devs = realloc(s->devs, (s->nr_devs + 1) * sizeof(*devs));
	if (!devs)
		return NULL;
	s->devs = devs;
	d = &devs[s->nr_devs];
	memset(d, 0, sizeof(*d));
	d->cpu = calloc(s->nr_cpus, sizeof(*d->cpu));
	if (!d->cpu)
		return NULL;
	d->kdev = kdev;
	s->nr_devs++;
	return d;
}

int lru_snapshot_add_cpu(struct lru_snapshot *s, uint32_t kdev, int cpu,
			 const struct lru_dev_stats *v)
{
	struct lru_dev_snapshot *d = dev_get(s, kdev);

	if (!d)
		return -ENOMEM;
	lru_stats_add(&d->cpu[cpu], v);
	lru_stats_add(&d->total, v);
	return 0;
}

int lru_snapshot_add_dev(struct lru_snapshot *s, uint32_t kdev,
			 const struct lru_dev_stats *percpu)
{
	struct lru_dev_snapshot *d = dev_get(s, kdev);

	if (!d)
		return -ENOMEM;
	for (int c = 0; c < s->nr_cpus; c++) {
		lru_stats_add(&d->cpu[c], &percpu[c]);
		lru_stats_add(&d->total, &percpu[c]);
	}
	return 0;
}

int lru_snapshot_set_counters(struct lru_snapshot *s,
			      const struct lru_cpu_counters *percpu)
{
	if (!s->counters) {
		s->counters = calloc(s->nr_cpus, sizeof(*s->counters));
		if (!s->counters)
			return -ENOMEM;
	}
	memcpy(s->counters, percpu, s->nr_cpus * sizeof(*s->counters));
	return 0;
}

struct lru_dev_snapshot *lru_snapshot_find(const struct lru_snapshot *s,
					   uint32_t kdev)
{
	for (int i = 0; i < s->nr_devs; i++)
		if (s->devs[i].kdev == kdev)
			return &s->devs[i];
	return NULL;
}

void lru_snapshot_cpu(const struct lru_snapshot *s, int cpu,
		      struct lru_dev_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < s->nr_devs; i++)
		lru_stats_add(out, &s->devs[i].cpu[cpu]);
}

void lru_snapshot_total(const struct lru_snapshot *s, struct lru_dev_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < s->nr_devs; i++)
		lru_stats_add(out, &s->devs[i].total);
}

void lru_snapshot_counters_total(const struct lru_snapshot *s,
				 struct lru_cpu_counters *out)
{
	memset(out, 0, sizeof(*out));
	for (int c = 0; s->counters && c < s->nr_cpus; c++)
		lru_counters_add(out, &s->counters[c]);
}

uint64_t lru_snapshot_lost(const struct lru_snapshot *s, bool by_entries)
{
	struct lru_cpu_counters c;
	uint64_t lost;

	lru_snapshot_counters_total(s, &c);
	lost = c.lookups_lost;
	if (!by_entries)
		return lost + s->exit_misses;
	/*
	 * Every lookup runs its entry probe or has it skipped; an exit that
	 * ran counted it (an exit that found the state busy is lookups_lost).
	 */
	if (c.entries + s->entry_misses > c.exits)
		lost += c.entries + s->entry_misses - c.exits;
	return lost;
}

static int by_kdev(const void *a, const void *b)
{
	const struct lru_dev_snapshot *x = a, *y = b;

	return (x->kdev > y->kdev) - (x->kdev < y->kdev);
}

static int delta_counters(struct lru_snapshot *out,
			  const struct lru_snapshot *cur,
			  const struct lru_snapshot *prev)
{
	const size_t n = sizeof(struct lru_cpu_counters) / sizeof(__u64);
	int err;

	if (!cur->counters)
		return 0;
	err = lru_snapshot_set_counters(out, cur->counters);
	if (err || !prev || !prev->counters)
		return err;
	for (int c = 0; c < cur->nr_cpus; c++)
		u64s_sub((__u64 *)&out->counters[c],
			 (const __u64 *)&cur->counters[c],
			 (const __u64 *)&prev->counters[c], n);
	return 0;
}

int lru_snapshot_delta(struct lru_snapshot *out,
		       const struct lru_snapshot *cur,
		       const struct lru_snapshot *prev)
{
	int err;

	memset(out, 0, sizeof(*out));
	out->nr_cpus = cur->nr_cpus;
	for (int i = 0; i < cur->nr_devs; i++) {
		const struct lru_dev_snapshot *c = &cur->devs[i];
		const struct lru_dev_snapshot *p =
			prev ? lru_snapshot_find(prev, c->kdev) : NULL;
		struct lru_dev_snapshot *d;

		if (!p) {
			err = lru_snapshot_add_dev(out, c->kdev, c->cpu);
			if (err)
				goto fail;
			continue;
		}
		d = dev_get(out, c->kdev);
		if (!d) {
			err = -ENOMEM;
			goto fail;
		}
		for (int cpu = 0; cpu < cur->nr_cpus; cpu++) {
			lru_stats_sub(&d->cpu[cpu], &c->cpu[cpu], &p->cpu[cpu]);
			lru_stats_add(&d->total, &d->cpu[cpu]);
		}
	}
	if (out->nr_devs)	/* devs is NULL then: qsort's is nonnull */
		qsort(out->devs, out->nr_devs, sizeof(*out->devs), by_kdev);
	out->exit_misses = cur->exit_misses - (prev ? prev->exit_misses : 0);
	out->entry_misses = cur->entry_misses -
			    (prev ? prev->entry_misses : 0);
	out->misses_known = cur->misses_known && (!prev || prev->misses_known);
	out->emptied_misses = cur->emptied_misses -
			      (prev ? prev->emptied_misses : 0);
	err = delta_counters(out, cur, prev);
	if (!err)
		return 0;
fail:
	lru_snapshot_free(out);
	return err;
}

void lru_snapshot_free(struct lru_snapshot *s)
{
	for (int i = 0; i < s->nr_devs; i++)
		free(s->devs[i].cpu);
	free(s->devs);
	free(s->counters);
	s->devs = NULL;
	s->counters = NULL;
	s->nr_devs = 0;
}
