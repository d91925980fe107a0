// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dev_table.h"
#include "lru/lru_snapshot.h"

/* Both structs hold u64 counters only, so they combine as u64 arrays. */
_Static_assert(sizeof(struct lru_dev_stats) % sizeof(__u64) == 0,
	       "lru_dev_stats must hold u64 counters only");
_Static_assert(sizeof(struct lru_cpu_counters) % sizeof(__u64) == 0,
	       "lru_cpu_counters must hold u64 counters only");

static const struct dev_table devs_table = {
	.entry = sizeof(struct lru_dev_snapshot),
	.stats = sizeof(struct lru_dev_stats),
	.total = offsetof(struct lru_dev_snapshot, total),
	.cpu = offsetof(struct lru_dev_snapshot, cpu),
};

static const struct dev_table times_table = {
	.entry = sizeof(struct lru_dev_times),
	.stats = sizeof(struct lru_time_stats),
	.total = offsetof(struct lru_dev_times, total),
	.cpu = offsetof(struct lru_dev_times, cpu),
};

_Static_assert(sizeof(struct lru_time_stats) % sizeof(__u64) == 0,
	       "lru_time_stats must hold u64 counters only");

void lru_snapshot_stats_add(struct lru_dev_stats *dst,
			    const struct lru_dev_stats *src)
{
	dev_table_u64_add(dst, src, sizeof(*dst));
}

void lru_snapshot_counters_add(struct lru_cpu_counters *dst,
			       const struct lru_cpu_counters *src)
{
	dev_table_u64_add(dst, src, sizeof(*dst));
}

void lru_snapshot_stats_sub(struct lru_dev_stats *dst,
			    const struct lru_dev_stats *cur,
			    const struct lru_dev_stats *prev)
{
	dev_table_u64_sub(dst, cur, prev, sizeof(*dst));
}

/* Adds to kdev's entry: one CPU's (cpu >= 0), or every CPU's. */
static int add(struct lru_snapshot *s, uint32_t kdev, int cpu,
	       const struct lru_dev_stats *v)
{
	void *devs = s->devs;
	int err = dev_table_add(&devs_table, &devs, &s->nr_devs, s->nr_cpus,
				kdev, cpu, v);

	s->devs = devs;
	return err;
}

int lru_snapshot_add_cpu(struct lru_snapshot *s, uint32_t kdev, int cpu,
			 const struct lru_dev_stats *v)
{
	return add(s, kdev, cpu, v);
}

int lru_snapshot_add_dev(struct lru_snapshot *s, uint32_t kdev,
			 const struct lru_dev_stats *percpu)
{
	return add(s, kdev, -1, percpu);
}

int lru_snapshot_add_times(struct lru_snapshot *s, uint32_t kdev,
			   const struct lru_time_stats *percpu)
{
	void *times = s->times;
	int err = dev_table_add(&times_table, &times, &s->nr_time_devs,
				s->nr_cpus, kdev, -1, percpu);

	s->times = times;
	return err;
}

void lru_snapshot_times(const struct lru_snapshot *s, int cpu,
			struct lru_time_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < s->nr_time_devs; i++)
		dev_table_u64_add(out, cpu < 0 ? &s->times[i].total :
				  &s->times[i].cpu[cpu], sizeof(*out));
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
	return dev_table_find(&devs_table, s->devs, s->nr_devs, kdev);
}

void lru_snapshot_cpu(const struct lru_snapshot *s, int cpu,
		      struct lru_dev_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < s->nr_devs; i++)
		lru_snapshot_stats_add(out, &s->devs[i].cpu[cpu]);
}

void lru_snapshot_total(const struct lru_snapshot *s, struct lru_dev_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < s->nr_devs; i++)
		lru_snapshot_stats_add(out, &s->devs[i].total);
}

void lru_snapshot_counters_total(const struct lru_snapshot *s,
				 struct lru_cpu_counters *out)
{
	memset(out, 0, sizeof(*out));
	for (int c = 0; s->counters && c < s->nr_cpus; c++)
		lru_snapshot_counters_add(out, &s->counters[c]);
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

static int delta_counters(struct lru_snapshot *out,
			  const struct lru_snapshot *cur,
			  const struct lru_snapshot *prev)
{
	int err;

	if (!cur->counters)
		return 0;
	err = lru_snapshot_set_counters(out, cur->counters);
	if (err || !prev || !prev->counters)
		return err;
	for (int c = 0; c < cur->nr_cpus; c++)
		dev_table_u64_sub(&out->counters[c], &cur->counters[c],
				  &prev->counters[c], sizeof(out->counters[c]));
	return 0;
}

int lru_snapshot_delta(struct lru_snapshot *out,
		       const struct lru_snapshot *cur,
		       const struct lru_snapshot *prev)
{
	void *devs;
	int err;

	memset(out, 0, sizeof(*out));
	out->nr_cpus = cur->nr_cpus;
	out->lru_size = cur->lru_size;
	out->hooks = cur->hooks;
	err = dev_table_delta(&devs_table, &devs, &out->nr_devs, cur->devs,
			      cur->nr_devs, prev ? prev->devs : NULL,
			      prev ? prev->nr_devs : 0, cur->nr_cpus);
	out->devs = devs;
	if (err)
		return err;
	err = dev_table_delta(&times_table, &devs, &out->nr_time_devs,
			      cur->times, cur->nr_time_devs,
			      prev ? prev->times : NULL,
			      prev ? prev->nr_time_devs : 0, cur->nr_cpus);
	out->times = devs;
	if (err) {
		lru_snapshot_free(out);
		return err;
	}
	out->busy_ns = !prev ? cur->busy_ns :
		       prev->busy_ns && prev->busy_ns <= cur->busy_ns ?
		       cur->busy_ns - prev->busy_ns : 0;
	out->exit_misses = cur->exit_misses - (prev ? prev->exit_misses : 0);
	out->entry_misses = cur->entry_misses -
			    (prev ? prev->entry_misses : 0);
	out->misses_known = cur->misses_known && (!prev || prev->misses_known);
	out->emptied_misses = cur->emptied_misses -
			      (prev ? prev->emptied_misses : 0);
	err = delta_counters(out, cur, prev);
	if (err)
		lru_snapshot_free(out);
	return err;
}

void lru_snapshot_free(struct lru_snapshot *s)
{
	void *devs = s->devs;

	dev_table_free(&devs_table, &devs, &s->nr_devs);
	s->devs = NULL;
	devs = s->times;
	dev_table_free(&times_table, &devs, &s->nr_time_devs);
	s->times = NULL;
	free(s->counters);
	s->counters = NULL;
}
