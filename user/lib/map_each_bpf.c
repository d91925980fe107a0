// SPDX-License-Identifier: GPL-2.0
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>

#include "lib/map_each.h"

int map_each_percpu(int fd, size_t value_size, int nr_cpus,
		    int (*fn)(__u32 key, void *values, void *arg),
		    void *arg)
{
	/* per-CPU values are 8-byte aligned in the copy */
	void *values = calloc(nr_cpus, (value_size + 7) & ~(size_t)7);
	__u32 key, next, *prev = NULL;
	int err = 0;

	if (!values)
		return -ENOMEM;
	while (!err && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, values))
			continue;	/* removed meanwhile */
		err = fn(key, values, arg);
	}
	free(values);
	return err;
}
