// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dev_table.h"

void dev_table_u64_add(void *dst, const void *src, size_t bytes)
{
	uint64_t *d = dst;
	const uint64_t *s = src;

	for (size_t i = 0; i < bytes / sizeof(*d); i++)
		d[i] += s[i];
}

void dev_table_u64_sub(void *dst, const void *cur, const void *prev,
		       size_t bytes)
{
	uint64_t *d = dst;
	const uint64_t *c = cur, *p = prev;

	for (size_t i = 0; i < bytes / sizeof(*d); i++)
		d[i] = c[i] - (p ? p[i] : 0);
}

static char *entry(const struct dev_table *t, const void *devs, int i)
{
	return (char *)devs + (size_t)i * t->entry;
}

static uint32_t kdev_of(const void *e)
{
	return *(const uint32_t *)e;
}

static char *cpu_of(const struct dev_table *t, const void *e)
{
	return *(char *const *)((const char *)e + t->cpu);
}

void *dev_table_find(const struct dev_table *t, const void *devs, int nr,
		     uint32_t kdev)
{
	for (int i = 0; i < nr; i++)
		if (kdev_of(entry(t, devs, i)) == kdev)
			return entry(t, devs, i);
	return NULL;
}

/* kdev's entry, added empty when the table has none yet. */
static char *get(const struct dev_table *t, void **devs, int *nr,
		 int nr_cpus, uint32_t kdev)
{
	char *e = dev_table_find(t, *devs, *nr, kdev), *more, *cpu;

	if (e)
		return e;
	more = realloc(*devs, (size_t)(*nr + 1) * t->entry);
	if (!more)
		return NULL;
	*devs = more;
	e = entry(t, more, *nr);
	memset(e, 0, t->entry);
	cpu = calloc(nr_cpus, t->stats);
	if (!cpu)
		return NULL;
	memcpy(e, &kdev, sizeof(kdev));
	memcpy(e + t->cpu, &cpu, sizeof(cpu));
	(*nr)++;
	return e;
}

int dev_table_add(const struct dev_table *t, void **devs, int *nr,
		  int nr_cpus, uint32_t kdev, int cpu, const void *v)
{
	char *e = get(t, devs, nr, nr_cpus, kdev);

	if (!e)
		return -ENOMEM;
	for (int c = cpu < 0 ? 0 : cpu; c < (cpu < 0 ? nr_cpus : cpu + 1); c++) {
		const char *one = (const char *)v + (cpu < 0 ? c : 0) * t->stats;

		dev_table_u64_add(cpu_of(t, e) + c * t->stats, one, t->stats);
		dev_table_u64_add(e + t->total, one, t->stats);
	}
	return 0;
}

static int by_kdev(const void *a, const void *b)
{
	uint32_t x = kdev_of(a), y = kdev_of(b);

	return (x > y) - (x < y);
}

int dev_table_delta(const struct dev_table *t, void **out, int *out_nr,
		    const void *cur, int cur_nr, const void *prev,
		    int prev_nr, int nr_cpus)
{
	*out = NULL;
	*out_nr = 0;
	for (int i = 0; i < cur_nr; i++) {
		const char *c = entry(t, cur, i);
		const char *p = prev ? dev_table_find(t, prev, prev_nr,
						      kdev_of(c)) : NULL;
		char *d = get(t, out, out_nr, nr_cpus, kdev_of(c)), *cpu;

		if (!d) {
			dev_table_free(t, out, out_nr);
			return -ENOMEM;
		}
		/* cur's other members (a journal's EWMA), then the counters */
		cpu = cpu_of(t, d);
		memcpy(d, c, t->entry);
		memcpy(d + t->cpu, &cpu, sizeof(cpu));
		memset(d + t->total, 0, t->stats);
		for (int k = 0; k < nr_cpus; k++) {
			char *dk = cpu + k * t->stats;

			dev_table_u64_sub(dk, cpu_of(t, c) + k * t->stats,
					  p ? cpu_of(t, p) + k * t->stats : NULL,
					  t->stats);
			dev_table_u64_add(d + t->total, dk, t->stats);
		}
	}
	if (*out_nr)	/* *out is NULL then: qsort's is nonnull */
		qsort(*out, *out_nr, t->entry, by_kdev);
	return 0;
}

void dev_table_free(const struct dev_table *t, void **devs, int *nr)
{
	for (int i = 0; i < *nr; i++)
		free(cpu_of(t, entry(t, *devs, i)));
	free(*devs);
	*devs = NULL;
	*nr = 0;
}
