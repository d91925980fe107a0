/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Walking a per-CPU hash map keyed by a kernel dev_t (the tracers'
 * overflow maps): every key's values, one per possible CPU.
 */
#ifndef BHSCOPE_MAP_EACH_H
#define BHSCOPE_MAP_EACH_H

#include <linux/types.h>
#include <stddef.h>

/*
 * Calls fn(key, values, arg) for each key of the map at fd, values being
 * nr_cpus values of value_size bytes (a key removed meanwhile is
 * skipped). Stops at fn's first non-zero return, which it returns; 0
 * after the last key, -ENOMEM if it cannot allocate.
 */
int map_each_percpu(int fd, size_t value_size, int nr_cpus,
		    int (*fn)(__u32 key, void *values, void *arg),
		    void *arg);

#endif /* BHSCOPE_MAP_EACH_H */
