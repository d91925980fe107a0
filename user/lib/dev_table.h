/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-device table both tracers' snapshots keep (lru_snapshot,
 * jbd2_snapshot): an array of entries, one per device, each with its
 * counters summed over CPUs and per CPU, found and added by kdev, and the
 * interval between two tables. An entry begins with its uint32_t kdev; its
 * counters are structs of u64s only, so they add and subtract as arrays.
 */
#ifndef BHSCOPE_DEV_TABLE_H
#define BHSCOPE_DEV_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* The layout of a tracer's entry (struct lru_dev_snapshot, ...). */
struct dev_table {
	size_t entry;		/* sizeof an entry */
	size_t stats;		/* sizeof its counters struct */
	size_t total;		/* offsetof the counters summed over CPUs */
	size_t cpu;		/* offsetof the pointer to nr_cpus of them */
};

/* dst += src and dst = cur - prev (prev NULL: cur), bytes of u64s. */
void dev_table_u64_add(void *dst, const void *src, size_t bytes);
void dev_table_u64_sub(void *dst, const void *cur, const void *prev,
		       size_t bytes);

/* kdev's entry among the nr of devs, or NULL. */
void *dev_table_find(const struct dev_table *t, const void *devs, int nr,
		     uint32_t kdev);

/*
 * Adds counters to kdev's entry (made, zero, when *devs has none): one
 * CPU's (cpu >= 0), or nr_cpus of them in a row (cpu < 0). 0 or -ENOMEM.
 */
int dev_table_add(const struct dev_table *t, void **devs, int *nr,
		  int nr_cpus, uint32_t kdev, int cpu, const void *v);

/*
 * *out = every entry of cur minus its counters in prev (NULL, or a device
 * new since: from zero), its other members as cur's; sorted by kdev.
 * 0 or -ENOMEM (*out then freed).
 */
int dev_table_delta(const struct dev_table *t, void **out, int *out_nr,
		    const void *cur, int cur_nr, const void *prev,
		    int prev_nr, int nr_cpus);

/* Frees the entries and their per-CPU arrays; *devs NULL, *nr 0. */
void dev_table_free(const struct dev_table *t, void **devs, int *nr);

#endif /* BHSCOPE_DEV_TABLE_H */
